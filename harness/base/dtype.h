/* dtype.h: the value types a run judges values in, and the pair layouts,
 * by name. */
#ifndef PECHECK_DTYPE_H
#define PECHECK_DTYPE_H

/* --dtype: the storage (or working) type of the values */
enum pc_dtype { PC_DT_F32 = 0, PC_DT_BF16, PC_DT_F16, PC_DT_F64 };

const char *pc_dtype_name(int dtype);   /* "f32", ...; "?" for another */
/* 0 "interleaved", 1 "half", anything else "default" */
const char *pc_layout_name(int layout);

#endif

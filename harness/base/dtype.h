/* dtype.h: the value types a run judges values in, and the pair layouts,
 * by name. */
#ifndef PECHECK_DTYPE_H
#define PECHECK_DTYPE_H

#include <stddef.h>

/* --dtype: the storage (or working) type of the values */
enum pc_dtype { PC_DT_F32 = 0, PC_DT_BF16, PC_DT_F16, PC_DT_F64 };

const char *pc_dtype_name(int dtype);   /* "f32", ...; "?" for another */
/* The dtype named NAME, or -1: its short name (f32, bf16, f16, f64) or a
 * name people use for it in PyTorch and numpy (float32, fp32, float;
 * bfloat16; float16, fp16, half; float64, fp64, double), so that what a
 * model's config or code says is taken as it is. */
int pc_dtype_parse(const char *name);
/* The K-th name pc_dtype_parse takes (for suggestions), NULL past the last. */
const char *pc_dtype_alias(size_t k);
/* 0 "interleaved", 1 "half", anything else "default" */
const char *pc_layout_name(int layout);

#endif

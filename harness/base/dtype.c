/* dtype.c: value types and layouts by name (dtype.h). */
#include "dtype.h"

const char *pc_dtype_name(int dtype)
{
    static const char *const names[] = { "f32", "bf16", "f16", "f64" };
    return dtype >= 0 && dtype < 4 ? names[dtype] : "?";
}

const char *pc_layout_name(int layout)
{
    return layout == 0 ? "interleaved" : layout == 1 ? "half" : "default";
}

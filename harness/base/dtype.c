/* dtype.c: value types and layouts by name (dtype.h). */
#include <string.h>
#include "dtype.h"

/* Each dtype's names: torch.float32 / torch.float, torch.bfloat16,
 * torch.float16 / torch.half, torch.float64 / torch.double; numpy's
 * float32, float16, float64; "fp32", "fp16" as training configs write them. */
static const struct { const char *name; int dtype; } aliases[] = {
    { "f32", PC_DT_F32 },  { "float32", PC_DT_F32 }, { "fp32", PC_DT_F32 }, { "float", PC_DT_F32 },
    { "bf16", PC_DT_BF16 }, { "bfloat16", PC_DT_BF16 },
    { "f16", PC_DT_F16 },  { "float16", PC_DT_F16 }, { "fp16", PC_DT_F16 }, { "half", PC_DT_F16 },
    { "f64", PC_DT_F64 },  { "float64", PC_DT_F64 }, { "fp64", PC_DT_F64 }, { "double", PC_DT_F64 },
};

#define N_ALIASES (sizeof aliases / sizeof aliases[0])

int pc_dtype_parse(const char *name)
{
    for (size_t k = 0; k < N_ALIASES; k++)
        if (!strcmp(aliases[k].name, name)) return aliases[k].dtype;
    return -1;
}

const char *pc_dtype_alias(size_t k)
{
    return k < N_ALIASES ? aliases[k].name : NULL;
}

const char *pc_dtype_name(int dtype)
{
    static const char *const names[] = { "f32", "bf16", "f16", "f64" };
    return dtype >= 0 && dtype < 4 ? names[dtype] : "?";
}

const char *pc_layout_name(int layout)
{
    return layout == 0 ? "interleaved" : layout == 1 ? "half" : "default";
}

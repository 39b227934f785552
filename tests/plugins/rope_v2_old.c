/* rope_v2_old: built against an older header whose pecheck_rope_args ended
 * at attention_factor (no schedule members): this pecheck's struct is
 * larger, and the plugin reads only the members it knows (it must pass). */
#define ROPE_V2_ENTRY kernel_v2
#define NO_AXES /* nor the position axes appended later */
#include "rope_v2.h"

typedef struct old_args {      /* the older header's struct: a prefix of today's */
    size_t size;
    const int64_t *pos;
    size_t n_tokens;
    int heads, head_dim, rotary_dim, layout;
    int64_t stride_token, stride_head;
    int dtype_in, dtype_out;
    const void *x;
    void *out;
    const double *freqs;
    double attention_factor;
} old_args;

int pecheck_rope_v2(const pecheck_rope_args *p)
{
    const old_args *o = (const old_args *)(const void *)p;
    if (!PECHECK_ARGS_HAS(o, old_args, attention_factor)) return PECHECK_V2_ARGS_TOO_SMALL;
    /* the kernel reads no member past attention_factor */
    return kernel_v2(p);
}

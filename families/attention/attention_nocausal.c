/* attention-nocausal (known bad): attention-f32 that ignores the causal
 * flag: every query sees every key even when a causal mask is requested
 * (a dropped `is_causal=True` or a mask applied to the wrong tensor). */
#include "impl/common.h"

extern const pc_impl pc_impl_attention_f32;

static int run(void *ctx, size_t n, int d, const float *x, const float *wq,
               const float *wk, const float *wv, int causal, float *out)
{
    (void)ctx;
    (void)causal; /* the flaw: attention-f32 called with causal 0 whatever the caller asks */
    return pc_impl_attention_f32.attention(NULL, n, d, x, wq, wk, wv, 0, out);
}

const pc_impl pc_impl_attention_nocausal = {
    .name = "attention-nocausal",
    .description = "KNOWN BAD: attention-f32 that ignores the causal flag",
    .family_hint = "attention",
    .flaw = "the causal flag is ignored: future keys are visible",
    .attention = run,
};

/* alibi-pow2 (known bad): alibi-paper with one flaw, the slopes computed
 * with the power-of-two rule for every head count, 2^(-8(h+1)/H), as ports
 * that copy only get_slopes_power_of_2 do.  Right for H = 1, 2, 4, 8, ...;
 * for H = 12 the slopes are 2^(-2/3), 2^(-4/3), ... instead of 1/2 .. 1/256
 * followed by 2^(-1/2), 2^(-3/2), 2^(-5/2), 2^(-7/2).  The flaw is
 * PC_ALIBI_POW2_ONLY, the line of alibi_paper.c marked "flaw: alibi-pow2";
 * the bias is the paper's with these slopes. */
#include "alibi_paper.h"
#include "harness/sandbox/impl.h"

static int run_slopes(void *ctx, int heads, float *out)
{
    (void)ctx;
    return pc_alibi_slopes(heads, out, PC_ALIBI_POW2_ONLY);
}

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    (void)ctx;
    return pc_alibi_bias(heads, qpos, nq, kpos, nk, causal, out, PC_ALIBI_POW2_ONLY);
}

const pc_impl pc_impl_alibi_pow2 = {
    .name = "alibi-pow2",
    .description = "KNOWN BAD: ALiBi slopes 2^(-8h/H) for every H (power-of-two rule only)",
    .family_hint = "alibi",
    .flaw = "non-power-of-two head counts use 2^(-8h/H) instead of the paper's interleaved rule",
    .alibi_slopes = run_slopes,
    .alibi_bias = run_bias,
};

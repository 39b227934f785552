/* alibi-pow2 (known bad): ALiBi slopes computed with the power-of-two rule
 * for every head count, 2^(-8(h+1)/H), as ports that copy only
 * get_slopes_power_of_2 do.  Right for H = 1, 2, 4, 8, ...; for H = 12 the
 * slopes are 2^(-2/3), 2^(-4/3), ... instead of 1/2 .. 1/256 followed by
 * 2^(-1/2), 2^(-3/2), 2^(-5/2), 2^(-7/2). */
#include "impl/relative_common.h"

static int run_slopes(void *ctx, int heads, float *out)
{
    (void)ctx;
    if (heads < 1 || heads > 4096) return 1;
    double start = pow(2.0, -pow(2.0, -(log2((double)heads) - 3.0)));
    for (int h = 0; h < heads; h++)
        out[h] = (float)(start * pow(start, (double)h));
    return 0;
}

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    float *s = malloc((heads > 0 ? (size_t)heads : 1) * sizeof *s);
    if (!s) return 2;
    int rc = run_slopes(ctx, heads, s);
    if (rc == 0)
        pc_rel_alibi_bias(s, heads, qpos, nq, kpos, nk, causal, out);
    free(s);
    return rc;
}

const pc_impl pc_impl_alibi_pow2 = {
    .name = "alibi-pow2",
    .description = "KNOWN BAD: ALiBi slopes 2^(-8h/H) for every H (power-of-two rule only)",
    .family_hint = "alibi",
    .flaw = "non-power-of-two head counts use 2^(-8h/H) instead of the paper's interleaved rule",
    .alibi_slopes = run_slopes,
    .alibi_bias = run_bias,
};

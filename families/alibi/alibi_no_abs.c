/* alibi-no-abs (known bad): the bias is -m_h (j - i), without the
 * absolute value: right for keys after the query, but keys before it get a
 * positive bias that grows with the distance, so far-away tokens are
 * favoured instead of penalised (an encoder port of the causal formula,
 * where j - i <= 0 hides the sign).  Slopes are alibi-paper's. */
#include "impl/relative_common.h"

#include "alibi_paper.h"

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    if (heads < 1 || heads > 4096) return 1;
    float *s = malloc((size_t)heads * sizeof *s);
    int rc = s ? pc_alibi_paper_slopes(ctx, heads, s) : 2;
    for (int h = 0; rc == 0 && h < heads; h++)
        for (size_t r = 0; r < nq; r++)
            for (size_t c = 0; c < nk; c++) {
                size_t o = ((size_t)h * nq + r) * nk + c;
                if (causal && kpos[c] > qpos[r]) { out[o] = -INFINITY; continue; }
                float signed_dist = kpos[c] >= qpos[r] ? (float)pc_rel_absdiff(kpos[c], qpos[r])
                                                       : -(float)pc_rel_absdiff(kpos[c], qpos[r]);
                out[o] = -(s[h] * signed_dist); /* the bug: j - i, not |j - i| */
            }
    free(s);
    return rc;
}

const pc_impl pc_impl_alibi_no_abs = {
    .name = "alibi-no-abs",
    .description = "KNOWN BAD: ALiBi bias -m(j - i) without the absolute value",
    .family_hint = "alibi",
    .flaw = "the bias is -m (j - i): keys before the query get a positive bias growing with the "
            "distance",
    .alibi_slopes = pc_alibi_paper_slopes,
    .alibi_bias = run_bias,
};

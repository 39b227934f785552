/* alibi-cache-offset (known bad): the bias takes the query's index in the
 * batch (0, 1, ...) as its position instead of its absolute position: a
 * bias matrix built for positions 0..n-1 and sliced from its top-left
 * corner while decoding with a cache, where the query sits at position
 * past_length.  Slopes are alibi-paper's. */
#include "impl/relative_common.h"

#include "alibi_paper.h"

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    (void)qpos; /* the bug: the query index stands in for qpos[r] */
    if (heads < 1 || heads > 4096 || nq > ((size_t)1 << 32)) return 1;
    float *s = malloc((size_t)heads * sizeof *s);
    int64_t *idx = malloc((nq ? nq : 1) * sizeof *idx);
    int rc = s && idx ? pc_alibi_paper_slopes(ctx, heads, s) : 2;
    if (rc == 0) {
        for (size_t r = 0; r < nq; r++) idx[r] = (int64_t)r;
        pc_rel_alibi_bias(s, heads, idx, nq, kpos, nk, causal, out);
    }
    free(s);
    free(idx);
    return rc;
}

const pc_impl pc_impl_alibi_cache_offset = {
    .name = "alibi-cache-offset",
    .description = "KNOWN BAD: ALiBi bias with the query's batch index as its position (a cache's offset lost)",
    .family_hint = "alibi",
    .flaw = "the bias uses the query's index in the batch, not its position: shifted positions "
            "(decoding with a cache) change the bias",
    .alibi_slopes = pc_alibi_paper_slopes,
    .alibi_bias = run_bias,
};

/* alibi-cache-offset (known bad): alibi-paper with one flaw, the bias takes
 * the query's index in the batch (0, 1, ...) as its position instead of its
 * absolute position: a bias matrix built for positions 0..n-1 and sliced
 * from its top-left corner while decoding with a cache, where the query
 * sits at position past_length.  Slopes are alibi-paper's.  The flaw is
 * PC_ALIBI_QUERY_INDEX, the line of alibi_paper.c marked
 * "flaw: alibi-cache-offset". */
#include "alibi_paper.h"
#include "harness/sandbox/impl.h"

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    (void)ctx;
    return pc_alibi_bias(heads, qpos, nq, kpos, nk, causal, out, PC_ALIBI_QUERY_INDEX);
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

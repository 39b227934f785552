/* t5-bias-cache (known bad): t5-hf's bias with one flaw, the bias takes the
 * query's index in the batch (0, 1, ...) as its position instead of its
 * absolute position: the bug of a decoder that builds the relative
 * positions from arange(query_length) while it decodes with a cache (the
 * query is at position past_length, not 0).  Buckets are t5-hf's; only the
 * bias is wrong, and only when the queries do not start at position 0.  The
 * flaw is PC_T5_QUERY_INDEX, the line of t5_hf.c marked
 * "flaw: t5-bias-cache". */
#include "t5_hf.h"
#include "harness/sandbox/impl.h"

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    return pc_t5_hf_buckets(rel, n, bidirectional, num_buckets, max_distance, out,
                            PC_T5_NO_FLAW);
}

static int run_bias(void *ctx, const float *emb, int heads, int bidirectional,
                    int num_buckets, int max_distance, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, float *out)
{
    (void)ctx;
    return pc_t5_hf_bias(emb, heads, bidirectional, num_buckets, max_distance, qpos, nq, kpos,
                         nk, out, PC_T5_QUERY_INDEX);
}

const pc_impl pc_impl_t5_bias_cache = {
    .name = "t5-bias-cache",
    .description = "KNOWN BAD: T5 bias with the query's batch index as its position (decoding with a cache)",
    .family_hint = "t5",
    .flaw = "the bias uses the query's index in the batch, not its position: shifted positions "
            "(a decoder's cache) change the bias",
    .t5_bucket = run_bucket,
    .t5_bias = run_bias,
};

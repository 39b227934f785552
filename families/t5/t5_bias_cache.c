/* t5-bias-cache (known bad): the bias takes the query's index in the batch
 * (0, 1, ...) as its position instead of its absolute position: the bug of
 * a decoder that builds the relative positions from arange(query_length)
 * while it decodes with a cache (the query is at position past_length, not
 * 0).  Buckets are t5-hf's; only the bias is wrong, and only when the
 * queries do not start at position 0. */
#include "impl/relative_common.h"

extern const pc_impl pc_impl_t5_hf;

static int run_bias(void *ctx, const float *emb, int heads, int bidirectional,
                    int num_buckets, int max_distance, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, float *out)
{
    (void)ctx;
    (void)qpos; /* the bug: the query index stands in for qpos[r] */
    if (heads < 1) return 1;
    for (size_t r = 0; r < nq; r++)
        for (size_t c = 0; c < nk; c++) {
            if (kpos[c] < INT64_MIN + (int64_t)nq) return 1; /* no overflow below */
            int64_t rel = kpos[c] - (int64_t)r;
            int32_t b;
            int rc = pc_impl_t5_hf.t5_bucket(NULL, &rel, 1, bidirectional, num_buckets,
                                             max_distance, &b);
            if (rc) return rc;
            if (b < 0 || b >= num_buckets) return 2;
            for (int h = 0; h < heads; h++)
                out[((size_t)h * nq + r) * nk + c] = emb[(size_t)b * (size_t)heads + (size_t)h];
        }
    return 0;
}

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    return pc_impl_t5_hf.t5_bucket(ctx, rel, n, bidirectional, num_buckets, max_distance, out);
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

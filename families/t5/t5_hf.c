/* t5-hf: T5's relative_position_bucket exactly as HF transformers writes it
 * (T5Attention._relative_position_bucket), in binary32:
 *   max_exact + (log(rel.float() / max_exact) / math.log(max_distance /
 *   max_exact) * (num_buckets - max_exact)).to(torch.long)
 * The log term is float32 (the Python double math.log(...) is cast to
 * float32 by the tensor division); .to(long) truncates. */
#include "impl/relative_common.h"

static int32_t bucket(int64_t rel, int bidirectional, int num_buckets, int max_distance)
{
    int32_t rb = 0;
    int nb = num_buckets;
    uint64_t n;
    if (bidirectional) {
        nb /= 2;
        if (rel > 0) rb += nb;
        n = pc_rel_absdiff(rel, 0);
    } else {
        n = rel < 0 ? pc_rel_absdiff(rel, 0) : 0;
    }
    int me = nb / 2;
    if (n < (uint64_t)me)
        return rb + (int32_t)n;
    float x = logf((float)n / (float)me) / (float)log((double)max_distance / me)
              * (float)(nb - me);
    /* clamp before the conversion (torch.min after .to(long) gives the same
     * for finite x; this keeps a huge x defined in C) */
    int64_t large = x >= (float)nb ? nb - 1 : me + (int64_t)x;
    if (large > nb - 1) large = nb - 1;
    return rb + (int32_t)large;
}

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    return pc_rel_t5_buckets(bucket, rel, n, bidirectional, num_buckets, max_distance, out);
}

static int run_bias(void *ctx, const float *emb, int heads, int bidirectional,
                    int num_buckets, int max_distance, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, float *out)
{
    (void)ctx;
    return pc_rel_t5_bias(bucket, emb, heads, bidirectional, num_buckets, max_distance,
                          qpos, nq, kpos, nk, out);
}

const pc_impl pc_impl_t5_hf = {
    .name = "t5-hf",
    .description = "T5 relative-position buckets as HF transformers computes them (binary32 log)",
    .family_hint = "t5",
    .expect_pass = 1,
    .t5_bucket = run_bucket,
    .t5_bias = run_bias,
};

/* t5-round (known bad): the T5 bucket's logarithmic term is ROUNDED to
 * nearest instead of truncated (int(x + 0.5) where HF writes .to(long)):
 * every distance in the upper half of a log bin gets the next bucket, one
 * too high.  Exact small buckets and saturation are untouched, so only a
 * comparison with the exact buckets sees it. */
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
    int64_t large = x >= (float)nb ? nb - 1 : me + (int64_t)(x + 0.5f); /* the bug */
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

const pc_impl pc_impl_t5_round = {
    .name = "t5-round",
    .description = "KNOWN BAD: T5 log bucket rounded to nearest, not truncated (one too high)",
    .family_hint = "t5",
    .flaw = "the logarithmic bucket term is rounded (int(x + 0.5)) instead of truncated",
    .t5_bucket = run_bucket,
    .t5_bias = run_bias,
};

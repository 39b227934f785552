/* t5-max-exact (known bad): in the bidirectional case max_exact is taken
 * from num_buckets BEFORE it is halved (num_buckets / 2 instead of
 * num_buckets / 4): distances up to nb - 1 get "exact" buckets and the
 * logarithmic range collapses into the last bucket.  The causal variant is
 * right, so only the bidirectional cases catch it. */
#include "impl/relative_common.h"

static int32_t bucket(int64_t rel, int bidirectional, int num_buckets, int max_distance)
{
    int32_t rb = 0;
    int nb = num_buckets;
    int me = nb / 2;               /* the bug: computed before the halving */
    uint64_t n;
    if (bidirectional) {
        nb /= 2;
        if (rel > 0) rb += nb;
        n = pc_rel_absdiff(rel, 0);
    } else {
        n = rel < 0 ? pc_rel_absdiff(rel, 0) : 0;
    }
    if (n < (uint64_t)me)
        return rb + (int32_t)(n < (uint64_t)nb ? n : (uint64_t)nb - 1);
    float x = logf((float)n / (float)me) / (float)log((double)max_distance / me)
              * (float)(nb - me);
    int64_t large = x >= (float)nb ? nb - 1 : me + (int64_t)x;
    if (large > nb - 1) large = nb - 1;
    if (large < 0) large = 0;
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

const pc_impl pc_impl_t5_max_exact = {
    .name = "t5-max-exact",
    .description = "KNOWN BAD: T5 bidirectional max_exact taken before halving num_buckets",
    .family_hint = "t5",
    .flaw = "max_exact = num_buckets/2 computed before the bidirectional halving",
    .t5_bucket = run_bucket,
    .t5_bias = run_bias,
};

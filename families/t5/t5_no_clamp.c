/* t5-no-clamp (known bad): the logarithmic bucket is not clamped with
 * min(., nb - 1): distances at or beyond max_distance run past the last
 * bucket, into the other side's buckets (bidirectional: |j - i| = 128 reads
 * 16, the first "key after the query" bucket) or out of the table. */
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
    return rb + (int32_t)(me + (int64_t)x); /* the bug: no min(., nb - 1) */
}

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    return pc_rel_t5_buckets(bucket, rel, n, bidirectional, num_buckets, max_distance, out);
}

const pc_impl pc_impl_t5_no_clamp = {
    .name = "t5-no-clamp",
    .description = "KNOWN BAD: T5 log bucket not clamped to num_buckets-1 (overflows at max_distance)",
    .family_hint = "t5",
    .flaw = "the min(bucket, nb - 1) clamp is missing: saturated distances overflow",
    .t5_bucket = run_bucket,
};

/* t5-full-buckets (known bad): the bidirectional variant does not halve
 * num_buckets before splitting past and future, so keys after the query
 * read num_buckets + bucket: past the end of the embedding table (HF
 * halves it: "num_buckets //= 2").  The causal variant is unaffected. */
#include "impl/relative_common.h"

static int32_t bucket(int64_t rel, int bidirectional, int num_buckets, int max_distance)
{
    int32_t rb = 0;
    int nb = num_buckets; /* the bug: not halved when bidirectional */
    uint64_t n;
    if (bidirectional) {
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
    int64_t b = me + (int64_t)x;
    return rb + (int32_t)(b < nb - 1 ? b : nb - 1);
}

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    return pc_rel_t5_buckets(bucket, rel, n, bidirectional, num_buckets, max_distance, out);
}

const pc_impl pc_impl_t5_full_buckets = {
    .name = "t5-full-buckets",
    .description = "KNOWN BAD: T5 bidirectional buckets without halving num_buckets (out of range)",
    .family_hint = "t5",
    .flaw = "num_buckets is not halved for the bidirectional split: keys after the query read "
            "buckets >= num_buckets",
    .t5_bucket = run_bucket,
};

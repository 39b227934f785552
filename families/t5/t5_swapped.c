/* t5-swapped (known bad): the relative position taken as query - key
 * (i - j) instead of key - query (j - i): the sign slip of a port of HF's
 * compute_bias (relative_position = memory_position - context_position).
 * Bidirectional: keys before the query read the "after" half of the
 * buckets; causal: keys after the query get nonzero buckets and every key
 * before it reads 0.  The buckets are otherwise t5-hf's. */
#include "impl/relative_common.h"

extern const pc_impl pc_impl_t5_hf;

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    for (size_t r = 0; r < n; r++) {
        if (rel[r] == INT64_MIN) return 1; /* no int64 negation */
        int64_t swapped = -rel[r];         /* the flaw */
        int rc = pc_impl_t5_hf.t5_bucket(NULL, &swapped, 1, bidirectional, num_buckets,
                                         max_distance, out + r);
        if (rc) return rc;
    }
    return 0;
}

const pc_impl pc_impl_t5_swapped = {
    .name = "t5-swapped",
    .description = "KNOWN BAD: T5 relative position as query - key (the sign of j - i swapped)",
    .family_hint = "t5",
    .flaw = "the relative position is i - j: past and future swap sides, causal future keys "
            "get buckets",
    .t5_bucket = run_bucket,
};

/* t5-no-clamp (known bad): t5-hf with one flaw, the logarithmic bucket not
 * clamped with min(., nb - 1): distances at or beyond max_distance run past
 * the last bucket, into the other side's buckets (bidirectional: |j - i| =
 * 128 reads 16, the first "key after the query" bucket) or out of the
 * table.  The flaw is PC_T5_NO_CLAMP, the line of t5_hf.c marked
 * "flaw: t5-no-clamp". */
#include "t5_hf.h"
#include "harness/sandbox/impl.h"

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    return pc_t5_hf_buckets(rel, n, bidirectional, num_buckets, max_distance, out,
                            PC_T5_NO_CLAMP);
}

const pc_impl pc_impl_t5_no_clamp = {
    .name = "t5-no-clamp",
    .description = "KNOWN BAD: T5 log bucket not clamped to num_buckets-1 (overflows at max_distance)",
    .family_hint = "t5",
    .flaw = "the min(bucket, nb - 1) clamp is missing: saturated distances overflow",
    .t5_bucket = run_bucket,
};

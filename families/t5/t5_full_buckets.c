/* t5-full-buckets (known bad): t5-hf with one flaw, the bidirectional
 * variant does not halve num_buckets before splitting past and future, so
 * keys after the query read num_buckets + bucket: past the end of the
 * embedding table (HF halves it: "num_buckets //= 2").  The causal variant
 * is unaffected.  The flaw is PC_T5_UNHALVED, the line of t5_hf.c marked
 * "flaw: t5-full-buckets". */
#include "t5_hf.h"
#include "harness/sandbox/impl.h"

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    return pc_t5_hf_buckets(rel, n, bidirectional, num_buckets, max_distance, out,
                            PC_T5_UNHALVED);
}

const pc_impl pc_impl_t5_full_buckets = {
    .name = "t5-full-buckets",
    .description = "KNOWN BAD: T5 bidirectional buckets without halving num_buckets (out of range)",
    .family_hint = "t5",
    .flaw = "num_buckets is not halved for the bidirectional split: keys after the query read "
            "buckets >= num_buckets",
    .t5_bucket = run_bucket,
};

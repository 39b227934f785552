/* t5-max-exact (known bad): t5-hf with one flaw, in the bidirectional case
 * max_exact taken from num_buckets BEFORE it is halved (num_buckets / 2
 * instead of num_buckets / 4): distances up to nb - 1 get "exact" buckets
 * and the logarithmic range collapses into the last bucket.  The causal
 * variant is right, so only the bidirectional cases catch it.  The flaw is
 * PC_T5_MAX_EXACT_EARLY, the line of t5_hf.c marked "flaw: t5-max-exact". */
#include "t5_hf.h"
#include "harness/sandbox/impl.h"

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    return pc_t5_hf_buckets(rel, n, bidirectional, num_buckets, max_distance, out,
                            PC_T5_MAX_EXACT_EARLY);
}

static int run_bias(void *ctx, const float *emb, int heads, int bidirectional,
                    int num_buckets, int max_distance, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, float *out)
{
    (void)ctx;
    return pc_t5_hf_bias(emb, heads, bidirectional, num_buckets, max_distance, qpos, nq, kpos,
                         nk, out, PC_T5_MAX_EXACT_EARLY);
}

const pc_impl pc_impl_t5_max_exact = {
    .name = "t5-max-exact",
    .description = "KNOWN BAD: T5 bidirectional max_exact taken before halving num_buckets",
    .family_hint = "t5",
    .flaw = "max_exact = num_buckets/2 computed before the bidirectional halving",
    .t5_bucket = run_bucket,
    .t5_bias = run_bias,
};

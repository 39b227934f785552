/* t5-round (known bad): t5-hf with one flaw, the T5 bucket's logarithmic
 * term ROUNDED to nearest instead of truncated (int(x + 0.5) where HF
 * writes .to(long)): every distance in the upper half of a log bin gets the
 * next bucket, one too high.  Exact small buckets and saturation are
 * untouched, so only a comparison with the exact buckets sees it.  The flaw
 * is PC_T5_ROUNDED, the line of t5_hf.c marked "flaw: t5-round". */
#include "t5_hf.h"
#include "harness/sandbox/impl.h"

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    return pc_t5_hf_buckets(rel, n, bidirectional, num_buckets, max_distance, out,
                            PC_T5_ROUNDED);
}

static int run_bias(void *ctx, const float *emb, int heads, int bidirectional,
                    int num_buckets, int max_distance, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, float *out)
{
    (void)ctx;
    return pc_t5_hf_bias(emb, heads, bidirectional, num_buckets, max_distance, qpos, nq, kpos,
                         nk, out, PC_T5_ROUNDED);
}

const pc_impl pc_impl_t5_round = {
    .name = "t5-round",
    .description = "KNOWN BAD: T5 log bucket rounded to nearest, not truncated (one too high)",
    .family_hint = "t5",
    .flaw = "the logarithmic bucket term is rounded (int(x + 0.5)) instead of truncated",
    .t5_bucket = run_bucket,
    .t5_bias = run_bias,
};

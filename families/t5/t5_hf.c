/* t5-hf: T5's relative_position_bucket exactly as HF transformers writes it
 * (T5Attention._relative_position_bucket), in binary32:
 *   max_exact + (log(rel.float() / max_exact) / math.log(max_distance /
 *   max_exact) * (num_buckets - max_exact)).to(torch.long)
 * The log term is float32 (the Python double math.log(...) is cast to
 * float32 by the tensor division); .to(long) truncates.
 * The known-bad T5 built-ins are this code with one flaw (t5_hf.h), each
 * the line marked "flaw:". */
#include "impl/relative_common.h"
#include "t5_hf.h"

/* The parameter checks every T5 built-in does (nonzero: refuse). */
static int params_bad(int bidirectional, int num_buckets, int max_distance)
{
    int nb = bidirectional ? num_buckets / 2 : num_buckets;
    return num_buckets < 1 || nb / 2 < 1 || max_distance <= nb / 2;
}

/* The log term X as a long: .to(torch.long) truncates. */
static int64_t to_long(float x, pc_t5_flaw flaw)
{
    if (flaw == PC_T5_ROUNDED) return (int64_t)(x + 0.5f); /* flaw: t5-round */
    return (int64_t)x;
}

int32_t pc_t5_hf_bucket(int64_t rel, int bidirectional, int num_buckets, int max_distance,
                        pc_t5_flaw flaw)
{
    int32_t rb = 0;
    int nb = num_buckets;
    uint64_t n;
    if (bidirectional) {
        if (flaw != PC_T5_UNHALVED) nb /= 2; /* flaw: t5-full-buckets */
        if (rel > 0) rb += nb;
        n = pc_rel_absdiff(rel, 0);
    } else {
        n = rel < 0 ? pc_rel_absdiff(rel, 0) : 0;
    }
    int me = nb / 2;
    if (flaw == PC_T5_MAX_EXACT_EARLY) me = num_buckets / 2; /* flaw: t5-max-exact */
    if (n < (uint64_t)me)
        return rb + (int32_t)n;
    float x = logf((float)n / (float)me) / (float)log((double)max_distance / me)
              * (float)(nb - me);
    if (flaw == PC_T5_NO_CLAMP) return rb + (int32_t)(me + (int64_t)x); /* flaw: t5-no-clamp */
    /* clamp before the conversion (torch.min after .to(long) gives the same
     * for finite x; this keeps a huge x, and the NaN of a flawed max_exact
     * equal to max_distance, defined in C) */
    if (!(x < (float)nb)) return rb + (int32_t)(nb - 1);
    int64_t large = me + to_long(x, flaw);
    if (large > nb - 1) large = nb - 1;
    return rb + (int32_t)large;
}

int pc_t5_hf_buckets(const int64_t *rel, size_t n, int bidirectional, int num_buckets,
                     int max_distance, int32_t *out, pc_t5_flaw flaw)
{
    if (params_bad(bidirectional, num_buckets, max_distance)) return 1;
    for (size_t r = 0; r < n; r++)
        out[r] = pc_t5_hf_bucket(rel[r], bidirectional, num_buckets, max_distance, flaw);
    return 0;
}

int pc_t5_hf_bias(const float *emb, int heads, int bidirectional, int num_buckets,
                  int max_distance, const int64_t *qpos, size_t nq, const int64_t *kpos,
                  size_t nk, float *out, pc_t5_flaw flaw)
{
    if (heads < 1 || params_bad(bidirectional, num_buckets, max_distance))
        return 1;
    for (size_t r = 0; r < nq; r++)
        for (size_t c = 0; c < nk; c++) {
            int64_t q = flaw == PC_T5_QUERY_INDEX ? (int64_t)r : qpos[r]; /* flaw: t5-bias-cache */
            int32_t b = pc_t5_hf_bucket(kpos[c] - q, bidirectional, num_buckets, max_distance,
                                        flaw);
            if (b < 0 || b >= num_buckets) return 2;
            for (int h = 0; h < heads; h++)
                out[((size_t)h * nq + r) * nk + c] = emb[(size_t)b * (size_t)heads + (size_t)h];
        }
    return 0;
}

static int run_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out)
{
    (void)ctx;
    return pc_t5_hf_buckets(rel, n, bidirectional, num_buckets, max_distance, out,
                            PC_T5_NO_FLAW);
}

static int run_bias(void *ctx, const float *emb, int heads, int bidirectional,
                    int num_buckets, int max_distance, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, float *out)
{
    (void)ctx;
    return pc_t5_hf_bias(emb, heads, bidirectional, num_buckets, max_distance, qpos, nq, kpos,
                         nk, out, PC_T5_NO_FLAW);
}

const pc_impl pc_impl_t5_hf = {
    .name = "t5-hf",
    .description = "T5 relative-position buckets as HF transformers computes them (binary32 log)",
    .family_hint = "t5",
    .expect_pass = 1,
    .t5_bucket = run_bucket,
    .t5_bias = run_bias,
};

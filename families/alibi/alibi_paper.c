/* alibi-paper: ALiBi slopes as the paper's code computes them (Press et
 * al., attention_with_linear_biases, get_slopes), in Python doubles:
 *   start = 2**(-2**-(log2(n) - 3)); slopes = [start * start**i ...]
 * for a power of two n, else the closest power of two C plus the odd
 * members of the rule for 2C; then torch.tensor(...) rounds to binary32.
 * The bias is slope * -|j - i| in binary32.
 * The known-bad ALiBi built-ins are this code with one flaw (alibi_paper.h),
 * each the line marked "flaw:". */
#include "impl/relative_common.h"
#include "alibi_paper.h"

#define F16_MAX 65504.0f       /* largest finite float16 */
#define F16_MIN_EXP (-13)      /* frexp exponent of the smallest normal float16, 2^-14 */

static void pow2_rule(int n, int count, int step, double *out)
{
    /* slopes of the rule for N, indices 0, STEP, 2 STEP, ... (COUNT of them) */
    double start = pow(2.0, -pow(2.0, -(log2((double)n) - 3.0)));
    for (int i = 0; i < count; i++)
        out[i] = start * pow(start, (double)(i * step));
}

int pc_alibi_slopes(int heads, float *out, pc_alibi_flaw flaw)
{
    if (heads < 1 || heads > 4096) return 1;
    double *s = malloc((size_t)heads * sizeof *s);
    if (!s) return 2;
    int c = 1;
    while (2 * c <= heads) c *= 2;
    if (flaw == PC_ALIBI_POW2_ONLY) c = heads; /* flaw: alibi-pow2 */
    pow2_rule(c, c, 1, s);
    if (heads > c)
        pow2_rule(2 * c, heads - c, 2, s + c);  /* get_slopes(2C)[0::2] */
    for (int h = 0; h < heads; h++)
        out[h] = (float)s[h];
    free(s);
    return 0;
}

/* X rounded to float16, nearest-even, in binary32 (exact: 11 bits fit). */
static float round_f16(float x)
{
    if (x == 0.0f || !isfinite(x)) return x;
    if (fabsf(x) >= F16_MAX + 16.0f) return x < 0 ? -INFINITY : INFINITY; /* past the last tie */
    int e;
    (void)frexpf(x, &e);                 /* |x| in [2^(e-1), 2^e) */
    if (e < F16_MIN_EXP) e = F16_MIN_EXP; /* subnormals: a fixed spacing of 2^-24 */
    float scale = ldexpf(1.0f, 11 - e);  /* 11 significant bits above the point */
    return nearbyintf(x * scale) / scale; /* power-of-two scalings are exact */
}

/* The bias of one query and key: RN(slope * |j - i|), negated (the
 * distance is formed in int64, then converted once, as torch does with an
 * integer arange difference). */
static float bias_of(float slope, int64_t q, int64_t k, pc_alibi_flaw flaw)
{
    float dist = (float)pc_rel_absdiff(k, q);
    if (flaw == PC_ALIBI_NO_ABS && k < q) dist = -dist; /* flaw: alibi-no-abs */
    float b = -(slope * dist);
    if (flaw == PC_ALIBI_F16_BIAS) b = round_f16(b);    /* flaw: alibi-f16 */
    return b;
}

/* The position of query R. */
static int64_t query_position(const int64_t *qpos, size_t r, pc_alibi_flaw flaw)
{
    if (flaw == PC_ALIBI_QUERY_INDEX) return (int64_t)r; /* flaw: alibi-cache-offset */
    return qpos[r];
}

int pc_alibi_bias(int heads, const int64_t *qpos, size_t nq, const int64_t *kpos, size_t nk,
                  int causal, float *out, pc_alibi_flaw flaw)
{
    float *s = malloc((heads > 0 ? (size_t)heads : 1) * sizeof *s);
    if (!s) return 2;
    int rc = pc_alibi_slopes(heads, s, flaw);
    for (int h = 0; rc == 0 && h < heads; h++)
        for (size_t r = 0; r < nq; r++) {
            int64_t q = query_position(qpos, r, flaw);
            for (size_t c = 0; c < nk; c++) {
                size_t o = ((size_t)h * nq + r) * nk + c;
                out[o] = causal && kpos[c] > q ? -INFINITY : bias_of(s[h], q, kpos[c], flaw);
            }
        }
    free(s);
    return rc;
}

int pc_alibi_paper_slopes(void *ctx, int heads, float *out)
{
    (void)ctx;
    return pc_alibi_slopes(heads, out, PC_ALIBI_NO_FLAW);
}

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    (void)ctx;
    return pc_alibi_bias(heads, qpos, nq, kpos, nk, causal, out, PC_ALIBI_NO_FLAW);
}

const pc_impl pc_impl_alibi_paper = {
    .name = "alibi-paper",
    .description = "ALiBi slopes as the paper's get_slopes (doubles, then binary32), bias -m|j-i|",
    .family_hint = "alibi",
    .expect_pass = 1,
    .alibi_slopes = pc_alibi_paper_slopes,
    .alibi_bias = run_bias,
};

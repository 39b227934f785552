/* alibi-f16 (known bad): the bias tensor held in float16, as a model cast
 * to half precision builds it: RN_f16(-(m_h * |j - i|)).  The slopes are
 * alibi-paper's.  float16 keeps 11 significant bits, so the bias stops
 * being linear in the distance: at m = 2^-0.5 and |j - i| = 100 the
 * product 70.71 is stored with a spacing of 2^-4. */
#include "impl/relative_common.h"

#include "alibi_paper.h"

extern const pc_impl pc_impl_alibi_paper; /* its bias, then rounded */

#define F16_MAX 65504.0f       /* largest finite float16 */
#define F16_MIN_EXP (-13)      /* frexp exponent of the smallest normal float16, 2^-14 */

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

static int run_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, int causal, float *out)
{
    int rc = pc_impl_alibi_paper.alibi_bias(ctx, heads, qpos, nq, kpos, nk, causal, out);
    if (rc) return rc;
    for (size_t e = 0; e < (size_t)heads * nq * nk; e++)
        out[e] = round_f16(out[e]); /* the bug: the bias stored in float16 */
    return 0;
}

const pc_impl pc_impl_alibi_f16 = {
    .name = "alibi-f16",
    .description = "KNOWN BAD: ALiBi bias stored in float16 (a model cast to half precision)",
    .family_hint = "alibi",
    .flaw = "the bias -m|j - i| is rounded to float16: 11 significant bits, no longer linear "
            "in the distance",
    .alibi_slopes = pc_alibi_paper_slopes,
    .alibi_bias = run_bias,
};

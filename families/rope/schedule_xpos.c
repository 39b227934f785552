/* schedule_xpos.c: xPos (Sun et al. 2022, "A Length-Extrapolatable
 * Transformer"), as torchscale's XPOS computes it (microsoft/torchscale
 * 4d1e0e8, torchscale/component/xpos_relative_position.py): the type's
 * frequencies (XPOS's fixed_pos_embedding: the default 10000^(-2i/d)), and
 * pair i's cos and sin at row pos multiplied by
 *
 *   G_i(pos) = zeta_i^(sign (pos + q0) / B),
 *   zeta_i   = (2i + 0.4 d) / (1.4 d) = (10 i + 2 d) / (7 d),
 *
 * torchscale's `scale` buffer (arange(0, d, 2) + 0.4 d) / (1.4 d) raised to
 * arange(min_pos, max_pos) / scale_base: q0 = min_pos = -(length + offset)
 * // 2, B = scale_base (512), sign -1 for downscale=True (the keys').  The
 * factor is a second certified factor of the reference (reference/
 * schedule.h, pair_scale); its error analysis and the float32 budget are
 * in docs/schedules.md, "xPos". */
#include <math.h>
#include "schedules.h"

/* |w| = |q / B ln zeta_i| at most this: G_i within e^(+-69) < 2^(+-100),
 * inside binary32's range (2^+-126 normal) for every value it scales. */
#define XPOS_W_MAX 69.0
/* ln(1 / zeta_0) = ln 3.5, the largest |ln zeta_i| (zeta_i rises from 2/7
 * to (2.4 d - 2) / (1.4 d) < 12/7 with i) */
#define XPOS_LN_MAX 1.2528

double pc_rope_xpos_log_zeta(int d, int i)
{
    return log((10.0 * i + 2.0 * d) / (7.0 * d));
}

double pc_rope_xpos_scale_d(const pc_rope_params *p, int64_t pos, int i)
{
    double e = (double)(pos + p->xpos_q0) / p->xpos_base;
    return exp((p->xpos_down ? -e : e) * pc_rope_xpos_log_zeta(p->dim, i));
}

/* G_i(pos) into OUT (precision P), relative error < 4 * 2^-P, computed at
 * P2 = P + 16 + k with |q| < 2^k (q = pos + q0, B >= 1 so |q|/B < 2^k):
 *   z = RN(10i + 2d) / (7d): exact numerator, one rounding, 2^-P2;
 *   l = RN(ln z): |l - ln zeta| <= 2^-P2 (1 + 2^-P2) + 2^-P2 |l|;
 *   w = RN(RN(l q) / B): two roundings of 2^-P2 each, so
 *   |w~ - w| <= |q|/B 2^-P2 (1 + 3 |ln zeta|) (1 + 2^-50) < 4.8 |q| 2^-P2
 *           < 4.8 * 2^-(P+16) < 2^-(P+13)   (|ln zeta| <= ln 3.5);
 *   G~ = RN(exp(w~)) = G e^(w~ - w) (1 + eta), |eta| <= 2^-P2:
 *   relative error < 1.01 * 2^-(P+13) + 2^-(P+16) < 2^-(P+12) < 4 * 2^-P. */
static int64_t gcd64(int64_t a, int64_t b)
{
    while (b) { int64_t t = a % b; a = b; b = t; }
    return a;
}

/* G_i(pos) exactly into OUT when it is a binary fraction that fits OUT's
 * precision: the exponent e = s q / B a whole number (B a whole number
 * dividing q), zeta_i = N / D in lowest terms with D a power of two when
 * e > 0 (N when e < 0): G = N^e 2^(-e log2 D), N^e exact at OUT's
 * precision when it fits (MPFR's ternary 0).  1, or 0 (OUT unspecified). */
static int exact_scale(mpfr_ptr out, const pc_rope_params *p, int d, int64_t q, int i)
{
    double b = p->xpos_base;
    if (b != floor(b) || b > 0x1p53 || q % (int64_t)b != 0) return 0;
    int64_t e = (p->xpos_down ? -q : q) / (int64_t)b;
    int64_t n = 10L * i + 2L * d, den = 7L * d, g = gcd64(n, den);
    n /= g;
    den /= g;
    if (e < 0) { int64_t t = n; n = den; den = t; e = -e; }
    if (den & (den - 1)) return 0; /* not a power of two: G is no binary fraction */
    int k = 0;
    while ((den >> k) > 1) k++;
    if (mpfr_ui_pow_ui(out, (unsigned long)n, (unsigned long)e, MPFR_RNDN) != 0) return 0;
    return mpfr_div_2ui(out, out, (unsigned long)(k * e), MPFR_RNDN) == 0;
}

static int pair_scale(mpfr_ptr out, const pc_schedule *s, int d, int64_t pos, int i)
{
    const pc_rope_params *p = s->params;
    int64_t q = pos + p->xpos_q0;
    if (exact_scale(out, p, d, q, i)) return 1;
    uint64_t mag = q < 0 ? (uint64_t)(-(q + 1)) + 1u : (uint64_t)q;
    mpfr_prec_t k = 1;
    while (mag >>= 1) k++;
    mpfr_t w;
    mpfr_init2(w, mpfr_get_prec(out) + 16 + k);
    mpfr_set_si(w, 10L * i + 2L * d, MPFR_RNDN); /* exact: < 2^16 */
    mpfr_div_si(w, w, 7L * d, MPFR_RNDN);
    mpfr_log(w, w, MPFR_RNDN);
    mpfr_mul_si(w, w, (long)(p->xpos_down ? -q : q), MPFR_RNDN);
    mpfr_div_d(w, w, p->xpos_base, MPFR_RNDN);
    mpfr_exp(out, w, MPFR_RNDN);
    mpfr_clear(w);
    return 0;
}

static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    pc_rope_type_kind(s->params)->omega(out, s, d, i);
}

/* torchscale's float32 G, units of u beyond pc_model_radial's 5 (or 7):
 * zeta_i~ = fl(fl(2i + fl(0.4d)) / fl(1.4d)), four roundings: |delta| <=
 * 4.01 u; e = fl(q) / B exact for B a power of two and |q| < 2^24, else
 * one rounding each (|e ln zeta| u <= 1.26 |e| u each); powf of zeta~^e:
 * |e| delta from zeta~, and 1 ulp (2 u) of its own (Sleef's u10 powf,
 * glibc's powf under 1 ulp); cos * G and sin * G: u; downscale's 1 / G: u.
 * |e| <= qmax / B over the run's rows. */
double pc_rope_xpos_r(const pc_rope_params *p)
{
    if (!(p->xpos_base > 0)) return 0.0;
    double e = (double)p->xpos_qmax / p->xpos_base;
    int mant;
    double m = frexp(p->xpos_base, &mant);
    double r = 4.01 * e + 2.0 + 1.0 + (p->xpos_down ? 1.0 : 0.0);
    if (m != 0.5) r += XPOS_LN_MAX * e;                         /* q / B rounded */
    if (p->xpos_qmax >= ((int64_t)1 << 24)) r += XPOS_LN_MAX * e; /* fl(q) */
    return r;
}

pc_status pc_rope_xpos_check(const pc_rope_params *p, pc_err *err)
{
    if (!(p->xpos_base > 0)) return PC_OK;
    if (!isfinite(p->xpos_base) || p->xpos_base < 1.0)
        return pc_seterr(err, PC_EINPUT, "--rope-xpos: the scale base must be a finite number "
                         ">= 1 (torchscale's scale_base, 512), got %g", p->xpos_base);
    if (p->axes)
        return pc_seterr(err, PC_EINPUT, "--rope-xpos with --position-ids: xPos scales the rows "
                         "of consecutive positions (--pos-start), not position ids or "
                         "coordinates; drop --position-ids");
    double w = (double)p->xpos_qmax / p->xpos_base * XPOS_LN_MAX;
    if (w > XPOS_W_MAX)
        return pc_seterr(err, PC_EINPUT, "--rope-xpos %g: |pos + q0| reaches %lld, so the scale "
                         "zeta_0^(q/B) = (2/7)^(%.4g) leaves [2^-100, 2^100] (binary32's range); "
                         "check fewer rows or a larger scale base", p->xpos_base,
                         (long long)p->xpos_qmax, (double)p->xpos_qmax / p->xpos_base);
    return PC_OK;
}

const pc_schedule_kind pc_kind_rope_xpos = {
    "xpos", pc_rope_check, omega, NULL, pc_rope_model_c, NULL, pc_rope_model_r, NULL, NULL,
    pair_scale, NULL
};
const pc_schedule_kind pc_kind_rope_xpos_att = {
    "xpos", pc_rope_check, omega, pc_rope_attention, pc_rope_model_c, NULL, pc_rope_model_r,
    NULL, NULL, pair_scale, NULL
};

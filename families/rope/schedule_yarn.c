/* schedule_yarn.c: YaRN.  HF _compute_yarn_parameters (recent versions,
 * with mscale, mscale_all_dim and truncate):
 *   corr(r) = dim ln(L0 / (2 pi r)) / (2 ln base),  L0 = original length;
 *   low = corr(beta_fast), high = corr(beta_slow), floored and ceiled when
 *   truncate (the default), then low = max(low, 0), high = min(high, dim-1),
 *   high += 0.001 when low == high;
 *   ramp_j = clamp((j - low) / (high - low), 0, 1);
 *   omega_j = base^(-2j/dim) (1 - ramp_j + ramp_j / factor);
 *   A = attention_factor, else mscale(factor, mscale) / mscale(factor,
 *   mscale_all_dim) when both are nonzero, else mscale(factor, 1), with
 *   mscale(s, m) = 1 if s <= 1, else 0.1 m ln(s) + 1 (0.1 the binary64
 *   constant HF's Python uses).
 * Every step is a monotone enclosure (floor, ceil, max, min and clamp of
 * the ends), so no branch is taken on an undecided value: an interval
 * straddling an integer at floor/ceil is wide, and the evaluation rises in
 * precision until it is not (corr(r) is never an integer: L0/(2 pi r) is
 * transcendental). */
#include <math.h>
#include "schedules.h"

static void corr_iv(mpfi_ptr out, const pc_rope_params *p, double beta)
{
    mpfi_t t;
    mpfi_init2(t, mpfi_get_prec(out));
    mpfi_const_pi(out);
    mpfi_mul_d(out, out, beta);
    mpfi_mul_ui(out, out, 2);
    mpfi_d_div(out, p->orig_max, out);
    mpfi_log(out, out);
    mpfi_mul_ui(out, out, (unsigned)p->dim);
    mpfi_set_d(t, p->base);
    mpfi_log(t, t);
    mpfi_mul_ui(t, t, 2);
    mpfi_div(out, out, t);
    mpfi_clear(t);
}

/* F applied to both ends of X (F monotone non-decreasing). */
static void ends(mpfi_ptr x, int (*f)(mpfr_ptr, mpfr_srcptr))
{
    mpfr_t lo, hi;
    mpfr_inits2(mpfi_get_prec(x), lo, hi, (mpfr_ptr)0);
    mpfi_get_left(lo, x);
    mpfi_get_right(hi, x);
    f(lo, lo);
    f(hi, hi);
    mpfi_interv_fr(x, lo, hi);
    mpfr_clears(lo, hi, (mpfr_ptr)0);
}

/* X = min(max(X, LO), HI), end by end (monotone). */
static void clamp(mpfi_ptr x, double lo, double hi)
{
    mpfr_t a, b;
    mpfr_inits2(mpfi_get_prec(x), a, b, (mpfr_ptr)0);
    mpfi_get_left(a, x);
    mpfi_get_right(b, x);
    if (mpfr_cmp_d(a, lo) < 0) mpfr_set_d(a, lo, MPFR_RNDD);
    if (mpfr_cmp_d(b, lo) < 0) mpfr_set_d(b, lo, MPFR_RNDU);
    if (mpfr_cmp_d(a, hi) > 0) mpfr_set_d(a, hi, MPFR_RNDD);
    if (mpfr_cmp_d(b, hi) > 0) mpfr_set_d(b, hi, MPFR_RNDU);
    mpfi_interv_fr(x, a, b);
    mpfr_clears(a, b, (mpfr_ptr)0);
}

static int point_eq(mpfi_srcptr a, mpfi_srcptr b)
{
    mpfr_t al, ar, bl, br;
    mpfr_inits2(mpfi_get_prec(a), al, ar, bl, br, (mpfr_ptr)0);
    mpfi_get_left(al, a); mpfi_get_right(ar, a);
    mpfi_get_left(bl, b); mpfi_get_right(br, b);
    int eq = mpfr_equal_p(al, ar) && mpfr_equal_p(bl, br) && mpfr_equal_p(al, bl);
    mpfr_clears(al, ar, bl, br, (mpfr_ptr)0);
    return eq;
}

/* low and high of the correction range (HF find_correction_range). */
static void range_iv(mpfi_ptr low, mpfi_ptr high, const pc_rope_params *p)
{
    corr_iv(low, p, p->beta_fast);
    corr_iv(high, p, p->beta_slow);
    if (p->truncate) {
        ends(low, mpfr_floor);
        ends(high, mpfr_ceil);
    }
    clamp(low, 0.0, (double)INFINITY);
    clamp(high, -(double)INFINITY, (double)(p->dim - 1));
    if (point_eq(low, high))
        mpfi_add_d(high, high, 0.001); /* HF: "prevent singularity" */
}

static void ramp_iv(mpfi_ptr out, const pc_rope_params *p, int j)
{
    mpfi_t low, high;
    mpfi_init2(low, mpfi_get_prec(out));
    mpfi_init2(high, mpfi_get_prec(out));
    range_iv(low, high, p);
    mpfi_sub(high, high, low);
    mpfi_ui_sub(out, (unsigned long)j, low);
    mpfi_div(out, out, high);
    clamp(out, 0.0, 1.0);
    mpfi_clear(low);
    mpfi_clear(high);
}

static void omega_iv(mpfi_ptr out, const pc_rope_params *p, int i)
{
    mpfi_t r;
    mpfi_init2(r, mpfi_get_prec(out));
    ramp_iv(r, p, i);
    /* 1 - ramp (1 - 1/factor) */
    mpfi_t k;
    mpfi_init2(k, mpfi_get_prec(out));
    mpfi_set_ui(k, 1);
    mpfi_div_d(k, k, p->factor);
    mpfi_ui_sub(k, 1, k);
    mpfi_mul(r, r, k);
    mpfi_ui_sub(r, 1, r);
    pc_iv_geometric(out, p->base, p->dim, i);
    mpfi_mul(out, out, r);
    mpfi_clear(r);
    mpfi_clear(k);
}

static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    (void)d;
    pc_iv_to_mpfr(out, omega_iv, s->params, i);
}

/* mscale(factor, m) as an interval */
static void mscale_iv(mpfi_ptr out, double factor, double m)
{
    if (!(factor > 1.0)) { mpfi_set_ui(out, 1); return; }
    mpfi_set_d(out, factor);
    mpfi_log(out, out);
    mpfi_mul_d(out, out, m);
    mpfi_mul_d(out, out, 0.1);
    mpfi_add_ui(out, out, 1);
}

void pc_rope_att_yarn(mpfi_ptr out, const pc_rope_params *p)
{
    if (p->mscale != 0.0 && p->mscale_all_dim != 0.0) {
        if (p->mscale == p->mscale_all_dim || !(p->factor > 1.0)) { mpfi_set_ui(out, 1); return; }
        mpfi_t b;
        mpfi_init2(b, mpfi_get_prec(out));
        mscale_iv(out, p->factor, p->mscale);
        mscale_iv(b, p->factor, p->mscale_all_dim);
        mpfi_div(out, out, b);
        mpfi_clear(b);
        return;
    }
    mscale_iv(out, p->factor, 1.0);
}

/* The precision model (docs/schedules.md, "yarn"), per pair j, with
 * r_j = (j - low) / (high - low) the interpolation weight in binary64:
 * HF's and vLLM's float32 code (pos_freqs = base ** (arange(0, dim, 2) /
 * dim), extrapolation 1 / pos_freqs, interpolation 1 / (factor pos_freqs),
 * mixed by the ramp; P = pc_rope_c_pow):
 *   r_j <= 0 (extrapolated, weight 1 exactly): P;
 *   r_j >= 1 (interpolated): P + 1 (the product with factor), + 1 where
 *     factor is not a binary32 value;
 *   in the ramp: that + 3 (the two weighted products and the sum; the
 *     interpolation weight's own rounding) + S_j dw/u, the weight's error
 *     dw moving omega by S_j dw relatively, S_j = (1 - 1/f) / (1/f + (1 -
 *     1/f) w_j) with w_j = 1 - r_j the extrapolation weight (<= f - 1);
 *     dw/u = r_j + e_j when the range is truncated (the division's u r_j:
 *     low, high integers), else |low| / (high - low) + 3 r_j + e_j (low and
 *     high - low rounded to binary32, the subtraction, the division), e_j
 *     the rounding of 1 - ramp: exact from ramp 1/2 on (Sterbenz), else
 *     u w_j.  Untruncated, a pair within 2^-16 of an end is in the ramp.
 * llama.cpp's rope_yarn on ggml's cumulative product (G = pc_rope_c_ggml,
 * 3j + X_j + 1), where llama.cpp implements the schedule: its correction
 * dims are always floored and ceiled (ggml_rope_yarn_corr_dims), so only
 * a truncated range: G where r_j <= 0; G + 3 where r_j >= 1 (freq_scale =
 * 1.0f / factor: two roundings and the product); in the ramp G + 6 +
 * (factor - 1) 2 (the mix of the two angles and the ramp's dw = 2u). */
static double yarn_c(const pc_rope_params *p, int j, double lo, double hi)
{
    double f = p->factor, r = ((double)j - lo) / (hi - lo);
    double tol = p->truncate ? 0.0 : 0x1p-16;
    double fac = 1.0 + ((double)(float)f == f ? 0.0 : 1.0), c;
    if (r <= -tol) c = pc_rope_c_pow(p, j);
    else if (r >= 1.0 + tol) c = pc_rope_c_pow(p, j) + fac;
    else {
        double rc = fmin(fmax(r, 0.0), 1.0), w = 1.0 - rc;
        double sens = (1.0 - 1.0 / f) / (1.0 / f + (1.0 - 1.0 / f) * w);
        double e = rc < 0.5 + 0x1p-16 ? w : 0.0; /* fl(1 - ramp) */
        double dw = (p->truncate ? rc : fabs(lo) / (hi - lo) + 3.0 * rc) + e;
        c = pc_rope_c_pow(p, j) + fac + 3.0 + sens * dw;
    }
    if (!p->truncate) return c;
    double g = pc_rope_c_ggml(p, j);
    if (r <= 0.0) return fmax(c, g);
    if (r >= 1.0) return fmax(c, g + 3.0);
    return fmax(c, g + 6.0 + (f - 1.0) * 2.0);
}

pc_status pc_rope_prep_yarn(pc_rope_params *p, pc_err *err)
{
    pc_status st = pc_rope_need_factor(p->factor, "factor", err);
    if (st != PC_OK) return st;
    if (!(p->orig_max >= 1.0) || !isfinite(p->orig_max))
        return pc_seterr(err, PC_EINPUT, "yarn needs original_max_position_embeddings (or "
                         "max_position_embeddings) >= 1");
    if (!(p->beta_fast > 0.0) || !(p->beta_slow > 0.0) || !isfinite(p->beta_fast)
        || !isfinite(p->beta_slow))
        return pc_seterr(err, PC_EINPUT, "yarn: beta_fast and beta_slow must be finite and > 0");
    double cf = p->dim * log(p->orig_max / (p->beta_fast * 2 * M_PI)) / (2 * log(p->base));
    double cs = p->dim * log(p->orig_max / (p->beta_slow * 2 * M_PI)) / (2 * log(p->base));
    double lo = p->truncate ? floor(cf) : cf, hi = p->truncate ? ceil(cs) : cs;
    if (lo < 0) lo = 0;
    if (hi > p->dim - 1) hi = p->dim - 1;
    if (lo == hi) hi += 0.001;
    if (!(hi > lo))
        return pc_seterr(err, PC_EINPUT, "yarn: beta_fast %g and beta_slow %g give an empty "
                         "correction range [%g, %g]", p->beta_fast, p->beta_slow, lo, hi);
    for (int j = 0; j < p->dim / 2; j++) p->model_c[j] = yarn_c(p, j, lo, hi);
    return PC_OK;
}

const pc_schedule_kind pc_kind_rope_yarn = {
    "yarn", pc_rope_check, omega, NULL, pc_rope_model_c, NULL, pc_rope_model_r, NULL, NULL, NULL,
    NULL
};
const pc_schedule_kind pc_kind_rope_yarn_att = {
    "yarn", pc_rope_check, omega, pc_rope_attention, pc_rope_model_c, NULL, pc_rope_model_r,
    NULL, NULL, NULL, NULL
};

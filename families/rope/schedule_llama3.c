/* schedule_llama3.c: Llama 3.1's frequency bands.  HF
 * _compute_llama3_parameters, with g_i = base^(-2i/dim), wavelength
 * wl_i = 2 pi / g_i, L = original_max_position_embeddings,
 * low_wl = L / low_freq_factor, high_wl = L / high_freq_factor:
 *   wl_i > low_wl:  omega_i = g_i / factor;
 *   wl_i < high_wl: omega_i = g_i;
 *   otherwise:      s = (L / wl_i - low_freq_factor) / (high_freq_factor - low_freq_factor),
 *                   omega_i = (1 - s) g_i / factor + s g_i.
 * The three cases are one formula, omega_i = g_i ((1 - s) / factor + s)
 * with s clamped to [0, 1] (s <= 0 exactly when wl_i >= low_wl, s >= 1
 * exactly when wl_i <= high_wl, and both branches agree at the edges), so
 * the certified value needs no band decision: the clamp is applied to the
 * ends of s's interval (monotone).  A = 1.
 *
 * high_freq_factor <= low_freq_factor (Llama 4: both 1) is well defined in
 * HF's code: the band is empty (no wavelength is both >= high_wl and
 * <= low_wl when high_wl >= low_wl, up to the one wavelength equal to
 * both), so omega_i = g_i / factor where wl_i > low_wl, else g_i: s is the
 * step 0 / 1 of the sign of L g_i / (2 pi) - low_freq_factor, decided on
 * the interval (never 0: L / lf is rational, 2 pi / g_i transcendental). */
#include <math.h>
#include "schedules.h"

static void clamp01(mpfi_ptr x)
{
    mpfr_t a, b;
    mpfr_inits2(mpfi_get_prec(x), a, b, (mpfr_ptr)0);
    mpfi_get_left(a, x);
    mpfi_get_right(b, x);
    if (mpfr_sgn(a) < 0) mpfr_set_zero(a, 1);
    if (mpfr_sgn(b) < 0) mpfr_set_zero(b, 1);
    if (mpfr_cmp_ui(a, 1) > 0) mpfr_set_ui(a, 1, MPFR_RNDN);
    if (mpfr_cmp_ui(b, 1) > 0) mpfr_set_ui(b, 1, MPFR_RNDN);
    mpfi_interv_fr(x, a, b);
    mpfr_clears(a, b, (mpfr_ptr)0);
}

/* The empty band's step: 0 where X (= L g / (2 pi) - lf) < 0, 1 where
 * X > 0, [0, 1] while the interval straddles 0 (it narrows as the
 * precision rises). */
static void step01(mpfi_ptr x)
{
    if (mpfi_is_strictly_neg(x)) mpfi_set_ui(x, 0);
    else if (mpfi_is_strictly_pos(x)) mpfi_set_ui(x, 1);
    else mpfi_interv_ui(x, 0, 1);
}

static void omega_iv(mpfi_ptr out, const pc_rope_params *p, int i)
{
    mpfi_t s, t;
    mpfi_init2(s, mpfi_get_prec(out));
    mpfi_init2(t, mpfi_get_prec(out));
    pc_iv_geometric(out, p->base, p->dim, i);
    /* s = (L g / (2 pi) - lf) / (hf - lf) */
    mpfi_const_pi(t);
    mpfi_mul_ui(t, t, 2);
    mpfi_mul_d(s, out, p->orig_max);
    mpfi_div(s, s, t);
    mpfi_sub_d(s, s, p->low_freq_factor);
    if (p->high_freq_factor > p->low_freq_factor) {
        mpfi_set_d(t, p->high_freq_factor);
        mpfi_sub_d(t, t, p->low_freq_factor);
        mpfi_div(s, s, t);
        clamp01(s);
    } else {
        step01(s);
    }
    /* (1 - s) / factor + s = 1/factor + s (1 - 1/factor) */
    mpfi_set_ui(t, 1);
    mpfi_div_d(t, t, p->factor);
    mpfi_ui_sub(t, 1, t);
    mpfi_mul(s, s, t);
    mpfi_set_ui(t, 1);
    mpfi_div_d(t, t, p->factor);
    mpfi_add(s, s, t);
    mpfi_mul(out, out, s);
    mpfi_clear(s);
    mpfi_clear(t);
}

static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    (void)d;
    pc_iv_to_mpfr(out, omega_iv, s->params, i);
}

/* The precision model (docs/schedules.md, "llama3"), per pair i, with P =
 * pc_rope_c_pow (HF's, vLLM's and the converter's float32 frequency: its
 * error E_i = P - 2 before the angle) and g_i = base^(-2i/dim):
 * outside the band P + 1 (wl > low_wl: the division by factor) or P
 * (wl < high_wl).  In the band (and within a relative 2^-10 of its edges,
 * where binary32 may pick the other branch), omega = g (1/f + (1 - 1/f) s),
 * s = (L g / (2 pi) - lf) / (hf - lf) (clamped to [0, 1]):
 *   kappa_i = d ln omega / d ln g = 1 + (1 - 1/f) (L g / (2 pi)) / (hf - lf)
 *             / (1/f + (1 - 1/f) s), which amplifies E_i;
 *   HF computes s with wl = 2 pi / g (2 roundings), L / wl (1), - lf and
 *   / (hf - lf) (one each, relative to s): |ds| <= D_i u, D_i = 3 (L g /
 *   (2 pi)) / (hf - lf) + 2 s, which moves omega by S_i |ds| relatively,
 *   S_i = (1 - 1/f) / (1/f + (1 - 1/f) s) <= f - 1; the combination adds 3:
 *     C = kappa_i E_i + 3 + S_i D_i + 2 (the angle, second-order terms).
 * llama.cpp: rope_freqs factors ff_i computed by convert_hf_to_gguf.py in
 * float32 (1 where wl < high_wl, factor where wl > low_wl, else 1 / ((1 -
 * s)/factor + s) from torch's float32 frequency) and ggml's angle divided
 * by them; with G = pc_rope_c_ggml: G (high), G + 2 (low: the factor's
 * rounding, the division), and in the band
 *   G + (kappa_i - 1) E_i + S_i D_i + 5
 * (1/ff's amplification of the frequency's error, s, the combination's 3,
 * the reciprocal, the division).  C is the larger of the two. */
static double band_c(const pc_rope_params *p, int i, double lf, double hf)
{
    double f = p->factor, g = pow(p->base, -2.0 * i / p->dim);
    double y = p->orig_max * g / (2.0 * M_PI);                 /* L / wl */
    double s = fmin(fmax((y - lf) / (hf - lf), 0.0), 1.0);
    double den = 1.0 / f + (1.0 - 1.0 / f) * s;
    double kappa = 1.0 + (1.0 - 1.0 / f) * y / (hf - lf) / den;
    double sens = (1.0 - 1.0 / f) / den, ds = 3.0 * y / (hf - lf) + 2.0 * s;
    double e = pc_rope_c_pow(p, i) - 2.0;
    double hfc = kappa * e + 3.0 + sens * ds + 2.0;
    double ggml = pc_rope_c_ggml(p, i) + (kappa - 1.0) * e + sens * ds + 5.0;
    return fmax(hfc, ggml);
}

/* The empty band (high_freq_factor <= low_freq_factor): P + 1 where
 * wl > low_wl (the division by factor), P elsewhere.  A pair whose
 * wavelength lies within a relative 2^-10 of low_wl may fall on the other
 * side in binary32 (a factor-sized difference, which no bound covers);
 * docs/schedules.md says so, and the published configs have none there
 * (Llama 4: 8218 against 8192). */
static pc_status prep_step(pc_rope_params *p, double low_wl)
{
    for (int i = 0; i < p->dim / 2; i++) {
        double wl = 2.0 * M_PI * pow(p->base, 2.0 * i / p->dim), g = pc_rope_c_ggml(p, i);
        double c = pc_rope_c_pow(p, i);
        if (wl > low_wl) p->model_c[i] = fmax(c + 1.0, g + 2.0);
        else p->model_c[i] = fmax(c, g);
    }
    return PC_OK;
}

pc_status pc_rope_prep_llama3(pc_rope_params *p, pc_err *err)
{
    pc_status st = pc_rope_need_factor(p->factor, "factor", err);
    if (st != PC_OK) return st;
    double lf = p->low_freq_factor, hf = p->high_freq_factor, L = p->orig_max;
    if (!isfinite(lf) || !isfinite(hf) || !(lf > 0.0) || !(hf > 0.0))
        return pc_seterr(err, PC_EINPUT, "llama3 needs low_freq_factor and high_freq_factor > 0, "
                         "got %g and %g", lf, hf);
    if (!(L >= 1.0) || !isfinite(L))
        return pc_seterr(err, PC_EINPUT, "llama3 needs rope_scaling.original_max_position_embeddings >= 1");
    if (!(hf > lf)) return prep_step(p, L / lf);
    double low_wl = L / lf, high_wl = L / hf, margin = 0x1p-10;
    for (int i = 0; i < p->dim / 2; i++) {
        double wl = 2.0 * M_PI * pow(p->base, 2.0 * i / p->dim), g = pc_rope_c_ggml(p, i);
        double c = pc_rope_c_pow(p, i);
        if (wl > low_wl * (1 + margin)) p->model_c[i] = fmax(c + 1.0, g + 2.0);
        else if (wl < high_wl * (1 - margin)) p->model_c[i] = fmax(c, g);
        else p->model_c[i] = band_c(p, i, lf, hf);
    }
    return PC_OK;
}

const pc_schedule_kind pc_kind_rope_llama3 = {
    "llama3", pc_rope_check, omega, NULL, pc_rope_model_c, NULL, pc_rope_model_r, NULL, NULL,
    NULL, NULL
};

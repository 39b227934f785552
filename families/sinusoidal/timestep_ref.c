/* timestep_ref.c: the certified sin and cos of a timestep's angle,
 * K t omega_i, for a real timestep T (an exact binary64: a float32 or
 * float64 timestep as stored) and an angle scale K (diffusers'
 * get_timestep_embedding `scale`), correctly rounded (docs/sinusoidal.md
 * "Timesteps").
 *
 * Ziv loop at precision P >= 64: w~ = omega_i at precision P + 8 from the
 * schedule (relative error < 4 * 2^-(P+8) = 2^-(P+6)), then
 * theta~ = RN_P(RN_P(w~ t) K) (K = 1: one rounding):
 *   |theta~ - theta| <= |theta| ((1 + 2^-(P+6)) (1 + 2^-P)^2 - 1)
 *                    <  |theta| 2.02 2^-P  <  2^(E(theta~) - P + 2)
 * (|theta~| < 2^E(theta~), |theta| <= |theta~| (1 + 2^-(P-2))); then
 * s~ = RN_P(sin theta~): sin is 1-Lipschitz, so
 *   |s~ - sin theta| <= 2^(E(theta~)-P+2) + 2^(E(s~)-P-1)
 *                    <= 2^(max(E(theta~)-P+2, E(s~)-P-1) + 1), same for cos,
 * handed to pc_round_certified. */
#include <math.h>
#include <mpfr.h>
#include "sin_ident.h"
#include "reference/round.h"

/* One Ziv step: MS, MC (precision P) and their error exponents. */
static void step(const pc_schedule *s, int d, int i, double t, double k, mpfr_prec_t p,
                 mpfr_t ms, mpfr_t mc, mpfr_exp_t *es, mpfr_exp_t *ec)
{
    mpfr_t w, th;
    mpfr_init2(w, p + 8);
    mpfr_init2(th, p);
    s->kind->omega(w, s, d, i);
    mpfr_mul_d(th, w, t, MPFR_RNDN);
    if (k != 1.0) mpfr_mul_d(th, th, k, MPFR_RNDN);
    mpfr_set_prec(ms, p);
    mpfr_set_prec(mc, p);
    mpfr_sin_cos(ms, mc, th, MPFR_RNDN);
    mpfr_exp_t et = mpfr_get_exp(th) - p + 2;
    mpfr_exp_t e_s = mpfr_zero_p(ms) ? et : mpfr_get_exp(ms) - p - 1;
    mpfr_exp_t e_c = mpfr_zero_p(mc) ? et : mpfr_get_exp(mc) - p - 1;
    *es = (et > e_s ? et : e_s) + 1;
    *ec = (et > e_c ? et : e_c) + 1;
    mpfr_clears(w, th, (mpfr_ptr)0);
}

pc_status pc_sin_timestep_ref(const pc_schedule *s, int d, int i, double t, double k,
                              pc_ref2 *sv, pc_ref2 *cv)
{
    if (!isfinite(t) || !isfinite(k)) return PC_EINPUT;
    if (t == 0.0 || k == 0.0) { /* the angle is exactly 0 */
        sv->f32 = 0.0f; sv->f64 = 0.0;
        cv->f32 = 1.0f; cv->f64 = 1.0;
        return PC_OK;
    }
    mpfr_t ms, mc;
    mpfr_inits2(64, ms, mc, (mpfr_ptr)0);
    int have_s = 0, have_c = 0;
    /* 53 result bits, 32 guard bits, and the integer bits of the angle */
    int e;
    frexp(fabs(t * k), &e);
    for (mpfr_prec_t p = 85 + (e > 0 ? e : 0); p <= PC_ZIV_MAX_PREC && !(have_s && have_c);
         p += p / 2) {
        mpfr_exp_t es, ec;
        step(s, d, i, t, k, p, ms, mc, &es, &ec);
        if (!have_s) have_s = pc_round_certified(ms, es, sv);
        if (!have_c) have_c = pc_round_certified(mc, ec, cv);
    }
    mpfr_clears(ms, mc, (mpfr_ptr)0);
    return have_s && have_c ? PC_OK : PC_EINTERNAL;
}

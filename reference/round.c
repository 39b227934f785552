/* round.c: decide a correct rounding from an approximation and its error. */
#include "round.h"

/* Is RN(z) to the float format of PREC bits, whose smallest normal is
 * 2^(EMIN-1) and largest finite below 2^EMAX, determined from Y +- 2^ERR_EXP?
 * Inside the normal range we ask mpfr_can_round; near the edges we round both
 * ends of the enclosure with the format's own conversion. */
static int decide(const mpfr_t y, mpfr_exp_t err_exp, mpfr_prec_t prec,
                  mpfr_exp_t emin, mpfr_exp_t emax, int is_f32,
                  float *o32, double *o64)
{
    if (mpfr_zero_p(y))
        return 0; /* callers handle exact zeros before rounding */
    mpfr_exp_t e = mpfr_get_exp(y);
    /* Margin of 2 binades keeps the whole enclosure inside the normal range
     * whenever the error is below |Y|/4, which can_round requires anyway. */
    if (e > emin + 2 && e < emax - 2) {
        if (!mpfr_can_round(y, e - err_exp, MPFR_RNDN, MPFR_RNDN, prec))
            return 0;
        if (is_f32)
            *o32 = mpfr_get_flt(y, MPFR_RNDN);
        else
            *o64 = mpfr_get_d(y, MPFR_RNDN);
        return 1;
    }
    /* Edge of the range: enclose and round both ends. */
    mpfr_t lo, hi, r;
    mpfr_prec_t p = mpfr_get_prec(y) + 8;
    mpfr_inits2(p, lo, hi, r, (mpfr_ptr)0);
    mpfr_set_ui_2exp(r, 1, err_exp, MPFR_RNDN);
    mpfr_sub(lo, y, r, MPFR_RNDD);
    mpfr_add(hi, y, r, MPFR_RNDU);
    int same;
    if (is_f32) {
        float a = mpfr_get_flt(lo, MPFR_RNDN), b = mpfr_get_flt(hi, MPFR_RNDN);
        union { float f; uint32_t u; } ua = { a }, ub = { b };
        same = ua.u == ub.u;
        if (same) *o32 = a;
    } else {
        double a = mpfr_get_d(lo, MPFR_RNDN), b = mpfr_get_d(hi, MPFR_RNDN);
        union { double f; uint64_t u; } ua = { a }, ub = { b };
        same = ua.u == ub.u;
        if (same) *o64 = a;
    }
    mpfr_clears(lo, hi, r, (mpfr_ptr)0);
    return same;
}

int pc_round_certified(const mpfr_t y, mpfr_exp_t err_exp, pc_ref2 *out)
{
    /* binary32: 24 bits, normal range [2^-126, 2^128) i.e. MPFR exponents
     * -125..128; binary64: 53 bits, exponents -1021..1024. */
    return decide(y, err_exp, 24, -125, 128, 1, &out->f32, NULL)
        && decide(y, err_exp, 53, -1021, 1024, 0, NULL, &out->f64);
}

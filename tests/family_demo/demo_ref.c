/* demo_ref.c: the demo family's certified reference, pos * omega_i
 * correctly rounded to binary32 (a Ziv loop, MPFR's pattern).  At
 * precision P, omega~ has relative error < 4 * 2^-P (schedule.h) and the
 * product one rounding more (2^-P): < 5 * 2^-P < 2^(3-P) in all, so
 * P - 3 bits are correct, which mpfr_can_round is asked about. */
#include "demo.h"
#include "reference/schedule.h"

pc_status pc_demo_ref_angle(pc_schedule s, int d, int i, int64_t pos, float *out)
{
    mpfr_t w;
    mpfr_init2(w, 64);
    pc_status st = PC_EINTERNAL;
    for (mpfr_prec_t p = 64; p <= 4096 && st != PC_OK; p *= 2) {
        mpfr_set_prec(w, p);
        s.kind->omega(w, &s, d, i);
        mpfr_mul_si(w, w, (long)pos, MPFR_RNDN);       /* pos < 2^53: exact as a long */
        /* rounding to nearest determined for every value within the error */
        if (pos == 0 || mpfr_can_round(w, p - 3, MPFR_RNDN, MPFR_RNDN, 24)) {
            *out = mpfr_get_flt(w, MPFR_RNDN);
            st = PC_OK;
        }
    }
    mpfr_clear(w);
    return st;
}

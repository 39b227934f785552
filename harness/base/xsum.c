/* xsum.c: exact binary64 summation (see xsum.h). */
#include <math.h>
#include <string.h>
#include <mpfr.h>
#include "xsum.h"

/* MPFR precision that holds any value of the accumulator exactly:
 * 70 limbs of 32 bits plus sign and carry room. */
#define XSUM_MPFR_PREC (PC_XSUM_LIMBS * 32 + 64)

void pc_xsum_init(pc_xsum *x)
{
    memset(x, 0, sizeof *x);
}

/* Carry-propagate so that limbs 0..N-2 are in [0, 2^32). */
static void normalize(pc_xsum *x)
{
    for (int k = 0; k + 1 < PC_XSUM_LIMBS; k++) {
        int64_t carry = x->limb[k] >> 32; /* floor division (arithmetic shift) */
        x->limb[k] -= carry * ((int64_t)1 << 32);
        x->limb[k + 1] += carry;
    }
    x->adds = 0;
}

void pc_xsum_add(pc_xsum *x, double v)
{
    if (v == 0.0) return;
    if (!isfinite(v)) { x->nonfinite = isnan(v) ? 2 : (x->nonfinite ? x->nonfinite : 1); return; }
    uint64_t b;
    memcpy(&b, &v, sizeof b);
    int neg = (int)(b >> 63);
    int e = (int)((b >> 52) & 0x7ff);
    uint64_t m = b & ((UINT64_C(1) << 52) - 1);
    if (e) m |= UINT64_C(1) << 52; else e = 1;   /* v = m 2^(e - 1075) */
    int pos = e - 1075 + PC_XSUM_BIAS;           /* >= 14 */
    int k = pos / 32, sh = pos % 32;
    __extension__ unsigned __int128 w = (unsigned __int128)m << sh; /* < 2^85 */
    int64_t d0 = (int64_t)(uint32_t)w, d1 = (int64_t)(uint32_t)(w >> 32),
            d2 = (int64_t)(uint32_t)(w >> 64);
    if (neg) { d0 = -d0; d1 = -d1; d2 = -d2; }
    x->limb[k] += d0;
    x->limb[k + 1] += d1;
    x->limb[k + 2] += d2;
    /* each limb moves by < 2^32 per addition: 2^30 additions stay < 2^62 */
    if (++x->adds >= (1 << 30)) normalize(x);
}

void pc_xsum_merge(pc_xsum *x, const pc_xsum *y)
{
    pc_xsum t = *y;
    normalize(&t);
    normalize(x);
    for (int k = 0; k < PC_XSUM_LIMBS; k++) x->limb[k] += t.limb[k];
    if (y->nonfinite > x->nonfinite) x->nonfinite = y->nonfinite;
    normalize(x);
}

/* The exact value in an MPFR number of XSUM_MPFR_PREC bits. */
static void to_mpfr(const pc_xsum *x, mpfr_t r)
{
    pc_xsum t = *x;
    normalize(&t);
    mpfr_t d;
    mpfr_init2(d, 64);
    mpfr_set_ui(r, 0, MPFR_RNDN);
    for (int k = PC_XSUM_LIMBS - 1; k >= 0; k--) {
        if (!t.limb[k]) continue;
        mpfr_set_si_2exp(d, (long)t.limb[k], (mpfr_exp_t)(32 * k - PC_XSUM_BIAS), MPFR_RNDN); /* exact */
        mpfr_add(r, r, d, MPFR_RNDN); /* exact: every partial sum fits the precision */
    }
    mpfr_clear(d);
}

double pc_xsum_value(const pc_xsum *x)
{
    if (x->nonfinite) return x->nonfinite == 2 ? (double)NAN : HUGE_VAL;
    mpfr_t r;
    mpfr_init2(r, XSUM_MPFR_PREC);
    to_mpfr(x, r);
    double v = mpfr_get_d(r, MPFR_RNDN);
    mpfr_clear(r);
    return v;
}

int pc_xsum_expansion(const pc_xsum *x, double *out, int max)
{
    if (x->nonfinite) return -1;
    mpfr_t r;
    mpfr_init2(r, XSUM_MPFR_PREC);
    to_mpfr(x, r);
    int n = 0;
    while (!mpfr_zero_p(r)) {
        if (n >= max) { n = -1; break; }
        double v = mpfr_get_d(r, MPFR_RNDN);
        if (!isfinite(v)) { n = -1; break; } /* beyond binary64 (sum > 2^1024) */
        out[n++] = v;
        mpfr_sub_d(r, r, v, MPFR_RNDN);  /* exact: the remainder fits the precision */
    }
    mpfr_clear(r);
    return n;
}

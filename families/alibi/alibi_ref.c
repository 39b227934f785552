/* alibi_ref.c: exact ALiBi slopes and biases.
 *
 * Every slope of the paper's rule (and of MPT's gen_slopes with its
 * alibi_bias_max in place of the paper's 8) is 2^(-A/B) with A/B rational
 * (B a power of two): a B-th root of the exact power of two 2^-A, which
 * mpfr_rootn_ui rounds correctly in one operation.  The bias -slope*|DIST|
 * is exact when B = 1 (a power of two times an integer) and irrational
 * otherwise (so never a rounding midpoint), decided by a Ziv loop. */
#include <mpfr.h>
#include "reference/relative.h"
#include "reference/round.h"

pc_status pc_alibi_check_heads(int heads, pc_err *err)
{
    if (heads < 1 || heads > PC_ALIBI_HEADS_MAX)
        return pc_seterr(err, PC_EINPUT, "heads must be in [1, %d], got %d",
                         PC_ALIBI_HEADS_MAX, heads);
    return PC_OK;
}

static long gcd_l(long a, long b)
{
    while (b) { long t = a % b; a = b; b = t; }
    return a;
}

pc_status pc_alibi_check_bias_max(int bias_max, pc_err *err)
{
    if (bias_max < 1 || bias_max > PC_ALIBI_BIAS_MAX_MAX)
        return pc_seterr(err, PC_EINPUT, "alibi_bias_max must be in [1, %d], got %d",
                         PC_ALIBI_BIAS_MAX_MAX, bias_max);
    return PC_OK;
}

/* C = 2^floor(log2 HEADS) */
static long pow2_below(int heads)
{
    long c = 1;
    while (2 * c <= heads) c *= 2;
    return c;
}

int pc_alibi_power(int heads, int h)
{
    long c = pow2_below(heads);
    return h < c ? h + 1 : 2 * (int)(h - c) + 1;
}

void pc_alibi_exponent_b(int heads, int bias_max, int h, long *num, long *den)
{
    long c = pow2_below(heads);
    long a, b;
    if (h < c) {                            /* 2^(-B(h+1)/C) */
        a = (long)bias_max * (h + 1);
        b = c;
    } else {                                /* rule for 2C at 0-based index 2m: */
        long m = h - c;                     /* 2^(-B(2m+1)/(2C)) */
        a = (long)bias_max * (2 * m + 1);
        b = 2 * c;
    }
    long g = gcd_l(a, b);
    *num = a / g;
    *den = b / g;
}

void pc_alibi_exponent(int heads, int h, long *num, long *den)
{
    pc_alibi_exponent_b(heads, PC_ALIBI_PAPER_BIAS_MAX, h, num, den);
}

pc_status pc_ref_alibi_slope(int heads, int h, pc_ref2 *out)
{
    return pc_ref_alibi_slope_b(heads, PC_ALIBI_PAPER_BIAS_MAX, h, out);
}

pc_status pc_ref_alibi_bias(int heads, int h, int64_t dist, pc_ref2 *out)
{
    return pc_ref_alibi_bias_b(heads, PC_ALIBI_PAPER_BIAS_MAX, h, dist, out);
}

pc_status pc_ref_alibi_slope_b(int heads, int bias_max, int h, pc_ref2 *out)
{
    if (pc_alibi_check_heads(heads, NULL) != PC_OK || h < 0 || h >= heads ||
        pc_alibi_check_bias_max(bias_max, NULL) != PC_OK)
        return PC_EINPUT;
    long a, b;
    pc_alibi_exponent_b(heads, bias_max, h, &a, &b);
    mpfr_t x, y;
    mpfr_init2(x, 8);
    mpfr_set_ui_2exp(x, 1, -a, MPFR_RNDN);          /* 2^-A, exact */
    mpfr_init2(y, 24);
    mpfr_rootn_ui(y, x, (unsigned long)b, MPFR_RNDN); /* RN_24 in one step */
    out->f32 = mpfr_get_flt(y, MPFR_RNDN);          /* exact: y has 24 bits, */
    mpfr_set_prec(y, 53);                           /* 2^-B <= y < 1 (normal, B <= 64) */
    mpfr_rootn_ui(y, x, (unsigned long)b, MPFR_RNDN);
    out->f64 = mpfr_get_d(y, MPFR_RNDN);
    mpfr_clears(x, y, (mpfr_ptr)0);
    return PC_OK;
}

pc_status pc_ref_alibi_bias_b(int heads, int bias_max, int h, int64_t dist, pc_ref2 *out)
{
    if (pc_alibi_check_heads(heads, NULL) != PC_OK || h < 0 || h >= heads ||
        dist > PC_POS_MAX || dist < -PC_POS_MAX || pc_alibi_check_bias_max(bias_max, NULL) != PC_OK)
        return PC_EINPUT;
    if (dist == 0) {
        out->f32 = 0.0f;
        out->f64 = 0.0;
        return PC_OK;
    }
    long a, b;
    pc_alibi_exponent_b(heads, bias_max, h, &a, &b);
    unsigned long n = (unsigned long)(dist < 0 ? -dist : dist);
    mpfr_t x, y;
    if (b == 1) { /* -N * 2^-A: exact with 64 bits, then rounded once */
        mpfr_init2(x, 64);
        mpfr_set_ui(x, n, MPFR_RNDN);
        mpfr_mul_2si(x, x, -a, MPFR_RNDN);
        mpfr_neg(x, x, MPFR_RNDN);
        out->f32 = mpfr_get_flt(x, MPFR_RNDN);
        out->f64 = mpfr_get_d(x, MPFR_RNDN);
        mpfr_clear(x);
        return PC_OK;
    }
    mpfr_init2(x, 8);
    mpfr_set_ui_2exp(x, 1, -a, MPFR_RNDN);
    mpfr_init2(y, 64);
    pc_status st = PC_EINTERNAL;
    for (mpfr_prec_t p = 64 + 32; p <= PC_ZIV_MAX_PREC; p += p / 2) {
        mpfr_set_prec(y, p);
        /* y = RN_p(RN_p(2^(-A/B)) * N): two roundings of relative error
         * <= 2^-p each, so |y - z| <= |z| (2^(1-p) + 2^-2p) and with
         * |z| <= |y| (1 + 2^(2-p)) < 2^EXP(y) (1 + 2^(2-p)):
         * |y - z| <= 2^(EXP(y) + 2 - p). */
        mpfr_rootn_ui(y, x, (unsigned long)b, MPFR_RNDN);
        mpfr_mul_ui(y, y, n, MPFR_RNDN);
        mpfr_neg(y, y, MPFR_RNDN);
        if (pc_round_certified(y, mpfr_get_exp(y) + 2 - p, out)) {
            st = PC_OK;
            break;
        }
    }
    mpfr_clears(x, y, (mpfr_ptr)0);
    return st;
}

/* t5.c: the exact T5 relative-position bucket.
 *
 * The only non-integer step of the bucket function is
 *   X = SPAN * ln(N / ME) / ln(MD / ME),   ME <= N < MD,
 * of which the bucket takes floor(X).  A float formula evaluates X with a
 * few ulps of error and truncates: when X is within that error of an
 * integer the bucket can land on the wrong side, and X is often EXACTLY an
 * integer (HF's bidirectional defaults: X = 2 log2(N/8), an integer at
 * N = 16, 32, 64).  We therefore
 *   1. enclose X in [XLO, XHI] with directed roundings at precision P
 *      (every operation is monotone on the positive quantities involved:
 *      N/ME >= 1, MD/ME > 1, so rounding each operand toward -inf / +inf
 *      gives a rigorous lower / upper bound);
 *   2. if floor(XLO) == floor(XHI) the floor is decided (Ziv's test: the
 *      enclosure does not straddle an integer);
 *   3. otherwise K = floor(XHI) is the only integer candidate; X == K
 *      exactly iff (N/ME)^SPAN == (MD/ME)^K, i.e. iff the integers
 *      N^SPAN * ME^K and MD^K * ME^SPAN are equal (GMP): then floor = K;
 *   4. otherwise X is not an integer, and raising P (Ziv) separates it from
 *      K; the loop terminates since the enclosure width tends to 0. */
#include <gmp.h>
#include <mpfr.h>
#include "reference/relative.h"
#include "reference/round.h"

pc_t5_shape pc_t5_shape_of(int bidirectional, int num_buckets)
{
    pc_t5_shape s;
    s.nb = bidirectional ? num_buckets / 2 : num_buckets;
    s.max_exact = s.nb / 2;
    s.offset = bidirectional ? s.nb : 0;
    return s;
}

pc_status pc_t5_check_params(int bidirectional, int num_buckets, int max_distance,
                             pc_err *err)
{
    if (num_buckets < 1 || num_buckets > PC_T5_BUCKETS_MAX)
        return pc_seterr(err, PC_EINPUT, "num_buckets must be in [1, %d], got %d",
                         PC_T5_BUCKETS_MAX, num_buckets);
    pc_t5_shape s = pc_t5_shape_of(bidirectional, num_buckets);
    if (s.max_exact < 1)
        return pc_seterr(err, PC_EINPUT,
                         "num_buckets %d leaves no exact bucket (%s needs >= %d)",
                         num_buckets, bidirectional ? "bidirectional" : "causal",
                         bidirectional ? 4 : 2);
    if (max_distance <= s.max_exact)
        return pc_seterr(err, PC_EINPUT,
                         "max_distance must exceed max_exact = %d, got %d",
                         s.max_exact, max_distance);
    return PC_OK;
}

/* (N/ME)^SPAN == (MD/ME)^K, decided in integers. */
static int log_is_integer(uint64_t n, int me, int span, int md, int64_t k)
{
    mpz_t a, b, t;
    mpz_inits(a, b, t, (mpz_ptr)0);
    mpz_import(a, 1, 1, sizeof n, 0, 0, &n);        /* a = N */
    mpz_pow_ui(a, a, (unsigned long)span);           /* N^SPAN */
    mpz_ui_pow_ui(t, (unsigned long)me, (unsigned long)k);
    mpz_mul(a, a, t);                                /* * ME^K */
    mpz_ui_pow_ui(b, (unsigned long)md, (unsigned long)k);
    mpz_ui_pow_ui(t, (unsigned long)me, (unsigned long)span);
    mpz_mul(b, b, t);                                /* MD^K * ME^SPAN */
    int eq = mpz_cmp(a, b) == 0;
    mpz_clears(a, b, t, (mpz_ptr)0);
    return eq;
}

pc_status pc_t5_log_floor(uint64_t n, int me, int span, int md, int64_t *floor_x,
                          int *exact_int)
{
    if (me < 1 || span < 1 || n < (uint64_t)me || n >= (uint64_t)md)
        return PC_EINPUT;
    *exact_int = 0;
    if (n == (uint64_t)me) { /* ln 1 = 0: X = 0 exactly */
        *floor_x = 0;
        *exact_int = 1;
        return PC_OK;
    }
    mpfr_t nn, tlo, thi, l2lo, l2hi, xlo, xhi;
    mpfr_inits2(64, nn, tlo, thi, l2lo, l2hi, xlo, xhi, (mpfr_ptr)0);
    pc_status st = PC_EINTERNAL;
    /* 64 bits hold N exactly; each retry multiplies P by 3/2 (Ziv). */
    for (mpfr_prec_t p = 64; p <= PC_ZIV_MAX_PREC; p += p / 2) {
        mpfr_set_prec(nn, 64);
        mpfr_set_uj(nn, n, MPFR_RNDN);               /* exact: 64 bits */
        mpfr_prec_round(nn, p > 64 ? p : 64, MPFR_RNDN); /* exact (widening) */
        mpfr_set_prec(tlo, p); mpfr_set_prec(thi, p);
        mpfr_set_prec(l2lo, p); mpfr_set_prec(l2hi, p);
        mpfr_set_prec(xlo, p); mpfr_set_prec(xhi, p);
        /* ln(N/ME) in [tlo, thi] */
        mpfr_div_ui(tlo, nn, (unsigned long)me, MPFR_RNDD);
        mpfr_log(tlo, tlo, MPFR_RNDD);
        mpfr_div_ui(thi, nn, (unsigned long)me, MPFR_RNDU);
        mpfr_log(thi, thi, MPFR_RNDU);
        /* ln(MD/ME) in [l2lo, l2hi] */
        mpfr_set_ui(l2lo, (unsigned long)md, MPFR_RNDD);
        mpfr_div_ui(l2lo, l2lo, (unsigned long)me, MPFR_RNDD);
        mpfr_log(l2lo, l2lo, MPFR_RNDD);
        mpfr_set_ui(l2hi, (unsigned long)md, MPFR_RNDU);
        mpfr_div_ui(l2hi, l2hi, (unsigned long)me, MPFR_RNDU);
        mpfr_log(l2hi, l2hi, MPFR_RNDU);
        if (mpfr_sgn(l2lo) <= 0 || mpfr_sgn(tlo) < 0)
            continue; /* not yet separated from 0: more precision */
        /* X in [xlo, xhi]: smallest numerator over largest denominator */
        mpfr_div(xlo, tlo, l2hi, MPFR_RNDD);
        mpfr_mul_ui(xlo, xlo, (unsigned long)span, MPFR_RNDD);
        mpfr_div(xhi, thi, l2lo, MPFR_RNDU);
        mpfr_mul_ui(xhi, xhi, (unsigned long)span, MPFR_RNDU);
        intmax_t flo = mpfr_get_sj(xlo, MPFR_RNDD), fhi = mpfr_get_sj(xhi, MPFR_RNDD);
        if (flo == fhi) {
            *floor_x = (int64_t)flo;
            if (mpfr_integer_p(xlo) && log_is_integer(n, me, span, md, (int64_t)flo))
                *exact_int = 1;
            st = PC_OK;
            break;
        }
        if (fhi - flo == 1 && fhi >= 0 && fhi <= span &&
            log_is_integer(n, me, span, md, (int64_t)fhi)) {
            *floor_x = (int64_t)fhi;
            *exact_int = 1;
            st = PC_OK;
            break;
        }
    }
    mpfr_clears(nn, tlo, thi, l2lo, l2hi, xlo, xhi, (mpfr_ptr)0);
    return st;
}

pc_status pc_ref_t5_bucket(int64_t rel, int bidirectional, int num_buckets,
                           int max_distance, int32_t *bucket)
{
    pc_status st = pc_t5_check_params(bidirectional, num_buckets, max_distance, NULL);
    if (st != PC_OK)
        return st;
    pc_t5_shape s = pc_t5_shape_of(bidirectional, num_buckets);
    /* |REL| without overflow at INT64_MIN */
    uint64_t mag = rel < 0 ? (uint64_t)(-(rel + 1)) + 1u : (uint64_t)rel;
    int64_t off = 0;
    uint64_t n;
    if (bidirectional) {
        if (rel > 0) off = s.offset;
        n = mag;
    } else {
        n = rel < 0 ? mag : 0; /* -min(REL, 0) */
    }
    int64_t b;
    if (n < (uint64_t)s.max_exact) {
        b = (int64_t)n;
    } else if (n >= (uint64_t)max_distance) {
        /* N >= MD gives X >= SPAN, so MAX_EXACT + floor(X) >= NB: clamped */
        b = s.nb - 1;
    } else {
        int64_t f;
        int ex;
        st = pc_t5_log_floor(n, s.max_exact, s.nb - s.max_exact, max_distance, &f, &ex);
        if (st != PC_OK)
            return st;
        b = s.max_exact + f;
        if (b > s.nb - 1) b = s.nb - 1; /* unreachable for N < MD; kept as in HF */
    }
    *bucket = (int32_t)(off + b);
    return PC_OK;
}

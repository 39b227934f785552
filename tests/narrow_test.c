/* narrow_test.c: pc_narrow16 (reference/narrow.c) against MPFR's rounding
 * to 11 and 8 bits with the formats' subnormals (mpfr_subnormalize) and
 * overflow, on random binary64 values over the whole narrow range, the
 * edges, and every midpoint it must refuse; pc_narrow16_row's binary32
 * path (a fixed shift of the bits) against pc_narrow16 of the same values
 * over every binary32 exponent.  TAP, plan at the end. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <mpfr.h>
#include "reference/narrow.h"

static int n_tests, n_fail;

static void ok(int cond, const char *what)
{
    n_tests++;
    if (!cond) n_fail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n_tests, what);
}

/* The format's value of BITS (subnormals, infinity). */
static double decode(uint16_t bits, int bf16)
{
    int mb = bf16 ? 7 : 10, bias = bf16 ? 127 : 15, inf_exp = bf16 ? 255 : 31;
    int e = (bits >> mb) & inf_exp;
    double m = (double)(bits & ((1 << mb) - 1));
    double sign = bits & 0x8000 ? -1.0 : 1.0;
    if (e == inf_exp) return sign * (double)INFINITY;
    if (e == 0) return sign * ldexp(m, 1 - bias - mb);
    return sign * ldexp(m + ldexp(1.0, mb), e - bias - mb);
}

/* RN of Y with the format's P bits and exponent range, in MPFR (whose
 * exponents are those of x = m 2^e, m in [1/2, 1)); infinity past it. */
static double mpfr_rn(double y, int bf16)
{
    int p = bf16 ? 8 : 11;
    /* smallest subnormal 2^-24 (binary16), 2^-133 (bfloat16) = 0.5 * 2^emin;
     * largest finite below 2^16 / 2^128 = 2^emax */
    mpfr_exp_t emin = bf16 ? -132 : -23, emax = bf16 ? 128 : 16;
    mpfr_exp_t old_min = mpfr_get_emin(), old_max = mpfr_get_emax();
    mpfr_set_emin(emin);
    mpfr_set_emax(emax);
    mpfr_t x;
    mpfr_init2(x, p);
    int t = mpfr_set_d(x, y, MPFR_RNDN);
    t = mpfr_check_range(x, t, MPFR_RNDN);
    mpfr_subnormalize(x, t, MPFR_RNDN);
    double r = mpfr_get_d(x, MPFR_RNDN);
    mpfr_clear(x);
    mpfr_set_emin(old_min);
    mpfr_set_emax(old_max);
    return r;
}

static uint64_t rng_state = 20260422; /* a fixed seed: the same cases each run */
static uint64_t next64(void)
{
    rng_state ^= rng_state << 13; rng_state ^= rng_state >> 7; rng_state ^= rng_state << 17;
    return rng_state;
}

/* N random values with exponents over [-140, 130] (subnormal, normal and
 * overflowing for both formats) and random fraction bits: each is decided
 * and equals MPFR's rounding. */
static void random_values(int bf16, int n)
{
    int bad = 0, mids = 0;
    for (int k = 0; k < n; k++) {
        uint64_t u = next64();
        double y = ldexp(1.0 + (double)(u >> 12) * 0x1p-52, (int)(u % 271) - 140);
        if (u & 0x800) y = -y;
        uint16_t b;
        int dec = pc_narrow16(y, bf16, &b);
        double want = mpfr_rn(y, bf16);
        if (!dec) mids++;
        if (dec && decode(b, bf16) != want) bad++;
    }
    /* 52 random fraction bits: a midpoint (42 or 45 fixed bits) has
     * probability 2^-42 here, so every value must be decided */
    ok(bad == 0 && mids == 0, bf16 ? "bfloat16: random values equal MPFR's rounding"
                      : "binary16: random values equal MPFR's rounding");
}

/* Midpoints (Q + 1/2) ulp at a few binades, subnormal ones included: refused. */
static void midpoints(int bf16)
{
    int p = bf16 ? 8 : 11, emin = bf16 ? -126 : -14, refused = 1;
    int exps[] = { emin, emin + 1, -1, 0, 3 };
    for (size_t k = 0; k < sizeof exps / sizeof exps[0]; k++) {
        double ulp = ldexp(1.0, exps[k] - p + 1);
        for (int q = 0; q < 5; q++) {
            double m = ldexp(1.0, exps[k]) + ((double)q + 0.5) * ulp;
            uint16_t b;
            refused &= pc_narrow16(m, bf16, &b) == 0 && decode(b, bf16) == mpfr_rn(m, bf16);
            refused &= pc_narrow16(m + ulp * 0x1p-20, bf16, &b) == 1;
        }
        double sub = ((double)3 + 0.5) * ldexp(1.0, emin - p + 1); /* a subnormal midpoint */
        uint16_t b;
        refused &= pc_narrow16(sub, bf16, &b) == 0;
    }
    ok(refused, bf16 ? "bfloat16: midpoints are refused, their neighbours decided"
                     : "binary16: midpoints are refused, their neighbours decided");
}

static void edges(void)
{
    uint16_t b;
    int good = pc_narrow16(65504.0, 0, &b) && b == 0x7bff
        && pc_narrow16(65519.0, 0, &b) && b == 0x7bff
        && pc_narrow16(65521.0, 0, &b) && b == 0x7c00
        && pc_narrow16(-0.0, 0, &b) && b == 0x8000
        && pc_narrow16(0x1p-24, 0, &b) && b == 0x0001
        && pc_narrow16(0x1p-26, 0, &b) && b == 0x0000
        && pc_narrow16(1.0, 1, &b) && b == 0x3f80
        && pc_narrow16(-2.0, 1, &b) && b == 0xc000
        && pc_narrow16(0x1p-133, 1, &b) && b == 0x0001
        && pc_narrow16(3.4e38, 1, &b) && b == 0x7f80
        && pc_narrow16((double)INFINITY, 1, &b) && b == 0x7f80;
    ok(good, "edges: binary16 65504, overflow, -0, subnormals; bfloat16 1, -2, 2^-133, overflow, inf");
}

/* Low fraction bits of a binary32 value that sit on or beside the
 * rounding point of binary16 (13 bits dropped: 0x1000 is its half) and
 * bfloat16 (16 bits: 0x8000), and the fraction's ends. */
static const uint32_t frac_edges[] = { 0, 1, 0x0fff, 0x1000, 0x1001, 0x2000, 0x3000,
                                       0x7fff, 0x8000, 0x8001, 0x18000, 0x7fffff, 0x7ff000 };

/* Binary32 values of exponent field EF and sign SIGN into X (N of them):
 * the edge fractions, then random ones. */
static size_t fill32(float *x, size_t n, uint32_t ef, uint32_t sign)
{
    size_t k = 0, ne = sizeof frac_edges / sizeof frac_edges[0];
    for (; k < n; k++) {
        uint32_t fr = k < ne ? frac_edges[k] : (uint32_t)next64() & 0x7fffffu;
        uint32_t u = sign << 31 | ef << 23 | fr;
        memcpy(&x[k], &u, sizeof u);
    }
    return k;
}

/* pc_narrow16_row on binary32 rows (every exponent field, both signs:
 * subnormals, normals, overflow, infinities, NaNs) gives pc_narrow16's
 * bits for each value and its "every value decided" for the row. */
static void row32(int bf16)
{
    enum { N = 2048 }; /* values a row: the edges and random fractions */
    float x[N];
    uint16_t got[N], want;
    int good = 1;
    for (uint32_t ef = 0; ef < 256; ef++)
        for (uint32_t sign = 0; sign < 2; sign++) {
            size_t n = fill32(x, N, ef, sign);
            int dec = 1;
            int row_dec = pc_narrow16_row(x, NULL, n, bf16, got);
            for (size_t k = 0; k < n; k++) {
                dec &= pc_narrow16((double)x[k], bf16, &want);
                good &= got[k] == want;
                uint16_t one;
                good &= pc_narrow16_row(&x[k], NULL, 1, bf16, &one)
                        == pc_narrow16((double)x[k], bf16, &want);
            }
            good &= row_dec == dec;
        }
    ok(good, bf16 ? "bfloat16: the binary32 row path equals pc_narrow16, value and midpoint flag"
                  : "binary16: the binary32 row path equals pc_narrow16, value and midpoint flag");
}

int main(void)
{
    random_values(0, 200000);
    random_values(1, 200000);
    midpoints(0);
    midpoints(1);
    edges();
    row32(0);
    row32(1);
    printf("1..%d\n", n_tests);
    mpfr_free_cache();
    return n_fail != 0;
}

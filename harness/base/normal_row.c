/* normal_row.c: a row of seeded standard normal binary32 values
 * (pc_normal_row, rng.h), the accuracy gate's input rows: the values
 * pc_rng_normal_f32 gives, (float)(sqrt(-2 log u1) cos(2 pi u2)) with
 * libm's log and cos, made cheaper without changing one bit.
 *
 * A run of ROW_LANES values is evaluated without a branch (a constant trip
 * count: the compiler vectorises it at -O2) with log and cos of our own,
 * each within a few units of 2^-53 of the exact value (the analysis is
 * beside the code), so that z_fast = sqrt(-2 ln u1) cos(a) is within
 * 2^-49.8 |z| of the exact z (a = 6.283185307179586 u2, the same binary64
 * product as the libm route).  libm's z, through log and cos within 8 ulps
 * each (glibc documents 1 for both on x86_64: its libm-test-ulps), a
 * square root and a product, is within 21 x 2^-53 < 2^-48.6 |z|.  So both
 * lie in [z_fast (1 - 2^-44), z_fast (1 + 2^-44)], and when that interval's
 * ends (each computed with a rounding of at most 2^-53, which the test's
 * 2^-43 covers) round to the same binary32 f, libm's z rounds to f too:
 * the rounding test decides.  Otherwise (about 2^-18 of the values) and
 * where our cos's argument reduction is not analysed (an odd quadrant
 * with |r| < 2^-20), the value is pc_rng_normal_f32's own expression. */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "rng.h"

#define ROW_LANES 16 /* values a run */

/* 2^-60: u1's floor (pc_rng_normal_f32: log(0) guard) */
#define U1_MIN 0x1p-60

/* The libm route, pc_rng_normal_f32's expression on one draw. */
static float normal_of(double u1, double u2)
{
    if (u1 < U1_MIN) u1 = U1_MIN;
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

/* The run is written without a branch and without a comparison of
 * binary64 values (the compiler does not vectorise a select on them under
 * -ftrapping-math): choices are made on the values' bits, exactly. */

static inline uint64_t bits_of(double x)
{
    uint64_t u;
    memcpy(&u, &x, sizeof u);
    return u;
}

static inline double of_bits(uint64_t u)
{
    double x;
    memcpy(&x, &u, sizeof x);
    return x;
}

/* 1 when the nonnegative binary64 bits A are above B, else 0 (B - A
 * wraps past 2^63 exactly then: both are below 2^63). */
static inline uint64_t above(uint64_t a, uint64_t b)
{
    return (b - a) >> 63;
}

/* ln x for x in [2^-60, 1) (a multiple of 2^-53, so normal), within
 * 7 x 2^-53 |ln x|:
 *   x = 2^e m, m in [M/2, M) with M = 1.4142136573791504 (bits
 *   0x3FF6A09F00000000, sqrt(2) + 9.5e-9): the exponent's field as the
 *   binary64 2^52 + field, m from the fraction's bits; m >= M halved and
 *   e + 1, both on the bits (exact);
 *   s = (m - 1)/(m + 1): m - 1 exact (Sterbenz), so s within 2^-52 |s|;
 *   ln m = 2 atanh s = 2 s (1 + s^2/3 + ... + s^18/19): |s| <= 0.17158,
 *   s^2 <= 0.02944, the first term left out is below 2^-55 of the sum;
 *   Horner in t = s^2 (P in [1, 1.0101]: its last addition's rounding
 *   leads, 1.2 x 2^-53 in all), so ln m within 4.2 x 2^-53 |ln m|;
 *   ln x = e ln2_hi + (e ln2_lo + ln m): ln2_hi has 32 bits (e ln2_hi
 *   exact for |e| <= 60), ln2 - ln2_hi - ln2_lo = 1.2e-26; where e = -1,
 *   |ln m| <= 0.347 <= |ln x| (no worse than ln m's own error), two
 *   roundings more: 7 x 2^-53 |ln x| in all; where e = 0 it is ln m. */
static inline double fast_log(uint64_t ix)
{
    uint64_t mb = (ix & 0x000fffffffffffffu) | 0x3ff0000000000000u;
    uint64_t big = above(mb, 0x3FF6A09EFFFFFFFFu);
    double m = of_bits(mb - (big << 52));                                /* halved */
    double e = of_bits(((ix >> 52) | 0x4330000000000000u) + big) - (0x1p52 + 1023.0);
    double s = (m - 1.0) / (m + 1.0), t = s * s;
    double p = 1.0 / 19.0;
    p = 1.0 / 17.0 + t * p;
    p = 1.0 / 15.0 + t * p;
    p = 1.0 / 13.0 + t * p;
    p = 1.0 / 11.0 + t * p;
    p = 1.0 / 9.0 + t * p;
    p = 1.0 / 7.0 + t * p;
    p = 1.0 / 5.0 + t * p;
    p = 1.0 / 3.0 + t * p;
    p = 1.0 + t * p;
    double lnm = 2.0 * s * p;
    return e * 0x1.62e42feep-1 + (e * 0x1.a39ef35793c76p-33 + lnm);
}

/* cos a for a in [0, 2 pi), within 3.6 x 2^-53 |cos a|, and into *UNSURE
 * 1 where the argument reduction's analysis does not hold:
 *   j = a 2/pi rounded (the 1.5 x 2^52 trick: j in 0..4, in q's low
 *   bits; a j off by one where a 2/pi is near a half only moves |r| past
 *   pi/4 by 1e-15);
 *   r = ((a - j P1) - j P2) - j P3, pi/2 = P1 + P2 + P3 + 1e-37 (P1, P2
 *   of 33 bits: j P1, j P2 exact; a - j P1 exact, Sterbenz), two
 *   roundings: within 2.1 x 2^-53 |r| where |r| >= 2^-20 (odd j: cos a
 *   = -+sin r is small there, so a smaller |r| is left to libm); for even
 *   j that error moves cos r by |r| 2.1 x 2^-53 |r|, nothing beside it;
 *   cos r = 1 - r^2/2 + ... + r^16/16!, left out below 2^-58.8 (|r| <=
 *   pi/4 + 1e-15), sin r = r - r^3/6 + ... - r^15/15!, left out below
 *   2^-54 |sin r|; Horner in z = r^2, the leading 1 exact: 1.7 and
 *   1.5 x 2^-53, with r's own 2.1: 3.6 x 2^-53;
 *   quadrant j: cos r, -sin r, -cos r, sin r, cos r, chosen on the bits. */
static inline double fast_cos(double a, uint64_t *unsure)
{
    double q = a * 0x1.45f306dc9c883p-1 + 0x1.8p52;
    double j = q - 0x1.8p52;
    uint64_t ji = bits_of(q) & 7u;
    double r = ((a - j * 0x1.921fb544p+0) - j * 0x1.0b4611a6p-34) - j * 0x1.3198a2e037073p-69;
    double z = r * r;
    double c = 1.0 / 20922789888000.0;  /* 1/16! */
    c = -1.0 / 87178291200.0 + z * c;  /* 1/14! */
    c = 1.0 / 479001600.0 + z * c;     /* 1/12! */
    c = -1.0 / 3628800.0 + z * c;      /* 1/10! */
    c = 1.0 / 40320.0 + z * c;         /* 1/8! */
    c = -1.0 / 720.0 + z * c;
    c = 1.0 / 24.0 + z * c;
    c = -0.5 + z * c;
    c = 1.0 + z * c;
    double s = -1.0 / 1307674368000.0; /* 1/15! */
    s = 1.0 / 6227020800.0 + z * s;    /* 1/13! */
    s = -1.0 / 39916800.0 + z * s;     /* 1/11! */
    s = 1.0 / 362880.0 + z * s;        /* 1/9! */
    s = -1.0 / 5040.0 + z * s;
    s = 1.0 / 120.0 + z * s;
    s = -1.0 / 6.0 + z * s;
    s = r + r * (z * s);
    uint64_t odd = ji & 1u, neg = ((ji + 1u) >> 1) & 1u, pick = 0u - odd;
    *unsure = odd & above(0x3EB0000000000000u /* 2^-20 */, bits_of(r) & 0x7fffffffffffffffu);
    return of_bits(((bits_of(s) & pick) | (bits_of(c) & ~pick)) ^ (neg << 63));
}

/* The run's ROW_LANES values from the draws U1, U2 into OUT; KEEP[k] 0
 * where value k is left to the libm route.  Made for AVX2 too where the
 * processor has it (4 lanes instead of SSE2's 2; no fused multiply-add:
 * the same operations, the same bits), chosen when the program loads. */
__attribute__((target_clones("avx2", "default")))
static void fast_run(const double *restrict u1, const double *restrict u2,
                     float *restrict out, float *restrict keep)
{
    for (int k = 0; k < ROW_LANES; k++) {
        /* u1 < 2^-60 is u1 = 0 (a multiple of 2^-53): its bits 0 become 2^-60's */
        uint64_t ix = bits_of(u1[k]);
        ix |= (0u - ((ix - 1u) >> 63)) & 0x3C30000000000000u;
        uint64_t unsure;
        double c = fast_cos(6.283185307179586 * u2[k], &unsure);
        double z = sqrt(-2.0 * fast_log(ix)) * c;
        /* the test's width 2^-43, or 1/2 where the reduction is unsure: z's
         * ends then round to other binary32s than z (z is not 0), so the
         * value goes to libm (chosen on the bits, as the 64-bit lanes) */
        double w = of_bits(0x3D40000000000000u + unsure * (0x3FE0000000000000u - 0x3D40000000000000u));
        float f = (float)z, lo = (float)(z * (1.0 - w)), hi = (float)(z * (1.0 + w));
        out[k] = f;
        keep[k] = ((lo == f) & (hi == f)) ? 1.0f : 0.0f;
    }
}

void pc_normal_row(uint64_t seed, uint64_t key, int d, float *out)
{
    pc_rng r;
    pc_rng_seed(&r, pc_hash3(seed, key, 0x524F5045u /* "ROPE" */));
    int j = 0;
    for (; j + ROW_LANES <= d; j += ROW_LANES) {
        double u1[ROW_LANES], u2[ROW_LANES];
        float keep[ROW_LANES];
        for (int k = 0; k < ROW_LANES; k++) { /* the draws in pc_rng_normal_f32's order */
            u1[k] = pc_rng_unit(&r);
            u2[k] = pc_rng_unit(&r);
        }
        fast_run(u1, u2, out + j, keep);
        for (int k = 0; k < ROW_LANES; k++)
            if (keep[k] == 0.0f) out[j + k] = normal_of(u1[k], u2[k]);
    }
    for (; j < d; j++) {
        double u1 = pc_rng_unit(&r), u2 = pc_rng_unit(&r);
        out[j] = normal_of(u1, u2);
    }
}

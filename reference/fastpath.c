/* fastpath.c: sin and cos of pos * omega_i in double-double arithmetic with
 * a proven error bound, and the rounding test that turns them into
 * certified binary32 / binary64 values (MPFR decides the rest, sincos.c).
 *
 * Notation: u = 2^-53; RN(x) is binary64 rounding to nearest, |RN(x) - x| <=
 * u |x|; two_prod, two_sum and fast_two_sum below are error-free (Dekker,
 * Knuth, Muller et al., Handbook of Floating-Point Arithmetic, ch. 4).
 *
 * 1. Argument reduction (reduce).  Two routes:
 *    a. theta = pos * omega < 1/2 (direct): omega = o1 + o2 (double-double
 *       from MPFR), theta~ = pos*o1 (exact, two_prod) + RN(pos * o2):
 *       |theta~ - theta| <= 2^-104 theta.
 *    b. otherwise (fixed point): w = omega * 2/pi truncated to 192 fractional
 *       bits (3 x 64-bit limbs), pos * w computed exactly mod 4 except the low
 *       64 bits of pos * W2 (< 2^-128); the truncation of w costs
 *       pos * 2^-191.99 <= 2^-138.99.  So pos * w = q + f with q mod 4 exact
 *       and |f~ - f| < 2^-127.99, f~ in [-1/2, 1/2).  r~ = f~ * pi/2 in
 *       double-double: |r~ - f~ pi/2| <= 2^-102.35 |f~| (below).
 *    Both: |r~ - r| <= 2^-102 |r~| + 2^-127.3, where theta = q pi/2 + r.
 * 2. sin and cos of r~ (|r~| <= pi/4 (1 + 2^-50)) with a table of sin, cos at
 *    j/64 (double-double from MPFR, error <= 2^-106) and Taylor series of
 *    s = r~ - j/64, |s| <= 2^-7 (derivation at eval_sincos): relative error
 *    <= 2^-65.9 of the value at r~.
 * 3. sin and cos are 1-Lipschitz and, for |r| <= pi/4 (1 + 2^-50),
 *    |r| <= 1.12 |sin r| (sin r >= r 2 sqrt(2)/pi) and |r| <= 1.12 cos r
 *    (cos r >= 0.707), so the reduction error moves the value by
 *    <= 2^-101.8 |y(r~)| + 2^-127.3, and in all
 *        |y~ - y| <= 2^-65.8 |y~| + 2^-127.3 <= PC_FAST_REL |y~| + PC_FAST_ABS
 *    (no absolute term on the direct route).  y = +-sin r or +-cos r by the
 *    quadrant q: sign changes are exact.
 * 4. The rounding test (pc_fast_round) proves RN(z) from y~ and the bound;
 *    anything it cannot prove goes to the MPFR Ziv loop (sincos.c).
 * tests/fastpath_test.c checks the bound against 400-bit values and every
 * decided value against the Ziv loop. */
#include <math.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "fastpath.h"

__extension__ typedef unsigned __int128 u128;

/* x86-64 with GCC or Clang: run-time choice of an FMA build of the kernel. */
#if defined(__x86_64__) && defined(__GNUC__)
#define PC_FAST_DISPATCH 1
#define PC_INLINE __attribute__((always_inline))
static int have_fma;
#else
#define PC_FAST_DISPATCH 0
#define PC_INLINE
#endif

struct pc_fast {
    int h;
    double *o1, *o2;  /* omega_i = o1 + o2, |omega - o1 - o2| <= 2^-105.9 omega */
    uint64_t *w;      /* 3 limbs per i: omega_i * 2/pi, truncated, weight 2^-64(k+1) */
    int *ok;          /* 1 when the fast path applies to frequency i */
    double *rot;      /* 4 per i: e^{i omega_i} as cos hi, lo, sin hi, lo (pc_fast_rotate) */
    int rot_set;      /* ROT holds them (made at the first rotation) */
};

/* ---- error-free transformations -------------------------------------- */

static inline PC_INLINE double two_prod(double a, double b, double *e)
{
    double p = a * b;
    *e = fma(a, b, -p); /* exact: a*b - RN(a*b) is representable */
    return p;
}

static inline PC_INLINE double two_sum(double a, double b, double *e)
{
    double s = a + b, bb = s - a;
    *e = (a - (s - bb)) + (b - bb); /* Knuth: a + b = s + e exactly */
    return s;
}

static inline PC_INLINE double fast_two_sum(double a, double b, double *e)
{
    double s = a + b;
    *e = b - (s - a); /* Dekker: exact when exponent(a) >= exponent(b) */
    return s;
}

/* 2^k for -1022 <= k <= 1023, built from its bits (exact) */
static inline PC_INLINE double pow2(int k)
{
    uint64_t b = (uint64_t)(k + 1023) << 52;
    double x;
    memcpy(&x, &b, sizeof x);
    return x;
}

/* ---- constants computed once with MPFR -------------------------------- */

/* sin and cos of j/64, j = 0..TAB_N-1, as double-doubles: hi = RN(v),
 * lo = RN(v - hi) from MPFR at 200 bits, so |v - hi - lo| <= ulp(lo)/2 +
 * 2^-200 <= 2^-107 + 2^-200 < 2^-106 (|lo| <= 2^-54 since v < 1). */
#define TAB_N 52          /* |r~| <= pi/4 (1 + 2^-50) < 50.3/64: j <= 50 */
static double tab[TAB_N][4]; /* Sh, Sl, Ch, Cl */
static double pio2_h, pio2_l; /* pi/2 = hi + lo + e, |e| <= 2^-107 */
static pthread_once_t tab_once = PTHREAD_ONCE_INIT;

static void dd_of(const mpfr_t v, mpfr_t t, double *hi, double *lo)
{
    *hi = mpfr_get_d(v, MPFR_RNDN);
    mpfr_sub_d(t, v, *hi, MPFR_RNDN); /* exact: |v - hi| <= ulp(hi)/2 fits 200 bits */
    *lo = mpfr_get_d(t, MPFR_RNDN);
}

static void tab_init(void)
{
#if PC_FAST_DISPATCH
    __builtin_cpu_init();
    have_fma = __builtin_cpu_supports("fma");
#endif
    mpfr_t x, s, c, t;
    mpfr_inits2(200, x, s, c, t, (mpfr_ptr)0);
    for (int j = 0; j < TAB_N; j++) {
        mpfr_set_ui(x, (unsigned long)j, MPFR_RNDN);
        mpfr_div_2ui(x, x, 6, MPFR_RNDN); /* j/64 exact */
        mpfr_sin_cos(s, c, x, MPFR_RNDN);
        dd_of(s, t, &tab[j][0], &tab[j][1]);
        dd_of(c, t, &tab[j][2], &tab[j][3]);
    }
    mpfr_const_pi(x, MPFR_RNDN);
    mpfr_div_2ui(x, x, 1, MPFR_RNDN);
    dd_of(x, t, &pio2_h, &pio2_l);
    mpfr_clears(x, s, c, t, (mpfr_ptr)0);
}

pc_fast *pc_fast_new(int d)
{
    pthread_once(&tab_once, tab_init);
    pc_fast *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->h = d / 2;
    size_t h = (size_t)f->h;
    f->o1 = calloc(h, sizeof *f->o1);
    f->o2 = calloc(h, sizeof *f->o2);
    f->w = calloc(3 * h, sizeof *f->w);
    f->ok = calloc(h, sizeof *f->ok);
    if (!f->o1 || !f->o2 || !f->w || !f->ok) {
        pc_fast_free(f);
        return NULL;
    }
    return f;
}

void pc_fast_free(pc_fast *f)
{
    if (!f) return;
    free(f->o1); free(f->o2); free(f->w); free(f->ok); free(f->rot);
    free(f);
}

void pc_fast_set(pc_fast *f, int i, const mpfr_t omega)
{
    mpfr_prec_t p = mpfr_get_prec(omega);
    mpfr_t t, w;
    mpfr_inits2(p, t, w, (mpfr_ptr)0);
    /* omega in [2^-900, 1]: o2 stays normal, w < 1 (omega <= 1 since base > 1) */
    f->ok[i] = mpfr_cmp_d(omega, 0x1p-900) >= 0 && mpfr_cmp_ui(omega, 1) <= 0;
    dd_of(omega, t, &f->o1[i], &f->o2[i]);
    /* |omega_mpfr - o1 - o2| <= ulp(o2)/2 <= 2^-53 |o2| <= 2^-106 omega (1+u),
     * |omega - omega_mpfr| <= 4 * 2^-p omega: total <= 2^-105.9 omega. */
    /* w = omega * 2/pi at precision p: const_pi, ui_div and mul each add a
     * relative 2^-p: |w~ - w| <= 8 * 2^-p w <= 2^-297 for p >= 300. */
    mpfr_const_pi(t, MPFR_RNDN);
    mpfr_ui_div(t, 2, t, MPFR_RNDN);
    mpfr_mul(w, omega, t, MPFR_RNDN);
    for (int k = 0; k < 3; k++) { /* three limbs of the fraction, truncated */
        mpfr_mul_2ui(w, w, 64, MPFR_RNDN);              /* exact */
        uint64_t limb = (uint64_t)mpfr_get_ui(w, MPFR_RNDZ);
        f->w[3 * (size_t)i + (size_t)k] = limb;
        mpfr_sub_ui(w, w, (unsigned long)limb, MPFR_RNDN); /* exact: drops the integer part */
    }
    mpfr_clears(t, w, (mpfr_ptr)0);
}

/* ---- 1. argument reduction --------------------------------------------- */

/* theta = pos * omega_i = q pi/2 + r with r~ = RH + RL, |r~ - r| <=
 * 2^-102 |r~| + 2^-127.3; returns q mod 4, or -1 when the fast path does
 * not apply. */
static inline PC_INLINE int reduce(const pc_fast *f, int64_t pos, int i, double *rh, double *rl,
                                    int *route)
{
    double P = (double)pos; /* exact: pos <= 2^53 */
    double e, p = two_prod(P, f->o1[i], &e);
    if (p < 0.5) {
        /* Direct route: pos*o1 = p + e exactly; t = RN(pos*o2) with error
         * <= u pos |o2| <= 2^-106 theta; l = RN(e + t) with error
         * <= u (|e| + |t|) <= 2^-105 theta; omega's own error gives
         * 2^-105.9 theta: |theta~ - theta| <= 2^-104.06 theta. */
        double t = P * f->o2[i];
        double l = e + t;
        *rh = fast_two_sum(p, l, rl);
        *route = PC_FAST_DIRECT;
        return 0;
    }
    /* Fixed-point route: pos * w with w = W0 2^-64 + W1 2^-128 + W2 2^-192. */
    const uint64_t *W = f->w + 3 * (size_t)i;
    uint64_t up = (uint64_t)pos;
    u128 p0 = (u128)up * W[0], p1 = (u128)up * W[1], p2 = (u128)up * W[2];
    u128 F = (u128)(uint64_t)p0 << 64;     /* fraction in units of 2^-128 */
    u128 t = F + p1;
    unsigned carry = t < F;
    F = t;
    t = F + (p2 >> 64);                    /* drops < 2^64 units of 2^-192 */
    carry += t < F;
    F = t;
    uint64_t q = (uint64_t)(p0 >> 64) + carry;
    /* nearest quarter turn: f in [-1/2, 1/2) */
    int neg = (int)(F >> 127);
    u128 M = neg ? (u128)0 - F : F;        /* |f| = M 2^-128, M <= 2^127 */
    q += (uint64_t)neg;
    uint64_t mh = (uint64_t)(M >> 64), ml = (uint64_t)M;
    int lz = mh ? __builtin_clzll(mh) : (ml ? 64 + __builtin_clzll(ml) : 128);
    if (lz > 40)
        return -1; /* |f| < 2^-41: theta near a multiple of pi/2; MPFR decides */
    M <<= lz;                              /* top bit at 127 */
    /* f~ = fh + fl + d2 with fh = top 53 bits, fl = next 53 bits, dropped
     * d2 < 2^(22-128-lz) = 2^-105 * 2^(-1-lz) <= 2^-105 |f~|. */
    double fh = (double)(int64_t)(M >> 75) * pow2(-53 - lz); /* < 2^53: exact */
    double fl = (double)(int64_t)((uint64_t)(M >> 22) & ((UINT64_C(1) << 53) - 1)) * pow2(-106 - lz);
    if (neg) { fh = -fh; fl = -fl; }
    /* r~ = (fh + fl)(Ph + Pl): fh Ph = a + b exactly; c = RN(fl Ph + RN(fh Pl))
     * with errors u |fh Pl| <= 2^-106.86 |f| and u |c| <= 2^-104.7 |f|;
     * dropped fl Pl <= 2^-105.86 |f|; l = RN(b + c): u (|b| + |c|) <=
     * 2^-103.7 |f|; pi/2 - Ph - Pl <= 2^-107; d2 pi/2 <= 2^-104.35 |f|.
     * Sum <= 2^-102.35 |f~| <= 2^-103 |r~|. */
    *route = PC_FAST_FIXED;
    double b, a = two_prod(fh, pio2_h, &b);
    double c = fma(fl, pio2_h, fh * pio2_l);
    double l = b + c;
    *rh = fast_two_sum(a, l, rl);
    return (int)(q & 3);
}

/* ---- 2. sin and cos of the reduced argument ----------------------------- */

/* Taylor coefficients, each RN of the exact value (relative error <= u,
 * counted in the relative error of the polynomial). */
#define S3 (-1.0 / 6)
#define S5 (1.0 / 120)
#define S7 (-1.0 / 5040)
#define S9 (1.0 / 362880)
#define S11 (-1.0 / 39916800)
#define C4 (1.0 / 24)
#define C6 (-1.0 / 720)
#define C8 (1.0 / 40320)
#define C10 (-1.0 / 3628800)
#define C12 (1.0 / 479001600)

/* sin and cos of a = RH + RL, 0 <= |a| <= pi/4 (1 + 2^-50), as
 * double-doubles with relative error <= 2^-65.9 each.
 *
 * a = x_j + s, x_j = j/64, j = round(|a| 64): |s| <= 2^-7 (1 + 2^-45).
 * s = s1 + s2 exactly (two_sum), |s2| <= u |s1|.
 *   ss = sin s - s  ~ s1 z P(z),   z = RN(s1^2), P = S3 + z (S5 + ...):
 *        relative error <= 10 u (s1^3 vs s^3: 3u; z: u; two products: 2u;
 *        Horner with RN coefficients: 2.1u; margin), Taylor remainder
 *        <= s^13/13! <= 2^-123.5.  |ss| <= s^3/6 <= 2^-23.58.
 *   cc = cos s - 1 = ccH + ccL: s1^2 = zh + zl (two_prod), ccH = -zh/2
 *        exact, ccL = -(zl/2 + s1 s2) + zh^2 (C4 + zh (...)): error
 *        <= s^2 2^-68.2 <= 2^-82.2 (the zh^2 series to 10u of s^4/24,
 *        roundings of the small terms), remainder <= s^14/14! <= 2^-134.
 * j = 0:  sin a = s1 + RN(s2 + ss): error <= |s| (2^-66.26 + 2^-69.58)
 *         <= 2^-66.09 |sin a|;  cos a = 1 + ccH + ccL: error <= 2^-82.
 * j >= 1: sin a = Sj + Cj s + Sj cc + Cj ss (|sin a| >= sin(1/128) >=
 *         2^-7.0001): table 2^-105.9; Cj s in double-double 2^-111;
 *         Sj cc 2^-82.2; Cj ss: 2^-73.26 (ss) + 2^-76.6 (RN) + 2^-77.6
 *         (Cl ss dropped); summation of the low parts 2^-76.48.
 *         Total <= 2^-72.93 <= 2^-65.93 |sin a|.
 *         cos a = Cj + Cj cc - Sj s - Sj ss: the same terms with |Sj| <= 0.71
 *         on ss: <= 2^-73.5 <= 2^-73 cos a (cos a >= 0.7). */
static inline PC_INLINE void eval_sincos(double rh, double rl, double s[2], double c[2])
{
    int neg = rh < 0;
    if (neg) { rh = -rh; rl = -rl; }
    double x = rh * 64.0;                  /* exact */
    int j = (int)x;                        /* trunc; then round half up exactly */
    if (x - (double)j >= 0.5) j++;         /* x - j exact (Sterbenz or j = 0) */
    if (j >= TAB_N) j = TAB_N - 1;         /* not reached: |a| <= 50.3/64 */
    double sh = rh - (double)j * 0x1p-6;   /* exact: Sterbenz (j/128 <= rh <= 2j/64) */
    double s2, s1 = two_sum(sh, rl, &s2);
    double z = s1 * s1;
    double ss = (s1 * z) * (S3 + z * (S5 + z * (S7 + z * (S9 + z * S11))));
    double zl, zh = two_prod(s1, s1, &zl);
    double ccH = -0.5 * zh;
    double ccL = -(0.5 * zl + s1 * s2) + (zh * zh) * (C4 + zh * (C6 + zh * (C8 + zh * (C10 + zh * C12))));
    double yh, yl;
    if (j == 0) {
        yh = fast_two_sum(s1, s2 + ss, &yl);
        s[0] = yh; s[1] = yl;
        double e0, h = two_sum(1.0, ccH, &e0);
        yh = fast_two_sum(h, e0 + ccL, &yl);
        c[0] = yh; c[1] = yl;
    } else {
        const double *T = tab[j];
        double Sh = T[0], Sl = T[1], Ch = T[2], Cl = T[3];
        /* sin */
        double e1, p1 = two_prod(Ch, s1, &e1);
        double t1 = fma(Ch, s2, Cl * s1);
        double e2, p2 = two_prod(Sh, ccH, &e2);
        double t2 = Sh * ccL + Sl * ccH;
        double l1, h1 = two_sum(Sh, p1, &l1);
        double l2, h2 = two_sum(h1, p2, &l2);
        double L = ((((l1 + l2) + Sl) + e1 + t1) + e2 + t2) + Ch * ss;
        yh = fast_two_sum(h2, L, &yl);
        s[0] = yh; s[1] = yl;
        /* cos */
        double f1, q1 = two_prod(-Sh, s1, &f1);
        double u1 = -fma(Sh, s2, Sl * s1);
        double f2, q2 = two_prod(Ch, ccH, &f2);
        double u2 = Ch * ccL + Cl * ccH;
        double m1, g1 = two_sum(Ch, q1, &m1);
        double m2, g2 = two_sum(g1, q2, &m2);
        double K = ((((m1 + m2) + Cl) + f1 + u1) + f2 + u2) - Sh * ss;
        yh = fast_two_sum(g2, K, &yl);
        c[0] = yh; c[1] = yl;
    }
    if (neg) { s[0] = -s[0]; s[1] = -s[1]; }
}

static inline PC_INLINE int sincos_kernel(const pc_fast *f, int64_t pos, int i,
                                           double s[2], double c[2])
{
    if (!f->ok[i] || pos <= 0 || pos > PC_POS_MAX)
        return 0;
    double rh, rl;
    int route;
    int q = reduce(f, pos, i, &rh, &rl, &route);
    if (q < 0)
        return 0;
    double sr[2], cr[2];
    eval_sincos(rh, rl, sr, cr);
    /* theta = q pi/2 + r: rotate by quarter turns (sign changes are exact) */
    switch (q) {
    case 0: s[0] = sr[0]; s[1] = sr[1]; c[0] = cr[0]; c[1] = cr[1]; break;
    case 1: s[0] = cr[0]; s[1] = cr[1]; c[0] = -sr[0]; c[1] = -sr[1]; break;
    case 2: s[0] = -sr[0]; s[1] = -sr[1]; c[0] = -cr[0]; c[1] = -cr[1]; break;
    default: s[0] = -cr[0]; s[1] = -cr[1]; c[0] = sr[0]; c[1] = sr[1]; break;
    }
    return route;
}

/* The same kernel compiled for CPUs with a fused multiply-add instruction
 * (fma() then inlines to one instruction instead of a libm call).  fma is
 * correctly rounded either way, so both give bit-identical results. */
#if PC_FAST_DISPATCH
__attribute__((target("fma")))
static int sincos_fma(const pc_fast *f, int64_t pos, int i, double s[2], double c[2])
{
    return sincos_kernel(f, pos, i, s, c);
}
#endif

int pc_fast_sincos(const pc_fast *f, int64_t pos, int i, double s[2], double c[2])
{
#if PC_FAST_DISPATCH
    if (have_fma)
        return sincos_fma(f, pos, i, s, c);
#endif
    return sincos_kernel(f, pos, i, s, c);
}

/* Y = U A + V B.  |A1| <= u |A0| <= 2^-53 (1 + 2^-39): RN(U A1) and
 * RN(V B1) err <= 2^-106 M each (M = max(|U|, |V|)), their sum <= 2^-52 M
 * errs 2^-105 M; U A0 = p + e1 and V B0 = q + e2 exactly, p + q = h + l0
 * exactly, and the three additions of the low parts (partial sums <=
 * 2^-50.6 M) err <= 2^-104.4 M + 2^-104 M + 2^-103.6 M.  Total <=
 * 2^-102.3 M (1 + 2^-39) < 2^-101 M.  The bounds EA, EB of A and B
 * propagate as |U| EA + |V| EB; the factor (1 + 2^-50) covers the four
 * roundings of evaluating the bound itself (each 2^-53 relative). */
double pc_fast_lincomb_e(double u, const double a[2], double ea, double v, const double b[2],
                         double eb, double y[2])
{
    double e1, p = two_prod(u, a[0], &e1);
    double e2, q = two_prod(v, b[0], &e2);
    double l0, h = two_sum(p, q, &l0);
    double L = ((l0 + e1) + e2) + (u * a[1] + v * b[1]);
    y[0] = two_sum(h, L, &y[1]); /* y0 = RN(y0 + y1) */
    double M = fabs(u) > fabs(v) ? fabs(u) : fabs(v);
    return (fabs(u) * ea + fabs(v) * eb + M * 0x1p-101) * (1.0 + 0x1p-50);
}

double pc_fast_lincomb(double u, const double a[2], double v, const double b[2], int route,
                       double y[2])
{
    return pc_fast_lincomb_e(u, a, pc_fast_bound(a, route), v, b, pc_fast_bound(b, route), y);
}

/* ---- 4. the next position by rotation ------------------------------------ *
 *
 * Rows of consecutive positions: e^{i (p+1) omega} = e^{i p omega} e^{i omega}.
 * z = c + i s (double-doubles) with |z - e^{i theta}| <= M (complex modulus:
 * each of |c - cos theta|, |s - sin theta| is at most M) becomes z' = z w,
 * w = C + i S the double-double e^{i omega~}, omega~ = o1 + o2:
 *   |w - e^{i omega}| <= |w - e^{i omega~}| + |omega~ - omega|
 *                     <= 2^-106 sqrt(2) + 2^-199 + 2^-105.9 <= 2^-104.6 = dw
 * (each part rounded to nearest from MPFR at 200 bits; omega <= 1), and
 *   |z' - e^{i (theta + omega)}| <= |z' - z w| + |z - e^{i theta}| |w|
 *                                   + |w - e^{i omega}|
 *                                <= rho + M (1 + dw) + dw,
 * rho the rounding of the product (rotate_dd: <= 2^-100.4 per component
 * while M <= 2^-40, so |c0|, |s0| <= 1 + 2^-39, <= 2^-99.9 in modulus).
 * The bound kept, M' = RN(RN(M + 2^-97) (1 + 2^-50)), is above it: 2^-97 >
 * rho + dw, the factor covers M dw and the two roundings of M' itself.
 * After k steps M <= (M0 + k 2^-97)(1 + 2^-50)^k: the caller re-anchors
 * on pc_fast_sincos when M exceeds PC_FAST_ROT_MAX. */

/* e^{i omega_i} for every i, once (MPFR at 200 bits, then to
 * double-doubles: each part within 2^-106 of the 200-bit value). */
static int rot_setup(pc_fast *f)
{
    if (f->rot_set) return 0;
    size_t h = (size_t)f->h;
    f->rot = malloc(4 * (h ? h : 1) * sizeof *f->rot);
    if (!f->rot) return -1;
    mpfr_t x, sn, cs, t;
    mpfr_inits2(200, x, sn, cs, t, (mpfr_ptr)0);
    for (size_t i = 0; i < h; i++) {
        mpfr_set_d(x, f->o1[i], MPFR_RNDN);
        mpfr_add_d(x, x, f->o2[i], MPFR_RNDN); /* omega~ to 2^-200: within dw */
        mpfr_sin_cos(sn, cs, x, MPFR_RNDN);
        dd_of(cs, t, &f->rot[4 * i], &f->rot[4 * i + 1]);
        dd_of(sn, t, &f->rot[4 * i + 2], &f->rot[4 * i + 3]);
    }
    mpfr_clears(x, sn, cs, t, (mpfr_ptr)0);
    f->rot_set = 1;
    return 0;
}

/* Y = A B - C D in double-double, every input a double-double (hi =
 * RN(hi + lo)) with |A|, |C| <= 1 + 2^-39 and |B|, |D| <= 1:
 *   A0 B0 = p + pe, C0 D0 = q + qe exactly (two_prod), p - q = h + he
 *   exactly (two_sum); the dropped A1 B1, C1 D1 <= 2^-105.99 each; the four
 *   cross products (<= 2^-52.99) round by <= 2^-105.99 each, their two
 *   sums (<= 2^-51.99) by 2^-104.99 each, and the difference (<= 2^-50.99)
 *   by 2^-103.99; the low parts he (<= 2^-51.99), pe, qe (<= 2^-52.99)
 *   and the cross terms add three roundings, <= 2^-103.99, 2^-103.4 and
 *   2^-102.7; y0 + y1 = h + L exactly (two_sum).  In all
 *   <= 2^-104.99 (2 + 4/2 + 2 + 2 + 2 + 3.01 + 4.89) <= 2^-100.4. */
static inline PC_INLINE void rotate_dd(const double a[2], const double b[2], const double c[2],
                                       const double d[2], double y[2])
{
    double pe, p = two_prod(a[0], b[0], &pe);
    double qe, q = two_prod(c[0], d[0], &qe);
    double he, hh = two_sum(p, -q, &he);
    double t = (a[0] * b[1] + a[1] * b[0]) - (c[0] * d[1] + c[1] * d[0]);
    double L = ((he + pe) - qe) + t;
    y[0] = two_sum(hh, L, &y[1]);
}

static inline PC_INLINE void rotate_kernel(const pc_fast *f, int i, double s[2], double c[2],
                                           double *m)
{
    const double *C = f->rot + 4 * (size_t)i, *S = C + 2;
    double cn[2], sn[2], nc[2] = { -c[0], -c[1] };
    rotate_dd(c, C, s, S, cn);  /* cos' = c C - s S */
    rotate_dd(s, C, nc, S, sn); /* sin' = s C + c S = s C - (-c) S */
    c[0] = cn[0]; c[1] = cn[1];
    s[0] = sn[0]; s[1] = sn[1];
    *m = (*m + 0x1p-97) * (1.0 + 0x1p-50);
}

#if PC_FAST_DISPATCH
__attribute__((target("fma")))
static void rotate_fma(const pc_fast *f, int i, double s[2], double c[2], double *m)
{
    rotate_kernel(f, i, s, c, m);
}
#endif

int pc_fast_rotate(pc_fast *f, int i, double s[2], double c[2], double *m)
{
    if (i < 0 || i >= f->h || !f->ok[i] || !(*m <= PC_FAST_ROT_MAX) || rot_setup(f) != 0)
        return 0;
#if PC_FAST_DISPATCH
    if (have_fma) { rotate_fma(f, i, s, c, m); return 1; }
#endif
    rotate_kernel(f, i, s, c, m);
    return 1;
}

/* ---- 3. rounding test ---------------------------------------------------- */

/* In coordinates along the sign of y0: z' = |y0| + y1' with y1' = y1 sgn(y0)
 * and the true value in [z' - err, z' + err].  RN to a format maps every
 * point of (V - HDN, V + HUP) to V, where V is the candidate (|V| near
 * |y0|), HUP/HDN half the spacing above/below V. */

static inline PC_INLINE int fast_round(const double y[2], double err, int need64, pc_ref2 *out)
{
    double a = fabs(y[0]);
    /* Both formats' normal ranges with room: smallest value 2^-100 keeps the
     * binary32 candidate and its neighbours normal; E below a/2 keeps the
     * sign of z. */
    if (!(a >= 0x1p-100 && a <= 0x1p100) || !(err < 0.25 * a))
        return 0;
    /* The analysis below needs err >= 2^-70 a (to absorb a rounding of
     * size u * 2^-23 a); raising a valid bound keeps it valid. */
    if (err < a * 0x1p-70) err = a * 0x1p-70;
    double y1 = y[0] < 0 ? -y[1] : y[1];

    /* binary32: V = RN32(y0).  D = a - |V| is exact (Sterbenz), D + y1 =
     * t + te exactly (two_sum) with |te| <= u |t|; when the test passes
     * |t| < 2 hup so |te| <= 2^-76 a <= err, hence
     *   |z| - |V| in [t - 2 err, t + 2 err],
     * and RN(t + 2 err) < hup implies t + 2 err < hup (RN is monotone and
     * hup is a binary64 number); likewise below. */
    float v = (float)y[0];
    double V = fabs((double)v);
    uint32_t vb;
    memcpy(&vb, &v, sizeof vb);
    vb &= 0x7fffffffu;
    int e32 = (int)(vb >> 23) - 127;       /* V in [2^e32, 2^(e32+1)) */
    double hup = pow2(e32 - 24);
    double hdn = (vb & 0x7fffffu) ? hup : 0.5 * hup;
    double te, t = two_sum(a - V, y1, &te);
    (void)te;
    double e2 = 2.0 * err;
    if (!(t + e2 < hup && t - e2 > -hdn))
        return 0;
    if (need64) {
        /* binary64: V = y0 (= RN(y0 + y1)); spacing 2^(e-52) above, and
         * below unless y0 is a power of two (then 2^(e-53)).  RN(y1 + err) <
         * hup implies y1 + err < hup (monotone); likewise below. */
        uint64_t yb;
        memcpy(&yb, &a, sizeof yb);
        int e = (int)(yb >> 52) - 1023;
        double hu = pow2(e - 53);
        double hd = (yb & ((UINT64_C(1) << 52) - 1)) ? hu : 0.5 * hu;
        if (!(y1 + err < hu && y1 - err > -hd))
            return 0;
        out->f64 = y[0];
    }
    out->f32 = v;
    return 1;
}

int pc_fast_round(const double y[2], double err, int need64, pc_ref2 *out)
{
    return fast_round(y, err, need64, out);
}

int pc_fast_round2(const double ys[2], double es, const double yc[2], double ec, int need64,
                   pc_ref2 *s, pc_ref2 *c)
{
    return fast_round(ys, es, need64, s) && fast_round(yc, ec, need64, c);
}

/* ---- 5. a whole row by rotation ------------------------------------------ */

/* pc_fast_rotate and pc_fast_round of every pair of a row, inlined in one
 * loop (the accuracy gate's rows). */
static inline PC_INLINE int rotate_row_kernel(const pc_fast *f, double *rot, int need64,
                                              pc_ref2 *s, pc_ref2 *c, int *undec)
{
    int n = 0;
    for (int i = 0; i < f->h; i++) {
        double *r = rot + 5 * (size_t)i, m = r[4];
        if (!f->ok[i] || !(m >= 0.0 && m <= PC_FAST_ROT_MAX)) {
            undec[n++] = i;
            continue;
        }
        double ys[2] = { r[0], r[1] }, yc[2] = { r[2], r[3] };
        rotate_kernel(f, i, ys, yc, &m);
        r[0] = ys[0]; r[1] = ys[1]; r[2] = yc[0]; r[3] = yc[1]; r[4] = m;
        if (!(fast_round(ys, m, need64, &s[i]) && fast_round(yc, m, need64, &c[i])))
            undec[n++] = i;
    }
    return n;
}

#if PC_FAST_DISPATCH
__attribute__((target("fma")))
static int rotate_row_fma(const pc_fast *f, double *rot, int need64, pc_ref2 *s, pc_ref2 *c,
                          int *undec)
{
    return rotate_row_kernel(f, rot, need64, s, c, undec);
}
#endif

int pc_fast_rotate_row(pc_fast *f, double *rot, int need64, pc_ref2 *s, pc_ref2 *c, int *undec)
{
    if (rot_setup(f) != 0) {
        for (int i = 0; i < f->h; i++) undec[i] = i;
        return f->h;
    }
#if PC_FAST_DISPATCH
    if (have_fma) return rotate_row_fma(f, rot, need64, s, c, undec);
#endif
    return rotate_row_kernel(f, rot, need64, s, c, undec);
}

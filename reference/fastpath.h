/* fastpath.h: the certified fast path of the sin/cos reference (internal to
 * reference/, and exposed to the tests that check it).
 *
 * sin(pos * omega_i) and cos(pos * omega_i) are approximated in
 * double-double arithmetic with a proven error bound (docs/reference.md,
 * "Fast path"; the analysis is written next to each step in fastpath.c):
 *
 *     |y~ - y| <= PC_FAST_REL * |y~| + PC_FAST_ABS,   y~ = hi + lo,
 *
 * then a rounding test decides RN_binary32(y) (and RN_binary64(y)) from
 * y~ and that bound.  When the test cannot decide (about 1 value in 2^40 for
 * binary32, 1 in 2^11 for binary64) the caller falls back to the MPFR Ziv
 * loop.  No libm function is used: the only operations are IEEE-754 binary64
 * +, -, *, fma and conversions (all correctly rounded to nearest), and
 * 64 x 64 -> 128-bit integer products. */
#ifndef PECHECK_FASTPATH_H
#define PECHECK_FASTPATH_H

#include <math.h>
#include <stdint.h>
#include <mpfr.h>
#include "reference.h"

/* Proven bound of pc_fast_sincos (derivation in fastpath.c): the relative
 * part is dominated by the Taylor tail of sin evaluated in binary64
 * (<= 2^-65.8 after summing every term), the absolute part is the
 * truncation of omega * 2/pi to 192 fractional bits (<= 2^-127.3); it is
 * present only on the fixed-point route (PC_FAST_FIXED), angles >= 1/2. */
#define PC_FAST_REL 0x1p-65
#define PC_FAST_ABS 0x1p-127
#define PC_FAST_DIRECT 1  /* route of pc_fast_sincos: angle < 1/2, relative error only */
#define PC_FAST_FIXED  2  /* angle >= 1/2, reduced in fixed point: absolute term too */

/* Per-table constants of the fast path (one per pc_freqs). */
typedef struct pc_fast pc_fast;

pc_fast *pc_fast_new(int d);
void     pc_fast_free(pc_fast *f);
/* Set frequency I from OMEGA, computed with relative error <= 4 * 2^-prec
 * and prec >= 300 (compute_omega in sincos.c). */
void     pc_fast_set(pc_fast *f, int i, const mpfr_t omega);

/* Double-double sin and cos of pos * omega_i, 0 < pos <= 2^53: S[0] + S[1]
 * and C[0] + C[1] with the bound above (S[0] = RN(S[0] + S[1])).  Returns
 * the route (PC_FAST_DIRECT or PC_FAST_FIXED), or 0 when the fast path does
 * not apply (tiny omega, or an angle within 2^-41
 * of a multiple of pi/2): the caller uses MPFR. */
int pc_fast_sincos(const pc_fast *f, int64_t pos, int i, double s[2], double c[2]);

/* Rows of consecutive positions: S, C (double-doubles, hi = RN(hi + lo)),
 * sin and cos of pos * omega_i with |C + iS - e^{i pos omega_i}| <= M (so
 * each within M), become those of pos + 1 by one rotation by e^{i omega_i},
 * and M its bound (derivation in fastpath.c, "the next position by rotation").
 * Returns 1, or 0 (nothing changed) when it does not apply: omega_i
 * outside the fast path's domain, M above PC_FAST_ROT_MAX (the caller
 * re-anchors on pc_fast_sincos) or no memory for e^{i omega}. */
/* The largest M rotated: the step's analysis needs M <= 2^-40 (|c|, |s|
 * <= 1 + 2^-39); 2^-60 is 2^-7 of binary64's spacing just below 1
 * (2^-53), so the rounding test still decides most values, and a fresh
 * anchor (at most 2^-63, pc_fast_bound) lies below it.  From an anchor the
 * bound grows by about 2^-97 a step: rows reach it after some 2^36 steps. */
#define PC_FAST_ROT_MAX 0x1p-60
int pc_fast_rotate(pc_fast *f, int i, double s[2], double c[2], double *m);

/* Every pair I of a row at once: ROT[5 I .. 5 I + 4] holds its S hi, lo,
 * C hi, lo and M as above (M < 0: none), rotated in place to the next
 * position by pc_fast_rotate's step; the pairs whose values the rounding
 * test (pc_fast_round, with M) decides are in S[I], C[I], the others
 * (no state, M above PC_FAST_ROT_MAX, undecided) listed in UNDEC in
 * ascending order, their number returned (a pair rotated but undecided
 * keeps its rotated state). */
int pc_fast_rotate_row(pc_fast *f, double *rot, int need64, pc_ref2 *s, pc_ref2 *c, int *undec);

/* Rounding test.  Y[0] + Y[1] (Y[0] = RN(Y[0] + Y[1])) approximates a real
 * z with |Y - z| <= ERR (ERR >= 0, a valid upper bound).  Returns 1 and
 * stores RN_binary32(z) (and RN_binary64(z) when NEED64) when they are
 * determined, 0 otherwise. */
int pc_fast_round(const double y[2], double err, int need64, pc_ref2 *out);
/* Both of a pair: pc_fast_round of YS (bound ES) into S and of YC (EC)
 * into C; 1 when both are decided. */
int pc_fast_round2(const double ys[2], double es, const double yc[2], double ec, int need64,
                   pc_ref2 *s, pc_ref2 *c);

/* RoPE: Y = U A + V B in double-double for exact binary64 U, V (binary32
 * inputs) and A, B values of pc_fast_sincos; returns a valid bound of
 * |Y - (U a + V b)| where a, b are the exact sin/cos that A, B approximate
 * (|U| bound(A) + |V| bound(B) + 2^-101 max(|U|, |V|), derivation in
 * fastpath.c). */
double pc_fast_lincomb(double u, const double a[2], double v, const double b[2], int route,
                       double y[2]);
/* The same with the bounds EA of A and EB of B given (a rotated pair's M,
 * pc_fast_rotate): (|U| EA + |V| EB + 2^-101 max(|U|, |V|)) (1 + 2^-50). */
double pc_fast_lincomb_e(double u, const double a[2], double ea, double v, const double b[2],
                         double eb, double y[2]);

/* Error bound of a value of pc_fast_sincos computed on ROUTE, as used by the
 * rounding test (2 (PC_FAST_REL |y~| + PC_FAST_ABS), the absolute term on
 * the fixed route only; inline: it is evaluated for every value).
 * 2^-64 |y0| (+ 2^-126) >= 2 (PC_FAST_REL |y0 + y1| (+ PC_FAST_ABS)): the
 * factor 2 covers |y1| <= u |y0| and the rounding of this sum.  The direct
 * route's reduction error is relative (2^-104 theta), so its bound has no
 * absolute term. */
static inline double pc_fast_bound(const double y[2], int route)
{
    return fabs(y[0]) * (2 * PC_FAST_REL)
         + (route == PC_FAST_DIRECT ? 0.0 : 2 * PC_FAST_ABS);
}

/* ---- for tests and benchmarks ------------------------------------------- */

/* The pure MPFR Ziv loop of pc_ref_sincos (no fast path). */
pc_status pc_ref_sincos_mpfr(pc_freqs *f, int64_t pos, int i, pc_ref2 *s, pc_ref2 *c);

/* pc_fast_sincos with the constants of F: its route, or 0 (no fast path). */
int pc_fast_sincos_of_freqs(const pc_freqs *f, int64_t pos, int i, double s[2], double c[2]);

/* pc_fast_rotate with the constants of F. */
int pc_fast_rotate_of_freqs(pc_freqs *f, int i, double s[2], double c[2], double *m);
/* Pairs of rows that F decided by a rotation (counted as fast too). */
uint64_t pc_freqs_rot_stats(const pc_freqs *f);

/* Turn the fast path of F off (ON = 0: every value from the Ziv loop, for
 * cross-checks and benchmarks) or back on. */
void pc_freqs_use_fast(pc_freqs *f, int on);

/* Counters of one pc_freqs: values decided by the fast path and pairs sent
 * to MPFR since pc_freqs_new (not thread-safe: a pc_freqs is per thread). */
void pc_freqs_stats(const pc_freqs *f, uint64_t *fast, uint64_t *mpfr);

/* The binary32 vector path (vecpath.c) of pc_ref_sincos_row32 and of
 * pc_ref_sinusoidal_row without f64: off (ON = 0: the scalar fast path for
 * every pair) or back on; its counters: pairs it decided (also counted as
 * fast) and pairs it passed on undecided. */
void pc_freqs_use_vec(pc_freqs *f, int on);
void pc_freqs_vec_stats(const pc_freqs *f, uint64_t *vec, uint64_t *undecided);

#endif

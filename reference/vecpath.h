/* vecpath.h: the vector path of the sin/cos reference (internal to
 * reference/, exposed to the tests that check it).
 *
 * For one position POS and every frequency i of a table, sin(pos * omega_i)
 * and cos(pos * omega_i) are evaluated in binary64 (AVX-512, AVX2+FMA or
 * scalar code, chosen at run time; every path performs the same IEEE-754
 * operations, so they give the same bits) with the proven bound
 * (docs/reference.md, "Vector path"; each step in vecpath_kernel.h)
 *
 *     |y~ - y| <= 2^-50.8 |y~| + 2^-103.7 |p1|,   p1 = RN(pos * w1_i),
 *
 * and a rounding test decides RN_binary32(y) from y~: decided when
 * |y~| >= max(2^-100, 2^-48 |p1|) and y~ is at least 9 binary64 ulps away
 * from every binary32 rounding midpoint (the bound is < 4.7 ulps there).
 * Pairs the test cannot decide (about 2^-24 of them) are returned to the
 * caller, which uses the scalar fast path and then MPFR (sincos.c).
 * Binary32 only: the binary64 rounding needs the double-double fast path. */
#ifndef PECHECK_VECPATH_H
#define PECHECK_VECPATH_H

#include <stdint.h>
#include <mpfr.h>

/* Largest position of the vector path: the analysis needs |p1| <= 2^40
 * (reduced argument |a| <= pi/4 + 2^-12 < 0.8, integer rounding of p1
 * exact below 2^51). */
#define PC_VEC_POS_MAX ((int64_t)1 << 40)

/* Output orders of pc_vec_row32 (OUT holds 2 h floats, h = d/2). */
#define PC_VEC_SC   0  /* sin at 2i, cos at 2i+1 (sinusoidal layout 0) */
#define PC_VEC_HALF 1  /* sin at i, cos at h+i (sinusoidal layout 1) */
#define PC_VEC_CS   2  /* cos at 2i, sin at 2i+1 (RoPE table, (n, d/2, 2)) */

/* Instruction sets, best first (pc_vec_isa). */
#define PC_VEC_SCALAR 0
#define PC_VEC_AVX2   1  /* AVX2 + FMA, 4 lanes */
#define PC_VEC_AVX512 2  /* AVX-512F, 8 lanes */

typedef struct pc_vec pc_vec;

pc_vec *pc_vec_new(int d);
void    pc_vec_free(pc_vec *v);
/* Set frequency I from OMEGA (relative error <= 4 * 2^-prec, prec >= 300;
 * compute_omega in sincos.c).  Frequencies outside [2^-900, 1] get w = 0:
 * every pair of them is returned undecided. */
void    pc_vec_set(pc_vec *v, int i, const mpfr_t omega);

/* Binary32 sin and cos of pos * omega_i for every i, 1 <= pos <=
 * PC_VEC_POS_MAX, stored in MODE's order.  The indices i the rounding test
 * could not decide go to UNDEC (room for h) and their OUT slots hold
 * unspecified values; returns how many there are. */
int pc_vec_row32(const pc_vec *v, int64_t pos, int mode, float *out, int *undec);

/* RoPE: the d binary32 values X rotated by the angles of POS on the pairs
 * of LAYOUT (0: (2i, 2i+1), 1: (i, h+i)), each correctly rounded to binary32
 * into OUT (d floats), when the rounding test decides it (bound in
 * vecpath_kernel.h); the undecided pair indices go to UNDEC, their OUT
 * slots unspecified; returns how many.  Uses V's scratch (not const). */
int pc_vec_rope32(pc_vec *v, int64_t pos, int layout, const float *x, float *out, int *undec);

/* ---- for tests ------------------------------------------------------------ */

/* The binary64 approximations before the rounding test, for every i:
 * S[i], C[i] (quadrant applied), P1[i] = p1 and OK[i] = 1 when the test
 * decided both.  Same instruction set as pc_vec_row32. */
void pc_vec_raw(const pc_vec *v, int64_t pos, double *s, double *c, double *p1,
                unsigned char *ok);

/* The instruction set in use; pc_vec_force_isa caps it at ISA (never above
 * what the CPU supports) and returns the one now in use.  Process-wide: call
 * it only while no other thread uses the vector path. */
int pc_vec_isa(void);
int pc_vec_force_isa(int isa);

#endif

/* reference.h: certified references computed with GNU MPFR.
 *
 * Every value returned here is the exact mathematical value correctly
 * rounded (round-to-nearest-even) to binary32 and to binary64.  The
 * frequencies omega_i come from a schedule (today the geometric one,
 * omega_i = base^(-2i/d)); the angle is pos * omega_i with an integer
 * position, or a real one (an exact binary64) where the schedule maps
 * rows to coordinates (schedule.h, coord).  See docs/reference.md for
 * the error analysis of the Ziv loop (the bound handed to mpfr_can_round
 * at each step). */
#ifndef PECHECK_REFERENCE_H
#define PECHECK_REFERENCE_H

#include <stddef.h>
#include <stdint.h>
#include "harness/base/status.h"

/* A reference value rounded both ways. */
typedef struct pc_ref2 {
    float  f32;   /* RN to binary32 */
    double f64;   /* RN to binary64 */
} pc_ref2;

/* Limits of the reference (checked by every entry point). */
#define PC_D_MAX    8192                     /* largest even model dimension */
#define PC_POS_MAX  ((int64_t)1 << 53)       /* largest position: 2^53 */

/* Validate (d, base): even d in [2, PC_D_MAX], finite base > 1. */
pc_status pc_ref_check_params(int d, double base, pc_err *err);

/* A frequency schedule: its kind (the formula, reference/schedule.h) and
 * its parameters.  A value: copy it freely. */
typedef struct pc_schedule_kind pc_schedule_kind;
typedef struct pc_schedule {
    const pc_schedule_kind *kind;
    double base;              /* the schedule's base (rope_theta) */
    const void *params;       /* the kind's parameters (NULL for the geometric
                                 schedule); owned by the caller, read-only,
                                 alive as long as any pc_freqs made from it */
} pc_schedule;
/* omega_i = base^(-2i/d) (reference/schedule_geometric.c). */
pc_schedule pc_schedule_geometric(double base);

/* Frequencies of one table under schedule S, computed once at high
 * precision and reused for every position (opaque); NULL when (D, S) is
 * invalid or out of memory. */
typedef struct pc_freqs pc_freqs;
pc_freqs *pc_freqs_new(int d, pc_schedule s);
void      pc_freqs_free(pc_freqs *f);
/* omega_i correctly rounded to binary64 (for display and error models). */
double    pc_freqs_omega(const pc_freqs *f, int i);
/* The schedule's attention factor A (binary64, 1 when it has none): the
 * certified sin and cos, and the rotated RoPE values, are A sin, A cos. */
double    pc_freqs_attention(const pc_freqs *f);
/* A schedule's factor G_i(POS) of pair I at row POS beyond A (schedule.h,
 * pair_scale: xPos), rounded to binary64 from a value of relative error
 * below 2^-60 (within an ulp); 1 when the schedule has none.  The
 * certified values are A G_i(pos) cos, A G_i(pos) sin. */
double    pc_freqs_scale(pc_freqs *f, int64_t pos, int i);
/* 1 when the schedule has such a factor. */
int       pc_freqs_scaled(const pc_freqs *f);
/* The precision model's constant C of pair I under schedule S
 * (docs/schedules.md; 2 ln(base) + 4 for the geometric schedule). */
double    pc_schedule_model_c(const pc_schedule *s, int d, int i);
/* The radial constant beyond pc_model_radial's, units of u (kind->model_r; 0 without). */
double    pc_schedule_model_r(const pc_schedule *s, int d);

/* The position pair I of row POS is rotated by: POS, or the schedule's
 * own (positions with several axes, schedule.h); -1: none (out of its
 * rows).  The row functions below take row positions and rotate each pair
 * by its own. */
int64_t   pc_freqs_pos(const pc_freqs *f, int64_t pos, int i);
/* 1 when the schedule maps positions (pc_freqs_pos is not POS itself). */
int       pc_freqs_mapped(const pc_freqs *f);
/* The position pair I of row POS is rotated by as a real number (exact:
 * an integer position, or a schedule's real coordinate, schedule.h
 * coord); NaN: none.  pc_freqs_pos is -1 for a coordinate that is not a
 * whole number in [0, 2^53]. */
double    pc_freqs_coord(const pc_freqs *f, int64_t pos, int i);

/* sin(pos*omega_i) and cos(pos*omega_i), 0 <= i < d/2, 0 <= pos <= 2^53. */
pc_status pc_ref_sincos(pc_freqs *f, int64_t pos, int i, pc_ref2 *s, pc_ref2 *c);

/* sin and cos of an exact binary32 or binary64 angle (no frequency): used to
 * split an implementation's error into angle and evaluation parts. */
pc_status pc_ref_sincos_of(double theta, pc_ref2 *s, pc_ref2 *c);

/* One table row of sinusoidal PE for position POS, layout
 * 0 = interleaved (sin at 2i, cos at 2i+1), 1 = half (sin in [0,d/2), cos in
 * [d/2,d)).  OUT32/OUT64 hold d values each (either may be NULL). */
pc_status pc_ref_sinusoidal_row(pc_freqs *f, int64_t pos, int layout,
                                float *out32, double *out64);

/* Binary32 sin and cos of POS * omega_i for every i (fast: the vector path,
 * reference/vecpath.c): OUT holds d floats in MODE's order, 0 = (sin, cos)
 * pairs, 1 = sin in [0,d/2) and cos in [d/2,d), 2 = (cos, sin) pairs (the
 * RoPE table of `pecheck reference`). */
pc_status pc_ref_sincos_row32(pc_freqs *f, int64_t pos, int mode, float *out);

/* RoPE: rotate the d binary32 values X (exact inputs) by the angles of
 * position POS on the pairs of LAYOUT; the exact rotated vector rounded once. */
pc_status pc_ref_rope_row(pc_freqs *f, int64_t pos, int layout, const float *x,
                          float *out32, double *out64);

#endif

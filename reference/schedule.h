/* schedule.h: frequency schedules, omega_i for 0 <= i < d/2, as values.
 *
 * A schedule is a kind (the formula: one file reference/schedule_NAME.c
 * defining a pc_schedule_kind) and its parameters (pc_schedule in
 * reference.h).  pc_freqs_new computes the certified frequencies of a
 * schedule once per table; the Ziv loop, the fast path and the vector path
 * take omega as input and do not know the formula.
 *
 * Contract of OMEGA: OUT (its precision P >= 64 set by the caller) receives
 * omega_i with relative error |omega~ - omega| < 4 * 2^-P * omega, and
 * omega_i > 0: the bounds the Ziv loop's error analysis assumes
 * (docs/reference.md "Frequencies"); the fast and vector paths take a pair
 * only when omega_i is in [2^-900, 1] (pc_fast_set, pc_vec_set).  Adding a schedule (e.g. RoPE scaling):
 * a new schedule_NAME.c with its kind and constructor, declared in
 * reference.h; nothing else changes. */
#ifndef PECHECK_SCHEDULE_H
#define PECHECK_SCHEDULE_H

#include <mpfr.h>
#include "reference.h"

struct pc_schedule_kind {
    const char *name;          /* "geometric" */
    /* Validate the parameters for dimension D (NULL ERR: no message). */
    pc_status (*check)(const pc_schedule *s, int d, pc_err *err);
    /* omega_i into OUT at OUT's precision (contract above). */
    void (*omega)(mpfr_ptr out, const pc_schedule *s, int d, int i);
    /* The attention factor A > 0 multiplying cos and sin, into OUT at OUT's
     * precision P >= 64 with relative error < 4 * 2^-P; returns 1 when OUT
     * holds A exactly (a binary64 parameter), else 0.  NULL: A = 1. */
    int (*attention)(mpfr_ptr out, const pc_schedule *s, int d);
    /* The precision model's C for pair I (NULL: 2 ln(base) + 4),
     * derivations in docs/schedules.md. */
    double (*model_c)(const pc_schedule *s, int d, int i);
    /* Positions with several axes (M-RoPE, axial RoPE): the integer
     * position in [0, 2^53] by which pair I of row POS is rotated, the
     * angle being that position times omega_i; -1 when POS has no row.
     * NULL: every pair of row POS is rotated by POS. */
    int64_t (*position)(const pc_schedule *s, int d, int64_t pos, int i);
    /* The precision model's radial part beyond pc_model_radial's, in units
     * of u (a formulation multiplying cos and sin by a computed factor,
     * docs/schedules.md); NULL: 0. */
    double (*model_r)(const pc_schedule *s, int d);
    /* Positions that are real numbers (a ViT's patch coordinates): the
     * position pair I of row POS is rotated by, an exact binary64 value
     * (a float32 or float64 coordinate as given, |x| <= 2^53), the angle
     * being x times omega_i exactly; NaN when POS has no row.  NULL: the
     * positions are POSITION's integers.  A whole x in [0, 2^53] takes
     * the integer paths (the same certified value, faster). */
    double (*coord)(const pc_schedule *s, int d, int64_t pos, int i);
    /* 1 when omega_i is exactly R pi, R a binary64 (an angle scale of pi
     * times a frequency of exactly 1), into *R: an angle x R pi with 2 x R
     * an integer has sin and cos exactly 0 or +-1, which no Ziv loop can
     * decide near 0 (sincos.c takes them exactly).  NULL: never. */
    int (*pi_ratio)(const pc_schedule *s, int d, int i, double *r);
    /* A factor G_i(pos) > 0 beyond A multiplying pair I's cos and sin at
     * row POS, per pair and per position (xPos: zeta_i^((pos + q0)/B),
     * docs/schedules.md), into OUT at OUT's precision P >= 64 with relative
     * error < 4 * 2^-P (the contract of omega).  NULL: 1.  A schedule with
     * one is certified by the Ziv loop alone (the fast and vector paths
     * round sin and cos of one angle, not a factor that changes each row).
     * Returns 1 when OUT holds G_i(pos) exactly (a whole power of a ratio
     * whose power is a binary fraction that fits OUT's precision), else 0:
     * an exact factor times an exact value may fall on a rounding
     * boundary, which no Ziv loop can decide (sincos.c takes it exactly). */
    int (*pair_scale)(mpfr_ptr out, const pc_schedule *s, int d, int64_t pos, int i);
    /* What COORD returns, for the verdict's "(the pair's WORD X)": NULL a
     * position; "angle" where the kind hands the angle itself as the
     * coordinate with omega_i = 1 (float16 angles, docs/schedules.md). */
    const char *coord_word;
};

#endif

/* rank_internal.h: what rank.c and rank_rows.c share: the rows held, the
 * form of a prediction and the helpers that score one (rank.c; the
 * values, the tolerance and the support: its opening comment and
 * docs/diagnosis.md).  Not part of the family's interface (rank.h is). */
#ifndef PECHECK_ROPE_RANK_INTERNAL_H
#define PECHECK_ROPE_RANK_INTERNAL_H

#include <math.h>
#include <stddef.h>
#include <stdint.h>
#include "rank.h"
#include "harness/engine/accuracy.h"

typedef struct rk {
    const pc_impl *impl;
    const pc_acc_cfg *cfg;
    int h, d, table;
    size_t n;                 /* rows held */
    int64_t *pos;             /* their positions */
    double *c, *s;            /* the source's A cos, A sin (n x h) */
    double *w;                /* the checked schedule's frequencies */
    float *w32;               /* the same rounded to binary32 */
    double att, u;            /* its attention factor; the values' unit roundoff */
    double share0;            /* the checked schedule's own share */
} rk;

/* A hypothesis's prediction (ARG: its parameters) of the source's
 * rotation of (1, 0) in pair I at position P: (ZC, ZS). */
typedef void (*pred_fn)(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs);

/* TOL(theta) of rank.c's opening comment: a binary32 kernel's error at
 * the angle THETA. */
static inline double pc_rk_tol(const rk *k, double theta)
{
    return k->att * (8.0 * k->u + 0x1p-21 + 8.0 * 0x1p-24 * fabs(theta));
}

/* Whether a value whose tolerance is TOL says something (rank.c's opening
 * comment): a tolerance past A / 10 (long context: the angle's own
 * rounding is that large) lets any prediction through, and the value is
 * left out of every share. */
static inline int pc_rk_informative(const rk *k, double tol)
{
    return tol < 0.1 * k->att;
}

/* How much a hypothesis's share must beat the checked schedule's own
 * (rk.share0) to be named (rank.c's opening comment): a tenth of the
 * informative values, far past what a binary32 kernel's roundings move. */
#define PC_RK_MARGIN 0.1

/* The rotation by THETA with the schedule's attention factor. */
static inline void pc_rk_put_rot(const rk *k, double theta, double *zc, double *zs)
{
    *zc = k->att * cos(theta);
    *zs = k->att * sin(theta);
}

/* rank.c: the support of PRED (its share of the informative values, 0
 * unless 0.1 above the checked schedule's), the gate's kappa_i of pair I,
 * the evidence line "WHAT reproduces ...", the mean turn (a constant
 * phase and norm) of the values, and the prediction by other frequencies
 * (ARG: h of them and the attention factor). */
double pc_rk_support(const rk *k, pred_fn pred, const void *arg);
double pc_rk_gate_kappa(const rk *k, int i);
void pc_rk_evidence(char *buf, size_t len, const rk *k, double sup, const char *what);
void pc_rk_mean_turn(const rk *k, double *phase, double *norm);
void pc_rk_p_freqs(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs);

/* rank_rows.c: the hypotheses about which rows, amplitudes and factors
 * the source holds, the angle's evaluation and the pairs' layout, each
 * adding its cause to OUT (SPEC: the spec, for LongRoPE's factor lists). */
void pc_rk_longrope(const rk *k, const pc_spec *spec, pc_rope_causes *out);
void pc_rk_period(const rk *k, pc_rope_causes *out);
void pc_rk_blocks(const rk *k, pc_rope_causes *out);
/* The share of rows sampled across the checked range that hold position
 * p + Q (rank_rows.c): an offset read from one row is said only when the
 * rows hold it. */
double pc_rk_offset_share(const rk *k, int64_t q);
void pc_rk_sin_rows(const rk *k, pc_rope_causes *out);
void pc_rk_amplitudes(const rk *k, pc_rope_causes *out);
void pc_rk_reciprocal(const rk *k, pc_rope_causes *out);
void pc_rk_evaluation(const rk *k, pc_rope_causes *out);
void pc_rk_layout(const rk *k, pc_rope_causes *out);

/* rank_forms.c: the values computed another way from the right inputs:
 * the angle or the rotation carried from row to row in binary32, sin from
 * cos. */
void pc_rk_forms(const rk *k, pc_rope_causes *out);

#endif

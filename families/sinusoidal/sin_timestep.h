/* sin_timestep.h: the comparison of timestep.c, shared with grid.c: rows
 * of width d whose row r holds the embedding of the real number T[r]
 * (a timestep; a grid coordinate), every value against its certified sin
 * or cos under the accuracy gate's element bound, every pair against the
 * unit circle (docs/sinusoidal.md "Timesteps"). */
#ifndef PECHECK_SIN_TIMESTEP_H
#define PECHECK_SIN_TIMESTEP_H

#include <stddef.h>
#include "sin_spec.h"
#include "harness/base/status.h"
#include "harness/sources/table.h"

/* The pairs off the unit circle (sin^2 + cos^2 = 1, a check whose bound
 * does not grow with the angle: pc_model_norm_bound) and the worst; the
 * pairs whose element bound no longer constrains the angle (the phase
 * term past PC_MODEL_VACUOUS, model.h: the long-context note), the first
 * timestep where one does and how many of the d/2 pairs do at the
 * largest |timestep|. */
typedef struct ts_norm {
    size_t over, row;
    int pair;
    double err, bound;
    int vac_pairs;
    size_t vac_row;     /* n: none */
    int vac_pair;
} ts_norm;

typedef struct ts_worst {
    size_t count, over;
    double ratio, err, bound, exact;
    float got;
    size_t row;
    int col;
    ts_norm norm;
} ts_worst;

typedef struct ts_run {
    const pc_sin_spec *s;     /* its T (s->t, a value a row) and K (s->angle_scale) */
    const pc_table_info *t;   /* its layout, storage and first position */
    pc_schedule sched;
    double *omega, *kappa;
    float *rows;
    size_t n;
    int d;
    double base;
} ts_run;

/* The N rows of IMPL from position LO (width D, LAYOUT, BASE handed to its
 * hook) into a new array *ROWS of N * D floats, read in calls of 256 rows;
 * *RC the first nonzero return of a call (-1: it faulted), 0 when all
 * returned 0.  PC_ENOMEM (naming nothing else) when the room is missing.
 * timestep.c, grid.c and identify.c read a table's rows this way. */
struct pc_impl;
pc_status pc_sin_read_rows(const struct pc_impl *impl, int64_t lo, size_t n, int d, double base,
                           int layout, float **rows, int *rc, pc_err *err);

/* omega_i and kappa_i of R's schedule for R->d (R->omega, R->kappa). */
pc_status pc_sin_ts_frequencies(ts_run *r, pc_err *err);
/* Every value of R's rows (R->n rows of R->d, R->t->layout, sin first)
 * against the certified sin and cos of K T[row] omega_i (T, K: R->s) into W. */
pc_status pc_sin_ts_compare(const ts_run *r, ts_worst *w, pc_err *err);
/* The likely cause of R's failed comparison under BASE into BUF ("" when
 * its rows fit no formula): the formula the row of the smallest nonzero
 * T fits and what differs from R's (downscale_freq_shift, the max period,
 * the order, the angle scale), with the options that express it. */
void pc_sin_ts_cause(const ts_run *r, double base, char *buf, size_t len);

#endif

/* acc_block.h: one worker's block of the accuracy engine (acc_block.c):
 * its scratch, the implementation's and the reference's rows of its
 * positions, every element held to the precision model's bound, and the
 * witnesses' error split; the parallel loop over blocks (accuracy.c) is
 * the only user (internal to harness/engine). */
#ifndef PECHECK_ACC_BLOCK_H
#define PECHECK_ACC_BLOCK_H

#include <stddef.h>
#include <stdint.h>
#include "accuracy.h"
#include "harness/sandbox/call.h"
#include "families/family.h"
#include "reference/reference.h"

/* A worker's block: the frequencies, the positions, the rows. */
typedef struct pc_acc_block {
    const pc_impl *impl;
    const pc_acc_cfg *cfg;
    pc_freqs *freqs;
    double *omega;        /* d/2 binary64 frequencies */
    int64_t *pos;
    float *got, *ref32, *x;
    double *ref64;
    double u_s;           /* the storage rounding (model.h) */
    double R;             /* the radial constant */
    double *kappa;        /* d/2: the phase constant of each pair (model.h) */
    const pc_rows *rows;  /* the family's rows */
    double att;           /* the attention factor A (1: none) */
    float *lane_got[PC_ACC_LANES], *lane_x[PC_ACC_LANES]; /* GOT and X of each layout */
    double *pair_theta, *pair_bound; /* d/2: one row's angles and bounds (pc_blk_fill_rows) */
    double u_min;         /* half-arithmetic kernels: a subnormal rounding (model.h) */
    /* the fitted model's sums: the rotation of (1, 0) (rows with an input),
     * and one row's z / A and e^{i theta} per pair (fitsums.h) */
    float *fit_got;
    double *fc, *fs, *fct, *fst;
    double *fc1, *fs1;    /* rows with an input: cos and sin of omega_i (fit_theta) */
    int mapped;           /* the schedule maps a row to its pairs' positions (pc_freqs_pos) */
    int scaled;           /* the schedule scales each pair per position (xPos: pc_freqs_scale) */
} pc_acc_block;

/* Column j of a layout: its pair, its partner column, and the column of
 * the shared reference rows that holds its value (REF). */
typedef struct pc_acc_cols { int *pair, *mate, *ref; } pc_acc_cols;

/* Partner column of DIM in its pair, and whether DIM is the first member. */
int pc_blk_pair_of(int layout, int d, int dim, int *pair, int *first);
/* The factor of pair I at row POS: A, times the schedule's G_i(pos). */
double pc_blk_pair_factor(const pc_acc_block *b, int64_t pos, int i);
/* The implementation's rows of the block's N positions into GOT (via VIA);
 * the first nonzero return value, FAULT and *ALONE as the calls went. */
int pc_blk_call(pc_acc_block *b, const pc_impl *via, size_t n, pc_fault *fault, int *alone);
/* The certified rows of the block's N positions into REF32/REF64. */
pc_status pc_blk_ref_rows(pc_acc_block *b, size_t n);
/* GOT of N positions against the reference rows, into M. */
void pc_blk_fill_rows(pc_acc_block *b, size_t n, const pc_acc_cols *cl, pc_metrics *m);
/* Error split of one witness W. */
void pc_blk_split_witness(pc_acc_block *b, pc_witness *w);
/* Scratch of a worker for NL layouts; pc_blk_free releases it. */
pc_status pc_blk_new(pc_acc_block *b, const pc_impl *impl, const pc_acc_cfg *cfg,
                     const pc_rows *rows, int nl, pc_err *err);
void pc_blk_free(pc_acc_block *b);
/* The largest A kappa_i (RES->C), R and the long-context reach of B's pairs. */
void pc_blk_budget_reach(const pc_acc_block *b, pc_acc_result *res);

#endif

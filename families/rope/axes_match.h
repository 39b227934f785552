/* axes_match.h: which position axis each pair of a RoPE source follows
 * (axes_match.c). */
#ifndef PECHECK_ROPE_AXES_MATCH_H
#define PECHECK_ROPE_AXES_MATCH_H

#include <stdint.h>
#include "harness/sandbox/impl.h"
#include "harness/engine/accuracy.h"
#include "scaling.h"

/* For each of the D/2 pairs of IMPL's rows LO..HI (rows of AX's position
 * ids, LAYOUT, BASE the hook's argument), the axis whose positions times
 * OMEGA_i explain its angles into FOLLOW (-1: none); -1 when a call fails.
 * HALF: the angles are float16 values, fl16(fl16(x) OMEGA_i), OMEGA_i
 * float16 values (--rope-angle-dtype f16: a model run in half precision). */
int pc_rope_axes_follow(const pc_impl *impl, const pc_rope_axes *ax, const double *omega, int half,
                        int d, double base, int layout, int64_t lo, int64_t hi, int *follow);
/* FOLLOW (H pairs, A axes) for people: "sections 24,16,24 (in turn)" or
 * its runs of pairs. */
void pc_rope_axes_describe_follow(const int *follow, int h, int A, char *buf, size_t len);
/* FOLLOW (H pairs, A axes) as --rope-sections' list ("16,24,24") into BUF:
 * 1 in turn (HF's order), 2 in the interleaved order, 0 neither (or a pair
 * that follows no axis). */
int pc_rope_axes_sections_of(const int *follow, int h, int A, char *buf, size_t len);
/* The pairs of FOLLOW (H of them) on another axis than WANT gives them,
 * one that holds other positions than WANT's in some row LO..HI of AX (a
 * pair follows axes of the same positions alike: text tokens under
 * M-RoPE, (t, t, t), follow the first). */
int pc_rope_axes_moved(const pc_rope_axes *ax, int64_t lo, int64_t hi, const int *follow,
                       const int *want, int h);
/* 1 when every pair of FOLLOW (H pairs, A axes) follows an axis, and
 * the axes of WANT (a split's axis of each pair) map one to one onto
 * those followed, not each onto itself: the pairs follow the split with
 * the ids' columns in another order (ChatGLM-6B's ids saved as (block
 * position, position)); PERM[a] is the column axis a follows. */
int pc_rope_axes_permuted(const int *follow, const int *want, int h, int A, int *perm);
/* 1 when FOLLOW is A runs of pairs, each on another axis, not in turn
 * (M-RoPE's sections with the ids' columns in another order): the runs'
 * lengths as --rope-sections' list into BUF, the axis of run a in PERM[a]. */
int pc_rope_axes_runs_permuted(const int *follow, int h, int A, char *buf, size_t len, int *perm);
/* The likely cause of IMPL's failed gate under CFG, whose schedule has
 * position axes: the pairs that follow another axis than the check's. */
void pc_rope_axes_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len);

/* Axial positions (axes_freqs.c): when IMPL's pairs turn along their own
 * axes at one power r != 1 of the check's frequencies OMEGA (D/2 of
 * them), the cause in BUF (the text model's base, the whole head's
 * exponents, another base); "" otherwise. */
void pc_rope_axes_freqs_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                              char *buf, size_t len);

/* How the model stores its frequencies or lays out its columns
 * (axes_storage.c): the frequencies or the angles float16 values, the
 * columns of an (n, d) cache in the other half layout (each axis' own, or
 * the whole head's); the cause into BUF (1), or 0 ("" in BUF). */
int pc_rope_axes_storage_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                               char *buf, size_t len);

/* The cause of a cache checked with --rope-angle-dtype f16 (axes_storage.c):
 * its angles x omega_i exactly, not rounded, or neither. */
void pc_rope_axes_half_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len);

/* A row-major 2-D grid of ids whose cache was built for the grid
 * transposed (axes_grid.c): the cause into BUF (1), or 0. */
int pc_rope_axes_grid_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                            char *buf, size_t len);

/* A pair follows a hypothesis (an axis, a schedule) when its mean wrapped
 * angle error over the rows is below this: a stored bfloat16 pair's angle
 * is good to 2^-8, far below 0.05 rad, far above a wrong hypothesis'
 * random phases, about pi / 2 on average. */
#define PC_AXES_TOL 0.05

/* ---- the rows' angles, and hypotheses held against them (axes_angles.c) ---- */

/* The angle of every pair (atan2 of the rotation of (1, 0)) at M rows
 * ROWS of the checked range: ANG[k * H + i] is pair i's at ROWS[k]. */
typedef struct pc_axes_angles {
    int64_t *rows;
    double *ang;
    int64_t m;
    int h;
} pc_axes_angles;

/* The angles of up to MAX_ROWS rows spread over CFG's range (every row
 * when there are no more); -1 when a call fails (T then empty). */
int pc_rope_axes_angles(const pc_impl *impl, const pc_acc_cfg *cfg, int64_t max_rows,
                        pc_axes_angles *t);
void pc_rope_axes_angles_free(pc_axes_angles *t);
/* A hypothesis: the angle it predicts for pair I at row ROW. */
typedef double (*pc_axes_pred)(const void *arg, int64_t row, int i);
/* 1 when PRED explains T: every pair's mean |angle - PRED| (wrapped to
 * (-pi, pi]) over T's rows below the tolerance pc_rope_axes_follow uses. */
int pc_rope_axes_explains(const pc_axes_angles *t, pc_axes_pred pred, const void *arg);
/* Frequencies W (one a pair) along the pairs' axes of AX: the
 * hypothesis "pair i turns at x W_i", x its axis' position. */
typedef struct pc_axes_freqs {
    const pc_rope_axes *ax;
    const double *w;
} pc_axes_freqs;
double pc_rope_axes_at(const void *freqs, int64_t row, int i);
/* 1 when pair i turning at x W_i explains the rows of CFG's range (up to
 * as many as pc_rope_axes_follow reads); 0 otherwise or a call failed. */
int pc_rope_axes_freqs_explain(const pc_impl *impl, const pc_acc_cfg *cfg, const double *w);
/* The position along axis A that row K of T turns at, solved from the
 * pairs of that axis (AX's) at frequencies OMEGA from the lowest to the
 * highest (each unwrapping the next); NAN when the axis has no pair. */
double pc_rope_axes_solve(const pc_axes_angles *t, const pc_rope_axes *ax, const double *omega,
                          const int *by, int64_t k, int a);
/* The H pairs' indices by rising OMEGA (BY of pc_rope_axes_solve;
 * malloc'd, NULL: out of memory). */
int *pc_rope_axes_by_omega(const double *omega, int h);
/* The angle scale S of --rope-angle-scale (1: none): OMEGA_i is S times
 * the schedule's frequency. */
double pc_rope_angle_scale(const pc_rope_params *p);

/* Hypotheses of a failed cache whose pairs follow no axis (axes_causes.c):
 * sin and cos swapped, the rotation the wrong way, the axes on each
 * other's parity, positions scaled or shifted per axis, the rows in
 * another order (axes_order.c); the first that reproduces the cache's
 * angles into BUF, "" when none does. */
void pc_rope_axes_more_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                             char *buf, size_t len);
/* The rows a permutation of the ids' rows: the cause into BUF (1), or 0. */
int pc_rope_axes_order_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                             char *buf, size_t len);

#endif

/* axes_grid.c: the likely cause of a cache over a flattened 2-D grid of
 * patches built for the grid transposed (axes_match.h): the ids are a
 * row-major grid, row r at (r mod W, r div W) on its fast and slow axes
 * (SAM-2's init_t_xy: t_x = t % end_x, t_y = t // end_x), and the cache's
 * angles are those of the H x W grid's, (r mod H, r div H): the grid's two
 * sizes exchanged (compute_axial_cis(end_x=feat_sizes[1],
 * end_y=feat_sizes[0]) on a non-square map).  Named only when those
 * angles reproduce the cache's at every pair (pc_rope_axes_explains). */
#include <stdio.h>
#include "axes_match.h"

#define AG_ROWS 512 /* rows read, as pc_rope_axes_follow reads */

typedef struct grid {
    const pc_rope_axes *ax;
    const double *omega;
    int fast;                 /* the axis whose id runs fastest along the rows */
    int64_t w, h;             /* its size, and the other axis' */
} grid;

/* 1 when AX's ids are the row-major grid of FAST's size W and the other's
 * H: row r at r mod W on FAST and r div W on the other axis. */
static int row_major(const pc_rope_axes *ax, int fast, int64_t *w, int64_t *h)
{
    int slow = 1 - fast;
    int64_t wf = 0, hs = 0;
    for (int64_t r = 0; r < ax->n; r++) {
        if (ax->ids[r * 2 + fast] + 1 > wf) wf = ax->ids[r * 2 + fast] + 1;
        if (ax->ids[r * 2 + slow] + 1 > hs) hs = ax->ids[r * 2 + slow] + 1;
    }
    if (wf < 1 || hs < 1 || wf * hs != ax->n) return 0;
    for (int64_t r = 0; r < ax->n; r++)
        if (ax->ids[r * 2 + fast] != r % wf || ax->ids[r * 2 + slow] != r / wf) return 0;
    *w = wf;
    *h = hs;
    return 1;
}

/* Pair I's angle at ROW on the transposed grid: (row mod H, row div H). */
static double transposed(const void *arg, int64_t row, int i)
{
    const grid *g = arg;
    int64_t x = g->ax->axis[i] == g->fast ? row % g->h : row / g->h;
    return (double)x * g->omega[i];
}

int pc_rope_axes_grid_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                            char *buf, size_t len)
{
    const pc_rope_axes *ax = ((const pc_rope_params *)cfg->sched->params)->axes;
    grid g = { ax, omega, 0, 0, 0 };
    if (!ax->axial || ax->n_axes != 2 || ax->coords) return 0;
    if (row_major(ax, 0, &g.w, &g.h)) g.fast = 0;
    else if (row_major(ax, 1, &g.w, &g.h)) g.fast = 1;
    else return 0;
    if (g.w == g.h) return 0; /* a square grid transposed: a permutation of rows (axes_order.c) */
    pc_axes_angles t = { 0 };
    int found = pc_rope_axes_angles(impl, cfg, AG_ROWS, &t) == 0 && pc_rope_axes_explains(&t, transposed, &g);
    pc_rope_axes_angles_free(&t);
    if (found)
        snprintf(buf, len, "the grid is transposed: the ids are a grid %lld wide (axis %d, the "
                 "fastest) and %lld tall, but the cache's angles are those of a grid %lld wide "
                 "and %lld tall, row r at (r mod %lld, r div %lld): the grid's two sizes "
                 "exchanged (SAM-2's compute_axial_cis(end_x=feat_sizes[1], "
                 "end_y=feat_sizes[0])?)", (long long)g.w, g.fast, (long long)g.h,
                 (long long)g.h, (long long)g.w, (long long)g.h, (long long)g.h);
    return found;
}

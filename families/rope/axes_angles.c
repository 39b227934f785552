/* axes_angles.c: the angles a source turns its pairs by at rows of
 * position ids of several axes, and the test that a hypothesis explains
 * them (axes_match.h): the ground the likely causes of axes_causes.c and
 * axes_order.c stand on, each named only when its predicted angles
 * reproduce the source's, as pc_rope_axes_follow names an axis. */
#include <math.h>
#include <stdlib.h>
#include "axes_match.h"
#include "harness/sandbox/call.h"

#define AA_ROWS 512 /* rows read, as pc_rope_axes_follow reads */

void pc_rope_axes_angles_free(pc_axes_angles *t)
{
    free(t->rows);
    free(t->ang);
    t->rows = NULL;
    t->ang = NULL;
    t->m = 0;
}

/* Row ROW's angles into ANG (H of them), X the probe (1 in each pair's first member). */
static int row_angles(const pc_impl *impl, const pc_acc_cfg *cfg, int64_t row, const float *x,
                      float *y, double *ang)
{
    int d = cfg->d, h = d / 2, lay = cfg->layout;
    pc_fault fault = { 0, "" };
    if (pc_call_rope(impl, &fault, &row, 1, d, cfg->base, lay, x, y) || fault.faulted) return -1;
    for (int i = 0; i < h; i++)
        ang[i] = atan2((double)y[lay ? i + h : 2 * i + 1], (double)y[lay ? i : 2 * i]);
    return 0;
}

int pc_rope_axes_angles(const pc_impl *impl, const pc_acc_cfg *cfg, int64_t max_rows,
                        pc_axes_angles *t)
{
    int64_t n = cfg->pos_hi - cfg->pos_lo + 1, step = n > max_rows ? n / max_rows : 1;
    int h = cfg->d / 2, rc = 0;
    t->h = h;
    t->m = 0;
    t->rows = malloc((size_t)(n / step + 1) * sizeof *t->rows);
    t->ang = malloc((size_t)(n / step + 1) * (size_t)h * sizeof *t->ang);
    float *x = calloc((size_t)cfg->d, sizeof *x), *y = malloc((size_t)cfg->d * sizeof *y);
    if (n < 1 || !t->rows || !t->ang || !x || !y) rc = -1;
    for (int i = 0; rc == 0 && i < h; i++) x[cfg->layout ? i : 2 * i] = 1.0f;
    for (int64_t r = cfg->pos_lo; rc == 0 && r <= cfg->pos_hi; r += step, t->m++) {
        t->rows[t->m] = r;
        rc = row_angles(impl, cfg, r, x, y, t->ang + t->m * h);
    }
    free(x);
    free(y);
    if (rc) pc_rope_axes_angles_free(t);
    return rc;
}

int pc_rope_axes_explains(const pc_axes_angles *t, pc_axes_pred pred, const void *arg)
{
    for (int i = 0; i < t->h; i++) {
        double err = 0;
        for (int64_t k = 0; k < t->m; k++)
            err += fabs(remainder(t->ang[k * t->h + i] - pred(arg, t->rows[k], i), 2.0 * M_PI));
        if (!(t->m > 0 && err / (double)t->m < PC_AXES_TOL)) return 0;
    }
    return 1;
}

double pc_rope_axes_at(const void *freqs, int64_t row, int i)
{
    const pc_axes_freqs *f = freqs;
    return pc_rope_axes_x(f->ax, row, f->ax->axis[i]) * f->w[i];
}

int pc_rope_axes_freqs_explain(const pc_impl *impl, const pc_acc_cfg *cfg, const double *w)
{
    pc_axes_freqs f = { ((const pc_rope_params *)cfg->sched->params)->axes, w };
    pc_axes_angles t = { 0 };
    int ok = pc_rope_axes_angles(impl, cfg, AA_ROWS, &t) == 0 && pc_rope_axes_explains(&t, pc_rope_axes_at, &f);
    pc_rope_axes_angles_free(&t);
    return ok;
}

/* insertion sort (H pairs, a few hundred at most; once a cause): no
 * global key for qsort, the causes of several checks may run at once */
int *pc_rope_axes_by_omega(const double *omega, int h)
{
    int *by = malloc((size_t)h * sizeof *by);
    if (!by) return NULL;
    for (int i = 0; i < h; i++) {
        int j = i;
        for (; j > 0 && omega[by[j - 1]] > omega[i]; j--) by[j] = by[j - 1];
        by[j] = i;
    }
    return by;
}

/* From the lowest frequency up: the position p so far predicts pair i's
 * angle p omega_i within the last pair's error times omega_i / omega_prev
 * (consecutive frequencies of an axis are a few percent to a factor 2
 * apart), far inside pi, so the angle unwraps to omega_i p + (its wrapped
 * difference); the lowest pair alone must turn by less than pi (its
 * angle is the position's). */
double pc_rope_axes_solve(const pc_axes_angles *t, const pc_rope_axes *ax, const double *omega,
                          const int *by, int64_t k, int a)
{
    double p = (double)NAN;
    for (int j = 0; j < t->h; j++) {
        int i = by[j];
        if (ax->axis[i] != a || !(omega[i] > 0)) continue;
        double ang = t->ang[k * t->h + i];
        p = isnan(p) ? ang / omega[i] : p + remainder(ang - p * omega[i], 2.0 * M_PI) / omega[i];
    }
    return p;
}

double pc_rope_angle_scale(const pc_rope_params *p)
{
    if (!(p->scale_k > 0.0)) return 1.0;
    return p->scale_pi ? p->scale_k * M_PI : p->scale_k;
}

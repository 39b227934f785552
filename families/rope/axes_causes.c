/* axes_causes.c: likely causes of a failed cache over position ids of
 * several axes whose pairs follow no axis at the schedule's frequencies
 * (axes_match.h), each named only when the angles it predicts reproduce
 * the cache's at every pair (pc_rope_axes_explains):
 *   - sin and cos swapped: (cos, sin) = (sin t, cos t), the angle pi/2 - t;
 *   - the rotation the wrong way (sin negated): the angle -t;
 *   - Pixtral's axes on each other's parity (the rows on freqs[1::2], the
 *     columns on freqs[::2]): each pair at its partner's frequency;
 *   - positions scaled or shifted per axis: the angle omega_i (a x + b)
 *     for the ids' x, one (a, b) an axis fitted to the positions the pairs
 *     of that axis turn at (pc_rope_axes_solve), from the lowest frequency
 *     up (a grid not interpolated, coordinates not normalized, an
 *     off-by-one; under --rope-angle-scale S, every axis a x with b = 0:
 *     the scale a S as well);
 *   - one position a row on every pair (1-D positions: the row index, or
 *     it shifted by a whole number): the angle omega_i x_r, x_r the same on
 *     every axis (M-RoPE's image tokens given text positions,
 *     get_rope_index not used);
 *   - the rows in another order (axes_order.c).
 * t = x omega_i is the check's angle: x the row's position on the pair's
 * axis, omega_i the check's frequency (with the angle scale). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "axes_match.h"
#include "harness/sources/table.h"

#define MC_ROWS 512 /* rows read, as pc_rope_axes_follow reads */
/* (a, b) = (1, 0) within these: the ids' own positions (a fit of float32
 * angles is good to about 1e-6; b relative to the positions' size) */
#define MC_A_TOL 1e-4
#define MC_B_TOL 1e-4
/* a fit's rows whose solved position is further than this (relative to
 * the positions' size) from the line are left out of the refit: a cls
 * token at angle 0 among shifted patches */
#define MC_TRIM 1e-3

typedef struct hyp {
    const pc_rope_axes *ax;
    const double *omega;
    const int *partner;              /* parity: the pair of the other axis at the same index */
    double base;
    double a[PC_ROPE_AXES_MAX], b[PC_ROPE_AXES_MAX];
    double scale_k;                  /* --rope-angle-scale S = scale_k pi^scale_pi (0: none) */
    int scale_pi;
} hyp;

static double t_of(const hyp *H, int64_t row, int i)
{
    return pc_rope_axes_x(H->ax, row, H->ax->axis[i]) * H->omega[i];
}
static double p_swapped(const void *arg, int64_t row, int i) { return M_PI / 2 - t_of(arg, row, i); }
static double p_negated(const void *arg, int64_t row, int i) { return -t_of(arg, row, i); }
static double p_parity(const void *arg, int64_t row, int i)
{
    const hyp *H = arg;
    return pc_rope_axes_x(H->ax, row, H->ax->axis[i]) * H->omega[H->partner[i]];
}
static double p_scaled(const void *arg, int64_t row, int i)
{
    const hyp *H = arg;
    int k = H->ax->axis[i];
    return (H->a[k] * pc_rope_axes_x(H->ax, row, k) + H->b[k]) * H->omega[i];
}

/* One number a row on every pair: the row index plus SHIFT. */
typedef struct flat {
    const hyp *H;
    double shift;
} flat;

static double p_flat(const void *arg, int64_t row, int i)
{
    const flat *F = arg;
    return ((double)row + F->shift) * F->H->omega[i];
}

/* Row K's one position from every pair's angle, unwrapped from the lowest
 * frequency up as pc_rope_axes_solve unwraps an axis' pairs. */
static double row_position(const pc_axes_angles *t, const double *omega, const int *by, int64_t k)
{
    double p = (double)NAN;
    for (int j = 0; j < t->h; j++) {
        int i = by[j];
        if (!(omega[i] > 0)) continue;
        double ang = t->ang[k * t->h + i];
        p = isnan(p) ? ang / omega[i] : p + remainder(ang - p * omega[i], 2.0 * M_PI) / omega[i];
    }
    return p;
}

/* Every pair at omega_i times the row index (plus a whole shift, read
 * from row 0), re-checked at every row read. */
static int one_d(const pc_axes_angles *t, const hyp *H, char *buf, size_t len)
{
    int *by = pc_rope_axes_by_omega(H->omega, t->h);
    flat F = { H, 0.0 };
    double p0 = by && t->m > 0 ? row_position(t, H->omega, by, 0) : (double)NAN;
    free(by);
    if (isnan(p0)) return 0;
    F.shift = nearbyint(p0 - (double)t->rows[0]) + 0.0;
    int mrope = !H->ax->axial;
    char shift[48] = "";
    if (F.shift != 0) snprintf(shift, sizeof shift, " %+.0f", F.shift);
    if (!pc_rope_axes_explains(t, p_flat, &F)) return 0;
    snprintf(buf, len, "the rows are rotated by one position each (1-D positions, the row "
             "index%s), not by the ids' %s: %s", shift, mrope ? "(t, h, w)" : "axes",
             mrope ? "the image tokens were given text positions (get_rope_index not used?)"
                   : "the patches were given 1-D positions (the position ids not used?)");
    return 1;
}

static int turns(const pc_impl *impl, const pc_axes_angles *t, const hyp *H, char *buf, size_t len)
{
    int table = pc_table_info_of(impl) != NULL;
    if (pc_rope_axes_explains(t, p_swapped, H))
        snprintf(buf, len, "sin and cos are swapped: every pair's (cos, sin) is (sin, cos) of its "
                 "axis' angle (position x omega_i)%s", table ? ": the cos cache holds sin and the "
                 "sin cache cos (--table and --table-sin crossed?)" : "");
    else if (pc_rope_axes_explains(t, p_negated, H))
        snprintf(buf, len, "the rotation turns the wrong way: every pair's angle is minus its "
                 "axis' position x omega_i (sin negated, or rotate_half as cat(x2, -x1) instead "
                 "of cat(-x2, x1))");
    return buf[0] != '\0';
}

/* Axis K's partner by parity (two axes: the other one) of each pair into P; 0: none. */
static int partners(const pc_rope_axes *ax, int h, int *p)
{
    if (!ax->axial || !ax->parity || ax->n_axes != 2) return 0;
    for (int i = 0; i < h; i++) {
        p[i] = -1;
        for (int j = 0; j < h && p[i] < 0; j++)
            if (ax->local[j] == ax->local[i] && ax->axis[j] == 1 - ax->axis[i]) p[i] = j;
        if (p[i] < 0) return 0;
    }
    return 1;
}

static int parity(const pc_axes_angles *t, hyp *H, int *p, char *buf, size_t len)
{
    if (!partners(H->ax, t->h, p)) return 0;
    H->partner = p;
    if (!pc_rope_axes_explains(t, p_parity, H)) return 0;
    snprintf(buf, len, "the axes are on each other's parity: the rows (axis 0) on freqs[1::2] and "
             "the columns (axis 1) on freqs[::2], not Pixtral's freqs_h = freqs[::2], freqs_w = "
             "freqs[1::2] (the two exchanged in the code?)");
    return 1;
}

/* The least-squares line y = a x + b through the points of USE (a = 1
 * when their x are one value: b is then the mean shift). */
static void line(const double *x, const double *y, const char *use, int64_t n, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, c = 0;
    for (int64_t k = 0; k < n; k++)
        if (use[k]) { sx += x[k]; sy += y[k]; c += 1.0; }
    if (c == 0) { *a = 1.0; *b = 0.0; return; }
    double mx = sx / c, my = sy / c;
    for (int64_t k = 0; k < n; k++)
        if (use[k]) { sxx += (x[k] - mx) * (x[k] - mx); sxy += (x[k] - mx) * (y[k] - my); }
    *a = sxx > 0 ? sxy / sxx : 1.0;
    *b = my - *a * mx;
}

/* Axis K's (a, b) into H: the line through the positions its pairs turn
 * at against the ids', refitted without the rows far from it; *SIZE the
 * largest |position| + 1 (the scale of b); -1 out of memory. */
static int fit_axis(const pc_axes_angles *t, hyp *H, const int *by, int k, double *size)
{
    double *x = malloc((size_t)t->m * sizeof *x), *y = malloc((size_t)t->m * sizeof *y);
    char *use = malloc((size_t)t->m);
    int rc = x && y && use ? 0 : -1;
    *size = 1.0;
    for (int64_t r = 0; rc == 0 && r < t->m; r++) {
        x[r] = pc_rope_axes_x(H->ax, t->rows[r], k);
        y[r] = pc_rope_axes_solve(t, H->ax, H->omega, by, r, k);
        use[r] = (char)!isnan(y[r]);
        if (use[r] && fabs(y[r]) + 1.0 > *size) *size = fabs(y[r]) + 1.0;
    }
    if (rc == 0) line(x, y, use, t->m, &H->a[k], &H->b[k]);
    for (int64_t r = 0; rc == 0 && r < t->m; r++)
        use[r] = (char)(use[r] && fabs(y[r] - H->a[k] * x[r] - H->b[k]) <= MC_TRIM * *size);
    if (rc == 0) line(x, y, use, t->m, &H->a[k], &H->b[k]);
    free(x); free(y); free(use);
    return rc;
}

/* "1.5 x the ids'", "the ids' - 1", "7 x the ids' + 6.5" */
static void say_line(double a, double b, char *buf, size_t len)
{
    if (b == 0.0) snprintf(buf, len, "%.4g x the ids'", a);
    else if (a == 1.0) snprintf(buf, len, "the ids' %c %.4g", b < 0 ? '-' : '+', fabs(b));
    else snprintf(buf, len, "%.4g x the ids' %c %.4g", a, b < 0 ? '-' : '+', fabs(b));
}

/* 1 when axis K's ids are in [-1, 1] and a x + b whole numbers from 0
 * (patch indices) at T's rows, their largest into *TOP. */
static int indices(const pc_axes_angles *t, const hyp *H, int k, double *top)
{
    *top = 0;
    for (int64_t r = 0; r < t->m; r++) {
        double x = pc_rope_axes_x(H->ax, t->rows[r], k), p = H->a[k] * x + H->b[k];
        if (fabs(x) > 1.0 || p < -MC_TRIM || fabs(p - round(p)) > MC_TRIM * (fabs(p) + 1.0)) return 0;
        if (p > *top) *top = round(p);
    }
    return H->ax->coords != NULL;
}

/* Why axis K's positions are a x + b of the ids': the user's words. */
static void why_line(const pc_axes_angles *t, const hyp *H, int k, char *buf, size_t len)
{
    double a = H->a[k], b = H->b[k], top;
    if (indices(t, H, k, &top))
        snprintf(buf, len, "the patch indices 0..%.0f where the ids hold coordinates normalized to "
                 "[-1, 1]: the coordinates not normalized (2 (i + 0.5) / n - 1)?", top);
    else if (b == 0.0 && a * 64.0 == round(a * 64.0))
        snprintf(buf, len, "a grid not interpolated to the pretraining grid, or the ids of another "
                 "resolution?");
    else if (b == 0.0) /* not a grid's ratio: a = base^e, the exponents moved by e */
        snprintf(buf, len, "the axis' frequencies all %.4g = base^%.4g times the check's (its "
                 "exponents moved: the other parity's, or another offset?), or its positions "
                 "scaled", a, log(a) / log(H->base));
    else if (a == 1.0 && b == round(b))
        snprintf(buf, len, "an off-by-one: the cache's positions are %.0f %s the ids' (a +1 such "
                 "as Llama 4's x + 1 %s?)", fabs(b), b < 0 ? "below" : "above",
                 b < 0 ? "left out" : "applied twice, or ids without it");
    else
        snprintf(buf, len, "positions scaled or moved from the ids' (another grid, resolution or "
                 "origin?)");
}

/* V on a multiple of 1/64 when within TOL of one (1.5, 6.5, -1: a grid's
 * ratio, a half patch), else V: the cause names the numbers it checked. */
static double snap(double v, double tol)
{
    double r = round(v * 64.0) / 64.0;
    return fabs(r - v) <= tol ? r : v;
}

/* (a, b) of every axis into H (snapped); the number of axes not (1, 0). */
static int fit_axes(const pc_axes_angles *t, hyp *H)
{
    int *by = pc_rope_axes_by_omega(H->omega, t->h), off = 0;
    for (int k = 0; by && k < H->ax->n_axes; k++) {
        double size;
        if (fit_axis(t, H, by, k, &size) != 0) { off = 0; break; }
        H->a[k] = snap(H->a[k], MC_A_TOL * fmax(1.0, fabs(H->a[k])));
        H->b[k] = snap(H->b[k], MC_B_TOL * size);
        if (fabs(H->a[k] - 1.0) <= MC_A_TOL) H->a[k] = 1.0;
        if (fabs(H->b[k]) <= MC_B_TOL * size) H->b[k] = 0.0;
        off += H->a[k] != 1.0 || H->b[k] != 0.0;
    }
    free(by);
    return off;
}

static int is_off(const hyp *H, int k) { return H->a[k] != 1.0 || H->b[k] != 0.0; }

/* The axes not at the ids' positions: "axis 0", "axes 0 and 1", "axes 0, 1 and 2". */
static void off_axes(const hyp *H, char *buf, size_t len)
{
    int n = 0, A = H->ax->n_axes;
    for (int k = 0; k < A; k++) n += is_off(H, k);
    size_t u = (size_t)snprintf(buf, len, "ax%s", n > 1 ? "es" : "is");
    for (int k = 0, j = 0; k < A && u < len; k++)
        if (is_off(H, k))
            u += (size_t)snprintf(buf + u, len - u, "%s%d", j++ == 0 ? " " : j == n ? " and " : ", ", k);
}

static int all_off(const hyp *H)
{
    for (int k = 0; k < H->ax->n_axes; k++)
        if (!is_off(H, k)) return 0;
    return 1;
}

/* Every axis' positions a x the ids' with b = 0 under an angle scale S:
 * the same angles as the ids' positions at the scale a S (DINOv3's 2 pi
 * checked with pi), so the scale is named beside the grid. */
static void scale_line(const hyp *H, char *buf, size_t len)
{
    double k = H->a[0] * H->scale_k;
    char was[48], is[48];
    if (H->scale_pi) { /* as --rope-angle-scale is written: "pi", "2pi" */
        snprintf(was, sizeof was, "%.6gpi", H->scale_k);
        snprintf(is, sizeof is, "%.6gpi", k);
        if (H->scale_k == 1.0) snprintf(was, sizeof was, "pi");
        if (k == 1.0) snprintf(is, sizeof is, "pi");
    } else {
        snprintf(was, sizeof was, "%.6g", H->scale_k);
        snprintf(is, sizeof is, "%.6g", k);
    }
    snprintf(buf, len, " or the angle scale is %.4g x --rope-angle-scale's (%s): %s?", H->a[0],
             was, is);
}

static int scaled(const pc_axes_angles *t, hyp *H, char *buf, size_t len)
{
    int A = H->ax->n_axes, first = -1, same = 1;
    if (fit_axes(t, H) == 0 || !pc_rope_axes_explains(t, p_scaled, H)) return 0;
    for (int k = 0; k < A; k++) {
        if (!is_off(H, k)) continue;
        if (first < 0) first = k;
        else same &= H->a[k] == H->a[first] && H->b[k] == H->b[first];
    }
    char what[96], why[240], which[64];
    size_t u = 0;
    if (same) {
        off_axes(H, which, sizeof which);
        say_line(H->a[first], H->b[first], what, sizeof what);
        u = (size_t)snprintf(buf, len, "the positions along %s are %s", which, what);
    }
    for (int k = 0; !same && k < A && u < len; k++) {
        if (!is_off(H, k)) continue;
        say_line(H->a[k], H->b[k], what, sizeof what);
        u += (size_t)snprintf(buf + u, len - u, "%s along axis %d are %s", u ? ";" : "the positions",
                              k, what);
    }
    why_line(t, H, first, why, sizeof why);
    if (u < len) u += (size_t)snprintf(buf + u, len - u, ": %s", why);
    if (u < len && same && first == 0 && H->b[0] == 0.0 && H->scale_k > 0.0 && all_off(H))
        scale_line(H, buf + u, len - u);
    return 1;
}

void pc_rope_axes_more_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                             char *buf, size_t len)
{
    const pc_rope_axes *ax = ((const pc_rope_params *)cfg->sched->params)->axes;
    pc_axes_angles t = { 0 };
    const pc_rope_params *rp = cfg->sched->params;
    hyp H = { ax, omega, NULL, rp->base, { 0 }, { 0 }, rp->scale_k, rp->scale_pi };
    int *p = malloc((size_t)(cfg->d / 2) * sizeof *p);
    buf[0] = '\0';
    if (p && pc_rope_axes_angles(impl, cfg, MC_ROWS, &t) == 0
        && !one_d(&t, &H, buf, len) && !turns(impl, &t, &H, buf, len) && !parity(&t, &H, p, buf, len)
        && !scaled(&t, &H, buf, len))
        pc_rope_axes_order_cause(impl, cfg, omega, buf, len);
    pc_rope_axes_angles_free(&t);
    free(p);
}

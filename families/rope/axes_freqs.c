/* axes_freqs.c: the frequencies an axial RoPE source's pairs turn at along
 * their own axes, against the check's (axes_match.h): the likely cause of
 * a vision tower's cache built with another base (the text model's
 * rope_theta) or with its exponents over other dims (the whole head's
 * base^(-2j/d) where each axis takes base^(-2j/a)).
 *
 * In axial RoPE a pair's angle depends on its axis' position alone: at
 * the row whose position on the pair's axis is the smallest positive one,
 * p, the angle over p is the pair's frequency w_i (p w_i < pi: p is 1 on
 * a grid, the largest frequency 1).  Against the check's omega_i = base^(-e_i)
 * the ratio r_i = ln w_i / ln omega_i is one number r when the cache has
 * the check's exponents times r: base^r in place of base, or each
 * exponent's dims divided by r (r = 1/2: dims twice the check's).  Axes
 * that share one schedule by parity (Pixtral) built as two schedules of
 * their own are named so. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "axes_match.h"
#include "fit.h"
#include "harness/sandbox/call.h"

/* Pairs whose angle at p is below AF_MIN_ANGLE rad are not read: a
 * bfloat16 pair's angle is good to 2^-8 rad, 8% of it at worst; pairs of
 * omega_i above AF_MAX_OMEGA have ln omega_i near 0 (pair 0: omega 1). */
#define AF_MIN_ANGLE 0.05
#define AF_MAX_OMEGA 0.9
/* every r_i within AF_TOL (relative) of their median: one ratio r */
#define AF_TOL 0.02

/* The row among LO..HI with the smallest positive position on axis A
 * (an integer id's or a real coordinate's; -1: none). */
static int64_t first_row(const pc_rope_axes *ax, int a, int64_t lo, int64_t hi)
{
    int64_t best = -1;
    for (int64_t r = lo; r <= hi; r++) {
        double p = pc_rope_axes_x(ax, r, a);
        if (p > 0 && (best < 0 || p < pc_rope_axes_x(ax, best, a))) best = r;
    }
    return best;
}

/* W[i]: pair i's frequency along its axis (NAN: not read); -1 when a call fails. */
static int pair_freqs(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_rope_axes *ax,
                      double *w)
{
    int d = cfg->d, h = d / 2, lay = cfg->layout;
    float *x = calloc((size_t)d, sizeof *x), *y = malloc((size_t)d * sizeof *y);
    int rc = x && y ? 0 : -1;
    for (int i = 0; i < h; i++) { w[i] = (double)NAN; if (x) x[lay ? i : 2 * i] = 1.0f; }
    for (int a = 0; rc == 0 && a < ax->n_axes; a++) {
        int64_t row = first_row(ax, a, cfg->pos_lo, cfg->pos_hi);
        pc_fault fault = { 0, "" };
        if (row < 0) continue;
        if (pc_call_rope(impl, &fault, &row, 1, d, cfg->base, lay, x, y) || fault.faulted) {
            rc = -1;
            break;
        }
        double p = pc_rope_axes_x(ax, row, a);
        for (int i = 0; i < h; i++) {
            double ang = atan2((double)y[lay ? i + h : 2 * i + 1], (double)y[lay ? i : 2 * i]);
            if (ax->axis[i] == a && ang >= AF_MIN_ANGLE) w[i] = ang / p;
        }
    }
    free(x);
    free(y);
    return rc;
}

static int cmp_double(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? -1 : x > y;
}

/* The one ratio r of W to OMEGA (H pairs), or 0 when there is none. */
static double one_ratio(const double *w, const double *omega, int h)
{
    double *r = malloc((size_t)h * sizeof *r), med;
    int n = 0, ok = 1;
    if (!r) return 0;
    for (int i = 0; i < h; i++)
        if (!isnan(w[i]) && omega[i] < AF_MAX_OMEGA && w[i] < 1.0) r[n++] = log(w[i]) / log(omega[i]);
    qsort(r, (size_t)n, sizeof *r, cmp_double);
    med = n >= 2 ? r[n / 2] : 0.0;
    for (int k = 0; k < n && ok; k++) ok = fabs(r[k] / med - 1.0) < AF_TOL;
    free(r);
    return n >= 2 && ok && fabs(med - 1.0) > AF_TOL ? med : 0.0;
}

/* The ratio the cause states for the fitted R into *R, its kind the
 * return: 1 the text model's base, 2 the whole head's exponents (1/2), 0
 * another base (of 3 significant digits within 0.1%, fit.c, when one is;
 * R as fitted otherwise). */
static int stated(const pc_rope_params *p, double *r)
{
    double b = pow(p->base, *r), text = p->from ? p->from->tower_text_base : 0;
    double br = pc_rope_round_base(b);
    if (text > 0 && fabs(b / text - 1.0) < AF_TOL) { *r = log(text) / log(p->base); return 1; }
    if (fabs(*r - 0.5) < AF_TOL) { *r = 0.5; return 2; }
    if (!isnan(br)) *r = log(br) / log(p->base);
    return 0;
}

/* The cause for the stated ratio R of KIND (stated). */
static void say(const pc_acc_cfg *cfg, const pc_rope_params *p, double r, int kind, char *buf,
                size_t len)
{
    double b = pow(p->base, r);
    if (kind == 1)
        snprintf(buf, len, "the pairs follow their axes with the frequencies of base %.6g, the "
                 "text model's rope_theta, not the vision tower's %.6g: the text tower's theta "
                 "used for the vision tower?", b, p->base);
    else if (kind == 2)
        snprintf(buf, len, "the pairs follow their axes with exponents over twice the axis' dims "
                 "(base^(-2j/%d), the whole head's, not base^(-2j/%d) over each axis' %d dims): "
                 "the head dim where the code takes head_dim // 2? or, the same frequencies, "
                 "base %.6g = sqrt(%.6g) over each axis' dims (a theta left at a default: "
                 "rope-vit's and some SAM-2 ports' compute_axial_cis(theta=100.0))", cfg->d,
                 p->axes->axes_dim[0], p->axes->axes_dim[0], b, p->base);
    else
        snprintf(buf, len, "the pairs follow their axes with frequencies omega_i^%.4g of the "
                 "check's: base %.6g in place of %.6g (or exponents over %.4g times the dims)?",
                 r, b, p->base, 1.0 / r);
}

/* Pixtral's axes by parity: W is each axis a schedule of its own over its
 * dims (base^(-2j/a), the plain axial RoPE) instead: 1. */
static int own_schedules(const pc_rope_params *p, const double *w, int h)
{
    const pc_rope_axes *ax = p->axes;
    int n = 0;
    for (int i = 0; ax->parity && i < h; i++) {
        double own = pow(p->base, -2.0 * ax->local[i] / ax->axes_dim[ax->axis[i]]);
        if (isnan(w[i])) continue;
        if (fabs(w[i] / own - 1.0) >= AF_TOL) return 0;
        n++;
    }
    return n >= 2;
}

/* The frequencies without the angle scale S (--rope-angle-scale): W and
 * OMEGA_i over S into U (OMEGA's) and W itself, the schedule's own. */
static void unscale(const pc_rope_params *p, const double *omega, double *w, double *u, int h)
{
    double s = pc_rope_angle_scale(p);
    for (int i = 0; i < h; i++) {
        u[i] = omega[i] / s;
        w[i] /= s;
    }
}

/* W: each axis' own schedule (OWN), or the check's frequencies U to the
 * power R, times the angle scale S. */
static void predicted(const pc_rope_params *p, const double *u, int own, double r, double s,
                      double *w, int h)
{
    const pc_rope_axes *ax = p->axes;
    for (int i = 0; i < h; i++)
        w[i] = s * (own ? pow(p->base, -2.0 * ax->local[i] / ax->axes_dim[ax->axis[i]]) : pow(u[i], r));
}

void pc_rope_axes_freqs_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                              char *buf, size_t len)
{
    const pc_rope_params *p = cfg->sched->params;
    int h = cfg->d / 2, own = 0, kind = 0;
    double *w = malloc((size_t)h * sizeof *w), *u = malloc((size_t)h * sizeof *u), r = 0;
    buf[0] = '\0';
    if (w && u && p->axes->axial && pair_freqs(impl, cfg, p->axes, w) == 0) {
        unscale(p, omega, w, u, h);
        own = own_schedules(p, w, h);
        if (!own && (r = one_ratio(w, u, h)) > 0) kind = stated(p, &r);
        predicted(p, u, own, r, pc_rope_angle_scale(p), w, h);
    }
    /* named only when those frequencies reproduce the cache's angles */
    if ((own || r > 0) && pc_rope_axes_freqs_explain(impl, cfg, w)) {
        if (own)
            snprintf(buf, len, "the axes each turn at a schedule of their own (base^(-2j/%d), "
                     "--rope-axes-dim without --rope-axes-parity), not the one schedule shared "
                     "by parity (Pixtral's freqs[::2] and freqs[1::2])", p->axes->axes_dim[0]);
        else
            say(cfg, p, r, kind, buf, len);
    }
    free(w);
    free(u);
}

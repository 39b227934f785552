/* fit.c: what a RoPE implementation's rotations say about its frequencies
 * and amplitude (fit.h): the base of a table given without one, and the
 * likely cause of a failure (a wrong base, scaling factor, original
 * length, missing attention factor, or the schedule on other pairs).
 *
 * The rows come from the implementation's own hook: rotating the vector
 * with 1 in the first column of every pair and 0 in the second gives
 * (A cos, A sin) of every pair at once.  Per pair:
 *   amplitude  mean over positions of |(A cos, A sin)|;
 *   frequency  the unwrapped phase difference between the first and last
 *              position over their distance: the row-to-row phase steps,
 *              each wrapped to (-pi, pi], telescope (omega_i <= 1 < pi), so
 *              only the two end phases' errors remain:
 *              |w~ - w| <= 2 e_phi / (n - 1).
 * A pair is resolved when its total phase (n - 1) w exceeds 200 e_phi:
 * its fitted frequency is then good to 1% or better. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fit.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "scaling.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"
#include "reference/reference.h"

#define FIT_BLOCK 256 /* positions per hook call */

/* IMPL's rotation of (1, 0) in every pair at positions LO .. LO+N-1,
 * FIT_BLOCK at a time, handed row by row to SINK(CTX, row, c, s) with the
 * (A cos, A sin) of the h pairs.  0, or the hook's nonzero return (-1: a
 * fault or no memory). */
typedef void (*unit_sink)(void *ctx, size_t r, const double *c, const double *s);

static int unit_rows_each(const pc_impl *impl, int d, double base, int layout, int64_t lo,
                          size_t n, unit_sink sink, void *ctx)
{
    int h = d / 2;
    size_t dd = (size_t)d;
    float *x = calloc(FIT_BLOCK * dd, sizeof *x), *y = malloc(FIT_BLOCK * dd * sizeof *y);
    double *c = malloc((size_t)h * sizeof *c), *s = malloc((size_t)h * sizeof *s);
    int64_t *pos = malloc(FIT_BLOCK * sizeof *pos);
    int rc = !x || !y || !c || !s || !pos ? -1 : 0;
    for (size_t r = 0; rc == 0 && r < FIT_BLOCK; r++)
        for (int i = 0; i < h; i++) x[r * dd + (size_t)(layout ? i : 2 * i)] = 1.0f;
    for (size_t r0 = 0; rc == 0 && r0 < n; r0 += FIT_BLOCK) {
        size_t m = n - r0 < FIT_BLOCK ? n - r0 : FIT_BLOCK;
        for (size_t r = 0; r < m; r++) pos[r] = lo + (int64_t)(r0 + r);
        pc_fault fault = { 0, "" };
        rc = pc_call_rope(impl, &fault, pos, m, d, base, layout, x, y);
        if (fault.faulted) rc = -1; /* a diagnosis only: no cause from a faulting source */
        for (size_t r = 0; rc == 0 && r < m; r++) {
            for (int i = 0; i < h; i++) {
                size_t ia = layout ? (size_t)i : (size_t)(2 * i), ib = layout ? (size_t)(i + h) : ia + 1;
                c[i] = (double)y[r * dd + ia];
                s[i] = (double)y[r * dd + ib];
            }
            sink(ctx, r0 + r, c, s);
        }
    }
    free(x); free(y); free(c); free(s); free(pos);
    return rc;
}

typedef struct { double *c, *s; int h; } unit_arrays;

static void to_arrays(void *ctx, size_t r, const double *c, const double *s)
{
    unit_arrays *u = ctx;
    memcpy(u->c + r * (size_t)u->h, c, (size_t)u->h * sizeof *c);
    memcpy(u->s + r * (size_t)u->h, s, (size_t)u->h * sizeof *s);
}

int pc_rope_unit_rows(const pc_impl *impl, int d, double base, int layout, int64_t lo, size_t n,
                      double *c, double *s)
{
    unit_arrays u = { c, s, d / 2 };
    return unit_rows_each(impl, d, base, layout, lo, n, to_arrays, &u);
}

/* ---- the fit, row by row ------------------------------------------------ */

pc_status pc_rope_fit_acc_init(pc_rope_fit_acc *a, int h, int amp)
{
    memset(a, 0, sizeof *a);
    a->h = h;
    size_t m = h > 0 ? (size_t)h : 1; /* a share of no pair still counts its rows */
    a->sum_amp = amp ? calloc(m, sizeof *a->sum_amp) : NULL;
    a->sla = amp ? calloc(m, sizeof *a->sla) : NULL;
    a->srla = amp ? calloc(m, sizeof *a->srla) : NULL;
    a->turn = calloc(m, sizeof *a->turn);
    a->prev = calloc(m, sizeof *a->prev);
    a->sy = calloc(m, sizeof *a->sy);
    a->sxy = calloc(m, sizeof *a->sxy);
    if ((amp && (!a->sum_amp || !a->sla || !a->srla)) || !a->turn || !a->prev || !a->sy || !a->sxy) {
        pc_rope_fit_acc_free(a);
        return PC_ENOMEM;
    }
    return PC_OK;
}

void pc_rope_fit_acc_free(pc_rope_fit_acc *a)
{
    free(a->sum_amp); free(a->turn); free(a->prev); free(a->sy); free(a->sxy);
    free(a->sla); free(a->srla);
    memset(a, 0, sizeof *a);
}

/* x wrapped to [-pi, pi] as remainder(x, 2 pi) does: x itself when
 * |x| <= pi (the quotient rounds to 0, ties to even), which a phase step
 * of a slowly turning pair almost always is; libm's remainder otherwise
 * (the same value: one call fewer, the same bits). */
static double wrap(double x)
{
    return fabs(x) <= M_PI ? x : remainder(x, 2.0 * M_PI);
}

void pc_rope_fit_acc_row(pc_rope_fit_acc *a, const double *c, const double *s)
{
    for (int i = 0; i < a->h; i++) {
        if (a->sum_amp) {
            double m = hypot(c[i], s[i]), lm = m > 0 ? log(m) : 0.0;
            a->sum_amp[i] += m;
            a->sla[i] += lm;
            a->srla[i] += (double)a->n * lm;
        }
        double ph = atan2(s[i], c[i]);
        if (a->n) a->turn[i] += wrap(ph - a->prev[i]);
        a->prev[i] = ph;
        a->sy[i] += a->turn[i];
        a->sxy[i] += (double)a->n * a->turn[i];
    }
    a->n++;
}

void pc_rope_fit_acc_join(pc_rope_fit_acc *a, const pc_rope_fit_acc *part, int i0)
{
    for (int i = 0; i < part->h; i++) {
        a->turn[i0 + i] = part->turn[i];
        a->prev[i0 + i] = part->prev[i];
        a->sy[i0 + i] = part->sy[i];
        a->sxy[i0 + i] = part->sxy[i];
        if (a->sum_amp && part->sum_amp) {
            a->sum_amp[i0 + i] = part->sum_amp[i];
            a->sla[i0 + i] = part->sla[i];
            a->srla[i0 + i] = part->srla[i];
        }
    }
    a->n = part->n;
}

pc_status pc_rope_fit_acc_end(pc_rope_fit_acc *a, double u_s, pc_rope_fit *f)
{
    memset(f, 0, sizeof *f);
    int h = a->h;
    size_t n = a->n;
    if (n < 16) {
        pc_rope_fit_acc_free(a);
        return PC_SKIP;
    }
    f->h = h;
    f->n = n;
    /* the phase error of one stored pair: a few units of the storage,
     * and binary32's (2^-20 covers C 2^-24 for the bases in use) */
    f->eps = 4.0 * u_s + 0x1p-20;
    f->omega = malloc((size_t)h * sizeof *f->omega);
    f->amp = malloc((size_t)h * sizeof *f->amp);
    f->resolved = malloc((size_t)h * sizeof *f->resolved);
    f->omega_ls = malloc((size_t)h * sizeof *f->omega_ls);
    if (a->sum_amp) {
        f->lamp_slope = malloc((size_t)h * sizeof *f->lamp_slope);
        f->lamp_at0 = malloc((size_t)h * sizeof *f->lamp_at0);
    }
    pc_status st = f->omega && f->amp && f->resolved && f->omega_ls
                   && (!a->sum_amp || (f->lamp_slope && f->lamp_at0)) ? PC_OK : PC_ENOMEM;
    /* rows r = 0..n-1: sum r = n (n-1)/2, n sum r^2 - (sum r)^2 = n^2 (n^2-1)/12 */
    double dn = (double)n, sx = dn * (dn - 1.0) / 2.0, den = dn * dn * (dn * dn - 1.0) / 12.0;
    for (int i = 0; st == PC_OK && i < h; i++) {
        double turn = a->turn[i];
        f->amp[i] = a->sum_amp ? a->sum_amp[i] / (double)n : (double)NAN;
        f->omega[i] = turn / (double)(n - 1);
        f->omega_ls[i] = (dn * a->sxy[i] - sx * a->sy[i]) / den;
        if (f->lamp_slope) {
            f->lamp_slope[i] = (dn * a->srla[i] - sx * a->sla[i]) / den;
            f->lamp_at0[i] = (a->sla[i] - f->lamp_slope[i] * sx) / dn;
        }
        f->resolved[i] = isfinite(turn) && fabs(turn) >= 200.0 * f->eps;
    }
    pc_rope_fit_acc_free(a);
    if (st != PC_OK) pc_rope_fit_free(f);
    return st;
}

static void to_acc(void *ctx, size_t r, const double *c, const double *s)
{
    (void)r;
    pc_rope_fit_acc_row(ctx, c, s);
}

/* The rows of positions LO .. LO+N-1 into A (unit_rows_each). */
static int fit_rows(const pc_impl *impl, int d, double base, int layout, int64_t lo, size_t n,
                    pc_rope_fit_acc *a)
{
    return unit_rows_each(impl, d, base, layout, lo, n, to_acc, a);
}

pc_status pc_rope_fit_run(const pc_impl *impl, int d, double base, int layout, int64_t lo,
                          int64_t hi, double u_s, pc_rope_fit *f)
{
    memset(f, 0, sizeof *f);
    size_t n = (size_t)(hi - lo + 1);
    if (n < 16 || !impl->rope) return PC_SKIP;
    pc_rope_fit_acc a;
    if (pc_rope_fit_acc_init(&a, d / 2, 1) != PC_OK) return PC_ENOMEM;
    if (fit_rows(impl, d, base, layout, lo, n, &a) != 0) {
        pc_rope_fit_acc_free(&a);
        return PC_SKIP;
    }
    pc_status st = pc_rope_fit_acc_end(&a, u_s, f);
    f->pos_max = fmax(fabs((double)lo), fabs((double)hi));
    return st;
}

void pc_rope_fit_free(pc_rope_fit *f)
{
    free(f->omega); free(f->amp); free(f->resolved); free(f->omega_ls);
    free(f->lamp_slope); free(f->lamp_at0); free(f->omega_err);
    f->omega = f->amp = f->omega_ls = f->lamp_slope = f->lamp_at0 = f->omega_err = NULL;
    f->resolved = NULL;
}

/* The unwrap of pc_rope_fit_offset from the estimate Q at the lowest
 * frequency: NAN when a step has to move the offset by more than the
 * quarter turn its estimate allows (the start was a turn off). */
static double unwrap_offset(const double *ph, const double *omega, int h, double lo, double eps,
                            double q)
{
    double unc = 4.0 * eps / omega[h - 1];
    for (int i = h - 2; i >= 0; i--) {
        double w = omega[i];
        /* a step is safe while the offset is known to better than pi/(2 w) */
        if (!(w * unc < M_PI / 2)) continue;
        double dv = remainder(ph[i] - (lo + q) * w, 2.0 * M_PI);
        if (!(fabs(dv) <= M_PI / 2)) return (double)NAN;
        q += dv / w;
        unc = 4.0 * eps / w;
    }
    return q;
}

/* The unwrap moves the offset pair by pair, and a later step can undo an
 * earlier pair's match (a step of up to a quarter turn of pair i is 1.4
 * rad at pair i+1 for base 10000, d 128): a start a whole period off the
 * lowest pair can end at a position that matches each pair only when it
 * was read (rows at 520192 read from 0 ended at 520186).  The offset
 * found must put every pair whose angle binary32 holds to better than an
 * eighth of a turn within a quarter turn of its phase.  Pair i's angle
 * error is the default class's kappa_i u |theta| + EPS, u = 2^-24, kappa_i
 * = max(2 X_i + 5, X_i + 10, 3i + X_i) + 1 with X_i = -ln w_i
 * (docs/precision-model.md, "Tolerance classes": every mainstream
 * binary32 formulation, llama.cpp's cumulative product among them); a
 * pair past an eighth of a turn carries no position and is not read. */
static int offset_holds(const double *ph, const double *omega, int h, double p, double eps)
{
    int read = 0;
    for (int i = 0; i < h; i++) {
        double theta = p * omega[i], x = omega[i] < 1 ? -log(omega[i]) : 0.0;
        double kappa = fmax(fmax(2 * x + 5, x + 10), 3.0 * i + x) + 1;
        if (kappa * 0x1p-24 * fabs(theta) + eps > M_PI / 8) continue;
        if (!(fabs(remainder(ph[i] - theta, 2.0 * M_PI)) <= M_PI / 4)) return 0;
        read++;
    }
    return read > 0;
}

/* Offsets past half the lowest frequency's period alias at its phase: the
 * start is tried a whole period either way, nearest first, up to this many
 * periods (2^16: past 2^24 positions, binary32's whole numbers, for every
 * period of 256 positions or more) until the unwrap holds at every pair. */
#define OFFSET_PERIODS 65536

double pc_rope_fit_offset(const double *c, const double *s, const double *omega, int h, double lo,
                          double eps)
{
    double w = omega[h - 1];
    double *ph = malloc((size_t)h * sizeof *ph);
    if (!ph || !(w > 0) || !isfinite(w)) {
        free(ph);
        return (double)NAN;
    }
    for (int i = 0; i < h; i++) ph[i] = atan2(s[i], c[i]);
    double q0 = remainder(ph[h - 1] - lo * w, 2.0 * M_PI) / w;
    double period = 2.0 * M_PI / w, q = (double)NAN;
    for (int k = 0; k <= OFFSET_PERIODS && !isfinite(q); k++) {
        q = unwrap_offset(ph, omega, h, lo, eps, q0 + k * period);
        if (isfinite(q) && !offset_holds(ph, omega, h, lo + q, eps)) q = (double)NAN;
        if (!isfinite(q) && k > 0) q = unwrap_offset(ph, omega, h, lo, eps, q0 - k * period);
        if (isfinite(q) && !offset_holds(ph, omega, h, lo + q, eps)) q = (double)NAN;
    }
    free(ph);
    if (!isfinite(q)) return q;
    return fabs(q - round(q)) < 0.01 ? round(q) : q;
}

double pc_rope_fit_amp(const pc_rope_fit *f)
{
    /* the median pair amplitude: robust to a few broken pairs */
    double *a = malloc((size_t)f->h * sizeof *a);
    if (!a) return (double)NAN;
    memcpy(a, f->amp, (size_t)f->h * sizeof *a);
    for (int i = 1; i < f->h; i++) /* insertion sort: h <= 4096 */
        for (int j = i; j > 0 && a[j - 1] > a[j]; j--) { double t = a[j]; a[j] = a[j - 1]; a[j - 1] = t; }
    double m = a[f->h / 2];
    free(a);
    return m;
}

double pc_rope_fit_base(const pc_rope_fit *f, int d, double *resid)
{
    /* ln w_i = -(2i/d) ln B, least squares through the origin on the
     * resolved pairs (w_0 = 1 for every base) */
    double sxy = 0, sxx = 0;
    int used = 0;
    for (int i = 1; i < f->h; i++) {
        if (!f->resolved[i] || !(f->omega[i] > 0)) continue;
        double x = 2.0 * i / d, y = log(f->omega[i]);
        sxy += x * y; sxx += x * x; used++;
    }
    *resid = (double)INFINITY;
    if (used < 2) return (double)NAN;
    double lnb = -sxy / sxx, worst = 0;
    for (int i = 1; i < f->h; i++) {
        if (!f->resolved[i] || !(f->omega[i] > 0)) continue;
        double e = fabs(log(f->omega[i]) + 2.0 * i / d * lnb);
        if (e > worst) worst = e;
    }
    *resid = worst;
    return exp(lnb);
}

double pc_rope_round_base(double b)
{
    /* the nearest number with 3 significant digits (10000, 500000, 1e6,
     * 1.5e6 ...), when within 0.1%: a fitted base is not certified, the
     * check certifies the table against the rounded one */
    if (!(b > 1.0) || !isfinite(b)) return (double)NAN;
    double p = pow(10.0, floor(log10(b)) - 2.0);
    double r = round(b / p) * p;
    return fabs(r / b - 1.0) <= 1e-3 ? r : (double)NAN;
}

/* [I0, I1]: the first and last mismatching resolved pair. */
static int mismatches(const pc_rope_fit *f, const double *omega, double tol, int *i0, int *i1,
                      double *rmin, double *rmax, int *checked)
{
    int bad = 0;
    *checked = 0;
    *rmin = (double)INFINITY; *rmax = -(double)INFINITY;
    for (int i = 0; i < f->h; i++) {
        if (!f->resolved[i]) continue;
        (*checked)++;
        double r = f->omega[i] / omega[i];
        /* the fit's own error 2 e_phi / ((n-1) w) plus binary32's angle error */
        double t = 2.0 * f->eps / ((double)(f->n - 1) * omega[i]) + tol;
        if (fabs(r - 1.0) <= t) continue;
        if (!bad++) *i0 = i;
        *i1 = i;
        if (r < *rmin) *rmin = r;
        if (r > *rmax) *rmax = r;
    }
    return bad;
}

double pc_rope_fit_base_change(const pc_rope_fit *f, int d, const double *omega, double *share)
{
    double *k = malloc((size_t)f->h * sizeof *k);
    int m = 0, used = 0, fit = 0;
    *share = 0;
    if (!k) return (double)NAN;
    for (int i = 1; i < f->h; i++)
        if (f->resolved[i] && f->omega[i] > 0) k[m++] = -log(f->omega[i] / omega[i]) / (2.0 * i / d);
    for (int i = 1; i < m; i++) /* insertion sort */
        for (int j = i; j > 0 && k[j - 1] > k[j]; j--) { double t = k[j]; k[j] = k[j - 1]; k[j - 1] = t; }
    double lk = m ? k[m / 2] : (double)NAN;
    for (int i = 1; m && i < f->h; i++) {
        if (!f->resolved[i] || !(f->omega[i] > 0)) continue;
        used++;
        fit += fabs(log(f->omega[i] / omega[i]) + 2.0 * i / d * lk) < 0.01;
    }
    free(k);
    *share = used ? (double)fit / used : 0;
    return exp(lk);
}

/* The lowest-frequency pairs (up to the last) share one ratio r != 1: the
 * pairs a scaling divides by its factor, divided by another one. */
static int tail_ratio(const pc_rope_fit *f, const double *omega, double tol, int *i0, double *r)
{
    int last = f->h - 1;
    while (last >= 0 && !f->resolved[last]) last--;
    if (last < 1) return 0;
    double r1 = f->omega[last] / omega[last];
    if (fabs(r1 - 1.0) <= tol) return 0;
    int i = last;
    while (i > 0 && (!f->resolved[i - 1] || fabs(f->omega[i - 1] / omega[i - 1] / r1 - 1.0) < 0.01)) i--;
    if (last - i < 1) return 0;
    /* and the high-frequency quarter is the schedule's (a factor leaves it) */
    for (int k = 0; k < f->h / 4; k++)
        if (f->resolved[k] && fabs(f->omega[k] / omega[k] - 1.0) > 0.01) return 0;
    *i0 = i;
    *r = r1;
    return 1;
}

double pc_rope_fit_explained(const pc_rope_fit *f, const double *omega)
{
    int used = 0, fit = 0;
    for (int i = 0; i < f->h; i++) {
        if (!f->resolved[i]) continue;
        used++;
        fit += fabs(f->omega[i] / omega[i] - 1.0) < 0.01;
    }
    return used ? (double)fit / used : 0;
}

/* The base the first quarter of the pairs (the highest frequencies, which
 * no scaling schedule changes) fits, when they fit one within 10^-3; NaN
 * otherwise. */
static double head_base(const pc_rope_fit *f, int d)
{
    double sxy = 0, sxx = 0, lnb, worst = 0;
    int used = 0;
    for (int i = 1; i < f->h / 4; i++) {
        if (!f->resolved[i] || !(f->omega[i] > 0)) continue;
        double x = 2.0 * i / d;
        sxy += x * log(f->omega[i]); sxx += x * x; used++;
    }
    if (used < 2) return (double)NAN;
    lnb = -sxy / sxx;
    for (int i = 1; i < f->h / 4; i++)
        if (f->resolved[i] && f->omega[i] > 0) {
            double e = fabs(log(f->omega[i]) + 2.0 * i / d * lnb);
            if (e > worst) worst = e;
        }
    return worst < 1e-3 ? exp(lnb) : (double)NAN;
}

void pc_rope_exponent_note(double base, double v, int linear, int d, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!(base > 1) || !(v > 0) || d < 4) return;
    /* 10^-4: a fitted base or factor agrees with the identity to binary32
     * frequency noise over the resolved pairs (ID_FORM_TOL 5e-5), while
     * released schedules differ from it by percents */
    if (linear) {
        double k = d * log(v) / log(base);
        if (fabs(k - round(k)) < 1e-4 * fabs(k) && fabs(round(k)) >= 1 && fabs(round(k)) <= 4)
            snprintf(buf, len, " (%.9g^(%g/%d) = %.9g: the frequencies are %.9g^(-(2i %c %g)/%d), "
                     "the exponent off by %g: an arange from %g, not 0, e.g. arange(%g, d, 2)/d)",
                     base, round(k), d, pow(base, round(k) / d), base, k < 0 ? '-' : '+',
                     fabs(round(k)), d, fabs(round(k)), round(k), round(k));
        return;
    }
    if (fabs(v - 1.0) < 1e-4) {
        snprintf(buf, len, " (every pair turns at frequency 1: the exponent 2i/d is 0 for every "
                 "pair, computed in integers, e.g. arange(0, d, 2) // d or an integer division "
                 "before the float cast)");
        return;
    }
    double r = log(v) / log(base), dd = (double)d;
    if (fabs(r - dd / (dd - 2)) < 1e-4)
        snprintf(buf, len, " (%.9g^(%d/%d) = %.9g: the exponent runs over d - 2, base^(-2i/(d - 2)) "
                 "for pairs i = 0..d/2-1, e.g. torch.linspace(0, 1, d // 2) as the exponent, or "
                 "arange(0, d, 2)/(d - 2))", base, d, d - 2, pow(base, dd / (dd - 2)));
}

void pc_rope_fit_cause(const pc_rope_fit *f, int d, double base, const double *omega, double att,
                       double u_s, int sched, char *buf, size_t len)
{
    buf[0] = '\0';
    size_t used = 0;
    double amp = pc_rope_fit_amp(f);
    /* a stored pair (c, s) = A (cos, sin) (1 + e), |e| <= u_s each: its norm is
     * within u_s of A, and a mean over positions too; 2 u_s + 2^-18 leaves
     * room for binary32's own errors */
    if (isfinite(amp) && fabs(amp / att - 1.0) > 2.0 * u_s + 0x1p-18) {
        int n = snprintf(buf, len, "the cache's (cos, sin) have norm %.6g but the schedule's "
                         "attention factor is %.6g: %s", amp, att,
                         fabs(amp - 1.0) < 2.0 * u_s + 0x1p-18
                         ? "the attention factor is missing"
                         : "a different attention factor (a wrong factor or original length?)");
        used = n > 0 ? (size_t)n : 0;
    }
    int i0 = 0, i1 = 0, checked;
    double rmin, rmax, r;
    /* 2^-12: far above binary32's relative angle error (C 2^-24) */
    int bad = mismatches(f, omega, 0x1p-12, &i0, &i1, &rmin, &rmax, &checked);
    if (!bad || used + 8 >= len) return;
    const char *sep = used ? "; and " : "";
    /* the base of the schedule's own progression, omega_0 / omega_1 =
     * B^(2/d): rope_theta for default, linear and the unscaled head of
     * llama3, YaRN, LongRoPE; base' = theta t^(d/(d-2)) for dynamic NTK (and
     * HunYuan's alpha), which a change of base is measured against */
    if (d >= 4 && omega[0] > 0 && omega[1] > 0) base = pow(omega[0] / omega[1], d / 2.0);
    double share, b = pc_rope_fit_base_change(f, d, omega, &share) * base;
    if (bad > checked / 2 && share >= 0.75 && isfinite(b) && fabs(b / base - 1.0) > 1e-3) {
        /* ln B / ln B' an integer q >= 2: the schedule over a q times larger dim */
        double q = log(base) / log(b);
        if (b > 1.0 && q > 1.5 && fabs(q - round(q)) < 1e-3) /* base^(1/q): q times the dim */
            snprintf(buf + used, len - used, "%sthe frequencies are those of a %g times larger dim "
                     "(base %.6g = %.6g^(1/%g)): the schedule over the head dim, not the rotary dim "
                     "(partial rotary)?", sep, round(q), b, base, round(q));
        else {
            char why[320];
            pc_rope_exponent_note(base, b, 0, d, why, sizeof why);
            if (why[0])
                snprintf(buf + used, len - used, "%sthe frequencies are those of base %.6g, not "
                         "%.6g%s", sep, b, base, why);
            else
                snprintf(buf + used, len - used, "%sthe frequencies are those of base %.6g, not "
                         "%.6g: a wrong base (rope_theta; for dynamic NTK also a wrong factor or "
                         "sequence length, or alpha)", sep, b, base);
        }
        return;
    }
    double hb = head_base(f, d);
    if (!sched && isfinite(hb) && share < 0.75)
        snprintf(buf + used, len - used, "%sthe high-frequency pairs are base^(-2i/d) with base %.6g "
                 "but the low-frequency ones are not: a scaled schedule (rope_scaling)? pass "
                 "--hf-config config.json or --rope-scaling", sep, hb);
    else if (rmax / rmin - 1.0 < 0.01)
        snprintf(buf + used, len - used, "%spairs %d..%d have frequencies %.4g times the schedule's: "
                 "a wrong scaling factor?", sep, i0, i1, 0.5 * (rmin + rmax));
    else if (tail_ratio(f, omega, 0x1p-12, &i0, &r))
        snprintf(buf + used, len - used, "%sthe lowest-frequency pairs %d..%d have frequencies %.4g "
                 "times the schedule's: a wrong scaling factor?", sep, i0, f->h - 1, r);
    else
        snprintf(buf + used, len - used, "%s%d of %d resolved pairs (%d..%d) have other frequencies "
                 "than the schedule's (ratios %.4g..%.4g): the scaling applied to other pairs (a wrong "
                 "original length, band or ramp?)", sep, bad, checked, i0, i1, rmin, rmax);
}

/* anchor.c: a table's frequencies from the phases at its rows' own
 * positions (pc_rope_fit_anchor, fit.h).
 *
 * The fit (fit.c) reads a frequency from the turn between the rows: over
 * 64 rows at position 16777000 the binary32 angles' rounding (2^-22 p w)
 * leaves it good to a few percent only.  A row at a known position p holds
 * the phase p w mod 2 pi, good to the phase error e(p) = eps + 2^-22 p w
 * (fit_ids.c's): once p w is known to better than pi/2 - e(p), the whole
 * turns are known and the row gives w to e(p)/p.  Each row's turns are
 * taken from the fit's frequency while its error times p leaves room, and
 * the frequency is then the least-squares line through position 0 (theta
 * = p w) over those rows; a pair whose rows stray from that line by more
 * than 4 e(p) is not anchored (rows of other positions: an offset). */
#include <math.h>
#include <stdlib.h>
#include "fit.h"

#define ANCHOR_ROWS 4096      /* the last rows read (memory: two doubles a pair and row) */
#define ANCHOR_ROOM 1.0       /* p d + e(p) below this (radians, under pi/2): turns known */
#define ANCHOR_STRAY 4.0      /* a row farther than this many e(p) from the line: not anchored */

static double phase_err(const pc_rope_fit *f, double p, double w)
{
    return f->eps + 0x1p-22 * fabs(p) * w;
}

/* Pair I's frequency from its phases PH at positions P0 + r (r < M) given
 * its estimate W good to DW (absolute): the line through 0; NaN when a
 * row's turns are not known or a row strays from the line. */
static double anchor_pair(const pc_rope_fit *f, const double *c, const double *s, int h, int i,
                          double p0, size_t m, double w, double dw, double *err)
{
    double spp = 0, spt = 0, emax = 0;
    for (size_t r = 0; r < m; r++) {
        double p = p0 + (double)r, e = phase_err(f, p, w);
        if (p * dw + e > ANCHOR_ROOM) return (double)NAN;
        double ph = atan2(s[r * (size_t)h + (size_t)i], c[r * (size_t)h + (size_t)i]);
        double t = ph + 2 * M_PI * round((p * w - ph) / (2 * M_PI));
        spp += p * p; spt += p * t;
        emax = fmax(emax, e);
    }
    if (!(spp > 0)) return (double)NAN;
    double wa = spt / spp;
    for (size_t r = 0; r < m; r++) {
        double p = p0 + (double)r;
        double ph = atan2(s[r * (size_t)h + (size_t)i], c[r * (size_t)h + (size_t)i]);
        double dev = remainder(ph - p * wa, 2 * M_PI);
        if (fabs(dev) > ANCHOR_STRAY * phase_err(f, p, wa)) return (double)NAN;
    }
    /* the line's error: every row's phase off by at most emax, the
     * positions' sum over their sum of squares */
    double sp = 0;
    for (size_t r = 0; r < m; r++) sp += p0 + (double)r;
    *err = emax * sp / spp;
    return wa;
}

void pc_rope_fit_anchor(const pc_impl *impl, int d, double base, int layout, int64_t lo,
                        int64_t hi, pc_rope_fit *f, const double *model, double rel_model)
{
    if (lo < 0 || hi < lo || !f->omega) return;
    size_t n = (size_t)(hi - lo + 1), m = n < ANCHOR_ROWS ? n : ANCHOR_ROWS;
    int64_t first = hi - (int64_t)m + 1;
    int h = f->h;
    double *c = malloc(m * (size_t)h * sizeof *c), *s = malloc(m * (size_t)h * sizeof *s);
    double *err = malloc((size_t)h * sizeof *err);
    if (!c || !s || !err || pc_rope_unit_rows(impl, d, base, layout, first, m, c, s) != 0) {
        free(c); free(s); free(err);
        return;
    }
    int any = 0;
    for (int i = 0; i < h; i++) err[i] = f->omega_err ? f->omega_err[i] : (double)NAN;
    /* from the slowest pair up: a pair's estimate is the fit's, the one its
     * two anchored slower neighbours extrapolate (ln w linear in i), or
     * MODEL's, whichever is the closest */
    for (int i = h - 1; i >= 0; i--) {
        if (isfinite(err[i])) { any = 1; continue; }
        double w = f->omega_ls && isfinite(f->omega_ls[i]) ? f->omega_ls[i] : f->omega[i];
        if (!(w > 0) || !isfinite(w)) continue;
        /* the fit's own error of a frequency (identify.c's fit_err, absolute) */
        double dw = 2.0 * (f->eps + 0x1p-22 * f->pos_max * w) / (double)(f->n - 1);
        if (i + 2 < h && isfinite(err[i + 1]) && isfinite(err[i + 2])) {
            double l1 = log(f->omega[i + 1]), l2 = log(f->omega[i + 2]);
            double wp = exp(2 * l1 - l2);
            /* the neighbours' errors, and the curvature of the three
             * slower ones where known (a ramp or band bends the line) */
            double rel = 2 * err[i + 1] / f->omega[i + 1] + err[i + 2] / f->omega[i + 2];
            if (i + 3 < h && isfinite(err[i + 3]))
                rel += 2 * fabs(l1 - 2 * l2 + log(f->omega[i + 3]));
            else rel += 0.05; /* no curvature known: a ramp's step at most */
            if (wp * rel < dw) { w = wp; dw = wp * rel; }
        }
        if (model && model[i] > 0 && model[i] * rel_model < dw) { w = model[i]; dw = w * rel_model; }
        double e = 0, wa = anchor_pair(f, c, s, h, i, (double)first, m, w, dw, &e);
        if (!isfinite(wa) || !(wa > 0)) continue;
        f->omega[i] = wa;
        if (f->omega_ls) f->omega_ls[i] = wa;
        f->resolved[i] = 1;
        err[i] = e;
        any = 1;
    }
    free(c); free(s);
    if (!any) { free(err); return; }
    free(f->omega_err);
    f->omega_err = err;
}

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

/* A pair whose turns at its positions no estimate tells: of the
 * frequencies that hold its phase at the middle row (a comb 2 pi / p
 * apart), the one nearest the fit's.  The rows cannot tell them apart,
 * but the angles of this one are off by the fit's error times the rows'
 * distance from the middle, where the fit's are off by it times their
 * position (LongRoPE's factor of each pair at 520000: check's gate at
 * err/bound 336 under the fit's frequencies). */
static void comb_nearest(pc_rope_fit *f, const double *c, const double *s, int h, int i,
                         double p0, size_t m)
{
    size_t mid = m / 2;
    double p = p0 + (double)mid;
    double w = f->omega_ls && isfinite(f->omega_ls[i]) ? f->omega_ls[i] : f->omega[i];
    if (!(p > 0) || !(w > 0) || !isfinite(w)) return;
    double ph = atan2(s[mid * (size_t)h + (size_t)i], c[mid * (size_t)h + (size_t)i]);
    double wc = (ph + 2 * M_PI * round((p * w - ph) / (2 * M_PI))) / p;
    if (!(wc > 0)) return;
    f->omega[i] = wc;
    if (f->omega_ls) f->omega_ls[i] = wc;
}

#define CHAIN_PAIRS 8        /* the slowest pairs a comb chain runs over */
#define CHAIN_MIN 5          /* of which at least this many agree (2 fix it, 3 confirm) */
#define CHAIN_TOL 0.3        /* a confirming pair's phase within this (radians) of the chain's */
#define CHAIN_MAX 1000000    /* chains tried at most */

static double mid_phase(const double *c, const double *s, int h, int i, size_t mid)
{
    return atan2(s[mid * (size_t)h + (size_t)i], c[mid * (size_t)h + (size_t)i]);
}

/* How many of the slowest pairs, from H-1 down, the chain W1 (pair h-1),
 * ratio R per pair, holds at the middle row's phases (position P). */
static int chain_len(const pc_rope_fit *f, const double *c, const double *s, int h, size_t mid,
                     double p, double w1, double r)
{
    int n = 2, top = h - CHAIN_PAIRS > 0 ? h - CHAIN_PAIRS : 0;
    double w = w1 * r;
    for (int j = h - 3; j >= top; j--) {
        w *= r;
        double dev = remainder(p * w - mid_phase(c, s, h, j, mid), 2 * M_PI);
        if (fabs(dev) > CHAIN_TOL + phase_err(f, p, w)) break;
        n++;
    }
    return n;
}

/* The slowest pairs when the fit's error leaves their turns unknown (64
 * rows at 16777000: a few percent): in every schedule but LongRoPE they
 * lie on one geometric line (the unscaled default, or the tail past a
 * ramp or band), w_j = w1 r^(h-1-j).  Each frequency of pair h-1 that holds
 * its phase (a comb 2 pi / p apart, within the fit's error) and each of
 * pair h-2 within 5% of the fit's ratio fix w1 and r; the one chain the
 * next slowest pairs' phases confirm gives their estimates, anchored then
 * as any (W_EST, 0 where none). */
static int comb_chain(const pc_rope_fit *f, const double *c, const double *s, int h, double p0,
                      size_t m, double *w_est)
{
    size_t mid = m / 2;
    double p = p0 + (double)mid;
    if (h < CHAIN_MIN + 1 || !(p > 0)) return 0;
    double wa = f->omega_ls ? f->omega_ls[h - 1] : f->omega[h - 1];
    double wb = f->omega_ls ? f->omega_ls[h - 2] : f->omega[h - 2];
    if (!(wa > 0) || !(wb > 0) || !isfinite(wa) || !isfinite(wb)) return 0;
    double dwa = 2.0 * (f->eps + 0x1p-22 * f->pos_max * wa) / (double)(f->n - 1);
    double pa = mid_phase(c, s, h, h - 1, mid), pb = mid_phase(c, s, h, h - 2, mid);
    double k1lo = ceil((p * fmax(wa - 3 * dwa, 0) - pa) / (2 * M_PI));
    double k1hi = floor((p * (wa + 3 * dwa) - pa) / (2 * M_PI));
    double rc = wb / wa, tried = 0, best_w1 = 0, best_r = 0;
    int best = 0, ties = 0;
    for (double k1 = k1lo; k1 <= k1hi && tried < CHAIN_MAX; k1++) {
        double w1 = (pa + 2 * M_PI * k1) / p;
        if (!(w1 > 0)) continue;
        double k2lo = ceil((p * w1 * rc * 0.95 - pb) / (2 * M_PI));
        double k2hi = floor((p * w1 * rc * 1.05 - pb) / (2 * M_PI));
        for (double k2 = k2lo; k2 <= k2hi && tried < CHAIN_MAX; k2++, tried++) {
            double r = (pb + 2 * M_PI * k2) / p / w1;
            int n = chain_len(f, c, s, h, mid, p, w1, r);
            if (n > best) { best = n; ties = 0; best_w1 = w1; best_r = r; }
            else if (n == best) ties++;
        }
    }
    if (best < CHAIN_MIN || ties) return 0;
    double w = best_w1;
    for (int j = h - 1; j > h - 1 - best; j--, w *= best_r) w_est[j] = w;
    return 1;
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
    /* the slowest pairs' turns unknown at these positions: their chain */
    double *chain = calloc((size_t)h, sizeof *chain);
    if (chain && !model && !isfinite(err[h - 1])) {
        double w = f->omega_ls && isfinite(f->omega_ls[h - 1]) ? f->omega_ls[h - 1] : f->omega[h - 1];
        double dw = 2.0 * (f->eps + 0x1p-22 * f->pos_max * w) / (double)(f->n - 1);
        if ((double)hi * dw + phase_err(f, (double)hi, w) > ANCHOR_ROOM)
            (void)comb_chain(f, c, s, h, (double)first, m, chain);
    }
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
        /* a chain's estimate: good to its phase's tolerance at the middle row */
        if (chain && chain[i] > 0) { w = chain[i]; dw = CHAIN_TOL / (double)hi; }
        double e = 0, wa = anchor_pair(f, c, s, h, i, (double)first, m, w, dw, &e);
        if (!isfinite(wa) || !(wa > 0)) {
            comb_nearest(f, c, s, h, i, (double)first, m);
            continue;
        }
        f->omega[i] = wa;
        if (f->omega_ls) f->omega_ls[i] = wa;
        f->resolved[i] = 1;
        err[i] = e;
        any = 1;
    }
    free(c); free(s); free(chain);
    if (!any) { free(err); return; }
    free(f->omega_err);
    f->omega_err = err;
}

/* fitmodel_text.c: what a fitted model says, in words (fitmodel.h): per
 * kind of finding the worst pair with its fitted numbers, and the cause
 * the pattern over the pairs suggests. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fitmodel.h"
#include "harness/formats/verdict.h"

/* fitted/bound of KIND at pair I. */
static double ratio(const pc_fitm_pair *q, int kind)
{
    switch (kind) {
    case PC_FITM_OFFSET: return fabs(q->offset) / q->offset_bound;
    case PC_FITM_FREQ: return fabs(q->freq_rel) / q->freq_bound;
    case PC_FITM_AMP: return fabs(q->amp - 1.0) / q->amp_bound;
    default: return q->dc / q->dc_bound;
    }
}

/* A pair whose fitted numbers are all finite: rows with NaN or Inf give
 * NaN sums, which say nothing of a frequency, phase or norm. */
static int fitted(const pc_fitm_pair *q)
{
    return isfinite(q->offset) && isfinite(q->freq_rel) && isfinite(q->amp) && isfinite(q->dc);
}

/* The pairs that are not fitted (NaN or Inf in their rows), *FIRST the
 * first of them. */
static int unfitted(const pc_fitm *f, int *first)
{
    int n = 0;
    for (int i = f->h - 1; i >= 0; i--)
        if (!fitted(&f->p[i])) { n++; *first = i; }
    return n;
}

/* The pair where KIND is worst among the fitted ones over its bound; -1:
 * none. */
static int worst_pair(const pc_fitm *f, int kind, int *count)
{
    int w = -1;
    *count = 0;
    for (int i = 0; i < f->h; i++) {
        if (!(f->p[i].bad & kind) || !fitted(&f->p[i])) continue;
        (*count)++;
        if (w < 0 || ratio(&f->p[i], kind) > ratio(&f->p[w], kind)) w = i;
    }
    return w;
}

/* Every pair over its offset bound shifted by the same whole number of
 * positions K (within 5%): the rows of another position. */
static int position_shift(const pc_fitm *f, long *k)
{
    int n = 0;
    *k = 0;
    for (int i = 0; i < f->h; i++) {
        const pc_fitm_pair *q = &f->p[i];
        if (!(q->bad & PC_FITM_OFFSET) || !fitted(q)) continue;
        double s = q->offset / q->omega;
        if (!(fabs(s) < 0x1p53)) return 0; /* not a position */
        long r = lround(s);
        if (r == 0 || fabs(s - (double)r) > 0.05 || (n && r != *k)) return 0;
        *k = r;
        n++;
    }
    return n > 0;
}

/* The relative frequency errors of the pairs over their bound grow with
 * the pair index, of one sign (within a factor 2 of e_i / i): the error of
 * a constant raised by repeated multiplication. */
static int cumulative(const pc_fitm *f)
{
    double lo = (double)INFINITY, hi = -(double)INFINITY;
    int n = 0;
    for (int i = 1; i < f->h; i++) {
        if (!(f->p[i].bad & PC_FITM_FREQ) || !fitted(&f->p[i])) continue;
        double g = f->p[i].freq_rel / i;
        lo = fmin(lo, g); hi = fmax(hi, g);
        n++;
    }
    return n >= 2 && lo * hi > 0 && fabs(hi) <= 2.0 * fabs(lo) && fabs(hi) < 1e-5;
}

/* The amplitudes of every pair agree within 10^-4: one scale factor. */
static int one_scale(const pc_fitm *f)
{
    double lo = (double)INFINITY, hi = 0;
    for (int i = 0; i < f->h; i++)
        if (fitted(&f->p[i])) { lo = fmin(lo, f->p[i].amp); hi = fmax(hi, f->p[i].amp); }
    return hi - lo <= 1e-4 * hi;
}

static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));

static size_t put(char *buf, size_t len, size_t at, const char *fmt, ...)
{
    if (at >= len) return at;
    va_list ap;
    va_start(ap, fmt);
    int n = vsnprintf(buf + at, len - at, fmt, ap);
    va_end(ap);
    return n < 0 ? at : at + (size_t)n;
}

static size_t say_offset(const pc_fitm *f, char *buf, size_t len, size_t at)
{
    int n, i = worst_pair(f, PC_FITM_OFFSET, &n);
    if (i < 0) return at;
    const pc_fitm_pair *q = &f->p[i];
    long k;
    at = put(buf, len, at, "%spair %d: phase offset %+.3g rad = %+.4g positions (bound %.2g rad; "
             "%d pairs over)", at ? "; " : "", i, q->offset, q->offset / q->omega, q->offset_bound, n);
    if (position_shift(f, &k))
        at = put(buf, len, at, " - the rows are those of position p%+ld?", k);
    return at;
}

static size_t say_freq(const pc_fitm *f, char *buf, size_t len, size_t at)
{
    int n, i = worst_pair(f, PC_FITM_FREQ, &n);
    if (i < 0) return at;
    const pc_fitm_pair *q = &f->p[i];
    at = put(buf, len, at, "%spair %d: frequency %.3g ulp %s exact (relative %+.3g, bound %.2g; "
             "%d pairs over)", at ? "; " : "", i, fabs(q->freq_ulp),
             q->freq_rel > 0 ? "above" : "below", q->freq_rel, q->freq_bound, n);
    if (cumulative(f))
        at = put(buf, len, at, " - a cumulative-product schedule?");
    else if (fabs(q->freq_rel) > 1e-4)
        at = put(buf, len, at, " - a wrong base or scaling?");
    return at;
}

static size_t say_amp(const pc_fitm *f, char *buf, size_t len, size_t at)
{
    int n, i = worst_pair(f, PC_FITM_AMP, &n);
    if (i < 0) return at;
    const pc_fitm_pair *q = &f->p[i];
    at = put(buf, len, at, "%spair %d: amplitude %.9g of A = %.9g (bound 1 +- %.2g; %d pairs over)",
             at ? "; " : "", i, q->amp, f->att, q->amp_bound, n);
    return put(buf, len, at, "%s", one_scale(f) ? " - a scaled norm (a wrong or missing factor)?"
                                                : " - a poor sin/cos (the norm varies by pair)?");
}

static size_t say_dc(const pc_fitm *f, char *buf, size_t len, size_t at)
{
    int n, i = worst_pair(f, PC_FITM_DC, &n);
    if (i < 0) return at;
    const pc_fitm_pair *q = &f->p[i];
    return put(buf, len, at, "%spair %d: DC offset %.3g of A (bound %.2g; %d pairs over) - a "
               "constant added to the values?", at ? "; " : "", i, q->dc, q->dc_bound, n);
}

void pc_fitm_summary(const pc_fitm *f, char *buf, size_t len)
{
    size_t at = 0;
    int first = 0, n = unfitted(f, &first);
    buf[0] = '\0';
    if (n)
        at = put(buf, len, at, "%d of %d pairs hold NaN or Inf (not fitted; the first: pair %d)", n,
                 f->h, first);
    at = say_offset(f, buf, len, at);
    at = say_freq(f, buf, len, at);
    at = say_amp(f, buf, len, at);
    (void)say_dc(f, buf, len, at);
}

static int cmp_d(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return (x > y) - (x < y);
}

void pc_fitm_details(const pc_fitm *f, char *buf, size_t len)
{
    double *q = malloc((size_t)f->h * sizeof *q);
    size_t at = 0;
    buf[0] = '\0';
    at = put(buf, len, at, "fitted model over positions %lld..%lld, %d pairs (docs/fitted-model.md): "
             "%d pairs outside their bounds, worst fitted/bound %.3g\n", (long long)f->lo,
             (long long)f->hi, f->h, f->bad, f->worst);
    int first = 0, nf = unfitted(f, &first), m = 0;
    if (nf)
        at = put(buf, len, at, "%d pairs hold NaN or Inf and are not fitted (the first: pair %d)\n",
                 nf, first);
    if (q) {
        for (int i = 0; i < f->h; i++)
            if (fitted(&f->p[i])) q[m++] = f->p[i].offset / f->p[i].omega;
        qsort(q, (size_t)m, sizeof *q, cmp_d);
        if (m) at = put(buf, len, at, "median effective position offset %+.4g positions\n", q[m / 2]);
        free(q);
    }
    const char *what[4] = { "phase offset", "frequency", "amplitude", "DC offset" };
    const int kind[4] = { PC_FITM_OFFSET, PC_FITM_FREQ, PC_FITM_AMP, PC_FITM_DC };
    for (int k = 0; k < 4 && nf < f->h; k++) {
        int worst = -1;
        for (int i = 0; i < f->h; i++)
            if (fitted(&f->p[i]) && (worst < 0 || ratio(&f->p[i], kind[k]) > ratio(&f->p[worst], kind[k])))
                worst = i;
        const pc_fitm_pair *p = &f->p[worst];
        at = put(buf, len, at, "%s: worst pair %d, fitted/bound %.3g (offset %+.3g rad, frequency "
                 "%+.3g relative = %+.3g ulp, amplitude %.9g, DC %.3g)\n", what[k], worst,
                 ratio(p, kind[k]), p->offset, p->freq_rel, p->freq_ulp, p->amp, p->dc);
    }
}

void pc_fitm_verdict(const pc_fitm *f, const char *note, pc_verdict *v)
{
    if (!f) {
        v->status = PC_SKIP;
        snprintf(v->summary, sizeof v->summary, "not fitted: %s", note);
        return;
    }
    v->status = f->bad ? PC_FAIL : PC_OK;
    v->measured = f->worst;
    v->bound = 1.0;
    snprintf(v->measured_what, sizeof v->measured_what, "max fitted/bound");
    char line[sizeof v->summary - 64]; /* the kinds' sentences whole, after the count */
    pc_fitm_summary(f, line, sizeof line);
    if (f->bad)
        snprintf(v->summary, sizeof v->summary, "%d of %d pairs outside the fitted model's bounds: %s",
                 f->bad, f->h, line);
    else
        snprintf(v->summary, sizeof v->summary, "frequency, phase offset, amplitude and DC offset of "
                 "all %d pairs within their bounds (worst fitted/bound %.3g)", f->h, f->worst);
    v->details = malloc(2048); /* pc_fitm_details' lines: a few per kind */
    if (v->details) pc_fitm_details(f, v->details, 2048);
}

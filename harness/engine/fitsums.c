/* fitsums.c: the fitted model's sums, per block and exact per run
 * (fitsums.h; docs/fitted-model.md, "How the sums are made"). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fitsums.h"

/* atan of the rotated pair W = (wr, wi) = z e^{-i theta}.  A correct row
 * leaves W within a few 2^-24 rad of the positive real axis, where
 * atan2(wi, wr) = atan(t), t = wi / wr, is its Taylor series: for |t| <=
 * 2^-8 (SERIES_MAX) the terms up to t^5 leave |t|^7 / 7 < 2^-58 rad, and
 * the division and the three roundings of the polynomial add a few 2^-53
 * |t| < 2^-60 rad: about 2^-57 rad in all, 2^-35 times the smallest bound
 * of the fit (e_0 = 4u = 2^-22 rad, docs/fitted-model.md), so no verdict
 * depends on it.  Elsewhere: atan2. */
#define SERIES_MAX 0x1p-8

/* t - t^3/3 + t^5/5 */
static inline double series(double t)
{
    double t2 = t * t;
    return t + t * t2 * (-1.0 / 3.0 + t2 * 0.2);
}

static inline int series_applies(double wr, double wi)
{
    return wr > 0 && fabs(wi) <= SERIES_MAX * wr;
}

/* The integer step of the unwrap from raw value LAST to the next, NEXT:
 * the k in {-1, 0, 1} that brings next - last + 2 pi k into [-pi, pi]
 * (both are atan2's, in [-pi, pi]): a correct row moves the residual by
 * far less than pi from one position to the next. */
static int64_t step(double last, double next)
{
    double d = next - last;
    return d > M_PI ? -1 : d < -M_PI ? 1 : 0;
}

void pc_fitb_init(pc_fitb *b, int h)
{
    memset(b, 0, (size_t)h * sizeof *b);
}

/* Pairs a row's residuals are computed for at once (fit_chunk): a
 * constant count, so that the compiler may vectorise the loop; the
 * operations on each pair are the same whatever the count, so the same
 * bits. */
#define FIT_CHUNK 64

/* Pairs I0 .. I0 + N of ROW: W = z e^{-i theta} (WR, WI), the series of
 * wi / wr (SER, used where it applies) and |z| (AMP). */
static inline void fit_chunk(const pc_fit_row *row, int i0, int n, double *wr, double *wi,
                             double *ser, double *amp)
{
    const double *c = row->c + i0, *s = row->s + i0, *ct = row->ct + i0, *st = row->st + i0;
    for (int j = 0; j < n; j++) {
        wr[j] = c[j] * ct[j] + s[j] * st[j];
        wi[j] = s[j] * ct[j] - c[j] * st[j];
        ser[j] = series(wi[j] / wr[j]);
        /* |z|: c, s are binary32 values over A; their squares and sum
         * neither overflow nor underflow in binary64 (|c| < 2^128 / A) */
        amp[j] = sqrt(c[j] * c[j] + s[j] * s[j]);
    }
}

void pc_fitb_add(pc_fitb *b, int h, const pc_fit_row *row, int64_t p, size_t k, double pbar)
{
    double x = (double)p - pbar;
    int64_t q = (int64_t)k;
    double wr[FIT_CHUNK], wi[FIT_CHUNK], ser[FIT_CHUNK], amp[FIT_CHUNK];
    for (int i0 = 0; i0 < h; i0 += FIT_CHUNK) {
        int n = h - i0 < FIT_CHUNK ? h - i0 : FIT_CHUNK;
        if (n == FIT_CHUNK) fit_chunk(row, i0, FIT_CHUNK, wr, wi, ser, amp);
        else fit_chunk(row, i0, n, wr, wi, ser, amp);
        for (int j = 0; j < n; j++) {
            pc_fitb *a = &b[i0 + j];
            /* the residual: atan of W (above) */
            double raw = series_applies(wr[j], wi[j]) ? ser[j] : atan2(wi[j], wr[j]);
            int64_t m = k ? a->mlast + step(a->last, raw) : 0;
            if (!k) a->first = raw;
            a->last = raw;
            a->mlast = m;
            a->sd += raw;
            a->sxd += x * raw;
            a->sm += m;
            a->sqm += q * m;
            a->samp += amp[j];
            a->zr += row->c[i0 + j]; a->zi += row->s[i0 + j];
            a->er += row->ct[i0 + j]; a->ei += row->st[i0 + j];
        }
    }
}

pc_fitp *pc_fitp_new(int h)
{
    pc_fitp *f = calloc(1, sizeof *f);
    if (!f) return NULL;
    f->h = h;
    f->p = calloc((size_t)(h > 0 ? h : 1), sizeof *f->p);
    if (!f->p) { free(f); return NULL; }
    for (int i = 0; i < h; i++) {
        pc_fitp_pair *q = &f->p[i];
        pc_xsum *xs[7] = { &q->sd, &q->sxd, &q->samp, &q->zr, &q->zi, &q->er, &q->ei };
        for (int k = 0; k < 7; k++) pc_xsum_init(xs[k]);
    }
    return f;
}

void pc_fitp_free(pc_fitp *f)
{
    if (!f) return;
    free(f->p);
    free(f);
}

/* The integer parts of pair A (a run of NA positions) joined by those of
 * the run that follows (NB positions, sums SM, SQM, first raw FIRST, last
 * m MLAST): the offset M of the second run's m, then
 *   sum m   += SM + NB M,
 *   sum q m += SQM + NA SM + M (NA NB + NB (NB - 1) / 2)
 * (q of the second run's positions is NA plus their own q); every term is
 * below 2 n^3 (fitsums.h). */
static void join_ints(pc_fitp_pair *a, int64_t na, int64_t nb, pc_i128 sm, pc_i128 sqm,
                      double first, int64_t mlast)
{
    int64_t M = a->mlast + step(a->last, first);
    pc_i128 qb = (pc_i128)na * nb + (pc_i128)nb * (nb - 1) / 2;
    a->sqm += sqm + (pc_i128)na * sm + (pc_i128)M * qb;
    a->sm += sm + (pc_i128)nb * M;
    a->mlast = M + mlast;
}

void pc_fitp_add_block(pc_fitp *run, const pc_fitb *b, int64_t p0, int64_t n)
{
    int64_t na = run->n;
    if (!na) run->start = p0;
    for (int i = 0; i < run->h; i++) {
        pc_fitp_pair *a = &run->p[i];
        const pc_fitb *s = &b[i];
        if (na) join_ints(a, na, n, s->sm, s->sqm, s->first, s->mlast);
        else { a->sm = s->sm; a->sqm = s->sqm; a->mlast = s->mlast; a->first = s->first; }
        a->last = s->last;
        pc_xsum_add(&a->sd, s->sd); pc_xsum_add(&a->sxd, s->sxd);
        pc_xsum_add(&a->samp, s->samp);
        pc_xsum_add(&a->zr, s->zr); pc_xsum_add(&a->zi, s->zi);
        pc_xsum_add(&a->er, s->er); pc_xsum_add(&a->ei, s->ei);
    }
    run->n = na + n;
}

int pc_fitp_join(pc_fitp *a, const pc_fitp *b)
{
    if (a->h != b->h || b->n < 0 || a->n < 0) return -1;
    if (!b->n) return 0;
    if (a->n && (b->start != a->start + a->n || b->n > PC_FIT_MAX_N - a->n)) return -1;
    int64_t na = a->n;
    if (!na) a->start = b->start;
    for (int i = 0; i < a->h; i++) {
        pc_fitp_pair *p = &a->p[i];
        const pc_fitp_pair *q = &b->p[i];
        if (na) join_ints(p, na, b->n, q->sm, q->sqm, q->first, q->mlast);
        else { p->sm = q->sm; p->sqm = q->sqm; p->mlast = q->mlast; p->first = q->first; }
        p->last = q->last;
        pc_xsum_merge(&p->sd, &q->sd); pc_xsum_merge(&p->sxd, &q->sxd);
        pc_xsum_merge(&p->samp, &q->samp);
        pc_xsum_merge(&p->zr, &q->zr); pc_xsum_merge(&p->zi, &q->zi);
        pc_xsum_merge(&p->er, &q->er); pc_xsum_merge(&p->ei, &q->ei);
    }
    a->n = na + b->n;
    return 0;
}

/* X's exact value plus V, rounded once. */
static double plus(const pc_xsum *x, double v)
{
    pc_xsum t = *x;
    pc_xsum_add(&t, v);
    return pc_xsum_value(&t);
}

void pc_fitp_totals(const pc_fitp *f, int i, pc_fit_tot *t)
{
    const pc_fitp_pair *q = &f->p[i];
    /* delta = raw + 2 pi m; x = q - (n - 1) / 2 over a run from the range's
     * first position, so 2 sum x m = 2 sum q m - (n - 1) sum m, an integer */
    pc_i128 two_xm = 2 * q->sqm - (pc_i128)(f->n - 1) * q->sm;
    t->sd = plus(&q->sd, 2.0 * M_PI * (double)q->sm);
    t->sxd = plus(&q->sxd, M_PI * (double)two_xm);
    t->samp = pc_xsum_value(&q->samp);
    t->zr = pc_xsum_value(&q->zr); t->zi = pc_xsum_value(&q->zi);
    t->er = pc_xsum_value(&q->er); t->ei = pc_xsum_value(&q->ei);
}

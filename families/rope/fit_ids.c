/* fit_ids.c: the fit of rows whose positions are given (fit.h,
 * pc_rope_fit_ids): rows of --position-ids of one axis, in any order, with
 * repeats and gaps.
 *
 * Per pair the phases of the distinct positions, sorted, are unwrapped from
 * the two closest positions outwards, the nearer end first.  A phase at
 * position p is good to e(p) = eps + 2^-22 p |w| (eps: one stored pair,
 * fit.c; 2^-22 p |w|: four half-units of a binary32 angle p w, the product
 * a formulation rounds).  The seed's step, G <= 3 positions, is unambiguous
 * for |w| <= 1 (every RoPE frequency: base^0 is pair 0's and every
 * released scaling divides it): |G w| + 2 e < pi.  A step of DELTA from an
 * end of the span S unwrapped so far is predicted as DELTA w~, wrong by at
 * most DELTA (e_a + e_b) / S + e_end + e_new; it is taken only while that
 * is below pi / 2 (a margin of 2 over the wrap's pi), and a phase farther
 * from its prediction than that bound means the pair follows no one
 * frequency over the ids (counted, not fitted on).  Rows of one position
 * must hold the same pair within 2 eps (counted). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "fit.h"

#define IDS_BLOCK 1024     /* rows read at a time */
#define IDS_SEED_MAX 3     /* the largest seed step unambiguous for |w| <= 1 */

typedef struct { int64_t pos; size_t row; } id_row;

static int by_pos(const void *x, const void *y)
{
    const id_row *a = x, *b = y;
    if (a->pos != b->pos) return a->pos < b->pos ? -1 : 1;
    return a->row < b->row ? -1 : a->row > b->row;
}

static double wrap(double x) { return remainder(x, 2.0 * M_PI); }

/* The phase error at position P of a pair turning by W a position. */
static double err_at(double eps, int64_t p, double w)
{
    return eps + 0x1p-22 * (double)p * fabs(w);
}

/* The distinct positions of IDS (N rows) into *P (*M of them), and the
 * distinct index of every row into DIDX; 0, or -1 without memory. */
static int distinct(const int64_t *ids, size_t n, int64_t **p, size_t *m, size_t *didx)
{
    id_row *r = malloc(n * sizeof *r);
    *p = malloc(n * sizeof **p);
    if (!r || !*p) { free(r); free(*p); *p = NULL; return -1; }
    for (size_t k = 0; k < n; k++) { r[k].pos = ids[k]; r[k].row = k; }
    qsort(r, n, sizeof *r, by_pos);
    *m = 0;
    for (size_t k = 0; k < n; k++) {
        if (k == 0 || r[k].pos != r[k - 1].pos) (*p)[(*m)++] = r[k].pos;
        didx[r[k].row] = *m - 1;
    }
    free(r);
    return 0;
}

/* Per pair the phase of each distinct position (PH, M x H), the amplitude
 * sum (AMP) and DUP[i]: rows of one position that differ. */
static int read_phases(const pc_impl *impl, int d, double base, int layout, int64_t lo, size_t n,
                       const size_t *didx, size_t m, double eps, double *ph, double *amp, int *dup)
{
    int h = d / 2;
    double *c = malloc(IDS_BLOCK * (size_t)h * sizeof *c), *s = malloc(IDS_BLOCK * (size_t)h * sizeof *s);
    unsigned char *seen = calloc(m, 1);
    int rc = c && s && seen ? 0 : -1;
    for (size_t r0 = 0; rc == 0 && r0 < n; r0 += IDS_BLOCK) {
        size_t b = n - r0 < IDS_BLOCK ? n - r0 : IDS_BLOCK;
        rc = pc_rope_unit_rows(impl, d, base, layout, lo + (int64_t)r0, b, c, s);
        for (size_t r = 0; rc == 0 && r < b; r++) {
            size_t k = didx[r0 + r];
            for (int i = 0; i < h; i++) {
                double x = c[r * (size_t)h + (size_t)i], y = s[r * (size_t)h + (size_t)i];
                double phase = atan2(y, x);
                amp[i] += hypot(x, y);
                if (!seen[k]) ph[k * (size_t)h + (size_t)i] = phase;
                else if (fabs(wrap(phase - ph[k * (size_t)h + (size_t)i])) > 2.0 * eps) dup[i] = 1;
            }
            seen[k] = 1;
        }
    }
    free(c); free(s); free(seen);
    return rc;
}

/* Pair I's phases PH (stride H) over the distinct positions P[0..M),
 * unwrapped from SEED: its frequency, the span [*A, *B] reached, its total
 * turn; returns 1 when a phase left its bound. */
static int unwrap_pair(const double *ph, int h, int i, const int64_t *p, size_t m, size_t seed,
                       double eps, double *w, size_t *a, size_t *b, double *turn)
{
#define PH(k) ph[(k) * (size_t)h + (size_t)i]
    size_t lo = seed, hi = seed + 1;
    double ua = 0, ub = wrap(PH(hi) - PH(lo));
    *w = ub / (double)(p[hi] - p[lo]);
    int off = 0;
    while (!off && (lo > 0 || hi + 1 < m)) {
        double span = (double)(p[hi] - p[lo]);
        double dw = (err_at(eps, p[lo], *w) + err_at(eps, p[hi], *w)) / span;
        int64_t gl = lo > 0 ? p[lo] - p[lo - 1] : INT64_MAX, gr = hi + 1 < m ? p[hi + 1] - p[hi] : INT64_MAX;
        int left = gl < gr;
        size_t end = left ? lo : hi, nw = left ? lo - 1 : hi + 1;
        double gap = (double)(left ? gl : gr);
        double bound = gap * dw + err_at(eps, p[end], *w) + err_at(eps, p[nw], *w);
        if (!(bound < M_PI / 2)) break;
        double pred = (left ? -gap : gap) * *w, dev = wrap(PH(nw) - PH(end) - pred);
        if (fabs(dev) > bound) { off = 1; break; }
        if (left) { ua += pred + dev; lo = nw; }
        else { ub += pred + dev; hi = nw; }
        *w = (ub - ua) / (double)(p[hi] - p[lo]);
    }
    *a = lo; *b = hi; *turn = ub - ua;
    return off;
#undef PH
}

pc_status pc_rope_fit_ids(const pc_impl *impl, int d, double base, int layout, int64_t lo,
                          size_t n, const int64_t *ids, double u_s, pc_rope_fit *f,
                          pc_rope_ids_info *info)
{
    memset(f, 0, sizeof *f);
    memset(info, 0, sizeof *info);
    int h = d / 2;
    if (n < 16 || !impl->rope || h < 1) return PC_SKIP;
    size_t *didx = malloc(n * sizeof *didx), m = 0;
    int64_t *p = NULL;
    if (!didx || distinct(ids, n, &p, &m, didx) != 0) { free(didx); return PC_ENOMEM; }
    info->distinct = m;
    info->first = p[0];
    info->last = p[m - 1];
    size_t seed = 0;
    for (size_t k = 1; k + 1 < m; k++)
        if (p[k + 1] - p[k] < p[seed + 1] - p[seed]) seed = k;
    info->seed_gap = m > 1 ? p[seed + 1] - p[seed] : 0;
    if (m < 2 || info->seed_gap > IDS_SEED_MAX) { free(didx); free(p); return PC_SKIP; }
    f->h = h;
    f->eps = 4.0 * u_s + 0x1p-20; /* fit.c's phase error of one stored pair */
    double *ph = malloc(m * (size_t)h * sizeof *ph);
    f->omega = malloc((size_t)h * sizeof *f->omega);
    f->amp = calloc((size_t)h, sizeof *f->amp);
    f->resolved = malloc((size_t)h * sizeof *f->resolved);
    int *dup = calloc((size_t)h, sizeof *dup);
    pc_status st = ph && f->omega && f->amp && f->resolved && dup ? PC_OK : PC_ENOMEM;
    if (st == PC_OK && read_phases(impl, d, base, layout, lo, n, didx, m, f->eps, ph, f->amp, dup) != 0)
        st = PC_SKIP;
    /* the frequency's error, (e_a + e_b) / S, as fit.c's 2 eps / (n - 1):
     * the smallest such span over the pairs */
    double span = (double)INFINITY;
    for (int i = 0; st == PC_OK && i < h; i++) {
        size_t a, b;
        double turn;
        int off = unwrap_pair(ph, h, i, p, m, seed, f->eps, &f->omega[i], &a, &b, &turn);
        double s = (double)(p[b] - p[a]);
        span = fmin(span, s * 2.0 * f->eps / (err_at(f->eps, p[a], f->omega[i]) +
                                              err_at(f->eps, p[b], f->omega[i])));
        f->amp[i] /= (double)n;
        f->resolved[i] = isfinite(turn) && fabs(turn) >= 200.0 * f->eps;
        info->off_pairs += off;
        info->dup_pairs += dup[i];
        if (!off && m - (b - a + 1) > info->unreached) info->unreached = m - (b - a + 1);
    }
    f->n = st == PC_OK && span >= 1 ? (size_t)floor(span) + 1 : 2;
    free(ph); free(dup); free(didx); free(p);
    if (st != PC_OK) pc_rope_fit_free(f);
    return st;
}

/* width_cause.c: a table of as many columns as the rotary dim d whose
 * columns repeat none of the others (no cat(freqs, freqs), no
 * repeat_interleave) reads as one column a pair, a d' = 2 d cache, and the
 * config's rotary dim refuses it.  Two mistakes give such a table, and
 * neither is a wrong rotary dim, so the message says which one the values
 * show, or only what was observed:
 *
 *   one frequency per column: inv_freq from arange(0, d) / d, without
 *   arange(0, d, 2)'s step (d frequencies, emb = freqs, no cat): column j
 *   turns at base^(-j/d), pair j of the 2d-dim schedule;
 *
 *   cos and sin in different layouts: one in cat(freqs, freqs) (columns j
 *   and j + d/2 equal), the other in repeat_interleave (columns 2i and
 *   2i + 1 equal), each holding the d-dim schedule's pairs in its own. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "width_cause.h"
#include "fit.h"
#include "options.h"
#include "scaling.h"
#include "harness/sources/table.h"
#include "reference/reference.h"

#define WIDTH_ROWS 256   /* rows read: enough positions to turn every pair */
#define WIDTH_SHARE 0.9  /* the share of values a named cause must reproduce */
/* float32 values: well above a binary32 kernel's error at these rows (a
 * few 2^-24 |theta|), far below a wrong frequency's (slice_cause.c's) */
#define WIDTH_TOL 1e-4

/* Whether every row of V (M rows of H columns) has columns A(j) and B(j)
 * equal for the H/2 column pairs of a layout: HALF j, j + H/2, else 2j,
 * 2j + 1; the rows of position 0 (cos 1, sin 0 everywhere) prove nothing
 * and are skipped by the caller's choice of rows. */
static int cols_repeat(const double *v, size_t m, int h, int half)
{
    for (size_t r = 0; r < m; r++)
        for (int j = 0; j < h / 2; j++) {
            const double *row = v + r * (size_t)h;
            if (half ? row[j] != row[j + h / 2] : row[2 * j] != row[2 * j + 1]) return 0;
        }
    return 1;
}

/* The share of V (M rows from position LO, H columns: cos when !SIN)
 * whose column j holds pair PAIR(j) of the frequencies W (PAIR: j, j mod
 * H/2 for HALF, j / 2 for interleaved; LAYOUT 0 one a column). */
static double col_share(const double *v, size_t m, int h, int64_t lo, const double *w, int layout,
                        int sin_, double att)
{
    size_t ok = 0;
    for (size_t r = 0; r < m; r++)
        for (int j = 0; j < h; j++) {
            int i = layout == 0 ? j : layout == 1 ? j % (h / 2) : j / 2;
            double t = (double)(lo + (int64_t)r) * w[i], x = att * (sin_ ? sin(t) : cos(t));
            ok += fabs(v[r * (size_t)h + (size_t)j] - x) <= WIDTH_TOL * (1.0 + fabs(t) * 0x1p-10);
        }
    return (double)ok / (double)(m * (size_t)h);
}

/* The rotary schedule's frequencies and attention factor (W: D/2 + 1). */
static int rotary_freqs(const pc_rope_spec *s, int d, double seq, double *w)
{
    pc_rope_params p;
    pc_err e;
    if (pc_rope_instantiate(s, d, seq, &p, &e) != PC_OK) return -1;
    pc_freqs *fr = pc_freqs_new(d, pc_rope_schedule(&p));
    if (fr) {
        for (int i = 0; i < d / 2; i++) w[i] = pc_freqs_omega(fr, i);
        w[d / 2] = pc_freqs_attention(fr);
    }
    pc_freqs_free(fr);
    pc_rope_params_free(&p);
    return fr ? 0 : -1;
}

pc_status pc_rope_width_check(pc_gate *g, const pc_impl *impl)
{
    const pc_table_info *t = pc_table_info_of(impl);
    const pc_rope_spec *s = pc_rope_spec_of(g->spec);
    if (!t || !s || t->full_width || g->spec->d_set || !s->rotary_dim || t->d != 2 * s->rotary_dim
        || s->rotary_dim < 4 || t->pos_hi - t->pos_lo < 2)
        return PC_OK;
    int d = s->rotary_dim, h = d; /* d columns, read as d pairs */
    int64_t lo = t->pos_lo + 1, rows = t->pos_hi - lo + 1; /* past position 0's trivial row */
    size_t m = rows < WIDTH_ROWS ? (size_t)rows : WIDTH_ROWS;
    double *c = malloc(m * (size_t)h * sizeof *c), *sn = malloc(m * (size_t)h * sizeof *sn);
    double *w = malloc(((size_t)d + 1) * sizeof *w), *wc = malloc((size_t)h * sizeof *wc);
    double base = s->p.base, sh = -1;
    int kind = 0; /* 1: a frequency a column; 2: cos half, sin interleaved; 3: the reverse */
    if (!c || !sn || !w || !wc || pc_rope_unit_rows(impl, 2 * d, base, 0, lo, m, c, sn) != 0)
        goto done;
    /* a frequency a column: pair j of the 2d-dim geometric schedule */
    for (int j = 0; j < h; j++) wc[j] = pow(base, -(double)j / d);
    double c1 = col_share(c, m, h, lo, wc, 0, 0, 1.0), s1 = col_share(sn, m, h, lo, wc, 0, 1, 1.0);
    if (fmin(c1, s1) >= WIDTH_SHARE) { kind = 1; sh = fmin(c1, s1); goto done; }
    /* cos and sin in layouts of their own, each the rotary schedule's pairs */
    int ch = cols_repeat(c, m, h, 1), ci = cols_repeat(c, m, h, 0);
    int sh_ = cols_repeat(sn, m, h, 1), si = cols_repeat(sn, m, h, 0);
    if (ch != ci && sh_ != si && ch != sh_
        && rotary_freqs(s, d, (double)t->pos_hi + 1.0, w) == 0) {
        double a = col_share(c, m, h, lo, w, ch ? 1 : 2, 0, w[d / 2]);
        double b = col_share(sn, m, h, lo, w, sh_ ? 1 : 2, 1, w[d / 2]);
        if (fmin(a, b) >= WIDTH_SHARE) { kind = ch ? 2 : 3; sh = fmin(a, b); }
    }
done:
    free(c); free(sn); free(w); free(wc);
    if (kind == 1)
        return pc_seterr(g->err, PC_EINPUT, "%s: the rotary dim is %d and the cache has %d columns, "
                         "but one frequency a column: column j turns at base^(-j/%d) (%.1f%% of "
                         "the values of %zu rows), %d frequencies where the %d-dim schedule has %d, "
                         "each in two columns: inv_freq built from arange(0, %d) / %d without the "
                         "step 2 of arange(0, %d, 2) (the exponent j/d where 2i/d belongs), and "
                         "the frequencies used without cat(freqs, freqs)",
                         t->path, d, d, d, 100.0 * sh, m, d, d, d / 2, d, d, d);
    if (kind)
        return pc_seterr(g->err, PC_EINPUT, "%s: the rotary dim is %d and the cache has %d columns, "
                         "but cos and sin are laid out differently: %s's columns j and j+%d are "
                         "equal (cat(freqs, freqs), the half layout) and %s's columns 2i and 2i+1 "
                         "(repeat_interleave, the interleaved layout); each holds the %d-dim "
                         "schedule's %d pairs in its own layout (%.1f%% of the values of %zu "
                         "rows): one of the two was permuted and not the other; build cos and sin "
                         "in one layout", t->path, d, d, kind == 2 ? "cos" : "sin", d / 2,
                         kind == 2 ? "sin" : "cos", d, d / 2, 100.0 * sh, m);
    return pc_seterr(g->err, PC_EINPUT, "%s: the rotary dim is %d and the cache has %d columns, "
                     "but no column repeats another (cat(freqs, freqs) or repeat_interleave would), "
                     "so they read as one column a pair: %d pairs, d = %d; neither one frequency "
                     "a column nor cos and sin in two layouts reproduces them", t->path, d, d, d,
                     2 * d);
}

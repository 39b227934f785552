/* slice_cause.c: a table whose columns are not the config's rotary dim,
 * and what they hold, checked before the gate (pc_rope_shape_cause, fit.h;
 * family.c makes it a failed verdict, or a shard's refusal).
 *
 * A repeat_interleave'd cache (Cohere, GPT-J: columns 2i and 2i + 1 both
 * pair i) of the rotary dim d cut to d/2 columns with [..., :d/2] (right
 * for cat(freqs, freqs), wrong here) keeps pairs 0..d/4-1 twice each: its
 * columns repeat in adjacent pairs, so it reads as an interleaved cache of
 * d/2, which the config's rotary dim d cannot be held to.  The
 * one-column-a-pair (n, d/2) cache is cache[..., ::2].  Said when the
 * columns show it and the values confirm it: column 2j holds pair j of
 * the d-dim schedule.
 *
 * A cache of D columns for a rotary dim r != D (Phi-2: partial_rotary_factor
 * 0.4 of an 80-dim head, r = 32): when its rows are the config's schedule
 * computed over D dims (D/2 pairs), a cache built over the whole head, the
 * partial rotary ignored.  Said only when those pairs reproduce the
 * values; otherwise nothing, and the rotary-dim refusal (exit 2) stays. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "fit.h"
#include "options.h"
#include "scaling.h"
#include "harness/engine/gate.h"
#include "harness/sources/table.h"
#include "reference/reference.h"

#define SLICE_ROWS 256    /* rows compared: enough positions to turn every pair */
#define SLICE_SHARE 0.9   /* the share of values the d-dim pairs must reproduce */
/* float32 values of a float32 cache: well above a binary32 kernel's error
 * at these rows (a few 2^-24 |theta|), far below a wrong frequency's */
#define SLICE_TOL 1e-4

/* The share of the first rows of IMPL (d2 columns read as pairs of
 * LAYOUT) that pair j of W, a schedule's frequencies, with its attention
 * factor ATT reproduces: -1 when the rows cannot be read. */
static double slice_share(const pc_impl *impl, int d2, int layout, double base, int64_t lo,
                          size_t m, const double *w, double att)
{
    int h = d2 / 2;
    double *c = malloc(m * (size_t)h * sizeof *c), *s = malloc(m * (size_t)h * sizeof *s);
    double sh = -1;
    if (c && s && pc_rope_unit_rows(impl, d2, base, layout, lo, m, c, s) == 0) {
        size_t ok = 0;
        for (size_t r = 0; r < m; r++)
            for (int j = 0; j < h; j++) {
                double t = (double)(lo + (int64_t)r) * w[j];
                size_t at = r * (size_t)h + (size_t)j;
                ok += hypot(c[at] - att * cos(t), s[at] - att * sin(t))
                      <= SLICE_TOL * (1.0 + fabs(t) * 0x1p-10);
            }
        sh = (double)ok / (double)(m * (size_t)h);
    }
    free(c); free(s);
    return sh;
}

/* The share of the first rows of IMPL, a table T read as LAYOUT, that the
 * schedule of S over D dims reproduces (slice_share); -1 when S has no
 * schedule of D dims (a LongRoPE list of other length). */
static double sched_share(const pc_impl *impl, const pc_table_info *t, const pc_rope_spec *s,
                          int d, int layout)
{
    int h = d / 2;
    pc_rope_params p;
    pc_err e;
    pc_rope_spec one = *s; /* shallow: instantiate copies what it keeps */
    one.rotary_dim = 0;    /* the claim tried: the schedule over D dims */
    if (pc_rope_instantiate(&one, d, (double)t->pos_hi + 1.0, &p, &e) != PC_OK) return -1;
    pc_freqs *fr = pc_freqs_new(d, pc_rope_schedule(&p));
    double *w = malloc(((size_t)h + 1) * sizeof *w), sh = -1;
    if (fr && w) {
        for (int i = 0; i < h; i++) w[i] = pc_freqs_omega(fr, i);
        w[h] = pc_freqs_attention(fr);
        int64_t rows = t->pos_hi - t->pos_lo + 1;
        sh = slice_share(impl, t->d, layout, p.base, t->pos_lo,
                         rows < SLICE_ROWS ? (size_t)rows : SLICE_ROWS, w, w[h]);
    }
    free(w);
    pc_freqs_free(fr);
    pc_rope_params_free(&p);
    return sh;
}

static int rows_read(const pc_table_info *t)
{
    int64_t rows = t->pos_hi - t->pos_lo + 1;
    return (int)(rows < SLICE_ROWS ? rows : SLICE_ROWS);
}

/* A cache of T->d columns for another rotary dim whose rows are the
 * schedule over T->d dims: refused with that said. */
static int head_check(const pc_impl *impl, const pc_table_info *t, const pc_rope_spec *s,
                      char *cause, size_t len)
{
    if (s->ids || s->coords || s->n_axes_dim || s->n_sections > 1 || t->d < 4 || t->d % 2)
        return 0;
    int layout = t->layout >= 0 ? t->layout : 0; /* (n, d/2): either reads the same */
    double sh = sched_share(impl, t, s, t->d, layout);
    if (!(sh >= SLICE_SHARE)) return 0; /* the rotary-dim message follows, as before */
    int whole = s->head_dim == t->d && s->rotary_dim < s->head_dim;
    char head[48] = "";
    if (whole) snprintf(head, sizeof head, " (head_dim %d)", s->head_dim);
    snprintf(cause, len, "the rotary dim is %d%s but the cache has %d "
                     "columns, and they hold the config's schedule computed over %d dims (pairs "
                     "0..%d; %.1f%% of the values of %d rows): a cache built over %s%s, the rotary "
                     "dim ignored (partial_rotary_factor, --rotary-dim); the config's cache has %d "
                     "columns, its schedule over %d dims",
                     s->rotary_dim, whole ? " (partial rotary)" : "", t->d, t->d,
                     t->d / 2 - 1, 100.0 * sh, rows_read(t), whole ? "the whole head" : "other dims",
                     head, s->rotary_dim, s->rotary_dim);
    return 1;
}

/* Whether columns 2i and 2i + 1 (HALF 0) or j and j + W/2 (HALF 1) of
 * the M rows of V (W columns of a row of STRIDE) are equal at every row. */
static int prefix_repeats(const double *v, size_t m, int stride, int w, int half)
{
    for (size_t r = 0; r < m; r++)
        for (int j = 0; j < w / 2; j++) {
            const double *row = v + r * (size_t)stride;
            if (half ? row[j] != row[j + w / 2] : row[2 * j] != row[2 * j + 1]) return 0;
        }
    return 1;
}

/* A cache of one column a pair (the (n, d/2) reading) whose last columns
 * are cos 1 and sin 0 at every row read, positions past 0 among them: a
 * rotation by angle 0, which no frequency gives (sin is exactly 0 only at
 * angle 0): the head's non-rotary dims of a partial rotary stored as
 * identity after the rotary columns.  The rotary dim of the first R
 * columns: R when they repeat as a layout's cache of R columns does
 * (cat(freqs, freqs) or repeat_interleave), else 2 R (one column a pair).
 * With the columns counted as they are in the file (not the d they read
 * as), and the rotary dim given (ROTARY_DIM, 0: none) beside it. */
int pc_rope_identity_cause(const pc_impl *impl, const pc_rope_spec *rs, int identify,
                           char *cause, size_t len)
{
    const pc_table_info *t = pc_table_info_of(impl);
    int rotary_dim = rs ? rs->rotary_dim : 0;
    /* rows at positions of their own (--position-ids, coordinates) or
     * pairs on several axes: an axis whose ids are 0 at every row (the
     * block axis of ChatGLM-6B's 2-D ids, a text row of M-RoPE) turns its
     * pairs by angle 0 at every row, and is no sign of identity columns */
    if (!t || (rs && (rs->ids || rs->coords || rs->n_sections || rs->n_axes_dim
                      || rs->axes_halves || rs->axes_parity)))
        return 0;
    int cols = t->d / 2;
    int64_t rows = t->pos_hi - t->pos_lo + 1;
    size_t m = (size_t)rows_read(t);
    if (t->full_width || cols < 4 || (t->pos_lo == 0 && rows < 2)) return 0;
    double *c = malloc(m * (size_t)cols * sizeof *c), *sn = malloc(m * (size_t)cols * sizeof *sn);
    int ident = 0, said = 0;
    double base = t->base > 0 ? t->base : 10000.0; /* a table's rows do not depend on it */
    if (c && sn && pc_rope_unit_rows(impl, t->d, base, 0, t->pos_lo, m, c, sn) == 0) {
        for (int j = cols - 1; j >= 0; j--, ident++) { /* the identity columns at the end */
            size_t r = 0, at = (size_t)j;
            while (r < m && c[at] == 1.0 && sn[at] == 0.0) { r++; at += (size_t)cols; }
            if (r < m) break;
        }
    }
    int R = cols - ident;
    if (ident >= 2 && R >= 2 && R % 2 == 0) {
        int rep = (prefix_repeats(c, m, cols, R, 1) && prefix_repeats(sn, m, cols, R, 1))
               || (prefix_repeats(c, m, cols, R, 0) && prefix_repeats(sn, m, cols, R, 0));
        int rd = rep ? R : 2 * R;
        char given[64] = "", then[96];
        if (rotary_dim) snprintf(given, sizeof given, "the rotary dim is %d but ", rotary_dim);
        if (identify) snprintf(then, sizeof then, "identify cos[:, :%d] and sin[:, :%d]", R, R);
        else snprintf(then, sizeof then, "check cos[:, :%d] and sin[:, :%d] with --rotary-dim %d",
                      R, R, rd);
        char rows_said[64]; /* the rows the test read: SLICE_ROWS at most */
        if ((int64_t)m < rows) snprintf(rows_said, sizeof rows_said, "the first %zu of %lld rows", m, (long long)rows);
        else snprintf(rows_said, sizeof rows_said, "%zu rows", m);
        snprintf(cause, len, "%sthe cache has %d columns (read as d = %d, one column a pair), "
                 "and columns %d..%d are cos 1 and sin 0 at every row read (%s, from "
                 "position %lld): a rotation by angle 0, the head's non-rotary dims of a "
                 "partial rotary stored as identity; its rotary part is columns 0..%d, a "
                 "rotary dim of %d: a RoPE cache holds the rotary dims only, %s", given, cols,
                 t->d, R, cols - 1, rows_said, (long long)t->pos_lo, R - 1, rd, then);
        said = 1;
    }
    free(c); free(sn);
    return said;
}

int pc_rope_shape_cause(const pc_gate *g, const pc_impl *impl, char *cause, size_t len)
{
    const pc_table_info *t = pc_table_info_of(impl);
    const pc_rope_spec *s = pc_rope_spec_of(g->spec);
    int rd = s ? s->rotary_dim : 0;
    if (t && !g->spec->d_set && rd != t->d && pc_rope_identity_cause(impl, s, 0, cause, len))
        return 1;
    if (!t || !s || !s->rotary_dim || s->rotary_dim == t->d || g->spec->d_set) return 0;
    if (!t->full_width || t->layout != 0 || g->spec->layout >= 0 || s->rotary_dim != 2 * t->d
        || t->d < 4)
        return head_check(impl, t, s, cause, len);
    int d = s->rotary_dim, h = d / 2;
    double sh = sched_share(impl, t, s, d, 0);
    if (!(sh >= SLICE_SHARE)) return 0; /* the rotary-dim message follows, as before */
    snprintf(cause, len, "the rotary dim is %d but the cache has %d columns, "
             "each value twice in adjacent columns (2i, 2i+1), and they hold pairs 0..%d of "
             "the %d-dim schedule (%.1f%% of the values of %d rows): an interleaved "
             "(repeat_interleave) cache of %d columns cut with [..., :%d], which keeps half "
             "the pairs twice each; its one-column-a-pair (n, %d) form is cache[..., ::2]",
             d, t->d, t->d / 2 - 1, d, 100.0 * sh, rows_read(t), d, t->d, h);
    return 1;
}

/* grid.c: tables of 2-D patch positions (--grid H,W, --cls-rows N), as
 * MAE's, DiT's and diffusers' get_2d_sincos_pos_embed build them:
 *
 *   grid = meshgrid(arange(W), arange(H))   (w first: grid[0][i][j] = j)
 *   emb  = [PE_{d/2}(grid[0]) | PE_{d/2}(grid[1])]
 *
 * so row N + i W + j (j, the column, varies fastest) is
 * [PE_{d/2}(j) | PE_{d/2}(i)], each half its sin block then its cos block
 * (frequencies 10000^(-2k/(d/2)) of its own width d/2), and the N leading
 * (cls) rows are zeros.  Each half is compared as a table of timestep
 * embeddings whose timestep is the half's grid coordinate (timestep.c:
 * the certified values, the element bound, the unit circle); the cls
 * rows must be exactly zero (docs/sinusoidal.md "2-D grids"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sin_ident.h"
#include "sin_timestep.h"
#include "families/family.h"
#include "harness/base/progress.h"
#include "harness/engine/gate.h"
#include "harness/formats/verdict.h"
#include "harness/sandbox/call.h"

typedef struct grid_run {
    const pc_sin_spec *s;
    const pc_table_info *t;
    pc_table_info half;      /* the table's info as one half: d/2 wide */
    float *rows;             /* every row, d wide, as stored */
    size_t n_all, n;         /* rows; rows past the cls rows */
    size_t cls;              /* the cls rows */
    int d, layout;           /* the width; each half's layout (--layout, half by default) */
    double base;
} grid_run;

/* A reading of the grid rows: row N + k is grid (k / w, k % w); the first
 * half follows the column k % w, or the row k / w when SWAP. */
typedef struct grid_map {
    int64_t w;
    int swap;
    const char *what;        /* the mistake it expresses, for the likely cause */
} grid_map;

/* Both halves compared under one reading. */
typedef struct grid_cmp {
    ts_worst half[2];
    int bad;                 /* a value over its bound or a pair off the circle */
} grid_cmp;

static pc_status read_all(const pc_impl *impl, grid_run *g, pc_err *err)
{
    int rc;
    pc_status st = pc_sin_read_rows(impl, g->t->pos_lo, g->n_all, g->d, 0.0, g->t->layout,
                                    &g->rows, &rc, err);
    if (st == PC_OK && rc)
        st = pc_seterr(err, PC_EINTERNAL, "%s: its rows could not be read", impl->name);
    return st;
}

/* The stored column of column C of half AXIS as compared (sin first): a
 * table stored cos first (--order cos-sin) has each pair's members swapped. */
static int stored_col(const grid_run *g, int axis, int c)
{
    int h = g->d / 2, q = h / 2;
    if (g->s->cos_first) c = g->layout ? (c < q ? c + q : c - q) : c ^ 1;
    return axis * h + c;
}

/* Half AXIS of the grid rows into OUT (n rows of d/2, sin first) and its
 * coordinates under M into T. */
static void half_rows(const grid_run *g, int axis, const grid_map *m, float *out, double *t)
{
    size_t h = (size_t)g->d / 2, d = (size_t)g->d;
    for (size_t k = 0; k < g->n; k++) {
        const float *row = g->rows + (g->cls + k) * d;
        for (size_t c = 0; c < h; c++) out[k * h + c] = row[stored_col(g, axis, (int)c)];
        int follows_row = (axis == 0) == (m->swap != 0);
        t[k] = (double)(follows_row ? (int64_t)k / m->w : (int64_t)k % m->w);
    }
}

/* Half AXIS under M compared into W (timestep.c's comparison), the likely
 * cause of its failure into CAUSE when CAUSE is not NULL. */
static pc_status half_check(const grid_run *g, int axis, const grid_map *m, ts_worst *w,
                            char *cause, size_t len, pc_err *err)
{
    size_t h = (size_t)g->d / 2;
    ts_run r;
    memset(&r, 0, sizeof r);
    pc_sin_spec s2 = *g->s;
    double *t = malloc(g->n * sizeof *t);
    r.rows = malloc(g->n * h * sizeof *r.rows);
    if (!t || !r.rows) { free(t); free(r.rows); return pc_seterr(err, PC_ENOMEM, "out of memory"); }
    half_rows(g, axis, m, r.rows, t);
    s2.t = t;
    s2.n_t = g->n;
    s2.angle_scale = 1.0;
    r.s = &s2;
    r.t = &g->half;
    r.n = g->n;
    r.d = (int)h;
    r.base = g->base;
    r.sched = pc_sin_schedule(&s2.sched, g->base);
    pc_status st = pc_sin_ts_frequencies(&r, err);
    if (st == PC_OK) st = pc_sin_ts_compare(&r, w, err);
    if (st == PC_OK && cause && (w->over || w->norm.over)) pc_sin_ts_cause(&r, g->base, cause, len);
    free(r.omega);
    free(r.kappa);
    free(r.rows);
    free(t);
    return st;
}

static pc_status grid_check(const grid_run *g, const grid_map *m, grid_cmp *c, char *cause,
                            size_t len, pc_err *err)
{
    c->bad = 0;
    pc_status st = PC_OK;
    if (cause) cause[0] = '\0';
    for (int a = 0; a < 2 && st == PC_OK; a++) {
        int first_bad = !c->bad;
        st = half_check(g, a, m, &c->half[a], first_bad ? cause : NULL, len, err);
        c->bad |= c->half[a].over || c->half[a].norm.over;
    }
    return st;
}

/* The readings that a wrong meshgrid or concatenation gives: the first one
 * under which every value passes names the mistake into BUF. */
static pc_status grid_cause(const grid_run *g, char *buf, size_t len, pc_err *err)
{
    const grid_map alt[] = {
        { g->s->grid_w, 1, "the halves are swapped: the first d/2 columns follow the row index "
          "i, the second the column index j ([emb_w | emb_h], or meshgrid(..., indexing='ij'))" },
        { g->s->grid_h, 0, "the grid is transposed: the rows run over the column index first "
          "(meshgrid(grid_h, grid_w) in place of meshgrid(grid_w, grid_h), or --grid W,H)" },
        { g->s->grid_h, 1, "the grid is transposed and its halves swapped" },
    };
    int n_alt = g->s->grid_h != g->s->grid_w ? 3 : 1; /* a square grid transposes to itself */
    buf[0] = '\0';
    for (int k = 0; k < n_alt; k++) {
        grid_cmp c;
        pc_status st = grid_check(g, &alt[k], &c, NULL, 0, err);
        if (st != PC_OK) return st;
        if (!c.bad) { snprintf(buf, len, "%s", alt[k].what); return PC_OK; }
    }
    return PC_OK;
}

/* ---- the cls rows ------------------------------------------------------- */

typedef struct cls_check {
    size_t nonzero, row;
    int col, pos0;           /* POS0: every cls row is PE(0) (sin 0 = 0, cos 0 = 1) */
    float got;
} cls_check;

/* Whether stored column C of a row holds a cos (as compared). */
static int is_cos(const grid_run *g, int c)
{
    int h = g->d / 2, q = h / 2, in = c % h;
    int cos_col = g->layout ? in >= q : in % 2 == 1;
    return cos_col != (g->s->cos_first != 0);
}

static void check_cls(const grid_run *g, cls_check *z)
{
    memset(z, 0, sizeof *z);
    z->pos0 = g->cls > 0;
    for (size_t r = 0; r < g->cls; r++)
        for (int c = 0; c < g->d; c++) {
            float v = g->rows[r * (size_t)g->d + (size_t)c];
            z->pos0 &= v == (is_cos(g, c) ? 1.0f : 0.0f);
            if (v == 0.0f) continue;
            if (!z->nonzero) { z->row = r; z->col = c; z->got = v; }
            z->nonzero++;
        }
}

/* ---- the verdict -------------------------------------------------------- */

/* The worst half of C (by err/bound). */
static int worst_half(const grid_cmp *c)
{
    return c->half[1].ratio > c->half[0].ratio ? 1 : 0;
}

static void grid_at(const grid_run *g, const ts_worst *w, int axis, char *buf, size_t len)
{
    int64_t k = (int64_t)w->row, gw = g->s->grid_w;
    snprintf(buf, len, "row %zu (grid i = %lld, j = %lld) dim %d", g->cls + w->row,
             (long long)(k / gw), (long long)(k % gw), stored_col(g, axis, w->col));
}

static void fill_pass(pc_verdict *v, const grid_run *g, const grid_cmp *c, size_t count)
{
    int a = worst_half(c);
    const ts_worst *w = &c->half[a];
    char at[120];
    grid_at(g, w, a, at, sizeof at);
    v->status = PC_OK;
    v->measured = w->err;
    v->bound = w->bound;
    char cls[60] = "";
    if (g->cls) snprintf(cls, sizeof cls, "%zu cls row%s of zeros and ", g->cls, g->cls == 1 ? "" : "s");
    snprintf(v->summary, sizeof v->summary, "%zu values, %sa %lldx%lld grid (row %zu + i*%lld "
             "+ j: [PE_%d(j) | PE_%d(i)]), d=%d: max |err|/bound %.3g (%s)", count, cls,
             (long long)g->s->grid_h, (long long)g->s->grid_w, g->cls, (long long)g->s->grid_w,
             g->d / 2, g->d / 2, g->d, w->ratio, at);
}

static void fill_fail(pc_verdict *v, const grid_run *g, const grid_cmp *c, const cls_check *z,
                      size_t count, const char *cause)
{
    size_t u = 0, len = sizeof v->summary;
    char *s = v->summary;
    v->status = PC_FAIL;
    if (z->nonzero) {
        v->measured = fabs((double)z->got);
        v->bound = 0.0;
        u += (size_t)snprintf(s, len, "%zu values of the %zu cls row%s are not zero: the first "
                              "at row %zu dim %d, %a (%.9g)%s", z->nonzero, g->cls,
                              g->cls == 1 ? "" : "s", z->row, z->col, (double)z->got,
                              (double)z->got, z->pos0 ? "; likely cause: the cls rows hold the "
                              "embedding of grid position (0, 0) (sin 0 = 0, cos 0 = 1), not "
                              "zeros: they were given a position (MAE prepends np.zeros)" : "");
    }
    if (!c->bad || u >= len) return;
    int a = c->half[1].over > 0 && (!c->half[0].over || worst_half(c)) ? 1 : 0;
    const ts_worst *w = &c->half[a];
    char at[120];
    grid_at(g, w, a, at, sizeof at);
    if (!z->nonzero) { v->measured = w->err; v->bound = w->bound; }
    size_t over = c->half[0].over + c->half[1].over;
    if (over)
        u += (size_t)snprintf(s + u, len - u, "%s%zu of %zu values exceed the bound; worst at %s: "
                              "got %a (%.9g), exact %a (%.9g), |err| %.3g > bound %.3g",
                              u ? "; " : "", over, count, at, (double)w->got, (double)w->got,
                              w->exact, w->exact, w->err, w->bound);
    else
        u += (size_t)snprintf(s + u, len - u, "%s%zu pairs off the unit circle", u ? "; " : "",
                              c->half[0].norm.over + c->half[1].norm.over);
    if (cause[0] && u < len) snprintf(s + u, len - u, "; likely cause: %s", cause);
}

/* The row count: N + H W, else exit 2 with the grids the rows could be. */
static pc_status check_count(const grid_run *g, pc_err *err)
{
    int64_t want = (int64_t)g->cls + g->s->grid_h * g->s->grid_w;
    if ((int64_t)g->n_all == want) return PC_OK;
    char hint[120] = "";
    for (int64_t c = 0; c <= 1 + (int64_t)g->cls && !hint[0]; c++) {
        int64_t k = (int64_t)g->n_all - c, r = (int64_t)llround(sqrt((double)(k > 0 ? k : 0)));
        if (k > 0 && r * r == k)
            snprintf(hint, sizeof hint, " (%lld cls row%s and a %lldx%lld grid would fit: "
                     "--grid %lld,%lld --cls-rows %lld)", (long long)c, c == 1 ? "" : "s",
                     (long long)r, (long long)r, (long long)r, (long long)r, (long long)c);
    }
    return pc_seterr(err, PC_EINPUT, "--grid %lld,%lld: %s has %zu rows, not --cls-rows %zu + "
                     "%lld*%lld = %lld: pass the grid and cls rows of the table%s",
                     (long long)g->s->grid_h, (long long)g->s->grid_w, g->t->path, g->n_all,
                     g->cls, (long long)g->s->grid_h, (long long)g->s->grid_w, (long long)want,
                     hint);
}

static pc_status open_run(grid_run *g, const pc_gate *gate, const pc_impl *impl, pc_err *err)
{
    g->s = pc_sin_spec_of(gate->spec);
    g->t = pc_table_info_of(impl);
    g->n_all = (size_t)(g->t->pos_hi - g->t->pos_lo + 1);
    g->cls = (size_t)g->s->cls_rows;
    g->d = g->t->d;
    g->layout = g->t->layout;
    g->base = gate->spec->base;
    if (g->d % 4 != 0)
        return pc_seterr(err, PC_EINPUT, "--grid: %s is %d wide: a grid table's width is a "
                         "multiple of 4 (two halves of (sin, cos) pairs)", g->t->path, g->d);
    pc_status st = check_count(g, err);
    if (st != PC_OK) return st;
    g->n = g->n_all - g->cls;
    g->half = *g->t;
    g->half.d = g->d / 2;
    g->half.layout = g->layout;
    return read_all(impl, g, err);
}

static pc_status judge(pc_verdict *v, const grid_run *g, pc_err *err)
{
    const grid_map mae = { g->s->grid_w, 0, NULL };
    grid_cmp c;
    cls_check z;
    char cause[600] = "";
    check_cls(g, &z);
    pc_status st = grid_check(g, &mae, &c, cause, sizeof cause, err);
    if (st == PC_OK && c.bad) {
        char alt[400];
        st = grid_cause(g, alt, sizeof alt, err);
        if (alt[0]) snprintf(cause, sizeof cause, "%s", alt);
    }
    if (st != PC_OK) return st;
    size_t count = g->cls * (size_t)g->d + c.half[0].count + c.half[1].count;
    snprintf(v->measured_what, sizeof v->measured_what, "|err| of the worst element (by "
             "err/bound)");
    if (c.bad || z.nonzero) fill_fail(v, g, &c, &z, count, cause);
    else fill_pass(v, g, &c, count);
    return PC_OK;
}

/* ---- identify ------------------------------------------------------------- */

/* The readings identify tries, in order: the table's layout then the
 * other, sin first then cos first, the d/2 denominator then d/2 - 1 (MAE,
 * DiT and diffusers: half, sin first, d/2; the options check takes with
 * --grid). */
static pc_status grid_try(grid_run *g, const pc_sin_spec *s, pc_sin_spec *s2, int k,
                          grid_cmp *c, cls_check *z, pc_err *err)
{
    const grid_map mae = { g->s->grid_w, 0, NULL };
    *s2 = *s;
    s2->cos_first = (k >> 1) & 1;
    s2->sched.shift = (k >> 2) & 1;
    g->s = s2;
    g->layout = g->half.layout = (k & 1) ? !g->t->layout : g->t->layout;
    check_cls(g, z);
    return grid_check(g, &mae, c, NULL, 0, err);
}

pc_status pc_sin_grid_identify(const pc_impl *impl, const pc_spec *spec, pc_sin_found *f,
                               pc_err *err)
{
    grid_run g;
    memset(&g, 0, sizeof g);
    const pc_sin_spec *s = pc_sin_spec_of(spec);
    g.s = s;
    g.t = pc_table_info_of(impl);
    if (!g.t || !s)
        return pc_seterr(err, PC_EINPUT, "%s: --grid names the rows of a table (--table)",
                         impl->name);
    g.n_all = (size_t)(g.t->pos_hi - g.t->pos_lo + 1);
    g.cls = (size_t)s->cls_rows;
    g.d = g.t->d;
    g.layout = g.t->layout;
    g.base = spec->base_set ? spec->base : 10000.0; /* the paper's, every grid code's */
    if (g.d % 4 != 0)
        return pc_seterr(err, PC_EINPUT, "--grid: %s is %d wide: a grid table's width is a "
                         "multiple of 4 (two halves of (sin, cos) pairs)", g.t->path, g.d);
    pc_status st = check_count(&g, err);
    if (st != PC_OK) return st;
    g.n = g.n_all - g.cls;
    g.half = *g.t;
    g.half.d = g.d / 2;
    if ((st = read_all(impl, &g, err)) != PC_OK) { free(g.rows); return st; }
    pc_sin_spec s2;
    grid_cmp c;
    cls_check z;
    int found = 0;
    for (int k = 0; k < 8 && st == PC_OK && !found; k++) {
        st = grid_try(&g, s, &s2, k, &c, &z, err);
        found = st == PC_OK && !c.bad && !z.nonzero;
    }
    if (st == PC_OK && !found) st = grid_try(&g, s, &s2, 0, &c, &z, err); /* the closest: MAE's */
    free(g.rows);
    if (st != PC_OK) return st;
    f->impl = impl;
    f->d = g.d;
    f->layout = f->read_layout = g.layout;
    f->dtype = g.t->dtype;
    f->lo = g.t->pos_lo;
    f->hi = g.t->pos_hi;
    f->n = g.n_all;
    f->cos_first = s2.cos_first;
    f->shift = s2.sched.shift;
    f->min_ts = 1.0;
    f->base = f->base_raw = g.base;
    int w = c.half[1].ratio > c.half[0].ratio;
    f->worst = c.half[w].ratio;
    f->worst_pair = c.half[w].col + w * g.d / 2;
    f->worst_pos = (int64_t)(g.cls + c.half[w].row);
    f->found = found;
    f->grid_h = s->grid_h;
    f->grid_w = s->grid_w;
    f->cls_rows = s->cls_rows;
    return PC_OK;
}

pc_status pc_sin_grid_gate(pc_gate *gate, const pc_impl *impl, const pc_family *fam)
{
    double t0 = pc_now();
    grid_run g;
    memset(&g, 0, sizeof g);
    const pc_table_info *t = pc_table_info_of(impl);
    pc_status st = t ? open_run(&g, gate, impl, gate->err) : PC_OK;
    pc_verdict *v = st == PC_OK ? pc_gate_verdict(gate, impl, fam->name, "accuracy",
                                                  t ? pc_layout_name(t->layout) : NULL) : NULL;
    if (st == PC_OK && !v) st = pc_gate_oom(gate);
    if (st == PC_OK && !t) {
        v->status = PC_SKIP;
        snprintf(v->summary, sizeof v->summary, "skipped: --grid names the rows of a table "
                 "(--table), not of a built-in or plugin");
    } else if (st == PC_OK)
        st = judge(v, &g, gate->err);
    free(g.rows);
    if (v) v->seconds = pc_now() - t0;
    return st;
}

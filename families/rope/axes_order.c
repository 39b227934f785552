/* axes_order.c: a cache whose rows are the patches in another order than
 * the ids' (axes_match.h): every row's angles are those of the ids of
 * some row, not always its own (a grid transposed, column-major against
 * the ids' row-major; Qwen2.5-VL's window order missing or applied
 * twice).  Each row's position on every axis is solved from its angles
 * (pc_rope_axes_solve), the id row at those positions looked up (the
 * rows sorted by their first axis), and named only when that row's
 * positions times omega reproduce every pair of the row (each within
 * PC_AXES_TOL). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "axes_match.h"

/* every row up to this many (a few ms each million values), else spread */
#define AO_ROWS (1 << 16)
/* a solved position is an id's within this: half a step of whole ids, and
 * for coordinates 1e-3 of the position (a float32 angle's solve is good
 * to about 1e-6 of it; patch centres are 1e-2 or more apart) */
#define AO_INT_TOL 0.25
#define AO_REAL_TOL 1e-3

/* an id row by its first axis' position */
typedef struct key { double x0; int64_t row; } key;

typedef struct order {
    const pc_rope_axes *ax;
    const double *omega;
    const pc_axes_angles *t;
    key *keys;               /* the id rows by their first axis' position */
    int *by;                 /* the pairs by frequency */
} order;

static int cmp_key(const void *a, const void *b)
{
    const key *x = a, *y = b;
    return x->x0 < y->x0 ? -1 : x->x0 > y->x0 ? 1 : (x->row > y->row) - (x->row < y->row);
}

static double tol_at(const pc_rope_axes *ax, double p)
{
    return ax->coords ? AO_REAL_TOL * (1.0 + fabs(p)) : AO_INT_TOL;
}

/* The id row whose positions are P (one an axis) within tol_at, nearest
 * first on the first axis (ROW itself when it is one of them); -1: none. */
static int64_t lookup(const order *o, const double *p, int64_t row)
{
    const pc_rope_axes *ax = o->ax;
    double tol = tol_at(ax, p[0]);
    int64_t lo = 0, hi = ax->n, best = -1;
    while (lo < hi) { /* the first key at or above p0 - tol */
        int64_t mid = lo + (hi - lo) / 2;
        if (o->keys[mid].x0 < p[0] - tol) lo = mid + 1;
        else hi = mid;
    }
    for (int64_t j = lo; j < ax->n && o->keys[j].x0 <= p[0] + tol; j++) {
        int64_t r = o->keys[j].row;
        int a = 1;
        while (a < ax->n_axes && fabs(pc_rope_axes_x(ax, r, a) - p[a]) <= tol_at(ax, p[a])) a++;
        if (a < ax->n_axes) continue;
        if (r == row) return r;
        if (best < 0) best = r;
    }
    return best;
}

/* 1 when row K of T turns at id row M's positions on every pair. */
static int turns_at(const order *o, int64_t k, int64_t m)
{
    const pc_axes_angles *t = o->t;
    for (int i = 0; i < t->h; i++) {
        double want = pc_rope_axes_x(o->ax, m, o->ax->axis[i]) * o->omega[i];
        if (!(fabs(remainder(t->ang[k * t->h + i] - want, 2.0 * M_PI)) < PC_AXES_TOL)) return 0;
    }
    return 1;
}

static int same_ids(const pc_rope_axes *ax, int64_t r, int64_t m)
{
    for (int a = 0; a < ax->n_axes; a++)
        if (pc_rope_axes_x(ax, r, a) != pc_rope_axes_x(ax, m, a)) return 0;
    return 1;
}

/* The number of T's rows at another row's ids (the first: *ROW at
 * *FROM's); -1 when some row turns at no row's ids. */
static int64_t moved(const order *o, int64_t *row, int64_t *from)
{
    double p[PC_ROPE_AXES_MAX];
    int64_t n = 0;
    for (int64_t k = 0; k < o->t->m; k++) {
        for (int a = 0; a < o->ax->n_axes; a++)
            p[a] = pc_rope_axes_solve(o->t, o->ax, o->omega, o->by, k, a);
        int64_t r = o->t->rows[k], m = isnan(p[0]) ? -1 : lookup(o, p, r);
        if (m < 0 || !turns_at(o, k, m)) return -1;
        if (same_ids(o->ax, r, m)) continue;
        if (n++ == 0) { *row = r; *from = m; }
    }
    return n;
}

/* ROW's positions "(3, 7)" into BUF. */
static void ids_of(const pc_rope_axes *ax, int64_t row, char *buf, size_t len)
{
    size_t u = (size_t)snprintf(buf, len, "(");
    for (int a = 0; a < ax->n_axes && u < len; a++)
        u += (size_t)snprintf(buf + u, len - u, "%s%.6g", a ? ", " : "", pc_rope_axes_x(ax, row, a));
    if (u < len) snprintf(buf + u, len - u, ")");
}

/* The order of the ids over LO..HI: 1 row-major (axis 0 slowest), 2
 * column-major (the last axis slowest), 0 neither. */
static int ids_order(const pc_rope_axes *ax, int64_t lo, int64_t hi)
{
    int rm = 1, cm = 1, A = ax->n_axes;
    for (int64_t r = lo; r < hi && (rm || cm); r++) {
        int a = 0, c = A - 1;
        while (a < A && pc_rope_axes_x(ax, r, a) == pc_rope_axes_x(ax, r + 1, a)) a++;
        while (c >= 0 && pc_rope_axes_x(ax, r, c) == pc_rope_axes_x(ax, r + 1, c)) c--;
        rm &= a == A || pc_rope_axes_x(ax, r, a) < pc_rope_axes_x(ax, r + 1, a);
        cm &= c < 0 || pc_rope_axes_x(ax, r, c) < pc_rope_axes_x(ax, r + 1, c);
    }
    return rm ? 1 : cm ? 2 : 0;
}

static void say(const order *o, const pc_acc_cfg *cfg, int64_t n, int64_t row, int64_t from,
                char *buf, size_t len)
{
    static const char *const how[] = {
        "in an order of their own (neither row- nor column-major)",
        "row-major (axis 0 slowest)",
        "column-major (the last axis slowest)",
    };
    char at[96], own[96];
    ids_of(o->ax, from, at, sizeof at);
    ids_of(o->ax, row, own, sizeof own);
    snprintf(buf, len, "the rows are the patches in another order: row %lld turns at the ids of "
             "row %lld %s, not its own %s, and every row at some row's ids (%lld of the %lld rows "
             "read at another row's; the ids are %s): the cache's rows are a permutation of the ids' "
             "(a transposed grid, column-major against row-major; a window order such as "
             "Qwen2.5-VL's get_window_index missing or applied twice?)", (long long)row,
             (long long)from, at, own, (long long)n, (long long)o->t->m,
             how[ids_order(o->ax, cfg->pos_lo, cfg->pos_hi)]);
}

int pc_rope_axes_order_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const double *omega,
                             char *buf, size_t len)
{
    const pc_rope_axes *ax = ((const pc_rope_params *)cfg->sched->params)->axes;
    pc_axes_angles t = { 0 };
    order o = { ax, omega, &t, malloc((size_t)ax->n * sizeof(key)),
                pc_rope_axes_by_omega(omega, cfg->d / 2) };
    int64_t n = -1, row = 0, from = 0;
    if (o.keys && o.by && pc_rope_axes_angles(impl, cfg, AO_ROWS, &t) == 0) {
        for (int64_t r = 0; r < ax->n; r++) o.keys[r] = (key){ pc_rope_axes_x(ax, r, 0), r };
        qsort(o.keys, (size_t)ax->n, sizeof *o.keys, cmp_key);
        n = moved(&o, &row, &from);
    }
    if (n > 0) say(&o, cfg, n, row, from, buf, len);
    pc_rope_axes_angles_free(&t);
    free(o.keys);
    free(o.by);
    return n > 0;
}

/* table_base.c: the base a RoPE table's rows fit, for a table given
 * without one (pc_diagnosis.table_base and .table_points, families/family.h;
 * moved from diagnosis.c): the geometric fit of fit.c, rounded to 3
 * significant digits when within 0.1%. */
#include <math.h>
#include <stdlib.h>
#include "families/family.h"
#include "fit.h"

/* The base of the fit F (freed): 1 for a clean geometric table, its base
 * RAW as fitted and BASE rounded to 3 significant digits (NaN when RAW is
 * not within 0.1% of such a number). */
static int base_of(pc_rope_fit *f, int d, double *base, double *raw)
{
    double resid;
    *raw = pc_rope_fit_base(f, d, &resid);
    *base = pc_rope_round_base(*raw);
    pc_rope_fit_free(f);
    return resid < 1e-3 && isfinite(*raw) && *raw > 1.0; /* a clean geometric table */
}

int pc_rope_table_base(const pc_impl *impl, int d, int layout, int64_t lo, int64_t hi,
                       double u_s, double *base, double *raw)
{
    pc_rope_fit f;
    if (pc_rope_fit_run(impl, d, 0.0, layout, lo, hi, u_s, &f) != PC_OK) return 0;
    return base_of(&f, d, base, raw);
}

/* The same from a table's one read (pc_points_fit): shares of the fit
 * row by row (fit.h), joined in pair order. */
static void *points_share(int pairs)
{
    pc_rope_fit_acc *a = malloc(sizeof *a);
    if (a && pc_rope_fit_acc_init(a, pairs, 0) != PC_OK) { free(a); a = NULL; }
    return a;
}

static void points_row(void *share, const double *c, const double *s)
{
    pc_rope_fit_acc_row(share, c, s);
}

static void points_drop(void *share)
{
    if (share) pc_rope_fit_acc_free(share);
    free(share);
}

static int points_end(void **shares, int n, int d, double u_s, double *base, double *raw)
{
    int h = 0, ok = 1;
    for (int k = 0; k < n; k++) h += ((pc_rope_fit_acc *)shares[k])->h;
    pc_rope_fit_acc all;
    if (pc_rope_fit_acc_init(&all, h, 0) != PC_OK) ok = 0;
    for (int k = 0, i0 = 0; k < n; k++) {
        pc_rope_fit_acc *a = shares[k];
        if (ok) pc_rope_fit_acc_join(&all, a, i0);
        i0 += a->h;
        points_drop(a);
    }
    pc_rope_fit f;
    if (!ok || pc_rope_fit_acc_end(&all, u_s, &f) != PC_OK) return 0;
    return base_of(&f, d, base, raw);
}

const pc_points_fit pc_rope_table_points = { points_share, points_row, points_end,
                                             points_drop };

/* dot-distance: PE(p) . PE(q) depends only on p - q (and is symmetric):
 * it equals sum_i cos((p - q) w_i) for the paper's formula, in either
 * layout (the dot product does not see the column order). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->npos = 2;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi);
    /* q near p half the time (short distances), anywhere otherwise */
    if (pc_rng_below(g, 2)) {
        int64_t k = pc_p_offset(g, 0, r->hi - c->pos[0]);
        c->pos[1] = c->pos[0] + k;
    } else {
        c->pos[1] = pc_p_pos(g, r->lo, r->hi);
    }
}

static int valid(const pc_prun *r, const pc_case *c)
{
    return c->pos[0] >= r->lo && c->pos[0] <= r->hi && c->pos[1] >= r->lo && c->pos[1] <= r->hi;
}

typedef struct { double got, exact, bound; } dotv;

static int compute(pc_prun *r, const pc_case *c, dotv *dv)
{
    int d = c->d;
    float *row = malloc(2 * (size_t)d * sizeof *row);
    if (!row) return -1;
    int64_t pos[2] = { c->pos[0], c->pos[1] };
    if (pc_p_sinusoidal(r, pos, 2, d, row)) { free(row); return 1; }
    double got = 0, ex = 0, b = 0;
    for (int j = 0; j < d; j++) got += (double)row[j] * (double)row[d + j];
    double dist = (double)(pos[0] - pos[1]);
    for (int i = 0; i < d / 2; i++) {
        double w = pc_p_omega(r, d, i);
        ex += cos(dist * w);
        double bp = pc_p_bound(r, (double)pos[0] * w, 1.0);
        double bq = pc_p_bound(r, (double)pos[1] * w, 1.0);
        /* two elements per pair, |PE| <= 1: |ab - a'b'| <= |e_a| + |e_b| + |e_a e_b| */
        b += 2.0 * (bp + bq + bp * bq);
    }
    /* binary64 sums of d terms of size <= 1: d * 2^-52 (negligible, counted) */
    b += (double)d * 0x1p-52;
    dv->got = got;
    dv->exact = ex;
    dv->bound = b;
    free(row);
    return 0;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    dotv dv;
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    int rc = compute(r, c, &dv);
    if (rc < 0) return pc_p_nomem(err);
    if (rc > 0) { pc_p_implerr(r, oc); return PC_OK; }
    double e = fabs(dv.got - dv.exact);
    oc->measured = isnan(e) ? (double)INFINITY : e;
    oc->bound = dv.bound;
    oc->score = oc->measured / dv.bound;
    oc->kind = oc->score > 1.0 ? PC_O_FAIL : PC_O_PASS;
    snprintf(oc->where, sizeof oc->where, "p = %" PRId64 ", q = %" PRId64 " (p - q = %" PRId64
             "): PE(p).PE(q) = %.9g, sum_i cos((p-q) w_i) = %.9g", c->pos[0], c->pos[1],
             c->pos[0] - c->pos[1], dv.got, dv.exact);
    snprintf(oc->eq, sizeof oc->eq, "PE(%" PRId64 ").PE(%" PRId64 ") = %.9g, but sum_i cos(%" PRId64
             " w_i) = %.9g", c->pos[0], c->pos[1], dv.got, c->pos[0] - c->pos[1], dv.exact);
    return PC_OK;
}

static void show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    (void)oc;
    dotv dv;
    if (compute(r, c, &dv) != 0) return;
    fprintf(f, "      PE(%" PRId64 ") . PE(%" PRId64 ")      = ", c->pos[0], c->pos[1]);
    pc_p_float(f, dv.got);
    fprintf(f, "\n      sum_i cos((p-q) w_i)   = ");
    pc_p_float(f, dv.exact);
    fputc('\n', f);
}

static const char *cause(pc_prun *r, const pc_case *c, const pc_outcome *oc, char *buf, size_t len)
{
    (void)oc;
    int d = c->d;
    float *row = malloc((size_t)d * sizeof *row);
    const char *res = NULL;
    for (int t = 0; t < 2 && !res && row && !pc_p_sinusoidal(r, &c->pos[t], 1, d, row); t++) {
        int same = 1;
        double worst = 0;
        int wi = 0;
        for (int i = 0; i < d / 2; i++) {
            float s = row[pc_p_col(r->layout, d, i, 0)], co = row[pc_p_col(r->layout, d, i, 1)];
            same &= s == co;
            double nn = fabs(hypot((double)s, (double)co) - 1.0);
            if (nn > worst) { worst = nn; wi = i; }
        }
        if (same) {
            res = "both members of every pair hold the same value (sin only): PE(p).PE(q) = "
                  "sum cos((p-q)w) - cos((p+q)w) depends on p + q";
        } else if (worst > 1e-3) {
            snprintf(buf, len, "pair %d has sin^2 + cos^2 = %.6g at p = %" PRId64 ": its sin and cos "
                     "use different frequencies, so the cross terms depend on p and q", wi,
                     (1 + worst) * (1 + worst), c->pos[t]);
            res = buf;
        }
    }
    free(row);
    return res;
}

const pc_property pc_prop_dot_distance = {
    .name = "dot-distance",
    .families = "sinusoidal",
    .title = "PE(p).PE(q) depends only on p - q",
    .measured_what = "|PE(p).PE(q) - sum_i cos((p-q) w_i)|",
    .expect = "PE(p).PE(q) = sum_i cos((p - q) w_i) (symmetric in p, q), within the rows' error bound",
    .pos_names = "p q",
    .math =
        "PE(p).PE(q) = sum_i [sin(p w_i) sin(q w_i) + cos(p w_i) cos(q w_i)]\n"
        "            = sum_i cos((p - q) w_i)\n"
        "a function of p - q only, even in p - q (so symmetric in p, q).",
    .why =
        "cos(a - b) = cos a cos b + sin a sin b: pairing sin and cos of the same frequency turns\n"
        "the dot product into a function of the distance.  The column order does not matter\n"
        "(a half-split table, sin block then cos block, passes).  sin in both columns gives\n"
        "2 sin(p w) sin(q w) = cos((p-q)w) - cos((p+q)w) per pair, which depends on p + q; sin\n"
        "and cos of different frequencies leave cross terms that depend on p and q separately.",
    .tolerance =
        "sum over pairs of 2 (B(p) + B(q) + B(p) B(q)), B(theta) = C*u*(1+|theta|) per element\n"
        "(|PE| <= 1; harness/engine/model.h), plus d*2^-52 for the binary64 sums.",
    .concept_impl = "sin-only",
    .concept_note = "sin in both columns: PE(0).PE(0) = 0 instead of d/2",
    .precision_impl = "bf16-positions",
    .precision_note = "positions held in bfloat16: a rounded position moves its row, so the dot product is of other distances",
    .shrink = PC_SH_D | PC_SH_POS,
    .gen = gen,
    .check = check,
    .valid = valid,
    .show = show,
    .cause = cause,
};

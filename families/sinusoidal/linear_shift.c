/* linear-shift: PE(pos+k) = M(k) PE(pos), with M(k) independent of pos.
 *
 * Cases (d, p, k) check the analytic M(k) of the declared layout: a block
 * rotation by k*w_i on every (sin, cos) pair.  The report also fits M(k) by
 * least squares from the implementation's own rows (no layout assumed) and
 * holds the residual to the model's bound. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"

#define FIT_MIN_EXTRA 8      /* rows beyond d in the fit (over-determined) */
#define FIT_DROP 1e-12       /* a column is dependent when its projected norm drops below this
                              * fraction of its own: far below any binary32 signal (2^-24) */



/* residual of pair I: predicted R(k w) (s, c) of row A against row B */
static void pair_err(const pc_prun *r, int d, int i, int64_t p, int64_t k, const float *a,
                     const float *b, double *err, double *bound, double pred[2])
{
    size_t cs = pc_p_col(r->layout, d, i, 0), cc = pc_p_col(r->layout, d, i, 1);
    double w = pc_p_omega(r, d, i);
    double cb = cos((double)k * w), sb = sin((double)k * w);
    double s = (double)a[cs], co = (double)a[cc];
    pred[0] = s * cb + co * sb;     /* sin(a + b) */
    pred[1] = co * cb - s * sb;     /* cos(a + b) */
    double e0 = fabs((double)b[cs] - pred[0]), e1 = fabs((double)b[cc] - pred[1]);
    *err = e0 > e1 ? e0 : e1;
    /* row p+k within B(p+k); row p's errors pass through the rotation, each
     * output element a combination with weights |cos b| + |sin b| <= sqrt 2 */
    *bound = pc_p_bound(r, (double)(p + k) * w, 1.0)
           + (fabs(cb) + fabs(sb)) * pc_p_bound(r, (double)p * w, 1.0);
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    int d = c->d;
    float *row = malloc(2 * (size_t)d * sizeof *row);
    if (!row) return pc_p_nomem(err);
    int64_t pos[2] = { c->pos[0], c->pos[0] + c->k };
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    if (pc_p_sinusoidal(r, pos, 2, d, row)) { pc_p_implerr(r, oc); free(row); return PC_OK; }
    oc->score = -1;
    for (int i = 0; i < d / 2; i++) {
        double e, b, pred[2];
        pair_err(r, d, i, pos[0], c->k, row, row + d, &e, &b, pred);
        double sc = isnan(e) ? (double)INFINITY : e / b;
        if (sc > oc->score) {
            oc->score = sc;
            oc->measured = e;
            oc->bound = b;
            oc->pair = i;
            const float *next = row + d; /* the row of p + k */
            snprintf(oc->eq, sizeof oc->eq, "PE(%" PRId64 ") pair %d = (%.9g, %.9g), but R(%" PRId64
                     " w_%d) PE(%" PRId64 ") = (%.9g, %.9g)", pos[1], i,
                     (double)next[pc_p_col(r->layout, d, i, 0)],
                     (double)next[pc_p_col(r->layout, d, i, 1)], c->k, i, pos[0], pred[0], pred[1]);
        }
    }
    oc->kind = oc->score > 1.0 ? PC_O_FAIL : PC_O_PASS;
    snprintf(oc->where, sizeof oc->where, "pair %d (columns %zu, %zu)", oc->pair,
             pc_p_col(r->layout, d, oc->pair, 0), pc_p_col(r->layout, d, oc->pair, 1));
    free(row);
    return PC_OK;
}

static void show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    int d = c->d, i = oc->pair < 0 ? 0 : oc->pair;
    float *row = malloc(2 * (size_t)d * sizeof *row);
    int64_t pos[2] = { c->pos[0], c->pos[0] + c->k };
    if (!row || pc_p_sinusoidal(r, pos, 2, d, row)) { free(row); return; }
    size_t cs = pc_p_col(r->layout, d, i, 0), cc = pc_p_col(r->layout, d, i, 1), dd = (size_t)d;
    double e, b, pred[2];
    pair_err(r, d, i, pos[0], c->k, row, row + d, &e, &b, pred);
    fprintf(f, "      pair %d, w = %.9g, k*w = %.9g\n", i, pc_p_omega(r, d, i),
            (double)c->k * pc_p_omega(r, d, i));
    fprintf(f, "      PE(%" PRId64 ")[sin, cos]       = ", pos[0]);
    pc_p_float(f, (double)row[cs]); fputs(", ", f); pc_p_float(f, (double)row[cc]); fputc('\n', f);
    fprintf(f, "      R(k*w) PE(%" PRId64 ")         = ", pos[0]);
    pc_p_float(f, pred[0]); fputs(", ", f); pc_p_float(f, pred[1]); fputc('\n', f);
    fprintf(f, "      PE(%" PRId64 ")[sin, cos]       = ", pos[1]);
    pc_p_float(f, (double)row[dd + cs]); fputs(", ", f); pc_p_float(f, (double)row[dd + cc]); fputc('\n', f);
    free(row);
}

static const char *cause(pc_prun *r, const pc_case *c, const pc_outcome *oc, char *buf, size_t len)
{
    int d = c->d, i = oc->pair < 0 ? 0 : oc->pair;
    float *row = malloc(2 * (size_t)d * sizeof *row);
    int64_t pos[2] = { c->pos[0], c->pos[0] + c->k };
    const char *res = NULL;
    if (row && !pc_p_sinusoidal(r, pos, 2, d, row)) {
        size_t cs = pc_p_col(r->layout, d, i, 0), cc = pc_p_col(r->layout, d, i, 1), dd = (size_t)d;
        double n0 = hypot((double)row[cs], (double)row[cc]), n1 = hypot((double)row[dd + cs], (double)row[dd + cc]);
        if (row[cs] == row[cc] && row[dd + cs] == row[dd + cc]) {
            snprintf(buf, len, "both members of pair %d hold the same value: the cos partner is "
                     "missing (sin in every column)", i);
            res = buf;
        } else if (fabs(n0 - 1) > 1e-3 || fabs(n1 - 1) > 1e-3) {
            snprintf(buf, len, "sin^2 + cos^2 of pair %d is %.6g, not 1: sin and cos of the pair "
                     "use different angles (mismatched frequencies or a shifted column)", i, n1 * n1);
            res = buf;
        } else {
            res = "the rows rotate by a different angle than k*w_i: the frequency or the angle "
                  "pos*w is computed in low precision, or the layout is not the declared one";
        }
    }
    free(row);
    return res;
}

/* Least-squares fit of M(k): project the columns of Y (rows p_j + k) on the
 * span of the columns of X (rows p_j), by classical Gram-Schmidt with
 * reorthogonalisation (CGS2) in binary64. */
static pc_status fit(pc_prun *r, int d, int64_t k, double *resid, double *bound,
                     double *rel, int *rows_used, pc_err *err)
{
    int64_t avail = r->hi - k - r->lo + 1;
    int64_t m64 = 2 * (int64_t)d + FIT_MIN_EXTRA;
    if (avail < (int64_t)d + 1) { *rows_used = (int)(avail > 0 ? avail : 0); return PC_SKIP; }
    if (m64 > avail) m64 = avail;
    size_t m = (size_t)m64, dd = (size_t)d;
    int64_t *pos = malloc(2 * m * sizeof *pos);
    float *rows = malloc(2 * m * dd * sizeof *rows);
    double *q = malloc(m * dd * sizeof *q), *v = malloc(m * sizeof *v);
    double *coef = malloc(dd * sizeof *coef);
    if (!pos || !rows || !q || !v || !coef) {
        free(pos); free(rows); free(q); free(v); free(coef);
        return pc_p_nomem(err);
    }
    /* distinct positions: a random stride through the range, seeded by the run seed */
    pc_rng g;
    pc_rng_seed(&g, pc_hash3(r->params->seed, 0x464954u /* "FIT" */, (uint64_t)k));
    uint64_t span = (uint64_t)avail, step = span / m;
    for (size_t j = 0; j < m; j++) {
        uint64_t off = j * step + (step > 1 ? pc_rng_below(&g, step) : 0);
        pos[j] = r->lo + (int64_t)off;
        pos[m + j] = pos[j] + k;
    }
    pc_status st = PC_OK;
    if (pc_p_sinusoidal(r, pos, 2 * m, d, rows)) { st = PC_FAIL; goto done; } /* R->implmsg */
    const float *x = rows, *y = rows + m * dd;
    size_t rank = 0;
    for (size_t c = 0; c < dd; c++) {
        double n0 = 0;
        for (size_t j = 0; j < m; j++) { v[j] = (double)x[j * dd + c]; n0 += v[j] * v[j]; }
        n0 = sqrt(n0);
        for (int pass = 0; pass < 2; pass++)
            for (size_t t = 0; t < rank; t++) {
                double s = 0;
                for (size_t j = 0; j < m; j++) s += q[t * m + j] * v[j];
                for (size_t j = 0; j < m; j++) v[j] -= s * q[t * m + j];
            }
        double nv = 0;
        for (size_t j = 0; j < m; j++) nv += v[j] * v[j];
        nv = sqrt(nv);
        if (n0 == 0 || nv <= FIT_DROP * n0) continue;
        for (size_t j = 0; j < m; j++) q[rank * m + j] = v[j] / nv;
        rank++;
    }
    double rs = 0, ys = 0, bx = 0, by = 0;
    for (size_t c = 0; c < dd; c++) {
        for (size_t j = 0; j < m; j++) { v[j] = (double)y[j * dd + c]; ys += v[j] * v[j]; }
        for (int pass = 0; pass < 2; pass++)
            for (size_t t = 0; t < rank; t++) {
                double s = 0;
                for (size_t j = 0; j < m; j++) s += q[t * m + j] * v[j];
                for (size_t j = 0; j < m; j++) v[j] -= s * q[t * m + j];
            }
        for (size_t j = 0; j < m; j++) rs += v[j] * v[j];
    }
    /* |Y - X M^T|_F <= |E_Y|_F + |E_X|_F |M|_2 with |M|_2 = 1 (a rotation) */
    for (size_t j = 0; j < m; j++)
        for (int i = 0; i < d / 2; i++) {
            double w = pc_p_omega(r, d, i);
            double b0 = pc_p_bound(r, (double)pos[j] * w, 1.0);
            double b1 = pc_p_bound(r, (double)pos[m + j] * w, 1.0);
            bx += 2 * b0 * b0;
            by += 2 * b1 * b1;
        }
    *resid = sqrt(rs);
    *bound = sqrt(bx) + sqrt(by);
    *rel = ys > 0 ? sqrt(rs / ys) : 0;
    *rows_used = (int)m;
done:
    free(pos); free(rows); free(q); free(v); free(coef);
    return st;
}

static pc_status report(pc_prun *r, const pc_case *c, pc_outcome *oc, FILE *f, pc_err *err)
{
    int failed = oc->kind != PC_O_PASS;
    int d = failed ? c->d : r->params->d;
    int64_t k = failed ? c->k : 1;
    if (k < 1) k = 1;
    double res = 0, b = 0, rel = 0;
    int m = 0;
    pc_status st = fit(r, d, k, &res, &b, &rel, &m, err);
    if (st == PC_SKIP) {
        fprintf(f, "  least-squares fit of M(%" PRId64 "): skipped (%d rows available, need %d)\n",
                k, m, d + 1);
        return PC_OK;
    }
    if (st == PC_FAIL) { /* the fit's call failed: a passing run fails on it */
        char what[64];
        snprintf(what, sizeof what, "least-squares fit of M(%" PRId64 ")", k);
        pc_p_report_implerr(r, oc, f, what);
        return PC_OK;
    }
    if (st != PC_OK) return st;
    fprintf(f, "  least-squares fit of M(%" PRId64 ") from the implementation's rows "
            "(layout-agnostic, d = %d, %d rows):\n", k, d, m);
    fprintf(f, "      residual |PE(p+k) - M PE(p)|_F = %.6g (relative %.3g), bound %.6g: %s\n",
            res, rel, b, res <= b ? "a linear map exists" : "NO linear map fits");
    if (!failed && res > b) {
        oc->kind = PC_O_FAIL;
        oc->measured = res;
        oc->bound = b;
        snprintf(oc->where, sizeof oc->where, "the least-squares fit of M(%" PRId64 ") (%d rows, d = %d)",
                 k, m, d);
    }
    return PC_OK;
}

const pc_property pc_prop_linear_shift = {
    .name = "linear-shift",
    .families = "sinusoidal",
    .title = "PE(pos+k) is a fixed linear map M(k) of PE(pos)",
    .measured_what = "max |PE(p+k) - M(k) PE(p)|",
    .expect = "PE(p+k) = R(k w_i) PE(p) on every (sin, cos) pair, per element within "
              "B(p+k) + (|cos kw|+|sin kw|) B(p)",
    .pos_names = "p",
    .k_name = "k",
    .math =
        "PE(pos+k) = M(k) PE(pos) for all pos, with M(k) = diag over pairs of\n"
        "  [ cos kw_i   sin kw_i ]        (acting on (sin pos*w_i, cos pos*w_i))\n"
        "  [-sin kw_i   cos kw_i ]\n"
        "by sin(a+b) = sin a cos b + cos a sin b and cos(a+b) = cos a cos b - sin a sin b.",
    .why =
        "Each pair is a point on the unit circle at angle pos*w_i; shifting the position by k\n"
        "rotates it by k*w_i whatever pos is.  This is what lets attention learn relative\n"
        "offsets from absolute encodings.  It needs both sin and cos of the same frequency:\n"
        "a sin-only table or a pair whose sin and cos use different frequencies has no such M.",
    .tolerance =
        "per element: B(p+k) + (|cos kw| + |sin kw|) B(p), B(theta) = C*u*(1+|theta|) (the rows'\n"
        "own errors carried through the rotation; harness/engine/model.h).  The least-squares fit's\n"
        "residual |Y - X M|_F is held to |E_Y|_F + |E_X|_F (|M|_2 = 1).",
    .concept_impl = "sin-only",
    .concept_note = "sin in both columns of each pair: no cos partner, so no rotation maps PE(p) to PE(p+k)",
    .precision_impl = "bf16-positions",
    .precision_note = "positions held in bfloat16: p + k rounds to another position than p does, so the map M(k) misses",
    .shrink = PC_SH_D | PC_SH_POS | PC_SH_K,
    .k_min = 1,
    .setup = pc_p_need_two,
    .gen = pc_p_gen_pos_k,
    .check = check,
    .valid = pc_p_valid_pos_k,
    .show = show,
    .cause = cause,
    .report = report,
};

/* extrapolation: beyond a nominal training length L, sinusoidal PE and RoPE
 * are still defined and stay within the accuracy gate's bound (x2, x8, x64
 * L), while a learned table has no row there and must say so.
 *
 * L is the end of the tested range (--positions / --max-pos, +1) for the
 * formula families and max_len for a learned table. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"

static const int64_t factors[3] = { 2, 8, 64 };

static int is_learned(const pc_prun *r) { return pc_p_bounded(r); }

static int64_t nominal(const pc_prun *r) { return is_learned(r) ? r->max_len : r->hi + 1; }

static int64_t cap(int64_t v) { return v > PC_POS_MAX ? PC_POS_MAX : v; }

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    if (is_learned(r)) {
        if (r->max_len <= 0) {
            snprintf(oc->msg, sizeof oc->msg, "learned_max_len returned %" PRId64, r->max_len);
            return PC_SKIP;
        }
        return PC_OK;
    }
    if (r->impl->pos_bounded) {
        snprintf(oc->msg, sizeof oc->msg, "the source serves positions %" PRId64 "..%" PRId64
                 " only: nothing beyond to test", r->impl->pos_min, r->impl->pos_max);
        return PC_SKIP;
    }
    if (nominal(r) >= PC_POS_MAX) {
        snprintf(oc->msg, sizeof oc->msg, "the range already ends at the reference's limit 2^53");
        return PC_SKIP;
    }
    return PC_OK;
}

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    int64_t L = nominal(r), f = factors[pc_rng_below(g, 3)];
    int64_t top = cap(f * L) - 1;
    c->npos = 1;
    c->pos[0] = pc_rng_below(g, 4) == 0 ? top : pc_p_pos(g, L, top);
    c->vmode = PC_V_DENSE;
}

static int64_t target(const pc_prun *r, const pc_case *c, int j)
{
    (void)c; (void)j;
    return nominal(r);
}

static int valid(const pc_prun *r, const pc_case *c)
{
    if (is_learned(r) && c->d != r->params->d) return 0; /* a table's width is not in question */
    return c->pos[0] >= nominal(r) && c->pos[0] < cap(64 * nominal(r));
}

/* formula families: max over elements of |got - ref| / B, ref certified */
static pc_status check_formula(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    size_t dd = (size_t)c->d;
    int rope = pc_p_rotates(r);
    float *x = malloc(2 * dd * sizeof *x);
    double *ref = malloc(dd * sizeof *ref);
    if (!x || !ref) { free(x); free(ref); return pc_p_nomem(err); }
    pc_freqs *fr = pc_p_freqs(r, c->d, err);
    if (!fr) { free(x); free(ref); return PC_ENOMEM; }
    int64_t p = c->pos[0];
    int rc;
    pc_status st;
    if (rope) {
        pc_p_vector(c, r->layout, 0, x);
        rc = pc_p_rope(r, &p, 1, c->d, x, x + dd);
        st = pc_ref_rope_row(fr, p, r->layout, x, NULL, ref);
    } else {
        rc = pc_p_sinusoidal(r, &p, 1, c->d, x + dd);
        st = pc_ref_sinusoidal_row(fr, p, r->layout, NULL, ref);
    }
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    if (rc) { pc_p_implerr(r, oc); free(x); free(ref); return PC_OK; }
    if (st != PC_OK) {
        free(x); free(ref);
        return pc_seterr(err, PC_EINTERNAL, "extrapolation: reference failed at position %" PRId64, p);
    }
    oc->score = -1;
    for (int i = 0; i < c->d / 2; i++) {
        size_t a = pc_p_col(r->layout, c->d, i, 0), b = pc_p_col(r->layout, c->d, i, 1);
        double scale = rope ? hypot((double)x[a], (double)x[b]) : 1.0;
        double bound = pc_p_bound_pair(r, c->d, i, p, rope, scale);
        for (int m = 0; m < 2; m++) {
            size_t col = m ? b : a;
            double e = fabs((double)x[dd + col] - ref[col]);
            if (isnan(e)) e = (double)INFINITY;
            double sc = bound > 0 ? e / bound : (e > 0 ? (double)INFINITY : 0);
            if (sc > oc->score) {
                oc->score = sc; oc->measured = e; oc->bound = bound; oc->pair = i;
                snprintf(oc->where, sizeof oc->where, "position %" PRId64 " (%.3g x L, L = %" PRId64
                         "), column %zu", p, (double)p / (double)nominal(r), nominal(r), col);
            }
        }
    }
    oc->kind = oc->score > 1.0 ? PC_O_FAIL : PC_O_PASS;
    free(x);
    free(ref);
    return PC_OK;
}

static pc_status check_learned(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    size_t dd = (size_t)c->d;
    float *out = malloc(dd * sizeof *out);
    if (!out) return pc_p_nomem(err);
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    int rc = pc_p_learned(r, &c->pos[0], 1, c->d, out);
    oc->kind = rc == 0 || r->faulted ? PC_O_FAIL : PC_O_PASS;
    oc->measured = oc->kind == PC_O_FAIL ? 1 : 0;
    oc->score = oc->measured;
    snprintf(oc->where, sizeof oc->where, "position %" PRId64 " (%.3g x max_len %" PRId64 "): %s",
             c->pos[0], (double)c->pos[0] / (double)r->max_len, r->max_len,
             rc == 0 ? "a row was returned" : r->faulted ? "the lookup crashed" : "error (no row)");
    free(out);
    return PC_OK;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    return is_learned(r) ? check_learned(r, c, oc, err) : check_formula(r, c, oc, err);
}

/* The contrast: per factor, the largest error/bound or what a lookup gives. */
static pc_status report(pc_prun *r, const pc_case *c0, pc_outcome *oc, FILE *f, pc_err *err)
{
    (void)oc;
    int64_t L = nominal(r);
    fprintf(f, "  beyond the nominal length L = %" PRId64 " (%s):\n", L,
            is_learned(r) ? "max_len of the table" : "end of the tested range + 1");
    for (int t = 0; t < 3; t++) {
        pc_case c;
        memset(&c, 0, sizeof c);
        c.d = c0->d > 0 ? c0->d : r->params->d;
        c.npos = 1;
        c.pos[0] = cap(factors[t] * L) - 1;
        c.vseed = pc_hash3(r->params->seed, 0x45585452u /* "EXTR" */, (uint64_t)t);
        c.vdtype = r->params->input_dtype;
        pc_outcome o;
        pc_status st = check(r, &c, &o, err);
        if (st != PC_OK) return st;
        if (is_learned(r))
            fprintf(f, "      x%-3" PRId64 " position %-12" PRId64 " %s\n", factors[t], c.pos[0],
                    o.kind == PC_O_PASS ? "no row: the lookup fails, as it must (a learned table cannot extrapolate)"
                                        : "A ROW WAS RETURNED: the table pretends to know this position");
        else if (o.kind == PC_O_IMPLERR)
            fprintf(f, "      x%-3" PRId64 " position %-12" PRId64 " implementation error: %s\n",
                    factors[t], c.pos[0], o.msg);
        else
            fprintf(f, "      x%-3" PRId64 " position %-12" PRId64 " max |err|/bound = %.3g (%s)\n",
                    factors[t], c.pos[0], o.score, o.kind == PC_O_PASS ? "within the gate" : "OUTSIDE the gate");
    }
    if (!is_learned(r))
        fprintf(f, "      (a learned table has no row beyond its max_len: see learned-range)\n");
    return PC_OK;
}

const pc_property pc_prop_extrapolation = {
    .name = "extrapolation",
    .families = "sinusoidal rope learned",
    .title = "formula encodings extrapolate; a learned table has no row beyond max_len",
    .measured_what = "max |got - ref| beyond L (learned: rows returned)",
    .expect = "sinusoidal/RoPE: every element at positions L..64L within the precision model's "
              "bound; learned: every lookup at or beyond max_len fails",
    .pos_names = "p",
    .math =
        "sinusoidal / RoPE: PE(pos) = (sin pos w_i, cos pos w_i) is defined for every pos: the\n"
        "rows past the training length L are as accurate as before (bound C*u*(1+|pos w|)).\n"
        "learned: E[pos] exists for pos < max_len only.",
    .why =
        "The source articles: sinusoidal PE \"can extrapolate to sequences longer than those seen\n"
        "in training\"; a learned table cannot, it has no parameters for those positions (the\n"
        "\"extrapolation wall\").  pecheck checks the numerical side: the formula stays within the\n"
        "gate at x2, x8, x64 L; whether a model generalises there is another matter.",
    .tolerance =
        "per element |got - ref| <= C*u*(1+|pos w_i|) (times the pair norm for RoPE), ref the\n"
        "certified MPFR value (harness/engine/model.h); learned: a returned row is a failure.",
    .concept_impl = "learned-clamp",
    .concept_note = "a learned table that returns its last row past max_len pretends to extrapolate",
    .precision_impl = "bf16-positions",
    .precision_note = "positions held in bfloat16: beyond 256 the rows are of rounded positions, far outside the bound",
    .shrink = PC_SH_D | PC_SH_POS | PC_SH_VEC,
    .setup = setup,
    .gen = gen,
    .check = check,
    .valid = valid,
    .pos_target = target,
    .report = report,
};

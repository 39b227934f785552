/* txl-reference: each Transformer-XL score is within the binary32 error
 * bound of the exact four-term score (families/txl/txl_ref.c). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/relative_util.h"

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    if (!r->impl->txl_score) return pc_p_no_hook(r, oc, "txl_score");
    return PC_OK;
}

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    if (c->d > PC_RP_TXL_DMAX) c->d = PC_RP_TXL_DMAX;
    c->n = 2 + (int)pc_rng_below(g, 3);      /* 2..4 queries and keys */
    c->npos = 1;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi);
    c->vmode = PC_V_DENSE;
}

static int valid(const pc_prun *r, const pc_case *c)
{
    return c->d >= 2 && c->d % 2 == 0 && c->d <= PC_RP_TXL_DMAX && c->n >= 1 && c->n <= 16 &&
           c->pos[0] >= r->lo && c->pos[0] <= r->hi;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    size_t L = (size_t)c->n;
    pc_txl_in in;
    int64_t qp[16], kp[16];
    float *a = malloc(L * L * sizeof *a);
    if (!a || pc_rp_txl_inputs(r, c, L, L, &in)) { free(a); return pc_p_nomem(err); }
    /* queries p + 3t, keys p + t: distances 0 .. 2(n-1) (the causal side) and
     * some negative ones */
    for (size_t t = 0; t < L; t++) { qp[t] = c->pos[0] + 3 * (int64_t)t; kp[t] = c->pos[0] + (int64_t)t; }
    pc_txl_ref *ref = NULL;
    pc_status st = PC_OK;
    if (pc_rp_txl(r, &in, qp, kp, a, oc)) goto done;
    st = pc_txl_ref_new(in.d, r->params->base, r->layout, in.wr, &ref, err);
    if (st != PC_OK) goto done;
    pc_rp_pass(oc);
    oc->score = -1;
    for (size_t i = 0; i < L; i++)
        for (size_t j = 0; j < L; j++) {
            float r32;
            double r64, tabs, wq;
            int64_t rel = qp[i] - kp[j];
            st = pc_txl_ref_score(ref, in.q + i * (size_t)in.d, in.k + j * (size_t)in.d, in.u,
                                  in.v, rel, &r32, &r64, &tabs, &wq);
            if (st != PC_OK) {
                st = pc_seterr(err, PC_EINTERNAL, "txl reference failed at i - j = %" PRId64, rel);
                goto done;
            }
            double got = (double)a[i * L + j], e = fabs(got - r64);
            double bound = pc_txl_bound(in.d, r->params->base, rel, tabs, wq);
            double sc = isnan(got) ? (double)INFINITY : e / bound;
            if (sc > oc->score) {
                oc->score = sc; oc->measured = e; oc->bound = bound;
                snprintf(oc->where, sizeof oc->where, "query %zu (i = %" PRId64 "), key %zu "
                         "(j = %" PRId64 "): score %.9g (%a), exact %.9g", i, qp[i], j, kp[j],
                         got, got, r64);
            }
        }
    if (oc->score > 1.0) oc->kind = PC_O_FAIL;
done:
    pc_txl_ref_free(ref);
    pc_rp_txl_free(&in);
    free(a);
    return st;
}

const pc_property pc_prop_txl_reference = {
    .name = "txl-reference",
    .families = "txl",
    .title = "Transformer-XL scores match the exact four-term score",
    .measured_what = "|A - exact|",
    .expect = "within the binary32 dot-product bound of the exact score",
    .pos_names = "p",
    .k_name = NULL,
    .math = "A = q.k + q.(W_R R) + u.k + v.(W_R R), R = R_{i-j} the sinusoidal row of the\n"
            "relative distance (correctly rounded to binary32), evaluated exactly (MPFR, 1024\n"
            "bits hold every partial sum) and rounded once; queries p + 3t, keys p + t.",
    .why = "The score is a short sum of products of binary32 numbers: a binary32 evaluation\n"
           "is within gamma_n of the magnitudes involved, plus what its own R_{i-j} differs\n"
           "from the exact one (the sinusoidal precision model).",
    .tolerance = "2 gamma_{2d+4} (sum |q.k| + |u.k| + (|q|+|v|).|W_R||R|) + (|q|+|v|).|W_R| eR,\n"
                 "gamma_n = nu/(1-nu), u = 2^-24, eR = C u (1 + |i - j|) + 2^-25 (harness/engine/model.h);\n"
                 "docs/relative.md.",
    .concept_impl = "txl-absolute",
    .concept_note = "txl-absolute evaluates R_j instead of R_{i-j}",
    .shrink = PC_SH_D | PC_SH_N | PC_SH_POS | PC_SH_VEC,
    .setup = setup,
    .gen = gen,
    .check = check,
    .valid = valid,
};

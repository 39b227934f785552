/* txl-relative: the Transformer-XL score depends on positions only through
 * i - j: shifting every query and key position by S gives the same bits. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/relative_util.h"

#define SMAX ((int64_t)1 << 20) /* shifts: far enough to move every angle, cheap to evaluate */

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    if (!r->impl->txl_score) return pc_p_no_hook(r, oc, "txl_score");
    return PC_OK;
}

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    if (c->d > PC_RP_TXL_DMAX) c->d = PC_RP_TXL_DMAX;
    c->n = 2 + (int)pc_rng_below(g, 5);      /* 2..6 queries and keys */
    c->k = pc_p_offset(g, 1, SMAX);
    c->npos = 1;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi);
    c->vmode = PC_V_DENSE;
}

static int valid(const pc_prun *r, const pc_case *c)
{
    (void)r;
    return c->d >= 2 && c->d % 2 == 0 && c->d <= PC_RP_TXL_DMAX && c->n >= 1 && c->n <= 16 &&
           c->k >= 1 && c->k <= SMAX;
}

/* positions: queries p + t, keys p + 2t (distances of both signs) */
static void positions(const pc_case *c, int64_t shift, int64_t *qp, int64_t *kp)
{
    for (int t = 0; t < c->n; t++) {
        qp[t] = c->pos[0] + shift + t;
        kp[t] = c->pos[0] + shift + 2 * t;
    }
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    size_t L = (size_t)c->n;
    pc_txl_in in;
    int64_t qp[16], kp[16], qs[16], ks[16];
    float *a = malloc(L * L * sizeof *a), *b = malloc(L * L * sizeof *b);
    if (!a || !b || pc_rp_txl_inputs(r, c, L, L, &in)) { free(a); free(b); return pc_p_nomem(err); }
    positions(c, 0, qp, kp);
    positions(c, c->k, qs, ks);
    if (pc_rp_txl(r, &in, qp, kp, a, oc) || pc_rp_txl(r, &in, qs, ks, b, oc)) goto done;
    pc_rp_pass(oc);
    for (size_t e = 0; e < L * L; e++) {
        if (memcmp(&a[e], &b[e], sizeof a[e]) == 0) continue;
        size_t rr = e / L, cc = e % L;
        pc_rp_fail(oc, 0, fabs((double)a[e] - (double)b[e]), 0.0,
                   "query %zu (i = %" PRId64 "), key %zu (j = %" PRId64 "), i - j = %" PRId64
                   ": score %.9g (%a), after the shift by %" PRId64 ": %.9g (%a)", rr, qp[rr], cc,
                   kp[cc], qp[rr] - kp[cc], (double)a[e], (double)a[e], c->k, (double)b[e],
                   (double)b[e]);
        break;
    }
done:
    pc_rp_txl_free(&in);
    free(a); free(b);
    return PC_OK;
}

static void show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    (void)oc;
    pc_txl_in in;
    if (pc_rp_txl_inputs(r, c, (size_t)c->n, (size_t)c->n, &in)) return;
    fprintf(f, "      q_0 = "); pc_p_row(f, in.q, in.d, 8); fputc('\n', f);
    fprintf(f, "      k_0 = "); pc_p_row(f, in.k, in.d, 8); fputc('\n', f);
    fprintf(f, "      u   = "); pc_p_row(f, in.u, in.d, 8); fputc('\n', f);
    fprintf(f, "      v   = "); pc_p_row(f, in.v, in.d, 8); fputc('\n', f);
    fprintf(f, "      WR row 0 = "); pc_p_row(f, in.wr, in.d, 8); fputc('\n', f);
    pc_rp_txl_free(&in);
}

const pc_property pc_prop_txl_relative = {
    .name = "txl-relative",
    .families = "txl",
    .title = "Transformer-XL score depends only on i - j",
    .measured_what = "|A(p) - A(p + s)|",
    .expect = "0: the same bits after shifting every position by s",
    .pos_names = "p",
    .k_name = "s",
    .math = "A_ij = q_i.k_j + q_i.(W_R R_{i-j}) + u.k_j + v.(W_R R_{i-j}); queries at p + t,\n"
            "keys at p + 2t (t < n): A(i + s, j + s) = A(i, j).",
    .why = "Every term sees the positions through R_{i-j} only: the content terms do not\n"
           "depend on positions, the position terms on the relative distance.  This is what\n"
           "lets Transformer-XL reuse cached keys of the previous segment (no temporal\n"
           "confusion).",
    .tolerance = "none: the same inputs and the same i - j must give the same bits",
    .concept_impl = "txl-absolute",
    .concept_note = "txl-absolute uses R_j (absolute key position): shifting by 1 changes the "
                  "score",
    .shrink = PC_SH_D | PC_SH_N | PC_SH_K | PC_SH_POS | PC_SH_VEC,
    .k_min = 1,
    .setup = setup,
    .gen = gen,
    .check = check,
    .valid = valid,
    .show = show,
};

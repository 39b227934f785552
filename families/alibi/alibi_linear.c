/* alibi-linear: for each head the bias is linear in the distance:
 * bias(d) = d * bias(1), to the one rounding of the product. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include "properties/relative_util.h"

#define LMAX 2048 /* keys each side; distances stay exact in binary32 (< 2^24) */

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->n = 1 + (int)pc_rng_below(g, PC_RP_ALIBI_HMAX);
    c->k = 1 + (int64_t)pc_rng_below(g, LMAX);
    c->npos = 1;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi);
}

static int valid(const pc_prun *r, const pc_case *c)
{
    (void)r;
    return c->n >= 1 && c->n <= PC_ALIBI_HEADS_MAX && c->k >= 1 && c->k <= LMAX;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    int H = c->n;
    size_t nk = 2 * (size_t)c->k + 1;
    int64_t q = c->pos[0];
    int64_t *kp = malloc(nk * sizeof *kp);
    float *b = malloc((size_t)H * nk * sizeof *b);
    if (!kp || !b) { free(kp); free(b); return pc_p_nomem(err); }
    for (size_t j = 0; j < nk; j++) kp[j] = q - c->k + (int64_t)j; /* distance j - L */
    if (pc_rp_alibi_bias(r, H, &q, 1, kp, nk, 0, b, oc)) { free(kp); free(b); return PC_OK; }
    pc_rp_pass(oc);
    oc->score = 0;
    for (int h = 0; h < H; h++) {
        const float *row = b + (size_t)h * nk;
        double b1 = (double)row[c->k + 1];               /* distance +1 */
        for (int64_t dist = 0; dist <= c->k; dist++)
            for (int sg = 0; sg < 2; sg++) {
                double got = (double)row[c->k + (sg ? dist : -dist)];
                double want = (double)dist * b1;  /* exact: 24-bit times 12-bit */
                /* half an ulp of the product, bounded by 2^-24 |want| */
                double bound = 0x1p-24 * fabs(want);
                double e = fabs(got - want);
                double sc = bound > 0 ? e / bound : (e > 0 ? (double)INFINITY : 0.0);
                if (sc > oc->score) { oc->score = sc; oc->measured = e; oc->bound = bound; }
                if (sc > 1.0 || isnan(got)) {
                    pc_rp_fail(oc, 0, e, bound, "head %d, |j - i| = %" PRId64 " (j %s i): bias "
                               "%.9g, %" PRId64 " * bias(1) = %.9g", h, dist, sg ? ">" : "<",
                               got, dist, want);
                    free(kp); free(b);
                    return PC_OK;
                }
            }
    }
    free(kp); free(b);
    return PC_OK;
}

const pc_property pc_prop_alibi_linear = {
    .name = "alibi-linear",
    .families = "alibi",
    .title = "ALiBi bias is linear in |j - i| (bias(d) = d * bias(1))",
    .measured_what = "|bias(d) - d bias(1)|",
    .expect = "within half an ulp of d * bias(1)",
    .pos_names = "i",
    .k_name = "L",
    .math = "For one query i and keys i - L .. i + L: bias_h(d) = d * bias_h(1) for every\n"
            "distance d = |j - i| <= L, both sides.",
    .why = "ALiBi adds -m_h |j - i|: a line through 0 with the head's slope; a binary32\n"
           "implementation forms RN(m_h * d) once.",
    .tolerance = "2^-24 |d bias(1)| (>= half an ulp of the product: the one rounding of m*d)",
    .concept_impl = "alibi-no-abs",
    .concept_note = "alibi-no-abs computes -m (j - i) without |.|: a key before the query gets +m|j - i|, "
                    "not -m|j - i|, so the two sides of the query disagree",
    .precision_impl = "alibi-f16",
    .precision_note = "alibi-f16 stores the bias in float16: 11 significant bits, so bias(d) drifts from d * bias(1)",
    .shrink = PC_SH_N | PC_SH_K | PC_SH_POS,
    .k_min = 1,
    .setup = pc_rp_alibi_bias_setup,
    .gen = gen,
    .check = check,
    .valid = valid,
};

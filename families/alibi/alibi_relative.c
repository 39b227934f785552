/* alibi-relative: the ALiBi bias depends on positions only through j - i:
 * shifting every query and key position by S gives the same bits. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/relative_util.h"

#define SMAX ((int64_t)1 << 40) /* shifts up to 2^40: float positions break above 2^24 */

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->n = 1 + (int)pc_rng_below(g, PC_RP_ALIBI_HMAX);
    c->k = pc_p_offset(g, 1, SMAX);
    c->npos = 1;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi);
}

static int valid(const pc_prun *r, const pc_case *c)
{
    (void)r;
    return c->n >= 1 && c->n <= PC_ALIBI_HEADS_MAX && c->k >= 1 && c->k <= SMAX;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    int H = c->n;
    size_t L = PC_RP_ALIBI_L, m = (size_t)H * L * L;
    int64_t p0[PC_RP_ALIBI_L], p1[PC_RP_ALIBI_L];
    for (size_t t = 0; t < L; t++) {
        p0[t] = c->pos[0] + (int64_t)(t * t);    /* distances 0 .. 49, both signs */
        p1[t] = p0[t] + c->k;
    }
    float *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
    if (!a || !b) { free(a); free(b); return pc_p_nomem(err); }
    if (pc_rp_alibi_bias(r, H, p0, L, p0, L, 0, a, oc) ||
        pc_rp_alibi_bias(r, H, p1, L, p1, L, 0, b, oc)) {
        free(a); free(b);
        return PC_OK;
    }
    pc_rp_pass(oc);
    for (size_t e = 0; e < m; e++) {
        if (memcmp(&a[e], &b[e], sizeof a[e]) == 0) continue;
        size_t h = e / (L * L), rr = (e / L) % L, cc = e % L;
        pc_rp_fail(oc, 0, fabs((double)a[e] - (double)b[e]), 0.0,
                   "head %zu, i = %" PRId64 ", j = %" PRId64 " (j - i = %" PRId64 "): %.9g, "
                   "after the shift by %" PRId64 ": %.9g", h, p0[rr], p0[cc], p0[cc] - p0[rr],
                   (double)a[e], c->k, (double)b[e]);
        break;
    }
    free(a); free(b);
    return PC_OK;
}

const pc_property pc_prop_alibi_relative = {
    .name = "alibi-relative",
    .families = "alibi",
    .title = "ALiBi bias depends only on j - i",
    .measured_what = "|bias(p) - bias(p + s)|",
    .expect = "0: the same bits after shifting every position by s",
    .pos_names = "p",
    .k_name = "s",
    .math = "positions p + t^2, t = 0..7, as queries and keys: bias(i + s, j + s) = bias(i, j)\n"
            "for shifts s up to 2^40.",
    .why = "The bias is -m_h |j - i|.  An implementation that converts positions to binary32\n"
           "before subtracting loses j - i above 2^24: this property shows it.",
    .tolerance = "none: a correct implementation forms j - i exactly and computes the same bits",
    .concept_impl = "alibi-cache-offset",
    .concept_note = "alibi-cache-offset uses the query's index in the batch as its position: shifting every position changes the bias",
    .shrink = PC_SH_N | PC_SH_K | PC_SH_POS,
    .k_min = 1,
    .setup = pc_rp_alibi_bias_setup,
    .gen = gen,
    .check = check,
    .valid = valid,
};

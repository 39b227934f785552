/* alibi-decay: the ALiBi bias is 0 at distance 0, never positive, and
 * non-increasing in |j - i| on each side; the causal form agrees with the
 * bidirectional one on the keys it keeps. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/relative_util.h"

#define LMAX 512 /* largest window of keys on each side of the query: a common
                     * trained context length; a case costs H * (2 LMAX + 1) values */

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
    int64_t L = c->k, q = c->pos[0];
    size_t nk = 2 * (size_t)L + 1;
    int64_t *kp = malloc(nk * sizeof *kp);
    float *b = malloc((size_t)H * nk * sizeof *b), *bc = malloc((size_t)H * nk * sizeof *bc);
    if (!kp || !b || !bc) { free(kp); free(b); free(bc); return pc_p_nomem(err); }
    for (size_t j = 0; j < nk; j++) kp[j] = q - L + (int64_t)j;
    if (pc_rp_alibi_bias(r, H, &q, 1, kp, nk, 0, b, oc) ||
        pc_rp_alibi_bias(r, H, &q, 1, kp, nk, 1, bc, oc)) {
        free(kp); free(b); free(bc);
        return PC_OK;
    }
    pc_rp_pass(oc);
    for (int h = 0; h < H; h++) {
        const float *row = b + (size_t)h * nk, *crow = bc + (size_t)h * nk;
        if (row[L] != 0.0f) {
            pc_rp_fail(oc, 1, fabs((double)row[L]), 0.0, "head %d, j = i: bias %.9g, expected 0",
                       h, (double)row[L]);
            goto done;
        }
        for (int64_t dist = 1; dist <= L; dist++)
            for (int sg = 0; sg < 2; sg++) {
                float cur = row[L + (sg ? dist : -dist)], prev = row[L + (sg ? dist - 1 : 1 - dist)];
                if (!(cur <= 0.0f) || !(cur <= prev)) {
                    pc_rp_fail(oc, 2, (double)cur, (double)prev, "head %d, |j - i| = %" PRId64
                               " (j %s i): bias %.9g above the bias at distance %" PRId64
                               " (%.9g)", h, dist, sg ? ">" : "<", (double)cur, dist - 1,
                               (double)prev);
                    goto done;
                }
            }
        for (int64_t dist = 0; dist <= L; dist++)
            if (memcmp(&crow[L - dist], &row[L - dist], sizeof *row) != 0 &&
                !(crow[L - dist] == row[L - dist])) {
                pc_rp_fail(oc, 3, fabs((double)crow[L - dist] - (double)row[L - dist]), 0.0,
                           "head %d, j = i - %" PRId64 ": causal bias %.9g, bidirectional %.9g",
                           h, dist, (double)crow[L - dist], (double)row[L - dist]);
                goto done;
            }
    }
done:
    free(kp); free(b); free(bc);
    return PC_OK;
}

const pc_property pc_prop_alibi_decay = {
    .name = "alibi-decay",
    .families = "alibi",
    .title = "ALiBi bias decays monotonically with distance (and causal = bidirectional on j <= i)",
    .measured_what = "bias",
    .expect = "0 at j = i, <= 0 and non-increasing in |j - i|",
    .pos_names = "i",
    .k_name = "L",
    .math = "bias(i, i) = 0; bias(d) <= bias(d - 1) <= 0 for d = |j - i| = 1..L on each side;\n"
            "the causal call returns the same values for j <= i.",
    .why = "-m |j - i| with m > 0: attention to far keys is penalised more (the long-term\n"
           "decay ALiBi relies on to extrapolate); RN(m d) is monotone in d.",
    .tolerance = "none: monotonicity survives rounding (RN is monotone)",
    .concept_impl = "alibi-no-abs",
    .concept_note = "alibi-no-abs computes -m (j - i) without |.|: keys before the query get a positive bias growing with the distance",
    .shrink = PC_SH_N | PC_SH_K | PC_SH_POS,
    .k_min = 1,
    .setup = pc_rp_alibi_bias_setup,
    .gen = gen,
    .check = check,
    .valid = valid,
};

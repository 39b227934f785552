/* txl-segment: segment-level recurrence.  Segment tau (length n) attends
 * to the cached previous segment (memory, n keys) and to itself; its
 * queries are at tau n .. tau n + n - 1, the memory keys just before.  The
 * scores must be those of the same vectors in one unsegmented window
 * starting at 0 (queries n .. 2n - 1, keys 0 .. 2n - 1): the distances
 * across the segment boundary continue those inside it. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/relative_util.h"

#define TAU_MAX 100000 /* segments: positions up to 1.6e6 */

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    if (!r->impl->txl_score) return pc_p_no_hook(r, oc, "txl_score");
    return PC_OK;
}

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    (void)r;
    if (c->d > PC_RP_TXL_DMAX) c->d = PC_RP_TXL_DMAX;
    c->n = 2 + (int)pc_rng_below(g, 7);           /* segment length 2..8 */
    c->npos = 1;
    c->pos[0] = 1 + pc_p_offset(g, 1, TAU_MAX);   /* segment index tau >= 2 */
    c->vmode = PC_V_DENSE;
}

static int valid(const pc_prun *r, const pc_case *c)
{
    (void)r;
    return c->d >= 2 && c->d % 2 == 0 && c->d <= PC_RP_TXL_DMAX && c->n >= 1 && c->n <= 16 &&
           c->pos[0] >= 1 && c->pos[0] <= TAU_MAX;
}

static int64_t tau_target(const pc_prun *r, const pc_case *c, int j)
{
    (void)r; (void)c; (void)j;
    return 1;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    size_t L = (size_t)c->n;
    int64_t P = c->pos[0] * (int64_t)L;
    pc_txl_in in;
    int64_t qs[16], ks[32], qw[16], kw[32];
    float *a = malloc(2 * L * L * sizeof *a), *b = malloc(2 * L * L * sizeof *b);
    if (!a || !b || pc_rp_txl_inputs(r, c, L, 2 * L, &in)) { free(a); free(b); return pc_p_nomem(err); }
    for (size_t t = 0; t < L; t++) {
        qs[t] = P + (int64_t)t;                  /* segment tau */
        qw[t] = (int64_t)(L + t);                /* the same queries in the window */
    }
    for (size_t t = 0; t < 2 * L; t++) {
        ks[t] = P - (int64_t)L + (int64_t)t;     /* [memory | current] */
        kw[t] = (int64_t)t;
    }
    if (pc_rp_txl(r, &in, qs, ks, a, oc) || pc_rp_txl(r, &in, qw, kw, b, oc)) goto done;
    pc_rp_pass(oc);
    for (size_t e = 0; e < 2 * L * L; e++) {
        if (memcmp(&a[e], &b[e], sizeof a[e]) == 0) continue;
        size_t rr = e / (2 * L), cc = e % (2 * L);
        pc_rp_fail(oc, 0, fabs((double)a[e] - (double)b[e]), 0.0,
                   "query %zu of segment %" PRId64 ", %s key %zu (i - j = %" PRId64 "): score "
                   "%.9g with the memory, %.9g in the window from 0", rr, c->pos[0],
                   cc < L ? "memory" : "current", cc < L ? cc : cc - L, qs[rr] - ks[cc],
                   (double)a[e], (double)b[e]);
        break;
    }
done:
    pc_rp_txl_free(&in);
    free(a); free(b);
    return PC_OK;
}

const pc_property pc_prop_txl_segment = {
    .name = "txl-segment",
    .families = "txl",
    .title = "Transformer-XL segment recurrence: memory keys keep consistent distances",
    .measured_what = "|A(segment) - A(window)|",
    .expect = "0: segment tau with its memory scores like the window starting at 0",
    .pos_names = "tau",
    .k_name = NULL,
    .math = "segment tau (length n): queries i = tau n + t, keys j = tau n - n + c (c < n: the\n"
            "memory, the cached previous segment; c >= n: the current one).  A(i, j) must equal\n"
            "the score of the same vectors at i' = n + t, j' = c: i - j = i' - j' = n + t - c.",
    .why = "Transformer-XL reuses the previous segment's hidden states; with absolute encodings\n"
           "position t of segment tau and of tau + 1 would look the same (temporal confusion).\n"
           "R_{i-j} makes the memory keys sit at distances n + t - c, continuing the current\n"
           "segment's.",
    .tolerance = "none: same inputs, same i - j, same bits",
    .concept_impl = "txl-absolute",
    .concept_note = "txl-absolute (R_j) is right for segment 1 and wrong from segment 2 on",
    .shrink = PC_SH_D | PC_SH_N | PC_SH_POS | PC_SH_VEC,
    .setup = setup,
    .gen = gen,
    .check = check,
    .valid = valid,
    .pos_target = tau_target,
};

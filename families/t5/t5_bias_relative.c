/* t5-bias-relative: the T5 attention bias depends on the positions only
 * through j - i: shifting every query and key position by S gives the
 * same bias, bit for bit. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/relative_util.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"

#define HEADS 2   /* heads of the embedding table: two are enough to see a mix-up */

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    if (!r->impl->t5_bias) return pc_p_no_hook(r, oc, "t5_bias");
    return PC_OK;
}

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->n = 2 + (int)pc_rng_below(g, 7);                    /* L = 2..8 positions */
    c->npos = 1;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi);
    c->k = pc_p_offset(g, 1, (int64_t)1 << 40);            /* shift */
}

static int valid(const pc_prun *r, const pc_case *c)
{
    return c->n >= 1 && c->n <= 64 && c->k >= 1 && c->k <= ((int64_t)1 << 40) &&
           c->pos[0] >= r->lo && c->pos[0] <= r->hi;
}

static int bias(pc_prun *r, const pc_case *c, int64_t start, float *emb, float *out,
                pc_outcome *oc)
{
    size_t L = (size_t)c->n;
    int64_t pos[64];
    for (size_t i = 0; i < L; i++) pos[i] = start + (int64_t)i * 3; /* spread: 3 apart */
    r->calls++;
    pc_fault fault;
    int rc = pc_call_t5_bias(r->impl, &fault, emb, HEADS, 1, PC_RP_T5_NB, PC_RP_T5_MD, pos, L,
                             pos, L, out);
    r->faulted = fault.faulted;
    if (fault.faulted) {
        snprintf(r->implmsg, sizeof r->implmsg, "%s crashed (%.160s) for %zu positions from %"
                 PRId64, pc_hook_symbol(PC_HOOK_t5_bias), fault.cause, L, start);
        pc_p_implerr(r, oc);
        return rc ? rc : 1;
    }
    if (rc) {
        snprintf(r->implmsg, sizeof r->implmsg, "%s returned %d for %zu positions from %" PRId64,
                 pc_hook_symbol(PC_HOOK_t5_bias), rc, L, start);
        pc_p_implerr(r, oc);
    }
    return rc;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    size_t L = (size_t)c->n, m = HEADS * L * L;
    float *emb = malloc((size_t)PC_RP_T5_NB * HEADS * sizeof *emb);
    float *a = malloc(m * sizeof *a), *b = malloc(m * sizeof *b);
    if (!emb || !a || !b) { free(emb); free(a); free(b); return pc_p_nomem(err); }
    pc_normal_row(c->vseed, 0x54354249u /* "T5BI" */, PC_RP_T5_NB * HEADS, emb);
    if (bias(r, c, c->pos[0], emb, a, oc) || bias(r, c, c->pos[0] + c->k, emb, b, oc)) {
        free(emb); free(a); free(b);
        return PC_OK;
    }
    pc_rp_pass(oc);
    for (size_t e = 0; e < m; e++) {
        if (memcmp(&a[e], &b[e], sizeof a[e]) == 0) continue;
        size_t h = e / (L * L), rr = (e / L) % L, cc = e % L;
        pc_rp_fail(oc, 0, fabs((double)a[e] - (double)b[e]), 0.0,
                   "head %zu, query %zu, key %zu (j - i = %" PRId64 "): %.9g before the shift, "
                   "%.9g after", h, rr, cc, 3 * ((int64_t)cc - (int64_t)rr), (double)a[e],
                   (double)b[e]);
        break;
    }
    free(emb); free(a); free(b);
    return PC_OK;
}

const pc_property pc_prop_t5_bias_relative = {
    .name = "t5-bias-relative",
    .families = "t5",
    .title = "T5 bias depends only on j - i",
    .measured_what = "|bias(p) - bias(p + s)|",
    .expect = "0: the same bits after shifting every position by s",
    .pos_names = "p",
    .k_name = "s",
    .math = "bias_h(i, j) = emb[bucket(j - i)][h]: for positions p, p+3, ..., p+3(n-1) as both\n"
            "queries and keys, bias(p + s + 3r, p + s + 3c) = bias(p + 3r, p + 3c).",
    .why = "T5 adds a learned scalar per (bucket, head), and the bucket is a function of j - i.",
    .tolerance = "none: the bias is a table lookup, the same entry must come back",
    .concept_impl = "t5-bias-cache",
    .concept_note = "t5-bias-cache uses the query's index in the batch as its position: shifting every position changes the bias",
    .shrink = PC_SH_N | PC_SH_K | PC_SH_POS,
    .k_min = 1,
    .setup = setup,
    .gen = gen,
    .check = check,
    .valid = valid,
};

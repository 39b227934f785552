/* shrink.c: the generic shrinker.  A failing case is simplified field by
 * field (the fields a property names in its SHRINK flags): fewer positions,
 * smaller d, shorter sequence, a transposition instead of a random
 * permutation, a smaller offset, positions toward their target, vectors with
 * fewer nonzero entries.  A candidate is kept only when it fails the same
 * way (same outcome kind and failure class); shrinking ends when no
 * candidate does or after PC_SHRINK_MAX_CHECKS checks. */
#include <stdlib.h>
#include <string.h>
#include "engine.h"

#define PC_SHRINK_MAX_CHECKS 3000 /* checks spent shrinking one failure: a bound on its cost */
#define PC_MAX_CANDS 1024         /* candidates from one case (96 per field, few fields) */
#define PC_SHRINK_LINEAR 16       /* values right below a field tried one by one */
#define PC_INT_CANDS 96           /* candidates for one integer field */

/* Candidates for X toward T: T, then X - (X-T)/2^j, ..., X -+ 1. */
static int int_cands(int64_t x, int64_t t, int64_t *out, int max)
{
    int n = 0;
    if (x == t) return 0;
    out[n++] = t;
    int64_t diff = x - t;
    for (int64_t h = diff / 2; h != 0 && n < max - 1; h /= 2)
        out[n++] = x - h;
    /* then the values just before X, nearest to T first: the greedy halving
     * can step over the smallest failing value (bfloat16 collisions: 256
     * fails, 257 and 258 pass, 259 fails) */
    int64_t span = diff > 0 ? diff : -diff;
    int64_t lin = span < PC_SHRINK_LINEAR ? span : PC_SHRINK_LINEAR;
    for (int64_t j = lin; j >= 1 && n < max; j--)
        out[n++] = x - (diff > 0 ? j : -j);
    return n;
}

static int add_cand(pc_case *cands, int n, const pc_case *c)
{
    if (n < PC_MAX_CANDS) cands[n++] = *c;
    return n;
}

static int drop_cands(const pc_case *cur, pc_case *cands, int n)
{
    for (int j = 0; j < cur->npos && cur->npos > 1; j++) {
        pc_case c = *cur;
        memmove(c.pos + j, c.pos + j + 1, (size_t)(c.npos - j - 1) * sizeof c.pos[0]);
        c.npos--;
        n = add_cand(cands, n, &c);
    }
    return n;
}

/* RoPE's vectors: dense -> one pair (the worst first) -> unit; pair toward 0 */
static int vec_cands(const pc_case *cur, const pc_outcome *oc, pc_case *cands, int n)
{
    int64_t v[PC_INT_CANDS];
    pc_case c;
    if (cur->vmode == PC_V_DENSE) {
        int half = cur->d / 2;
        if (oc->pair >= 0 && oc->pair < half) {
            c = *cur; c.vmode = PC_V_PAIR; c.pair = oc->pair; n = add_cand(cands, n, &c);
        }
        for (int i = 0; i < half && i < 8; i++) {
            c = *cur; c.vmode = PC_V_PAIR; c.pair = i; n = add_cand(cands, n, &c);
        }
        return n;
    }
    if (cur->vmode == PC_V_PAIR) {
        c = *cur; c.vmode = PC_V_UNIT; n = add_cand(cands, n, &c);
    }
    int m = int_cands(cur->pair, 0, v, PC_INT_CANDS);
    for (int k = 0; k < m; k++) { c = *cur; c.pair = (int)v[k]; n = add_cand(cands, n, &c); }
    return n;
}

static int shrink_cands(const pc_property *p, const pc_prun *r, const pc_case *cur,
                        const pc_outcome *oc, pc_case *cands)
{
    int n = 0;
    int64_t v[PC_INT_CANDS];
    pc_case c;
    if (p->shrink & PC_SH_DROP) n = drop_cands(cur, cands, n);
    /* a family's schedule (a RoPE --hf-config, ...) is made for its width:
     * its parameters at another d are another encoding (YaRN's ramp,
     * llama3's bands, a rotary dim), so d stays the run's */
    if ((p->shrink & PC_SH_D) && !pc_spec_scheduled(r->params->spec)) {
        int m = int_cands(cur->d / 2, 1, v, PC_INT_CANDS); /* in pairs: d/2 toward 1 */
        for (int k = 0; k < m; k++) {
            c = *cur;
            c.d = (int)(2 * v[k]);
            if (c.pair >= c.d / 2) c.pair = 0;
            n = add_cand(cands, n, &c);
        }
    }
    if (p->shrink & PC_SH_N) {
        int m = int_cands(cur->n, 2, v, PC_INT_CANDS);
        for (int k = 0; k < m; k++) { c = *cur; c.n = (int)v[k]; n = add_cand(cands, n, &c); }
    }
    if (p->shrink & PC_SH_PERM && cur->perm == 0) {
        c = *cur; c.perm = 1; n = add_cand(cands, n, &c);
    }
    if (p->shrink & PC_SH_K) {
        int m = int_cands(cur->k, p->k_min, v, PC_INT_CANDS);
        for (int k = 0; k < m; k++) { c = *cur; c.k = v[k]; n = add_cand(cands, n, &c); }
    }
    if (p->shrink & PC_SH_POS)
        for (int j = 0; j < cur->npos; j++) {
            int64_t t = p->pos_target ? p->pos_target(r, cur, j) : r->lo;
            int m = int_cands(cur->pos[j], t, v, PC_INT_CANDS);
            for (int k = 0; k < m; k++) { c = *cur; c.pos[j] = v[k]; n = add_cand(cands, n, &c); }
        }
    if ((p->shrink & PC_SH_VEC) && pc_eng_rotates_input(r)) n = vec_cands(cur, oc, cands, n);
    return n;
}

pc_status pc_eng_shrink(const pc_property *p, pc_prun *r, pc_case *cur, pc_outcome *oc,
                        int *steps, pc_err *err)
{
    pc_case *cands = malloc(PC_MAX_CANDS * sizeof *cands);
    if (!cands) return pc_p_nomem(err);
    int checks = 0;
    *steps = 0;
    for (int progress = 1; progress && checks < PC_SHRINK_MAX_CHECKS;) {
        progress = 0;
        int n = shrink_cands(p, r, cur, oc, cands);
        for (int k = 0; k < n && checks < PC_SHRINK_MAX_CHECKS; k++) {
            if (p->valid && !p->valid(r, &cands[k])) continue;
            pc_outcome o2;
            checks++;
            pc_status st = p->check(r, &cands[k], &o2, err);
            if (st != PC_OK) { free(cands); return st; }
            if (o2.kind == oc->kind && o2.sub == oc->sub) {
                *cur = cands[k];
                *oc = o2;
                (*steps)++;
                progress = 1;
                break;
            }
        }
    }
    free(cands);
    return PC_OK;
}

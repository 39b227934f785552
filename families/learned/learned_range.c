/* learned-range: a learned table answers exactly for [0, max_len).
 *
 * A batch of positions (in range, at the edges -1, 0, max_len-1, max_len,
 * max_len+1, and far outside) is looked up:
 *   - all in range: the call succeeds, writes every row, and the rows are
 *     deterministic (same bits again, same bits as single-row lookups);
 *   - any position outside: the call returns an error and leaves OUT
 *     untouched (silent clamping, wrapping, zero rows or partial writes
 *     fail). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"
#include "harness/sandbox/hook.h"

enum {
    SUB_REJECTS_VALID = 1,   /* error for an all-valid batch */
    SUB_NOT_WRITTEN   = 2,   /* success but some row left unwritten */
    SUB_NONDETERM     = 3,   /* a second call gives other bits */
    SUB_BATCH_DEP     = 4,   /* a row differs from the single-row lookup */
    SUB_SILENT        = 5,   /* success for a position outside */
    SUB_PARTIAL       = 6,   /* error, but OUT was written */
    SUB_CRASH         = 7    /* the call crashed or timed out */
};

#define SENTINEL 0x7FA5A5A5u /* a quiet NaN no lookup produces: marks untouched floats */

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    if (r->max_len <= 0) {
        snprintf(oc->msg, sizeof oc->msg, "learned_max_len returned %" PRId64 ": no rows", r->max_len);
        return PC_SKIP;
    }
    return PC_OK;
}

static int64_t draw(pc_prun *r, pc_rng *g)
{
    int64_t L = r->max_len;
    switch (pc_rng_below(g, 8)) {
    case 0: case 1: case 2: return (int64_t)pc_rng_below(g, (uint64_t)L);
    case 3: { const int64_t e[3] = { 0, L - 1, L / 2 }; return e[pc_rng_below(g, 3)]; }
    case 4: return L + (int64_t)pc_rng_below(g, 3);            /* max_len, +1, +2 */
    case 5: return -1 - (int64_t)pc_rng_below(g, 2);           /* -1, -2 */
    case 6: { const int64_t e[4] = { 2 * L, 64 * L, (int64_t)1 << 31, PC_POS_MAX };
              return e[pc_rng_below(g, 4)]; }
    default: { const int64_t e[3] = { INT64_MAX, INT64_MIN, -((int64_t)1 << 31) };
               return e[pc_rng_below(g, 3)]; }
    }
}

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->npos = 1 + (int)pc_rng_below(g, 8);
    for (int j = 0; j < c->npos; j++) c->pos[j] = draw(r, g);
}

static int64_t target(const pc_prun *r, const pc_case *c, int j)
{
    int64_t p = c->pos[j];
    if (p < 0) return -1;
    if (p >= r->max_len) return r->max_len;
    return 0;
}

static int inrange(const pc_prun *r, int64_t p) { return p >= 0 && p < r->max_len; }

static void fill_sentinel(float *v, size_t n)
{
    uint32_t s = SENTINEL;
    for (size_t k = 0; k < n; k++) memcpy(v + k, &s, sizeof s);
}

static int is_sentinel(const float *v)
{
    uint32_t u;
    memcpy(&u, v, sizeof u);
    return u == SENTINEL;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    size_t n = (size_t)c->npos, dd = (size_t)c->d;
    float *out = malloc(3 * n * dd * sizeof *out);
    if (!out) return pc_p_nomem(err);
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    oc->bound = 0;
    int all_in = 1;
    size_t bad = 0;
    for (size_t j = 0; j < n; j++)
        if (!inrange(r, c->pos[j])) { if (all_in) bad = j; all_in = 0; }
    fill_sentinel(out, n * dd);
    int rc = pc_p_learned(r, c->pos, n, c->d, out);
    int sub = 0;
    size_t at = 0;
    if (rc && r->faulted) sub = SUB_CRASH;
    else if (all_in) {
        if (rc) sub = SUB_REJECTS_VALID;
        for (size_t k = 0; !sub && k < n * dd; k++)
            if (is_sentinel(out + k)) { sub = SUB_NOT_WRITTEN; at = k / dd; }
        if (!sub) {
            fill_sentinel(out + n * dd, n * dd);
            if (pc_p_learned(r, c->pos, n, c->d, out + n * dd)) sub = r->faulted ? SUB_CRASH : SUB_REJECTS_VALID;
            else if (memcmp(out, out + n * dd, n * dd * sizeof *out)) sub = SUB_NONDETERM;
        }
        for (size_t j = 0; !sub && j < n; j++) {
            float *one = out + 2 * n * dd;
            if (pc_p_learned(r, &c->pos[j], 1, c->d, one)) { sub = r->faulted ? SUB_CRASH : SUB_REJECTS_VALID; at = j; }
            else if (memcmp(one, out + j * dd, dd * sizeof *out)) { sub = SUB_BATCH_DEP; at = j; }
        }
    } else {
        at = bad;
        if (!rc) sub = SUB_SILENT;
        else
            for (size_t k = 0; k < n * dd; k++)
                if (!is_sentinel(out + k)) { sub = SUB_PARTIAL; at = k / dd; break; }
    }
    oc->kind = sub ? PC_O_FAIL : PC_O_PASS;
    oc->sub = sub;
    oc->measured = sub ? 1 : 0;
    oc->score = oc->measured;
    static const char *const what[] = {
        "", "an all-valid batch was rejected", "the call succeeded but left a row unwritten",
        "a second identical lookup returned other bits", "a row differs from its single-row lookup",
        "success for a position outside [0, max_len)", "an error was returned but OUT was written",
        "the call crashed or timed out" };
    if (sub)
        snprintf(oc->where, sizeof oc->where, "%s (position %" PRId64 ", batch entry %zu; max_len %" PRId64 ")",
                 what[sub], c->pos[at], at, r->max_len);
    else
        snprintf(oc->where, sizeof oc->where, "batch of %zu, max_len %" PRId64, n, r->max_len);
    if (sub == SUB_CRASH || sub == SUB_REJECTS_VALID) snprintf(oc->msg, sizeof oc->msg, "%s", r->implmsg);
    free(out);
    return PC_OK;
}

static void show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    if (oc->sub == SUB_CRASH || oc->sub == SUB_REJECTS_VALID) {
        fprintf(f, "      %s\n", oc->msg);
        return;
    }
    size_t n = (size_t)c->npos, dd = (size_t)c->d;
    float *out = malloc(n * dd * sizeof *out);
    if (!out) return;
    fill_sentinel(out, n * dd);
    int rc = pc_p_learned(r, c->pos, n, c->d, out);
    fprintf(f, "      %s(positions, %zu, %d, out) returned %d (max_len %" PRId64 ")\n",
            pc_hook_symbol(PC_HOOK_learned), n, c->d, rc, r->max_len);
    for (size_t j = 0; j < n && j < 4; j++) {
        fprintf(f, "      out row %zu (position %" PRId64 ")%s = ", j, c->pos[j],
                inrange(r, c->pos[j]) ? "" : " [outside]");
        if (is_sentinel(out + j * dd)) fprintf(f, "untouched");
        else pc_p_row(f, out + j * dd, c->d, 3);
        fputc('\n', f);
    }
    free(out);
}

static const char *cause(pc_prun *r, const pc_case *c, const pc_outcome *oc, char *buf, size_t len)
{
    if (oc->sub != SUB_SILENT) return NULL;
    size_t dd = (size_t)c->d;
    int64_t p = 0;
    for (int j = 0; j < c->npos; j++) if (!inrange(r, c->pos[j])) { p = c->pos[j]; break; }
    float *v = malloc(3 * dd * sizeof *v);
    const char *res = "a position outside [0, max_len) returned a row: out-of-range lookups must fail";
    if (!v) return res;
    if (!pc_p_learned(r, &p, 1, c->d, v)) {
        int64_t last = r->max_len - 1, first = 0;
        int64_t wrap = ((p % r->max_len) + r->max_len) % r->max_len;
        int zero = 1;
        for (size_t j = 0; j < dd; j++) zero &= v[j] == 0.0f;
        if (!pc_p_learned(r, &last, 1, c->d, v + dd) && !memcmp(v, v + dd, dd * sizeof *v) && p >= r->max_len)
            snprintf(buf, len, "position %" PRId64 " returns the row of %" PRId64 ": silent clamping "
                     "to the last row", p, last), res = buf;
        else if (!pc_p_learned(r, &first, 1, c->d, v + dd) && !memcmp(v, v + dd, dd * sizeof *v) && p < 0)
            snprintf(buf, len, "position %" PRId64 " returns the row of 0: silent clamping", p), res = buf;
        else if (!pc_p_learned(r, &wrap, 1, c->d, v + 2 * dd) && !memcmp(v, v + 2 * dd, dd * sizeof *v))
            snprintf(buf, len, "position %" PRId64 " returns the row of %" PRId64 " = position mod "
                     "max_len: silent wrapping", p, wrap), res = buf;
        else if (zero)
            snprintf(buf, len, "position %" PRId64 " returns a row of zeros", p), res = buf;
    }
    free(v);
    return res;
}

const pc_property pc_prop_learned_range = {
    .name = "learned-range",
    .families = "learned",
    .title = "lookups succeed exactly for positions in [0, max_len)",
    .measured_what = "contract violations",
    .expect = "in-range batches succeed, write every row and are deterministic; any position "
              "outside [0, max_len) makes the call fail and leaves OUT untouched",
    .pos_names = "batch",
    .math =
        "lookup(P) = [E[p] for p in P]            if every p in [0, max_len)\n"
        "lookup(P) = error, OUT unchanged         otherwise",
    .why =
        "A learned table (BERT, GPT-2: nn.Embedding) has a row only for the positions it was\n"
        "trained on.  A position past the end has no meaning; a gather that clamps or wraps\n"
        "silently hands the model a wrong row, which is worse than an error.",
    .tolerance =
        "exact: rows are compared bit for bit (deterministic lookups); OUT is pre-filled with a\n"
        "NaN pattern (0x7FA5A5A5) to see untouched or partially written rows.",
    .concept_impl = "learned-clamp",
    .concept_note = "positions past the end silently read the last row",
    .shrink = PC_SH_DROP | PC_SH_POS,
    .setup = setup,
    .gen = gen,
    .check = check,
    .pos_target = target,
    .show = show,
    .cause = cause,
};

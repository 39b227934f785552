/* gate.c: the learned family's gate in `pecheck check`: the lookup
 * contract.  Every valid row finite and the same on a second lookup (in
 * reverse order: a lookup is a pure function of the position) and, for each
 * block's last row, looked up alone (n = 1, a decode step's lookup);
 * positions outside [0, max_len) rejected without writing OUT. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/base/progress.h"
#include "harness/sources/table.h"

/* Learned lookups: every row when max_len <= 8192, else the first and last
 * 4096 rows (a bound on the check's cost, not on the table). */
#define LEARNED_ALL 8192
#define LEARNED_BLOCK 256

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The width looked up: a table's own (its columns), else the spec's (--d). */
static int width(const pc_gate *c, const pc_impl *impl)
{
    const pc_table_info *t = pc_table_info_of(impl);
    return t ? t->d : c->spec->d;
}

/* Positions outside [0, MAX_LEN): a nonzero return, OUT untouched.  A
 * (scratch, at least 2 rows of --d floats) receives the lookups. */
static pc_status out_of_range(pc_gate *c, const pc_impl *impl, const pc_family *fam,
                              int64_t max_len, float *a)
{
    int d = width(c, impl);
    size_t w = (size_t)d;
    pc_fault fault;
    /* positions outside [0, max_len): nonzero return, OUT untouched */
    double t1 = pc_now();
    pc_verdict *u = pc_gate_verdict(c, impl, fam->name, "out-of-range", NULL);
    if (!u) return pc_gate_oom(c);
    u->bound = 0;
    snprintf(u->measured_what, sizeof u->measured_what, "bad lookups");
    struct { int n; int64_t p[2]; } cases[] = {
        { 1, { max_len, 0 } }, { 1, { -1, 0 } }, { 1, { INT64_MAX, 0 } },
        { 1, { INT64_MIN, 0 } }, { 2, { 0, max_len } }, { 2, { -1, 0 } },
        { 1, { max_len <= INT64_MAX - 1000 ? max_len + 1000 : INT64_MAX, 0 } },
    };
    int nc = (int)(sizeof cases / sizeof cases[0]), nbad = 0;
    char ufirst[PC_ERR_LEN] = "";
    /* OUT prefilled with a NaN payload no lookup produces by chance */
    const uint32_t sentinel = 0x7FC0DEADu;
    for (int k = 0; k < nc; k++) {
        size_t n = (size_t)cases[k].n;
        for (size_t r = 0; r < n * w; r++) memcpy(&a[r], &sentinel, sizeof sentinel);
        int rc = pc_call_learned(impl, &fault, cases[k].p, n, d, a);
        char pl[64];
        if (n == 1) snprintf(pl, sizeof pl, "[%" PRId64 "]", cases[k].p[0]);
        else snprintf(pl, sizeof pl, "[%" PRId64 ", %" PRId64 "]", cases[k].p[0], cases[k].p[1]);
        char why[PC_ERR_LEN] = "";
        if (fault.faulted)
            snprintf(why, sizeof why, "positions %s: %.400s", pl, fault.cause);
        else if (rc == 0)
            snprintf(why, sizeof why, "positions %s (max_len %" PRId64 ") returned 0: an "
                     "out-of-range lookup must return nonzero", pl, max_len);
        else {
            size_t changed = 0;
            for (size_t r = 0; r < n * w; r++) {
                uint32_t bits;
                memcpy(&bits, &a[r], sizeof bits);
                if (bits != sentinel) changed++;
            }
            if (changed)
                snprintf(why, sizeof why, "positions %s returned %d but wrote %zu value%s of "
                         "OUT (must not write OUT)", pl, rc, changed, changed == 1 ? "" : "s");
        }
        if (why[0] && nbad++ == 0) snprintf(ufirst, sizeof ufirst, "%s", why);
    }
    u->measured = nbad;
    u->status = nbad ? PC_FAIL : PC_OK;
    if (nbad)
        snprintf(u->summary, sizeof u->summary, "%d of %d out-of-range lookups mishandled; "
                 "the first: %.400s", nbad, nc, ufirst);
    else
        snprintf(u->summary, sizeof u->summary, "%d out-of-range lookups (max_len %" PRId64
                 ") all returned nonzero without writing OUT", nc, max_len);
    u->seconds = pc_now() - t1;
    return PC_OK;
}

/* The lookup check's state: the rows checked, the buffers of one block,
 * the count of bad values and the first one. */
typedef struct lookup {
    const pc_impl *impl;
    int d;
    int64_t max_len, n_check;
    int64_t *pos, *rpos;
    float *a, *b;
    long bad;
    char first[400];
} lookup;

/* Values of the block's first lookup A that are not finite or differ from
 * the second lookup B (reverse order; RC != 0: not compared). */
static void count_bad(lookup *lk, size_t n, int rc)
{
    size_t w = (size_t)lk->d;
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < w; j++) {
            float x = lk->a[r * w + j], y = rc == 0 ? lk->b[(n - 1 - r) * w + j] : x;
            int nonfinite = !isfinite(x), differs = !same_bits(x, y);
            if ((nonfinite || differs) && lk->bad++ == 0)
                snprintf(lk->first, sizeof lk->first, nonfinite
                         ? "pos=%" PRId64 " dim=%zu: %a (%g) is not finite"
                         : "pos=%" PRId64 " dim=%zu: %a (%g) on one lookup, %a (%g) on another",
                         lk->pos[r], j, (double)x, (double)x, (double)y, (double)y);
        }
}

/* A fault (FAULT) or an error of the implementation ends the verdict V
 * (returns 1: stop); FIRST: this is the first block's first lookup. */
static int lookup_failed(pc_verdict *v, const lookup *lk, int rc, const pc_fault *fault,
                         int first, int second, size_t n)
{
    if (fault->faulted) {
        v->status = PC_FAIL;
        snprintf(v->summary, sizeof v->summary, "%s", fault->cause);
        return 1;
    }
    if (rc == 0 || second) return 0;
    v->status = first ? PC_SKIP : PC_FAIL;
    if (first)
        snprintf(v->summary, sizeof v->summary, "%s returned %d for d=%d: width not supported "
                 "(pass --d with the table's width)", pc_hook_symbol(PC_HOOK_learned), rc, lk->d);
    else
        snprintf(v->summary, sizeof v->summary, "%s returned error %d for valid positions %"
                 PRId64 "..%" PRId64, pc_hook_symbol(PC_HOOK_learned), rc, lk->pos[0],
                 lk->pos[n - 1]);
    return 1;
}

/* The block's last row of the first lookup A against the same position
 * looked up alone (B's first row). */
static void count_alone(lookup *lk, size_t n)
{
    size_t w = (size_t)lk->d;
    for (size_t j = 0; j < w; j++) {
        float x = lk->a[(n - 1) * w + j], y = lk->b[j];
        if (!same_bits(x, y) && lk->bad++ == 0)
            snprintf(lk->first, sizeof lk->first, "pos=%" PRId64 " dim=%zu: %a (%g) in a lookup "
                     "of %zu positions, %a (%g) looked up alone (n = 1, a decode step's lookup)",
                     lk->pos[n - 1], j, (double)x, (double)x, n, (double)y, (double)y);
    }
}

/* The block's last position of N looked up alone into B, compared; 0 to
 * stop (V failed). */
static int lookup_alone(pc_verdict *v, lookup *lk, size_t n)
{
    pc_fault fault;
    int rc = pc_call_learned(lk->impl, &fault, &lk->pos[n - 1], 1, lk->d, lk->b);
    if (lookup_failed(v, lk, rc, &fault, 0, 1, 1)) return 0;
    if (rc == 0) {
        count_alone(lk, n);
        return 1;
    }
    v->status = PC_FAIL;
    snprintf(v->summary, sizeof v->summary, "%s returned error %d looking up position %" PRId64
             " alone (n = 1) after a lookup of %zu positions from %" PRId64 " returned it",
             pc_hook_symbol(PC_HOOK_learned), rc, lk->pos[n - 1], n, lk->pos[0]);
    return 0;
}

/* Rows K0.. (N of them): looked up, then again in reverse order (a lookup
 * is a pure function of the position), then the last alone.  Returns 0 to
 * stop. */
static int lookup_block(pc_verdict *v, lookup *lk, int64_t k0, size_t n)
{
    for (size_t r = 0; r < n; r++) {
        int64_t k = k0 + (int64_t)r;
        /* past LEARNED_ALL rows: the first half and the last half of the table */
        lk->pos[r] = lk->max_len <= LEARNED_ALL || k < LEARNED_ALL / 2 ? k : lk->max_len - (lk->n_check - k);
    }
    pc_fault fault;
    int rc = pc_call_learned(lk->impl, &fault, lk->pos, n, lk->d, lk->a);
    if (lookup_failed(v, lk, rc, &fault, k0 == 0, 0, n)) return 0;
    for (size_t r = 0; r < n; r++) lk->rpos[r] = lk->pos[n - 1 - r];
    rc = pc_call_learned(lk->impl, &fault, lk->rpos, n, lk->d, lk->b);
    if (lookup_failed(v, lk, rc, &fault, 0, 1, n)) return 0;
    count_bad(lk, n, rc);
    if (rc == 0) return n > 1 ? lookup_alone(v, lk, n) : 1;
    v->status = PC_FAIL;
    snprintf(v->summary, sizeof v->summary, "%s returned error %d on a second lookup of "
             "positions %" PRId64 "..%" PRId64, pc_hook_symbol(PC_HOOK_learned), rc, lk->pos[0],
             lk->pos[n - 1]);
    return 0;
}

static void lookup_summary(pc_verdict *v, const lookup *lk)
{
    v->measured = (double)lk->bad;
    if (v->status == PC_OK && lk->bad) {
        v->status = PC_FAIL;
        snprintf(v->summary, sizeof v->summary, "%ld bad value%s over %" PRId64 " rows; the first: %s",
                 lk->bad, lk->bad == 1 ? "" : "s", lk->n_check, lk->first);
    } else if (v->status == PC_OK)
        snprintf(v->summary, sizeof v->summary, "%" PRId64 " of %" PRId64 " rows (d=%d) finite and "
                 "the same on a second lookup and, each block's last, alone", lk->n_check,
                 lk->max_len, lk->d);
}

static void lookup_free(lookup *lk)
{
    free(lk->pos); free(lk->rpos); free(lk->a); free(lk->b);
}

/* The max_len hook: a fault (FAULT) or fewer than one row fails V
 * (returns 0). */
static int max_len_ok(pc_verdict *v, const pc_fault *fault, int64_t max_len)
{
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "bad values");
    if (fault->faulted) {
        v->status = PC_FAIL;
        snprintf(v->summary, sizeof v->summary, "%s", fault->cause);
        return 0;
    }
    if (max_len >= 1) return 1;
    v->status = PC_FAIL;
    snprintf(v->summary, sizeof v->summary, "%s returned %" PRId64 " (a table has at least "
             "one row)", pc_hook_symbol(PC_HOOK_learned_max_len), max_len);
    return 0;
}

pc_status pc_learned_gate(pc_gate *c, const pc_impl *impl, const pc_family *fam)
{
    double t0 = pc_now();
    pc_fault fault;
    int64_t max_len = pc_call_learned_max_len(impl, &fault);
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "lookup", NULL);
    if (!v) return pc_gate_oom(c);
    if (!max_len_ok(v, &fault, max_len)) return PC_OK;
    size_t B = LEARNED_BLOCK, w = (size_t)width(c, impl);
    lookup lk = { impl, (int)w, max_len, max_len <= LEARNED_ALL ? max_len : LEARNED_ALL,
                  malloc(B * sizeof(int64_t)), malloc(B * sizeof(int64_t)),
                  malloc(B * w * sizeof(float)), malloc(B * w * sizeof(float)), 0, "" };
    if (!lk.pos || !lk.rpos || !lk.a || !lk.b) { lookup_free(&lk); return pc_gate_oom(c); }
    v->status = PC_OK;
    for (int64_t k0 = 0; k0 < lk.n_check; k0 += (int64_t)B) {
        size_t n = (size_t)(lk.n_check - k0 < (int64_t)B ? lk.n_check - k0 : (int64_t)B);
        if (!lookup_block(v, &lk, k0, n)) break;
    }
    lookup_summary(v, &lk);
    v->seconds = pc_now() - t0;
    pc_status st = v->status != PC_SKIP ? out_of_range(c, impl, fam, max_len, lk.a) : PC_OK;
    lookup_free(&lk);
    return st;
}

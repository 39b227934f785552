/* gate.c: the learned family's gate in `pecheck check`: the lookup
 * contract.  Every valid row finite and the same on a second lookup (in
 * reverse order: a lookup is a pure function of the position); positions
 * outside [0, max_len) rejected without writing OUT. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate.h"
#include "../../harness/isolate.h"
#include "../../harness/progress.h"

/* Learned lookups: every row when max_len <= 8192, else the first and last
 * 4096 rows (a bound on the check's cost, not on the table). */
#define LEARNED_ALL 8192
#define LEARNED_BLOCK 256

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Positions outside [0, MAX_LEN): a nonzero return, OUT untouched.  A
 * (scratch, at least 2 rows of --d floats) receives the lookups. */
static pc_status out_of_range(pc_gate *c, const pc_impl *impl, const pc_family *fam,
                              int64_t max_len, float *a)
{
    size_t w = (size_t)c->o->d;
    int d = c->o->d;
    char cause[PC_ERR_LEN] = "";
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
        int rc = impl->learned(impl->ctx, cases[k].p, n, d, a);
        char pl[64];
        if (n == 1) snprintf(pl, sizeof pl, "[%" PRId64 "]", cases[k].p[0]);
        else snprintf(pl, sizeof pl, "[%" PRId64 ", %" PRId64 "]", cases[k].p[0], cases[k].p[1]);
        char why[PC_ERR_LEN] = "";
        if (pc_gate_take_fault(impl, cause, sizeof cause))
            snprintf(why, sizeof why, "positions %s: %s", pl, cause);
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

pc_status pc_learned_gate(pc_gate *c, const pc_impl *impl, const pc_family *fam)
{
    pc_status st = PC_OK;
    const pc_opts *o = c->o;
    int d = o->d;
    char cause[PC_ERR_LEN] = "";
    double t0 = pc_now();
    pc_isolate_clear(impl);
    int64_t max_len = impl->learned_max_len(impl->ctx);
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "lookup", NULL);
    if (!v) return pc_gate_oom(c);
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "bad values");
    if (pc_gate_take_fault(impl, cause, sizeof cause)) {
        v->status = PC_FAIL;
        snprintf(v->summary, sizeof v->summary, "%s", cause);
        return PC_OK;
    }
    if (max_len < 1) {
        v->status = PC_FAIL;
        snprintf(v->summary, sizeof v->summary, "pecheck_learned_max_len returned %" PRId64
                 " (a table has at least one row)", max_len);
        return PC_OK;
    }
    int64_t n_check = max_len <= LEARNED_ALL ? max_len : LEARNED_ALL;
    size_t B = LEARNED_BLOCK, w = (size_t)d;
    int64_t *pos = malloc(B * sizeof *pos);
    float *a = malloc(B * w * sizeof *a), *b = malloc(B * w * sizeof *b);
    if (!pos || !a || !b) { free(pos); free(a); free(b); return pc_gate_oom(c); }
    long bad = 0;
    char first[400] = "";
    v->status = PC_OK;
    for (int64_t k0 = 0; k0 < n_check && v->status == PC_OK; k0 += (int64_t)B) {
        size_t n = (size_t)(n_check - k0 < (int64_t)B ? n_check - k0 : (int64_t)B);
        for (size_t r = 0; r < n; r++) {
            int64_t k = k0 + (int64_t)r;
            /* past LEARNED_ALL rows: the first half and the last half of the table */
            pos[r] = max_len <= LEARNED_ALL || k < LEARNED_ALL / 2 ? k : max_len - (n_check - k);
        }
        int rc = impl->learned(impl->ctx, pos, n, d, a);
        if (pc_gate_take_fault(impl, cause, sizeof cause)) {
            v->status = PC_FAIL;
            snprintf(v->summary, sizeof v->summary, "%s", cause);
            break;
        }
        if (rc != 0) {
            v->status = k0 == 0 ? PC_SKIP : PC_FAIL;
            if (k0 == 0)
                snprintf(v->summary, sizeof v->summary, "pecheck_learned_f32 returned %d for "
                         "d=%d: width not supported (pass --d with the table's width)", rc, d);
            else
                snprintf(v->summary, sizeof v->summary, "pecheck_learned_f32 returned error %d "
                         "for valid positions %" PRId64 "..%" PRId64, rc, pos[0], pos[n - 1]);
            break;
        }
        /* the same rows again, in reverse order: a lookup is a pure function of the position */
        int64_t *rpos = malloc(n * sizeof *rpos);
        if (!rpos) { free(pos); free(a); free(b); return pc_gate_oom(c); }
        for (size_t r = 0; r < n; r++) rpos[r] = pos[n - 1 - r];
        rc = impl->learned(impl->ctx, rpos, n, d, b);
        free(rpos);
        if (pc_gate_take_fault(impl, cause, sizeof cause)) {
            v->status = PC_FAIL;
            snprintf(v->summary, sizeof v->summary, "%s", cause);
            break;
        }
        for (size_t r = 0; r < n; r++)
            for (size_t j = 0; j < w; j++) {
                float x = a[r * w + j], y = rc == 0 ? b[(n - 1 - r) * w + j] : x;
                int nonfinite = !isfinite(x), differs = !same_bits(x, y);
                if (nonfinite || differs) {
                    if (bad++ == 0)
                        snprintf(first, sizeof first, nonfinite
                                 ? "pos=%" PRId64 " dim=%zu: %a (%g) is not finite"
                                 : "pos=%" PRId64 " dim=%zu: %a (%g) on one lookup, %a (%g) on another",
                                 pos[r], j, (double)x, (double)x, (double)y, (double)y);
                }
            }
        if (rc != 0) {
            v->status = PC_FAIL;
            snprintf(v->summary, sizeof v->summary, "pecheck_learned_f32 returned error %d on a "
                     "second lookup of positions %" PRId64 "..%" PRId64, rc, pos[0], pos[n - 1]);
        }
    }
    v->measured = (double)bad;
    if (v->status == PC_OK && bad) {
        v->status = PC_FAIL;
        snprintf(v->summary, sizeof v->summary, "%ld bad value%s over %" PRId64 " rows; the first: %s",
                 bad, bad == 1 ? "" : "s", n_check, first);
    } else if (v->status == PC_OK)
        snprintf(v->summary, sizeof v->summary, "%" PRId64 " of %" PRId64 " rows (d=%d) finite and "
                 "the same on a second lookup", n_check, max_len, d);
    v->seconds = pc_now() - t0;

    if (v->status != PC_SKIP) st = out_of_range(c, impl, fam, max_len, a);
    free(pos); free(a); free(b);
    return st;
}


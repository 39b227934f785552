/* relative_util.c: helpers of the relative-position properties (see
 * relative_util.h). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "relative_util.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"

/* A call of HOOK that returned RC or faulted (FAULT): an implementation
 * error in OC. */
static int hook_err(pc_prun *r, pc_hook_id hook, int rc, const pc_fault *fault,
                    const char *what, pc_outcome *oc)
{
    pc_p_hook_msg(r, hook, rc, fault, what);
    pc_p_implerr(r, oc);
    return rc ? rc : 1;
}

void pc_rp_fail(pc_outcome *oc, int sub, double got, double expect, const char *fmt, ...)
{
    memset(oc, 0, sizeof *oc);
    oc->kind = PC_O_FAIL;
    oc->sub = sub;
    oc->measured = got;
    oc->bound = expect;
    oc->score = 2.0;
    oc->pair = -1;
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(oc->where, sizeof oc->where, fmt, ap);
    va_end(ap);
}

void pc_rp_pass(pc_outcome *oc)
{
    memset(oc, 0, sizeof *oc);
    oc->kind = PC_O_PASS;
    oc->pair = -1;
    snprintf(oc->where, sizeof oc->where, "every element checked");
}

/* ---- T5 ---------------------------------------------------------------- */

const char *pc_rp_t5_mode(int m) { return m == 0 ? "bidirectional" : "causal"; }

pc_status pc_rp_t5_setup(pc_prun *r, pc_outcome *oc)
{
    if (!r->impl->t5_bucket) return pc_p_no_hook(r, oc, "t5_bucket");
    return PC_OK;
}

void pc_rp_t5_gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    (void)r;
    c->k = (int64_t)pc_rng_below(g, PC_RP_T5_RMAX + 1);
    c->npos = 1;
    /* log-uniform in [MD, 2^62]: saturation at every scale, int64 extremes */
    int bits = 7 + (int)pc_rng_below(g, 56);
    int64_t f = (int64_t)(pc_rng_u64(g) >> (64 - bits));
    c->pos[0] = f < PC_RP_T5_MD ? PC_RP_T5_MD : f;
}

int64_t pc_rp_t5_far_target(const pc_prun *r, const pc_case *c, int j)
{
    (void)r; (void)c; (void)j;
    return PC_RP_T5_MD;
}

int pc_rp_t5_valid(const pc_prun *r, const pc_case *c)
{
    (void)r;
    return c->k >= 0 && c->k <= PC_RP_T5_RMAX && c->npos == 1 && c->pos[0] >= PC_RP_T5_MD &&
           c->pos[0] <= ((int64_t)1 << 62);
}

void pc_rp_t5_scan_free(pc_t5_scan *s)
{
    for (int m = 0; m < 2; m++) { free(s->neg[m]); free(s->pos[m]); }
    memset(s, 0, sizeof *s);
}

int pc_rp_t5_scan(pc_prun *r, int64_t R, int64_t F, pc_t5_scan *s, pc_outcome *oc,
                  pc_err *err, pc_status *st)
{
    memset(s, 0, sizeof *s);
    *st = PC_OK;
    s->R = R;
    s->F = F;
    size_t n = 2 * (size_t)R + 4;
    int64_t *rel = malloc(n * sizeof *rel);
    int32_t *out = malloc(n * sizeof *out);
    for (int m = 0; m < 2; m++) {
        s->neg[m] = malloc(((size_t)R + 1) * sizeof *s->neg[m]);
        s->pos[m] = malloc(((size_t)R + 1) * sizeof *s->pos[m]);
    }
    if (!rel || !out || !s->neg[0] || !s->neg[1] || !s->pos[0] || !s->pos[1]) {
        free(rel); free(out); pc_rp_t5_scan_free(s);
        *st = pc_p_nomem(err);
        return 1;
    }
    for (int64_t k = 0; k <= R; k++) { rel[2 * k] = -k; rel[2 * k + 1] = k; }
    rel[2 * R + 2] = -F;
    rel[2 * R + 3] = F;
    int rc = 0;
    for (int m = 0; m < 2 && !rc; m++) {
        r->calls++;
        for (size_t i = 0; i < n; i++) out[i] = -1;
        pc_fault fault;
        rc = pc_call_t5_bucket(r->impl, &fault, rel, n, m == 0, PC_RP_T5_NB, PC_RP_T5_MD, out);
        if (fault.faulted && !rc) rc = 1;
        if (rc) {
            char what[160];
            snprintf(what, sizeof what, "%zu distances in [-%" PRId64 ", %" PRId64 "] and +-%" PRId64
                     ", %s, num_buckets %d, max_distance %d", n, R, R, F, pc_rp_t5_mode(m),
                     PC_RP_T5_NB, PC_RP_T5_MD);
            hook_err(r, PC_HOOK_t5_bucket, rc, &fault, what, oc);
            break;
        }
        for (int64_t k = 0; k <= R; k++) {
            s->neg[m][k] = out[2 * k];
            s->pos[m][k] = out[2 * k + 1];
        }
        s->farneg[m] = out[2 * R + 2];
        s->farpos[m] = out[2 * R + 3];
    }
    free(rel);
    free(out);
    if (rc) pc_rp_t5_scan_free(s);
    return rc;
}

/* ---- ALiBi ------------------------------------------------------------- */

int pc_rp_alibi_slopes(pc_prun *r, int heads, float *out, pc_outcome *oc)
{
    r->calls++;
    pc_fault fault;
    int rc = pc_call_alibi_slopes(r->impl, &fault, heads, out);
    if (!rc && !fault.faulted) return 0;
    char what[64];
    snprintf(what, sizeof what, "heads=%d", heads);
    return hook_err(r, PC_HOOK_alibi_slopes, rc, &fault, what, oc);
}

int pc_rp_alibi_bias(pc_prun *r, int heads, const int64_t *qpos, size_t nq,
                     const int64_t *kpos, size_t nk, int causal, float *out,
                     pc_outcome *oc)
{
    r->calls++;
    pc_fault fault;
    int rc = pc_call_alibi_bias(r->impl, &fault, heads, qpos, nq, kpos, nk, causal, out);
    if (!rc && !fault.faulted) return 0;
    char what[160];
    snprintf(what, sizeof what, "heads=%d, %zu queries from %" PRId64 ", %zu keys from %" PRId64
             ", causal=%d", heads, nq, nq ? qpos[0] : 0, nk, nk ? kpos[0] : 0, causal);
    return hook_err(r, PC_HOOK_alibi_bias, rc, &fault, what, oc);
}

/* ---- Transformer-XL ---------------------------------------------------- */

/* Vector numbers of the inputs (pc_p_vector's WHICH): distinct per role. */
enum { V_Q = 0, V_K = 1000, V_U = 2000, V_V = 2001, V_WR = 3000 };

int pc_rp_txl_inputs(pc_prun *r, const pc_case *c, size_t nq, size_t nk, pc_txl_in *in)
{
    int d = c->d;
    size_t dd = (size_t)d;
    memset(in, 0, sizeof *in);
    in->d = d; in->nq = nq; in->nk = nk;
    in->q = malloc(nq * dd * sizeof *in->q);
    in->k = malloc(nk * dd * sizeof *in->k);
    in->u = malloc(dd * sizeof *in->u);
    in->v = malloc(dd * sizeof *in->v);
    in->wr = malloc(dd * dd * sizeof *in->wr);
    if (!in->q || !in->k || !in->u || !in->v || !in->wr) { pc_rp_txl_free(in); return 1; }
    for (size_t i = 0; i < nq; i++) pc_p_vector(c, r->layout, V_Q + (int)i, in->q + i * dd);
    for (size_t j = 0; j < nk; j++) pc_p_vector(c, r->layout, V_K + (int)j, in->k + j * dd);
    pc_p_vector(c, r->layout, V_U, in->u);
    pc_p_vector(c, r->layout, V_V, in->v);
    for (int a = 0; a < d; a++) pc_p_vector(c, r->layout, V_WR + a, in->wr + (size_t)a * dd);
    return 0;
}

void pc_rp_txl_free(pc_txl_in *in)
{
    free(in->q); free(in->k); free(in->u); free(in->v); free(in->wr);
    memset(in, 0, sizeof *in);
}

int pc_rp_txl(pc_prun *r, const pc_txl_in *in, const int64_t *qpos, const int64_t *kpos,
              float *out, pc_outcome *oc)
{
    r->calls++;
    pc_fault fault;
    int rc = pc_call_txl_score(r->impl, &fault, in->nq, in->nk, in->d, r->params->base, r->layout,
                               in->q, in->k, in->u, in->v, in->wr, qpos, kpos, out);
    if (!rc && !fault.faulted) return 0;
    char what[200];
    snprintf(what, sizeof what, "%zu queries from %" PRId64 ", %zu keys from %" PRId64
             ", d=%d, base %g, layout %s", in->nq, in->nq ? qpos[0] : 0, in->nk,
             in->nk ? kpos[0] : 0, in->d, r->params->base, pc_layout_name(r->layout));
    return hook_err(r, PC_HOOK_txl_score, rc, &fault, what, oc);
}

/* ---- exact T5 buckets at the properties' parameters (computed once) ---- */

#include <pthread.h>

static int32_t t5_core[2][PC_RP_T5_MD]; /* bucket of -n, n < MD, per variant */
static int t5_core_ok;
static pthread_once_t t5_once = PTHREAD_ONCE_INIT;

static void t5_core_init(void)
{
    t5_core_ok = 1;
    for (int m = 0; m < 2; m++)
        for (int n = 0; n < PC_RP_T5_MD; n++)
            if (pc_ref_t5_bucket(-(int64_t)n, m == 0, PC_RP_T5_NB, PC_RP_T5_MD,
                                 &t5_core[m][n]) != PC_OK)
                t5_core_ok = 0;
}

int32_t pc_rp_t5_expected(int m, int64_t rel)
{
    pthread_once(&t5_once, t5_core_init);
    if (!t5_core_ok) return -1;
    pc_t5_shape sh = pc_t5_shape_of(m == 0, PC_RP_T5_NB);
    uint64_t n = rel < 0 ? (uint64_t)(-(rel + 1)) + 1u : (uint64_t)rel;
    if (m == 1 && rel > 0) return 0;              /* causal: -min(rel, 0) = 0 */
    int32_t core = n < (uint64_t)PC_RP_T5_MD ? t5_core[m][n] : sh.nb - 1;
    return (m == 0 && rel > 0 ? sh.offset : 0) + core;
}

pc_status pc_rp_t5_check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err,
                         pc_rp_t5_pred pred, int far)
{
    pc_t5_scan s;
    pc_status st;
    if (pc_rp_t5_scan(r, c->k, c->pos[0], &s, oc, err, &st)) return st;
    pc_rp_pass(oc);
    oc->measured = 0;
    oc->bound = 0;
    for (int64_t n = 0; n <= s.R; n++)
        for (int m = 0; m < 2; m++)
            for (int sg = 0; sg < 2; sg++) {
                if (n == 0 && sg == 1) continue;
                int64_t rel = sg ? n : -n;
                int32_t got = sg ? s.pos[m][n] : s.neg[m][n], exp = -1;
                if (!pred(m, rel, got, &s, n, &exp)) {
                    pc_rp_fail(oc, 0, got, exp, "%s, j - i = %" PRId64 ": bucket %d, expected %d",
                               pc_rp_t5_mode(m), rel, (int)got, (int)exp);
                    oc->pair = (int)(2 * m + sg);
                    pc_rp_t5_scan_free(&s);
                    return PC_OK;
                }
            }
    if (far)
        for (int m = 0; m < 2; m++)
            for (int sg = 0; sg < 2; sg++) {
                int64_t rel = sg ? s.F : -s.F;
                int32_t got = sg ? s.farpos[m] : s.farneg[m], exp = -1;
                if (!pred(m, rel, got, &s, s.F, &exp)) {
                    /* sub 1: a far failure never replaces a scan failure
                     * while shrinking (R would collapse to 0) */
                    pc_rp_fail(oc, 1, got, exp, "%s, j - i = %" PRId64 ": bucket %d, expected %d",
                               pc_rp_t5_mode(m), rel, (int)got, (int)exp);
                    oc->pair = (int)(2 * m + sg);
                    pc_rp_t5_scan_free(&s);
                    return PC_OK;
                }
            }
    pc_rp_t5_scan_free(&s);
    return PC_OK;
}

void pc_rp_t5_show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    pc_t5_scan s;
    pc_status st;
    pc_outcome o2;
    pc_err e;
    if (pc_rp_t5_scan(r, c->k, c->pos[0], &s, &o2, &e, &st)) return;
    int m = oc->pair >= 0 ? oc->pair / 2 : 0;
    pc_t5_shape sh = pc_t5_shape_of(m == 0, PC_RP_T5_NB);
    fprintf(f, "      %s, num_buckets %d (%d per sign), max_exact %d, max_distance %d\n",
            pc_rp_t5_mode(m), PC_RP_T5_NB, sh.nb, sh.max_exact, PC_RP_T5_MD);
    fprintf(f, "      %10s %8s %8s %8s %8s\n", "|j - i|", "b(-n)", "exact", "b(+n)", "exact");
    for (int64_t n = s.R > 3 ? s.R - 3 : 0; n <= s.R; n++)
        fprintf(f, "      %10" PRId64 " %8d %8d %8d %8d\n", n, (int)s.neg[m][n],
                (int)pc_rp_t5_expected(m, -n), (int)s.pos[m][n], (int)pc_rp_t5_expected(m, n));
    if (s.R >= sh.max_exact && s.R < PC_RP_T5_MD) {
        int64_t fl;
        int ex;
        if (pc_t5_log_floor((uint64_t)s.R, sh.max_exact, sh.nb - sh.max_exact, PC_RP_T5_MD,
                            &fl, &ex) == PC_OK)
            fprintf(f, "      log term at n = %" PRId64 ": X = %d ln(n/%d)/ln(%d/%d) = %.9g, "
                    "floor %" PRId64 "%s\n", s.R, sh.nb - sh.max_exact, sh.max_exact,
                    PC_RP_T5_MD, sh.max_exact,
                    (sh.nb - sh.max_exact) * log((double)s.R / sh.max_exact) /
                        log((double)PC_RP_T5_MD / sh.max_exact),
                    fl, ex ? " (X is exactly an integer)" : "");
    }
    pc_rp_t5_scan_free(&s);
}

pc_status pc_rp_alibi_bias_setup(pc_prun *r, pc_outcome *oc)
{
    if (!r->impl->alibi_bias) return pc_p_no_hook(r, oc, "alibi_bias");
    return PC_OK;
}

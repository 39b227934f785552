/* cmd_check.c: `pecheck check`: gate implementations (built-ins, plugins,
 * .npy tables) on every family they provide, and print verdicts.
 *
 * Per implementation and family:
 *   sinusoidal, rope  the accuracy gate (harness/accuracy.c) on each layout
 *                     (both unless --layout; a layout the implementation
 *                     declines is skipped);
 *   learned           the lookup contract: every valid row finite and the
 *                     same on a second lookup; positions outside
 *                     [0, max_len) rejected without writing OUT;
 *   attention         the certified reference (families/attention/attention_ref.h) on
 *                     seeded inputs, full and causal, against the normwise
 *                     bound pc_attention_bound;
 *   tables            every value finite; RoPE (n, d) caches repeat their
 *                     columns as the detected layout says;
 *   t5, alibi, txl    (relative positions) the properties only;
 * then the properties (pc_properties_run).  A plugin that crashes, hangs or
 * writes outside OUT during a check fails that check with the cause. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "accuracy.h"
#include "cli.h"
#include "format.h"
#include "isolate.h"
#include "model.h"
#include "output.h"
#include "progress.h"
#include "plugin.h"
#include "property.h"
#include "rng.h"
#include "sources.h"
#include "table.h"
#include "verdict.h"
#include "../families/attention/attention_ref.h"
#include "../reference/reference.h"

/* The first four have checks of their own here; the relative-position
 * families (t5, alibi, txl) are checked by their properties alone. */
static const char *const families[] = { "sinusoidal", "rope", "learned", "attention",
                                        "t5", "alibi", "txl" };
#define N_FAMILIES 7

/* Attention inputs: n = 16 tokens, d = 32 (a small head; --d overrides):
 * large enough for a non-trivial softmax, small enough that the interval
 * reference costs milliseconds. */
#define ATT_N 16
#define ATT_D 32
/* Learned lookups: every row when max_len <= 8192, else the first and last
 * 4096 rows (a bound on the check's cost, not on the table). */
#define LEARNED_ALL 8192
#define LEARNED_BLOCK 256

typedef struct ctx {
    pc_opts *o;
    pc_verdicts *vs;
    pc_err *err;
} ctx;

/* ---- helpers ------------------------------------------------------------ */

static pc_verdict *new_verdict(ctx *c, const pc_impl *impl, const char *family,
                               const char *check, const char *layout)
{
    pc_verdict *v = pc_verdicts_add(c->vs);
    if (!v) return NULL;
    snprintf(v->check, sizeof v->check, "%s", check);
    snprintf(v->family, sizeof v->family, "%s", family);
    snprintf(v->impl, sizeof v->impl, "%s", impl->name);
    snprintf(v->layout, sizeof v->layout, "%s", layout ? layout : "");
    v->seed = c->o->seed;
    v->measured = (double)NAN;
    v->bound = (double)NAN;
    return v;
}

static int provides(const pc_impl *impl, const char *family)
{
    if (!strcmp(family, "sinusoidal")) return impl->sinusoidal != NULL;
    if (!strcmp(family, "rope")) return impl->rope != NULL;
    if (!strcmp(family, "learned")) return impl->learned != NULL && impl->learned_max_len != NULL;
    if (!strcmp(family, "attention")) return impl->attention != NULL;
    if (!strcmp(family, "t5")) return impl->t5_bucket != NULL || impl->t5_bias != NULL;
    if (!strcmp(family, "alibi")) return impl->alibi_slopes != NULL || impl->alibi_bias != NULL;
    if (!strcmp(family, "txl")) return impl->txl_score != NULL;
    return 0;
}

static const char *symbol_of(const char *family)
{
    return !strcmp(family, "sinusoidal") ? "pecheck_sinusoidal_f32"
         : !strcmp(family, "rope") ? "pecheck_rope_f32"
         : !strcmp(family, "learned") ? "pecheck_learned_f32"
         : !strcmp(family, "attention") ? "pecheck_attention_f32"
         : !strcmp(family, "t5") ? "pecheck_t5_bucket or pecheck_t5_bias"
         : !strcmp(family, "alibi") ? "pecheck_alibi_slopes or pecheck_alibi_bias"
         : "pecheck_txl_score";
}

/* A fault recorded by the isolation since the last clear, into CAUSE. */
static int take_fault(const pc_impl *impl, char *cause, size_t len)
{
    int n = pc_isolate_fault(impl, cause, len);
    pc_isolate_clear(impl);
    if (n > 1) {
        size_t l = strlen(cause);
        snprintf(cause + l, len - l, " (%d faults in this check)", n);
    }
    return n;
}

static pc_status oom(ctx *c)
{
    return pc_seterr(c->err, PC_ENOMEM, "out of memory");
}

/* ---- sinusoidal and rope: the accuracy gate ------------------------------ */

static void accuracy_verdict(const pc_impl *impl, const pc_acc_cfg *cfg,
                             const pc_acc_result *res, const char *fault, pc_verdict *v)
{
    const pc_metrics *m = &res->m;
    v->status = res->status;
    v->seconds = res->seconds;
    v->bound = 1.0;
    snprintf(v->measured_what, sizeof v->measured_what, "max |err|/bound");
    if (m->count) v->measured = m->max_ratio;
    const pc_table_info *t = pc_table_info_of(impl);
    if (fault) {
        snprintf(v->summary, sizeof v->summary, "%s", fault);
    } else if (res->status == PC_SKIP) {
        snprintf(v->summary, sizeof v->summary, "%s", res->note);
    } else if (res->status == PC_FAIL && res->note[0]) {
        snprintf(v->summary, sizeof v->summary, "%s", res->note);
    } else if (res->status == PC_FAIL) {
        const pc_witness *w = &m->worst;
        snprintf(v->summary, sizeof v->summary, "%llu of %llu values exceed the bound%s; worst at "
                 "pos=%" PRId64 " dim=%d: got %a (%.9g), exact %a (%.9g), |err| %.3g > bound %.3g",
                 (unsigned long long)m->n_over, (unsigned long long)m->count,
                 m->n_nonfinite ? " (NaN/Inf among them)" : "", w->pos, w->dim, (double)w->got,
                 (double)w->got, w->ref, w->ref, w->err, w->bound);
    } else {
        snprintf(v->summary, sizeof v->summary, "%llu values, positions %" PRId64 "..%" PRId64
                 " d=%d: max |err| %.3g (%.3g ulp), max |err|/bound %.3g",
                 (unsigned long long)m->count, cfg->pos_lo, cfg->pos_hi, cfg->d, m->max_abs,
                 m->max_ulp, m->max_ratio);
    }
    /* details: the engine's own text report (witnesses, error split, model) */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (f) {
        if (fault) fprintf(f, "cause: %s\n", fault);
        if (t) fprintf(f, "table: %s\n", t->layout_note);
        if (!fault || m->count) {
            if (fault) fprintf(f, "before the fault:\n");
            pc_accuracy_print_text(f, impl, cfg, res);
        }
        if (fclose(f) == 0) v->details = buf;
        else free(buf);
    }
    buf = NULL;
    len = 0;
    f = open_memstream(&buf, &len);
    if (f) {
        pc_json j;
        pc_json_init(&j, f);
        pc_json_obj(&j, NULL);
        if (fault) pc_json_str(&j, "cause", fault);
        pc_accuracy_json_fields(&j, impl, cfg, res);
        pc_json_end(&j);
        if (fclose(f) == 0) v->json = buf;
        else free(buf);
    }
}

static pc_status check_accuracy(ctx *c, const pc_impl *impl, const char *family)
{
    const pc_opts *o = c->o;
    int layouts[2] = { 0, 1 }, nl = 2;
    if (o->layout >= 0) { layouts[0] = o->layout; nl = 1; }
    for (int k = 0; k < nl; k++) {
        pc_acc_cfg cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.family = family;
        cfg.d = o->d;
        cfg.base = o->base;
        cfg.layout = layouts[k];
        cfg.dtype = o->dtype;
        cfg.pos_lo = o->pos_lo;
        cfg.pos_hi = o->pos_hi;
        cfg.seed = o->seed;
        cfg.tol_abs = o->tol_abs;
        cfg.quiet = o->quiet;
        cfg.threads = o->threads;
        pc_sources_adjust_cfg(impl, &cfg);
        pc_acc_result res;
        pc_isolate_clear(impl);
        pc_status st = pc_accuracy_run(impl, &cfg, &res, c->err);
        if (st != PC_OK) return st;
        char cause[PC_ERR_LEN] = "";
        int faulted = take_fault(impl, cause, sizeof cause);
        if (faulted) {
            res.status = PC_FAIL;
            snprintf(res.note, sizeof res.note, "%.250s", cause);
        }
        pc_verdict *v = new_verdict(c, impl, family, "accuracy", pc_layout_name(cfg.layout));
        if (!v) return oom(c);
        accuracy_verdict(impl, &cfg, &res, faulted ? cause : NULL, v);
    }
    return PC_OK;
}

/* ---- tables ----------------------------------------------------------------- */

static pc_status check_table(ctx *c, const pc_impl *impl, const pc_table_info *t)
{
    pc_verdict *v = new_verdict(c, impl, t->family, "table-values", NULL);
    if (!v) return oom(c);
    v->measured = t->nonfinite;
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "NaN/Inf values");
    if (t->nonfinite) {
        v->status = PC_FAIL;
        snprintf(v->summary, sizeof v->summary, "%d NaN/Inf value%s; the first: %s row %" PRId64
                 " (pos %" PRId64 ") column %d = %g", t->nonfinite, t->nonfinite == 1 ? "" : "s",
                 t->nf_file, t->nf_pos - t->pos_lo, t->nf_pos, t->nf_col, t->nf_val);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f) {
            pc_json j;
            pc_json_init(&j, f);
            pc_json_obj(&j, NULL);
            pc_json_str(&j, "file", t->nf_file);
            pc_json_int(&j, "row", t->nf_pos - t->pos_lo);
            pc_json_int(&j, "pos", t->nf_pos);
            pc_json_int(&j, "col", t->nf_col);
            pc_json_str(&j, "value", isnan(t->nf_val) ? "nan" : t->nf_val > 0 ? "inf" : "-inf");
            pc_json_end(&j);
            if (fclose(f) == 0) v->json = buf; else free(buf);
        }
    } else {
        v->status = PC_OK;
        snprintf(v->summary, sizeof v->summary, "every value is finite (positions %" PRId64 "..%"
                 PRId64 ", d=%d)", t->pos_lo, t->pos_hi, t->d);
    }
    if (!strcmp(t->family, "rope")) {
        v = new_verdict(c, impl, t->family, "cache-layout", t->layout >= 0 ? pc_layout_name(t->layout) : NULL);
        if (!v) return oom(c);
        v->measured = t->dup_mismatch;
        v->bound = 0;
        snprintf(v->measured_what, sizeof v->measured_what, "repeated columns that differ");
        v->status = t->dup_mismatch ? PC_FAIL : PC_OK;
        if (t->dup_mismatch)
            snprintf(v->summary, sizeof v->summary, "%.200s; first: %.250s", t->layout_note, t->dup_note);
        else
            snprintf(v->summary, sizeof v->summary, "%s", t->layout_note);
    }
    return PC_OK;
}

/* ---- learned --------------------------------------------------------------- */

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static pc_status check_learned(ctx *c, const pc_impl *impl)
{
    const pc_opts *o = c->o;
    int d = o->d;
    char cause[PC_ERR_LEN] = "";
    double t0 = pc_now();
    pc_isolate_clear(impl);
    int64_t max_len = impl->learned_max_len(impl->ctx);
    pc_verdict *v = new_verdict(c, impl, "learned", "lookup", NULL);
    if (!v) return oom(c);
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "bad values");
    if (take_fault(impl, cause, sizeof cause)) {
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
    if (!pos || !a || !b) { free(pos); free(a); free(b); return oom(c); }
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
        if (take_fault(impl, cause, sizeof cause)) {
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
        if (!rpos) { free(pos); free(a); free(b); return oom(c); }
        for (size_t r = 0; r < n; r++) rpos[r] = pos[n - 1 - r];
        rc = impl->learned(impl->ctx, rpos, n, d, b);
        free(rpos);
        if (take_fault(impl, cause, sizeof cause)) {
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

    /* positions outside [0, max_len): nonzero return, OUT untouched */
    if (v->status != PC_SKIP) {
        double t1 = pc_now();
        pc_verdict *u = new_verdict(c, impl, "learned", "out-of-range", NULL);
        if (!u) { free(pos); free(a); free(b); return oom(c); }
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
            if (take_fault(impl, cause, sizeof cause))
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
    }
    free(pos); free(a); free(b);
    return PC_OK;
}

/* ---- attention ---------------------------------------------------------------- */

static pc_status check_attention(ctx *c, const pc_impl *impl)
{
    const pc_opts *o = c->o;
    int d = o->d_set ? o->d : ATT_D;
    size_t n = ATT_N;
    if (d > PC_ATT_D_MAX)
        return pc_seterr(c->err, PC_EINPUT, "--d %d: the attention reference takes d <= %d",
                         d, PC_ATT_D_MAX);
    size_t nd = n * (size_t)d, dd = (size_t)d * (size_t)d;
    float *x = malloc(nd * sizeof *x), *w = malloc(3 * dd * sizeof *w);
    float *got = malloc(nd * sizeof *got);
    double *ref = malloc(nd * sizeof *ref), *bound = malloc(n * sizeof *bound);
    if (!x || !w || !got || !ref || !bound) {
        free(x); free(w); free(got); free(ref); free(bound);
        return oom(c);
    }
    float *wq = w, *wk = w + dd, *wv = w + 2 * dd;
    /* x: standard normal rows; W: normal / sqrt(d) (keeps the scores O(1),
     * the scale of trained projections); keys separate the four matrices */
    for (size_t r = 0; r < n; r++) pc_normal_row(o->seed, ((uint64_t)1 << 32) | r, d, x + r * (size_t)d);
    float scale = (float)(1.0 / sqrt((double)d));
    for (int m = 0; m < 3; m++)
        for (int r = 0; r < d; r++) {
            float *row = w + (size_t)m * dd + (size_t)r * (size_t)d;
            pc_normal_row(o->seed, ((uint64_t)(m + 2) << 32) | (uint64_t)r, d, row);
            for (int j = 0; j < d; j++) row[j] *= scale;
        }
    double u = pc_model_u(o->dtype);
    pc_status st = PC_OK;
    for (int causal = o->causal; causal <= 1 && st == PC_OK; causal++) {
        double t0 = pc_now();
        pc_verdict *v = new_verdict(c, impl, "attention", causal ? "accuracy-causal" : "accuracy", NULL);
        if (!v) { st = oom(c); break; }
        v->bound = 1.0;
        snprintf(v->measured_what, sizeof v->measured_what, "max |err|/bound");
        pc_isolate_clear(impl);
        for (size_t k = 0; k < nd; k++) got[k] = NAN;
        int rc = impl->attention(impl->ctx, n, d, x, wq, wk, wv, causal, got);
        char cause[PC_ERR_LEN];
        if (take_fault(impl, cause, sizeof cause)) {
            v->status = PC_FAIL;
            snprintf(v->summary, sizeof v->summary, "%s", cause);
            v->seconds = pc_now() - t0;
            continue;
        }
        if (rc != 0) {
            v->status = PC_SKIP;
            snprintf(v->summary, sizeof v->summary, "pecheck_attention_f32 returned %d for n=%zu "
                     "d=%d causal=%d: not supported", rc, n, d, causal);
            v->seconds = pc_now() - t0;
            continue;
        }
        pc_err rerr = { "" };
        st = pc_ref_attention(n, d, x, wq, wk, wv, causal, NULL, ref, &rerr);
        if (st != PC_OK) {
            pc_seterr(c->err, st, "attention reference: %s", rerr.msg);
            break;
        }
        pc_attention_bound(n, d, x, wq, wk, wv, causal, u, bound);
        double worst = -1;
        size_t wi = 0, wj = 0;
        long over = 0;
        for (size_t i = 0; i < n; i++)
            for (size_t j = 0; j < (size_t)d; j++) {
                double g = (double)got[i * (size_t)d + j], e = fabs(g - ref[i * (size_t)d + j]);
                double b = o->tol_abs >= 0 ? o->tol_abs : bound[i];
                double ratio = isfinite(g) ? (b > 0 ? e / b : (e > 0 ? (double)INFINITY : 0.0))
                                           : (double)INFINITY;
                if (!(ratio <= 1.0)) over++;
                if (ratio > worst || worst < 0) { worst = ratio; wi = i; wj = j; }
            }
        double g = (double)got[wi * (size_t)d + wj], e = ref[wi * (size_t)d + wj];
        double b = o->tol_abs >= 0 ? o->tol_abs : bound[wi];
        v->measured = worst;
        v->status = over ? PC_FAIL : PC_OK;
        if (over)
            snprintf(v->summary, sizeof v->summary, "%ld of %zu values exceed the bound; worst at "
                     "row=%zu col=%zu: got %a (%.9g), exact %a (%.9g), |err| %.3g > bound %.3g",
                     over, nd, wi, wj, g, g, e, e, fabs(g - e), b);
        else
            snprintf(v->summary, sizeof v->summary, "n=%zu d=%d%s: max |err|/bound %.3g (worst at "
                     "row=%zu col=%zu, |err| %.3g, bound %.3g)", n, d, causal ? " causal" : "",
                     worst, wi, wj, fabs(g - e), b);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f) {
            fprintf(f, "inputs: x (%zu x %d) standard normal, WQ WK WV (%d x %d) normal/sqrt(d), "
                    "from seed %llu\n", n, d, d, d, (unsigned long long)o->seed);
            if (o->tol_abs >= 0) fprintf(f, "bound: |err| <= %g (--tol-abs)\n", o->tol_abs);
            else fprintf(f, "bound (row-wise, docs/precision-model.md): C_ATT*u*(4 d kappa_i + 2n + d "
                         "+ 8)*vmax, C_ATT = %g, u = %a\n", PC_ATT_C, u);
            fprintf(f, "witness: row=%zu col=%zu got=%a (%.9g) exact=%a (%.9g) |err|=%.3g bound=%.3g\n",
                    wi, wj, g, g, e, e, fabs(g - e), b);
            if (fclose(f) == 0) v->details = buf; else free(buf);
        }
        buf = NULL;
        f = open_memstream(&buf, &len);
        if (f) {
            pc_json j;
            pc_json_init(&j, f);
            pc_json_obj(&j, NULL);
            pc_json_int(&j, "n", (long long)n);
            pc_json_int(&j, "d", d);
            pc_json_bool(&j, "causal", causal);
            pc_json_int(&j, "values_over_bound", over);
            pc_json_obj(&j, "worst");
            pc_json_int(&j, "row", (long long)wi);
            pc_json_int(&j, "col", (long long)wj);
            pc_json_float(&j, "got", g);
            pc_json_float(&j, "ref", e);
            pc_json_num(&j, "abs_err", fabs(g - e));
            pc_json_num(&j, "bound", b);
            pc_json_end(&j);
            pc_json_end(&j);
            if (fclose(f) == 0) v->json = buf; else free(buf);
        }
        v->seconds = pc_now() - t0;
    }
    free(x); free(w); free(got); free(ref); free(bound);
    return st;
}

/* ---- properties ------------------------------------------------------------------ */

static pc_status check_properties(ctx *c, const pc_impl *impl, const char *family)
{
    pc_opts po = *c->o;
    const pc_table_info *t = pc_table_info_of(impl);
    if (t) { /* a table: its d, rows and layout */
        po.d = t->d;
        po.pos_lo = t->pos_lo;
        po.pos_hi = t->pos_hi;
        if (t->layout >= 0) po.layout = t->layout;
    }
    pc_isolate_clear(impl);
    double t0 = pc_now();
    int before = c->vs->n;
    pc_status st = pc_properties_run(impl, family, &po, c->vs, c->err);
    if (st < 0) return st;
    char cause[PC_ERR_LEN];
    int n = take_fault(impl, cause, sizeof cause);
    if (n) {
        pc_verdict *v = new_verdict(c, impl, family, "isolation", NULL);
        if (!v) return oom(c);
        v->status = PC_FAIL;
        v->measured = n;
        v->bound = 0;
        snprintf(v->measured_what, sizeof v->measured_what, "faults");
        snprintf(v->summary, sizeof v->summary, "during the properties (%d verdicts): %s",
                 c->vs->n - 1 - before, cause);
        v->seconds = pc_now() - t0;
    }
    return PC_OK;
}

/* ---- the command ------------------------------------------------------------------ */

static pc_status check_impl(ctx *c, const pc_impl *impl, const char *want)
{
    int plugin = pc_plugin_is(impl);
    const pc_table_info *t = pc_table_info_of(impl);
    int explicit_family = want != NULL;
    if (t) {
        pc_status st = check_table(c, impl, t);
        if (st != PC_OK) return st;
    }
    for (int k = 0; k < N_FAMILIES; k++) {
        const char *fam = families[k];
        if (want && strcmp(want, fam)) continue;
        if (!provides(impl, fam)) {
            /* a plugin reports the four base families; the relative ones
             * only when asked for (most plugins have none) */
            if (explicit_family || (plugin && k < 4)) {
                pc_verdict *v = new_verdict(c, impl, fam, "family", NULL);
                if (!v) return oom(c);
                v->status = PC_SKIP;
                if (plugin)
                    snprintf(v->summary, sizeof v->summary, "the plugin does not export %s",
                             symbol_of(fam));
                else
                    snprintf(v->summary, sizeof v->summary, "%s does not implement the %s family",
                             t ? "the table" : "the implementation", fam);
            }
            continue;
        }
        pc_status st = PC_OK;
        if (!strcmp(fam, "learned")) st = check_learned(c, impl);
        else if (!strcmp(fam, "attention")) st = check_attention(c, impl);
        else if (!strcmp(fam, "sinusoidal") || !strcmp(fam, "rope")) st = check_accuracy(c, impl, fam);
        if (st == PC_OK) st = check_properties(c, impl, fam);
        if (st != PC_OK) return st;
    }
    return PC_OK;
}

int pc_cmd_check(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv,
        "impl plugin table table-sin family d base layout max-pos positions pos-start dtype "
        "tol-abs seed causal format output quiet timeout-ms cases property replay regressions threads",
        0, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    const char *want = NULL;
    if (o.family && strcmp(o.family, "all")) {
        int ok = 0;
        for (int k = 0; k < N_FAMILIES; k++) ok |= !strcmp(o.family, families[k]);
        if (!ok)
            return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--family: expected sinusoidal, rope, "
                               "learned, attention, t5, alibi, txl or all, got '%s'", o.family), &err);
        want = o.family;
    }
    if (o.dtype == PC_DT_F64)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--dtype: check takes f32, bf16 or f16"), &err);
    pc_sources src;
    st = pc_sources_open(&o, o.family, &src, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);

    pc_verdicts vs = { NULL, 0, 0 };
    ctx c = { &o, &vs, &err };
    for (int k = 0; k < src.n && st == PC_OK; k++)
        st = check_impl(&c, src.impl[k], want);
    if (st == PC_OK) {
        pc_out out;
        st = pc_out_open(&out, o.output, &err);
        if (st == PC_OK) {
            pc_format_write(out.f, o.format, &vs);
            st = pc_out_close(&out, 1, &err);
        }
    }
    pc_status verdict = pc_verdicts_status(&vs);
    pc_verdicts_free(&vs);
    pc_sources_close(&src);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    return verdict == PC_FAIL ? PC_EXIT_FAIL : PC_EXIT_PASS;
}

/* gate.c: the attention family's gate in `pecheck check`: the certified
 * reference (attention_ref.h) on seeded inputs, full and causal, against
 * the normwise bound pc_attention_bound. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "attention_ref.h"
#include "gate.h"
#include "harness/engine/accuracy.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/io/json.h"
#include "harness/engine/model.h"
#include "harness/base/progress.h"
#include "harness/base/rng.h"

/* Attention inputs: n = 16 tokens, d = 32 (a small head; --d overrides):
 * large enough for a non-trivial softmax, small enough that the interval
 * reference costs milliseconds. */
#define ATT_N 16
#define ATT_D 32

/* One run's inputs and results: x (n x d), WQ WK WV (d x d each), the
 * implementation's output, the certified output and the row bounds. */
typedef struct att_case {
    size_t n;
    int d;
    float *x, *w, *got;
    double *ref, *bound;
} att_case;

static void att_free(att_case *a)
{
    free(a->x); free(a->w); free(a->got); free(a->ref); free(a->bound);
}

/* x: standard normal rows; W: normal / sqrt(d) (keeps the scores O(1), the
 * scale of trained projections); keys separate the four matrices. */
static int att_new(att_case *a, size_t n, int d, uint64_t seed)
{
    size_t nd = n * (size_t)d, dd = (size_t)d * (size_t)d;
    att_case z = { n, d, malloc(nd * sizeof(float)), malloc(3 * dd * sizeof(float)),
                   malloc(nd * sizeof(float)), malloc(nd * sizeof(double)), malloc(n * sizeof(double)) };
    *a = z;
    if (!a->x || !a->w || !a->got || !a->ref || !a->bound) { att_free(a); return 0; }
    for (size_t r = 0; r < n; r++) pc_normal_row(seed, ((uint64_t)1 << 32) | r, d, a->x + r * (size_t)d);
    float scale = (float)(1.0 / sqrt((double)d));
    for (int m = 0; m < 3; m++)
        for (int r = 0; r < d; r++) {
            float *row = a->w + (size_t)m * dd + (size_t)r * (size_t)d;
            pc_normal_row(seed, ((uint64_t)(m + 2) << 32) | (uint64_t)r, d, row);
            for (int j = 0; j < d; j++) row[j] *= scale;
        }
    return 1;
}

/* The worst element (largest err/bound, the first of equals) and the count
 * over the bound, by the accuracy gate's checker (pc_check_element). */
typedef struct att_worst {
    double ratio;
    size_t i, j;
    long over;
    double g, e, b;   /* got, exact and bound at the worst element */
} att_worst;

static void att_compare(const att_case *a, double tol_abs, att_worst *ws)
{
    size_t d = (size_t)a->d;
    ws->ratio = -1;
    ws->over = 0;
    ws->i = ws->j = 0;
    for (size_t i = 0; i < a->n; i++)
        for (size_t j = 0; j < d; j++) {
            double ref = a->ref[i * d + j];
            pc_witness w = { .valid = 1, .got = a->got[i * d + j], .ref = ref, .ref32 = (float)ref,
                             .bound = tol_abs >= 0 ? tol_abs : a->bound[i] };
            double ratio = pc_check_element(&w);
            if (!(w.err <= w.bound)) ws->over++;
            if (ratio > ws->ratio || ws->ratio < 0) { ws->ratio = ratio; ws->i = i; ws->j = j; }
        }
    ws->g = (double)a->got[ws->i * d + ws->j];
    ws->e = a->ref[ws->i * d + ws->j];
    ws->b = tol_abs >= 0 ? tol_abs : a->bound[ws->i];
}

static void att_details(pc_verdict *v, const att_case *a, const att_worst *ws,
                        const pc_acc_cfg *o, double u)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    fprintf(f, "inputs: x (%zu x %d) standard normal, WQ WK WV (%d x %d) normal/sqrt(d), "
            "from seed %llu\n", a->n, a->d, a->d, a->d, (unsigned long long)o->seed);
    if (o->tol_abs >= 0) fprintf(f, "bound: |err| <= %g (--tol-abs)\n", o->tol_abs);
    else fprintf(f, "bound (row-wise, docs/precision-model.md): C_ATT*u*(4 d kappa_i + 2n + d "
                 "+ 8)*vmax, C_ATT = %g, u = %a\n", PC_ATT_C, u);
    fprintf(f, "witness: row=%zu col=%zu got=%a (%.9g) exact=%a (%.9g) |err|=%.3g bound=%.3g\n",
            ws->i, ws->j, ws->g, ws->g, ws->e, ws->e, fabs(ws->g - ws->e), ws->b);
    if (fclose(f) == 0) v->details = buf; else free(buf);
}

/* What a case's verdict data says (pc_json_object_text's context). */
typedef struct att_data {
    const att_case *a;
    const att_worst *ws;
    int causal;
} att_data;

static void att_data_json(pc_json *j, const void *ctx)
{
    const att_data *x = ctx;
    const att_worst *ws = x->ws;
    pc_json_int(j, "n", (long long)x->a->n);
    pc_json_int(j, "d", x->a->d);
    pc_json_bool(j, "causal", x->causal);
    pc_json_int(j, "values_over_bound", ws->over);
    pc_json_obj(j, "worst");
    pc_json_int(j, "row", (long long)ws->i);
    pc_json_int(j, "col", (long long)ws->j);
    pc_json_float(j, "got", ws->g);
    pc_json_float(j, "ref", ws->e);
    pc_json_num(j, "abs_err", fabs(ws->g - ws->e));
    pc_json_num(j, "bound", ws->b);
    pc_json_end(j);
}

static void att_json(pc_verdict *v, const att_case *a, const att_worst *ws, int causal)
{
    att_data x = { a, ws, causal };
    v->json = pc_json_object_text(att_data_json, &x);
}

static void att_verdict(pc_verdict *v, const att_case *a, const att_worst *ws, int causal)
{
    size_t nd = a->n * (size_t)a->d;
    v->measured = ws->ratio;
    v->status = ws->over ? PC_FAIL : PC_OK;
    if (ws->over)
        snprintf(v->summary, sizeof v->summary, "%ld of %zu values exceed the bound; worst at "
                 "row=%zu col=%zu: got %a (%.9g), exact %a (%.9g), |err| %.3g > bound %.3g",
                 ws->over, nd, ws->i, ws->j, ws->g, ws->g, ws->e, ws->e, fabs(ws->g - ws->e), ws->b);
    else
        snprintf(v->summary, sizeof v->summary, "n=%zu d=%d%s: max |err|/bound %.3g (worst at "
                 "row=%zu col=%zu, |err| %.3g, bound %.3g)", a->n, a->d, causal ? " causal" : "",
                 ws->ratio, ws->i, ws->j, fabs(ws->g - ws->e), ws->b);
}

/* The implementation on A (causal or not): a fault or a declined call ends
 * the verdict (returns 0); else A->got holds its output (returns 1). */
static int att_call(pc_verdict *v, const pc_impl *impl, att_case *a, int causal)
{
    size_t nd = a->n * (size_t)a->d, dd = (size_t)a->d * (size_t)a->d;
    for (size_t k = 0; k < nd; k++) a->got[k] = NAN;
    pc_fault fault;
    int rc = pc_call_attention(impl, &fault, a->n, a->d, a->x, a->w, a->w + dd, a->w + 2 * dd,
                               causal, a->got);
    if (fault.faulted) {
        v->status = PC_FAIL;
        snprintf(v->summary, sizeof v->summary, "%s", fault.cause);
        return 0;
    }
    if (rc != 0) {
        v->status = PC_SKIP;
        snprintf(v->summary, sizeof v->summary, "%s returned %d for n=%zu d=%d causal=%d: not "
                 "supported", pc_hook_symbol(PC_HOOK_attention), rc, a->n, a->d, causal);
        return 0;
    }
    return 1;
}

static pc_status att_one(pc_gate *c, const pc_impl *impl, const pc_family *fam, att_case *a,
                         int causal)
{
    double t0 = pc_now(), u = pc_model_u(c->run->dtype);
    size_t dd = (size_t)a->d * (size_t)a->d;
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, causal ? "accuracy-causal" : "accuracy", NULL);
    if (!v) return pc_gate_oom(c);
    v->bound = 1.0;
    snprintf(v->measured_what, sizeof v->measured_what, "max |err|/bound");
    if (att_call(v, impl, a, causal)) {
        pc_err rerr = { "" };
        pc_status st = pc_ref_attention(a->n, a->d, a->x, a->w, a->w + dd, a->w + 2 * dd, causal,
                                        NULL, a->ref, &rerr);
        if (st != PC_OK) return pc_seterr(c->err, st, "attention reference: %s", rerr.msg);
        pc_attention_bound(a->n, a->d, a->x, a->w, a->w + dd, a->w + 2 * dd, causal, u, a->bound);
        att_worst ws;
        att_compare(a, c->run->tol_abs, &ws);
        att_verdict(v, a, &ws, causal);
        att_details(v, a, &ws, c->run, u);
        att_json(v, a, &ws, causal);
    }
    v->seconds = pc_now() - t0;
    return PC_OK;
}

pc_status pc_attention_gate(pc_gate *c, const pc_impl *impl, const pc_family *fam)
{
    int d = c->spec->d_set ? c->spec->d : ATT_D;
    if (d > PC_ATT_D_MAX)
        return pc_seterr(c->err, PC_EINPUT, "--d %d: the attention reference takes d <= %d",
                         d, PC_ATT_D_MAX);
    att_case a;
    if (!att_new(&a, ATT_N, d, c->run->seed)) return pc_gate_oom(c);
    pc_status st = PC_OK;
    for (int causal = pc_attention_causal(c->spec); causal <= 1 && st == PC_OK; causal++)
        st = att_one(c, impl, fam, &a, causal);
    att_free(&a);
    return st;
}

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
#include "../../harness/isolate.h"
#include "../../harness/json.h"
#include "../../harness/model.h"
#include "../../harness/progress.h"
#include "../../harness/rng.h"

/* Attention inputs: n = 16 tokens, d = 32 (a small head; --d overrides):
 * large enough for a non-trivial softmax, small enough that the interval
 * reference costs milliseconds. */
#define ATT_N 16
#define ATT_D 32

pc_status pc_attention_gate(pc_gate *c, const pc_impl *impl, const pc_family *fam)
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
        return pc_gate_oom(c);
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
        pc_verdict *v = pc_gate_verdict(c, impl, fam->name, causal ? "accuracy-causal" : "accuracy", NULL);
        if (!v) { st = pc_gate_oom(c); break; }
        v->bound = 1.0;
        snprintf(v->measured_what, sizeof v->measured_what, "max |err|/bound");
        pc_isolate_clear(impl);
        for (size_t k = 0; k < nd; k++) got[k] = NAN;
        int rc = impl->attention(impl->ctx, n, d, x, wq, wk, wv, causal, got);
        char cause[PC_ERR_LEN];
        if (pc_gate_take_fault(impl, cause, sizeof cause)) {
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


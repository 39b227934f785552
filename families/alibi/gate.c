/* gate.c: the ALiBi family's gate in `pecheck check`: a table's every
 * value against the exact slope m_h (families/alibi/alibi_ref.c, MPFR) times
 * its distance, under the run's class (slope_class.c: --strict, else the
 * binary32 class) and the table's storage.  Other sources have no gate:
 * their properties check them. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alibi.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/gate.h"
#include "harness/engine/model.h"
#include "harness/base/progress.h"
#include "harness/io/json.h"

/* The worst element of a table by err/bound, and the counts. */
typedef struct worst {
    double ratio, err, bound, got, exact;
    int h;
    size_t i, j;
    int64_t k;
    size_t count, over, nonfinite;
} worst;

/* Exact m_h K for |K| = 0 .. KMAX of head H (binary64, correctly rounded). */
static pc_status exact_line(int heads, int bias_max, int h, int64_t kmax, double *out)
{
    for (int64_t k = 0; k <= kmax; k++) {
        pc_ref2 r;
        pc_status st = pc_ref_alibi_bias_b(heads, bias_max, h, k, &r);
        if (st != PC_OK) return st;
        out[k] = -r.f64; /* m |K|: the negation is exact */
    }
    return PC_OK;
}

static void judge(worst *w, const pc_alibi_table *t, int h, size_t i, size_t j, double exact,
                  double beta, double u_s)
{
    double got = t->v[((size_t)h * t->nq + i) * t->nk + j];
    int64_t k = pc_alibi_table_k(t, i, j);
    double bound = pc_alibi_value_bound(exact, beta, k, u_s);
    double err = fabs(got - exact);
    /* NaN and Inf are over any bound; a zero bound (distance 0) takes 0 only */
    double ratio = !isfinite(err) ? (double)INFINITY : bound > 0 ? err / bound
                 : err == 0 ? 0.0 : (double)INFINITY;
    w->count++;
    w->nonfinite += isfinite(got) ? 0u : 1u;
    w->over += err <= bound ? 0u : 1u;
    if (ratio > w->ratio)
        *w = (worst){ ratio, err, bound, got, exact, h, i, j, k, w->count, w->over,
                      w->nonfinite };
}

/* A masked entry (above a causal table's diagonal) must be -inf: any other
 * value is over any bound. */
static void judge_masked(worst *w, const pc_alibi_table *t, int h, size_t i, size_t j)
{
    double got = t->v[((size_t)h * t->nq + i) * t->nk + j];
    int masked = got == -(double)INFINITY;
    w->count++;
    w->over += masked ? 0u : 1u;
    if (!masked && w->ratio < (double)INFINITY)
        *w = (worst){ (double)INFINITY, (double)INFINITY, 0.0, got, -(double)INFINITY, h, i, j,
                      (int64_t)j - (int64_t)i, w->count, w->over, w->nonfinite };
}

/* Every value of T under the class: into W. */
static pc_status scan(const pc_alibi_table *t, int bias_max, int strict, worst *w, pc_err *err)
{
    int64_t kmax = (int64_t)(t->nq > t->nk ? t->nq : t->nk);
    double *line = malloc(((size_t)kmax + 1) * sizeof *line);
    if (!line) return pc_seterr(err, PC_ENOMEM, "out of memory");
    double u_s = t->dtype == PC_DT_F16 || t->dtype == PC_DT_BF16 ? pc_model_u(t->dtype) : 0.0;
    memset(w, 0, sizeof *w);
    w->ratio = -1.0;
    pc_status st = PC_OK;
    for (int h = 0; h < t->heads && st == PC_OK; h++) {
        if ((st = exact_line(t->heads, bias_max, h, kmax, line)) != PC_OK) break;
        pc_ref2 s;
        pc_ref_alibi_slope_b(t->heads, bias_max, h, &s);
        double beta = pc_alibi_slope_beta(t->heads, h, s.f64, pc_ulp32(s.f32), strict);
        for (size_t i = 0; i < t->nq; i++)
            for (size_t j = 0; j < t->nk; j++) {
                int64_t k = pc_alibi_table_k(t, i, j);
                if (t->causal && j > i) judge_masked(w, t, h, i, j);
                else judge(w, t, h, i, j, k < 0 ? -line[-k] : line[k], beta, u_s);
            }
    }
    free(line);
    if (st != PC_OK) return pc_seterr(err, PC_EINTERNAL, "the ALiBi reference failed");
    return PC_OK;
}

static const char *where(const pc_alibi_table *t, const worst *w, char *buf, size_t len)
{
    if (t->form == PC_ALIBI_SLOPES) snprintf(buf, len, "slope of head %d", w->h);
    else
        snprintf(buf, len, "head %d, query %zu, key %zu (bias of distance %" PRId64 ")", w->h,
                 w->i, w->j, w->k);
    return buf;
}

/* What a table's verdict data says (pc_json_object_text's context). */
typedef struct alibi_data {
    const pc_alibi_table *t;
    const worst *w;
    int bias_max, strict;
} alibi_data;

static void data_json(pc_json *j, const void *ctx)
{
    const alibi_data *x = ctx;
    const pc_alibi_table *t = x->t;
    const worst *w = x->w;
    pc_json_int(j, "heads", t->heads);
    pc_json_str(j, "form", t->form == PC_ALIBI_SLOPES ? "slopes"
                : t->form == PC_ALIBI_KEYS ? "keys" : "full");
    pc_json_bool(j, "causal_mask", t->causal);
    pc_json_str(j, "storage", pc_dtype_name(t->dtype));
    pc_json_int(j, "alibi_bias_max", x->bias_max);
    pc_json_str(j, "class", x->strict ? "strict" : "default");
    pc_json_int(j, "values", (long long)w->count);
    pc_json_int(j, "over", (long long)w->over);
    pc_json_obj(j, "worst");
    pc_json_int(j, "head", w->h);
    pc_json_int(j, "query", (long long)w->i);
    pc_json_int(j, "key", (long long)w->j);
    pc_json_int(j, "distance", w->k);
    pc_json_float(j, "got", w->got);
    pc_json_float(j, "exact", w->exact);
    pc_json_num(j, "err", w->err);
    pc_json_num(j, "bound", w->bound);
    pc_json_end(j);
}

static void write_json(pc_verdict *v, const pc_alibi_table *t, const worst *w, int bias_max,
                       int strict)
{
    alibi_data x = { t, w, bias_max, strict };
    v->json = pc_json_object_text(data_json, &x);
}

static void fill(pc_verdict *v, const pc_alibi_table *t, const worst *w, const pc_spec *spec,
                 int strict)
{
    char at[160], cause[900] = "";
    int bias_max = pc_alibi_spec_of(spec)->bias_max;
    v->status = w->over ? PC_FAIL : PC_OK;
    v->measured = w->err;
    v->bound = w->bound;
    snprintf(v->measured_what, sizeof v->measured_what, "|err| of the worst value (by err/bound)");
    if (w->over) pc_alibi_table_cause(t, spec, strict, cause, sizeof cause);
    snprintf(v->summary, sizeof v->summary, "%d heads, %zu values (%s), %s class: %s; worst "
             "err/bound %.3g at %s: %a (%.9g), exact %.9g%s%s", t->heads, w->count,
             t->form_note, strict ? "strict" : "binary32", w->over ? "over the bound" : "within",
             w->ratio, where(t, w, at, sizeof at), w->got, w->got, w->exact,
             cause[0] ? "; likely cause: " : "", cause);
    char *d = NULL;
    if (asprintf(&d, "  %zu values, %zu over the bound (%zu NaN/Inf); %s, %s\n"
                 "  class: %s, alibi_bias_max %d\n  worst (largest err/bound): %s\n"
                 "    got=%a (%.9g) exact=%.17g err=%.3g bound=%.3g\n%s%s%s",
                 w->count, w->over, w->nonfinite, t->form_note, t->dtype_note,
                 pc_alibi_class_name(strict), bias_max, at, w->got, w->got, w->exact, w->err,
                 w->bound, cause[0] ? "  likely cause: " : "", cause, cause[0] ? "\n" : "") >= 0)
        v->details = d;
    write_json(v, t, w, bias_max, strict);
}

pc_status pc_alibi_gate(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    const pc_alibi_table *t = pc_alibi_table_of(impl);
    if (!t) return PC_OK; /* plugins and built-ins: the properties */
    double t0 = pc_now();
    int strict = g->run->strict;
    worst w;
    pc_status st = scan(t, pc_alibi_spec_of(g->spec)->bias_max, strict, &w, g->err);
    if (st != PC_OK) return st;
    pc_verdict *v = pc_gate_verdict(g, impl, fam->name, "alibi-table", NULL);
    if (!v) return pc_gate_oom(g);
    fill(v, t, &w, g->spec, strict);
    v->seconds = pc_now() - t0;
    return PC_OK;
}

/* acc_verdict.c: an accuracy gate's result as a verdict (acc_verdict.h). */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acc_verdict.h"
#include "reference/schedule.h"
#include "harness/io/json.h"
#include "harness/base/dtype.h"

/* " (the pair's position X)" for the worst element W when the schedule
 * maps its row to real coordinates (position ids of a ViT's grid): the
 * row alone would not say where it is ("angle" where the kind's
 * coordinate is the angle itself, coord_word); "" otherwise. */
void pc_acc_coord_text(const pc_acc_cfg *cfg, const pc_witness *w, char *buf, size_t len)
{
    buf[0] = '\0';
    if (cfg->coord_at) { snprintf(buf, len, "%s", cfg->coord_at); return; }
    /* a merged shard run holds a placeholder schedule with no kind
     * (check_shard.c, some_schedule) */
    if (!cfg->sched || !cfg->sched->kind || !cfg->sched->kind->coord) return;
    pc_freqs *f = pc_freqs_new(cfg->d, *cfg->sched);
    if (!f) return;
    int h = cfg->d / 2, pair = cfg->layout == 0 ? w->dim / 2 : w->dim % h;
    const char *word = cfg->sched->kind->coord_word ? cfg->sched->kind->coord_word : "position";
    snprintf(buf, len, " (the pair's %s %.9g)", word, pc_freqs_coord(f, w->pos, pair));
    pc_freqs_free(f);
}


/* A pass where the bound stops constraining some pairs' angles (the long-
 * context note, acc_output.c print_reach): the PASS line says how many,
 * so a pass there is not read as the angles checked. */
static void pass_reach(const pc_acc_cfg *cfg, const pc_acc_result *res, char *buf, size_t len)
{
    const pc_acc_reach *z = &res->reach;
    buf[0] = '\0';
    if (!z->known || cfg->tol_abs >= 0 || z->vac_pairs == 0) return;
    snprintf(buf, len, "; long context: the bound no longer constrains the angle of %d of the %d "
             "pairs (from position %lld, pair %d): their norm alone is checked there",
             z->vac_pairs, cfg->d / 2, (long long)z->vac_pos, z->vac_pair);
}
static void summary(const pc_acc_cfg *cfg, const pc_acc_result *res, const char *fault,
                    const char *own, pc_verdict *v)
{
    const pc_metrics *m = &res->m;
    char at[64];
    pc_acc_coord_text(cfg, &m->worst, at, sizeof at);
    if (fault) {
        snprintf(v->summary, sizeof v->summary, "%s", fault);
    } else if (res->status == PC_SKIP) {
        snprintf(v->summary, sizeof v->summary, "%s", res->note);
    } else if (res->status == PC_FAIL && res->note[0]) {
        snprintf(v->summary, sizeof v->summary, "%s", res->note);
    } else if (res->status == PC_FAIL && own && own[0]) {
        /* the user's own values first (a cache's cos and sin), then the
         * rotated vector's element the gate measured */
        const pc_witness *w = &m->worst;
        snprintf(v->summary, sizeof v->summary, "max |err|/bound %.3g: %llu of %llu values exceed "
                 "the bound%s; worst at pos=%" PRId64 "%s%s, %s; the rotated vector's dim %d: got "
                 "%a (%.9g), exact %a (%.9g), |err| %.3g > bound %.3g", m->max_ratio,
                 (unsigned long long)m->n_over, (unsigned long long)m->count,
                 m->n_nonfinite ? " (NaN/Inf among them)" : "", w->pos, at,
                 pc_witness_alone_differs(w) ? " (asked for alone, n = 1)" : "", own, w->dim,
                 (double)w->got, (double)w->got, w->ref, w->ref, w->err, w->bound);
    } else if (res->status == PC_FAIL) {
        const pc_witness *w = &m->worst;
        snprintf(v->summary, sizeof v->summary, "max |err|/bound %.3g: %llu of %llu values exceed "
                 "the bound%s; worst at pos=%" PRId64 "%s%s dim=%d: got %a (%.9g), exact %a "
                 "(%.9g), |err| %.3g > bound %.3g", m->max_ratio,
                 (unsigned long long)m->n_over, (unsigned long long)m->count,
                 m->n_nonfinite ? " (NaN/Inf among them)" : "", w->pos, at,
                 pc_witness_alone_differs(w) ? " (asked for alone, n = 1)" : "", w->dim, (double)w->got,
                 (double)w->got, w->ref, w->ref, w->err, w->bound);
    } else {
        /* err/bound decides; no ulp count here: near a zero of cos or sin
         * the spacing of the exact value shrinks while the error is
         * absolute, so the largest ulp count says nothing (the details
         * show ulps where they do, accuracy.c print_witness) */
        char reach[200];
        pass_reach(cfg, res, reach, sizeof reach);
        snprintf(v->summary, sizeof v->summary, "max |err|/bound %.3g: %llu values, positions %"
                 PRId64 "..%" PRId64 " d=%d, max |err| %.3g%s%s%s%s", m->max_ratio,
                 (unsigned long long)m->count, cfg->pos_lo, cfg->pos_hi, cfg->d, m->max_abs,
                 cfg->storage ? " [" : "",
                 cfg->storage ? pc_dtype_name(cfg->dtype) : "",
                 !cfg->storage ? "" : cfg->half_arith
                 ? " arithmetic: cos/sin cache, products and sum each rounded (default class; "
                   "--strict: binary32 values rounded once)]"
                 : " storage: binary32 values rounded once]", reach);
    }
}

/* details: the engine's own text report (witnesses, error split, model) */
static void details(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                    const char *fault, const char *context, pc_verdict *v)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    if (fault) fprintf(f, "cause: %s\n", fault);
    if (context) fprintf(f, "%s\n", context);
    if (!fault || res->m.count) {
        if (fault) fprintf(f, "before the fault:\n");
        pc_accuracy_print_text(f, impl, cfg, res);
    }
    if (fclose(f) == 0) v->details = buf;
    else free(buf);
}

/* the JSON data: the engine's fields, the fault, and OWN (the source's own
 * values at the worst witness: "cos[r, j] = ..., sin[r, j] = ...") */
typedef struct acc_data {
    const pc_impl *impl;
    const pc_acc_cfg *cfg;
    const pc_acc_result *res;
    const char *fault, *own;
} acc_data;

static void data_json(pc_json *j, const void *ctx)
{
    const acc_data *x = ctx;
    if (x->fault) pc_json_str(j, "cause", x->fault);
    pc_accuracy_json_fields(j, x->impl, x->cfg, x->res);
    if (x->res->status == PC_FAIL && x->own && x->own[0]) pc_json_str(j, "source_values", x->own);
}

static void json(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                 const char *fault, const char *own, pc_verdict *v)
{
    acc_data x = { impl, cfg, res, fault, own };
    v->json = pc_json_object_text(data_json, &x);
}

void pc_acc_against(const pc_acc_cfg *cfg, char *buf, size_t len)
{
    const char *from = cfg->base_from && cfg->base_from[0] ? cfg->base_from : NULL;
    if (cfg->sched_note)
        snprintf(buf, len, "%.800s%s%.300s", cfg->sched_note, from ? "; base from " : "",
                 from ? from : "");
    else
        snprintf(buf, len, "base %.17g%s%.400s%s, frequencies base^(-2i/d)", cfg->base,
                 from ? " (" : "", from ? from : "", from ? ")" : "");
    /* a strict class holds one formulation: the verdict names it */
    size_t u = strlen(buf);
    if (cfg->strict && cfg->tol_abs < 0 && u < len)
        snprintf(buf + u, len - u, "; strict class %s: %s%s%.200s%s", pc_model_class_name(cfg->strict),
                 cfg->form ? cfg->form->what : "a correctly rounded binary32 frequency and angle",
                 cfg->class_note ? " (" : "", cfg->class_note ? cfg->class_note : "",
                 cfg->class_note ? ")" : "");
}

void pc_acc_verdict(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                    const char *fault, const char *context, pc_verdict *v)
{
    pc_acc_verdict_own(impl, cfg, res, fault, context, NULL, v);
}

void pc_acc_verdict_own(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                        const char *fault, const char *context, const char *own, pc_verdict *v)
{
    v->status = res->status;
    v->seconds = res->seconds;
    v->bound = 1.0;
    snprintf(v->measured_what, sizeof v->measured_what, "max |err|/bound");
    if (res->m.count) v->measured = res->m.max_ratio;
    v->declined = res->status == PC_SKIP && res->impl_rc != 0 && !res->faulted;
    if (res->status != PC_SKIP) pc_acc_against(cfg, v->against, sizeof v->against);
    summary(cfg, res, fault, own, v);
    details(impl, cfg, res, fault, context, v);
    json(impl, cfg, res, fault, own, v);
}

void pc_acc_gate_verdict(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                         pc_verdict *v)
{
    snprintf(v->check, sizeof v->check, "accuracy");
    snprintf(v->family, sizeof v->family, "%s", cfg->family);
    snprintf(v->impl, sizeof v->impl, "%s", impl->name);
    snprintf(v->layout, sizeof v->layout, "%s", pc_layout_name(cfg->layout));
    v->seed = cfg->seed;
    v->measured = (double)NAN;
    v->bound = (double)NAN;
    pc_acc_verdict(impl, cfg, res, NULL, NULL, v);
}

/* accuracy: the foundation's accuracy gate (harness/engine/accuracy.h) as a
 * catalogue entry.  `pecheck check` runs the gate itself before the
 * properties, so this entry runs only when selected with
 * `--property accuracy` (default_off): the gate never runs twice. */
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"
#include "harness/engine/accuracy.h"
#include "harness/io/json.h"
#include "harness/formats/verdict.h"
#include "harness/sources/table.h"
#include "families/spec.h"
#include "families/spec_sched.h"

static pc_status whole(pc_prun *r, void *vv, pc_err *err)
{
    pc_verdict *v = vv;
    pc_acc_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.family = r->family;
    cfg.d = r->params->d;
    cfg.base = r->params->base;
    cfg.layout = r->layout;
    cfg.dtype = r->params->dtype;
    cfg.pos_lo = r->lo;
    cfg.pos_hi = r->hi;
    cfg.seed = r->params->seed;
    cfg.tol_abs = r->params->tol_abs;
    cfg.quiet = 1;
    const pc_table_info *t = pc_table_info_of(r->impl);
    if (t) { /* a table fixes d and the storage, as in the gate */
        pc_table_adjust_cfg(t, &cfg);
        cfg.pos_lo = r->lo;
        cfg.pos_hi = r->hi;
    }
    pc_spec_sched rc; /* the spec's frequency schedule, as in the gate */
    pc_status st = pc_spec_schedule(r->params->spec, &cfg, &rc, err);
    if (st != PC_OK) return st;
    pc_acc_result res;
    st = pc_accuracy_run(r->impl, &cfg, &res, err);
    if (st != PC_OK) { pc_spec_sched_release(&rc); return st; }
    v->status = res.status;
    v->measured = res.m.worst.valid ? res.m.worst.err : 0;
    v->bound = res.m.worst.valid ? res.m.worst.bound : 0;
    snprintf(v->measured_what, sizeof v->measured_what, "|err| of the worst element (by err/bound)");
    if (res.status == PC_SKIP)
        snprintf(v->summary, sizeof v->summary, "skipped: %s", res.note);
    else
        snprintf(v->summary, sizeof v->summary, "%llu elements, max |err|/bound = %.3g, %llu over the bound%s%s",
                 (unsigned long long)res.m.count, res.m.max_ratio, (unsigned long long)res.m.n_over,
                 res.note[0] ? "; " : "", res.note);
    char *text = NULL, *json = NULL;
    size_t tl = 0, jl = 0;
    FILE *f = open_memstream(&text, &tl);
    if (f) { pc_accuracy_print_text(f, r->impl, &cfg, &res); fclose(f); }
    FILE *jf = open_memstream(&json, &jl);
    if (jf) {
        pc_json j;
        pc_json_init(&j, jf);
        pc_json_obj(&j, NULL);
        pc_accuracy_json_fields(&j, r->impl, &cfg, &res);
        pc_json_end(&j);
        fclose(jf);
    }
    v->details = text;
    v->json = json;
    pc_spec_sched_release(&rc);
    return PC_OK;
}

const pc_property pc_prop_accuracy = {
    .name = "accuracy",
    .families = "sinusoidal rope",
    .title = "every element within the precision model's bound of the certified reference",
    .measured_what = "|err| of the worst element (by err/bound)",
    .expect = "|got - ref| <= A*((R*u + min(kappa_i*u*|theta|, 2))*(1+u_s) + u_s) (times the pair "
              "norm for RoPE) for every position in the range and every dimension",
    .math =
        "for every position p in the range and column j: |impl(p)_j - ref(p)_j| <= B_j(p)\n"
        "ref: the exact value correctly rounded (MPFR with a Ziv loop, reference/).",
    .why =
        "The certified reference is the mathematical value, not another float32 program; the\n"
        "bound is what a correct binary32 formulation can reach (docs/precision-model.md).",
    .tolerance =
        "B: radial R*u (sin/cos, rotation), phase kappa_i*u*|theta| (the class's frequency and\n"
        "angle error, 0 for pair 0), storage u_s of --dtype f16/bf16; u = 2^-24 (harness/engine/model.h,\n"
        "docs/precision-model.md); --strict, --max-abs-err E; --tol-abs X replaces it.  Runs only\n"
        "with --property accuracy (`pecheck check` runs the gate itself).",
    .concept_impl = "cos-shifted",
    .concept_note = "the cos of pair i at pair i+1's frequency: the cos columns are of the wrong wave",
    .precision_impl = "plus-1e-4",
    .precision_note = "a correct table plus 1e-4: far above the bound at small positions",
    .default_off = 1,
    .whole = whole,
};

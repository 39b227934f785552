/* identify_form.c: the strict class identify proposes (identify_form.h).
 *
 * A float32 cache whose schedule identify found passes the default class,
 * which admits every mainstream formulation; which one computed it shows
 * in the error's structure: transformers' pow form keeps every pair
 * within a few u of the exact frequency (the hf class), llama.cpp's
 * cumulative product drifts by about i (1 + k_T) u at pair i (the ggml
 * class), and a ggml cache fails hf at high positions (19.5 at 520192 on
 * Llama-3.1, tests/rope_formulation.t).  HF's own caches pass ggml too
 * (its class is wide at the high pairs), so hf, the class that tells the
 * two apart, is proposed first. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "identify_form.h"
#include "formulation_hf.h"
#include "harness/engine/model.h"

static const int probe_class[PC_FORM_PROBES] = { PC_CLASS_HF, PC_CLASS_GGML };

/* One class K's gate of CFG into OUT's slot N. */
static void probe_one(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_rope_params *p, int n,
                      pc_rope_form_probe *out)
{
    pc_acc_cfg c = *cfg;
    c.strict = probe_class[n];
    c.formulation = 1;          /* named: the class itself, never cr in its place */
    c.form = NULL;
    c.quiet = 1;
    void *own = NULL;
    pc_err e;
    if (pc_rope_form_apply(p, &c, &own, &e) != PC_OK) {
        snprintf(out->why[n], sizeof out->why[n], "%.199s", e.msg);
        return;
    }
    pc_acc_result res;
    if (pc_accuracy_run(impl, &c, &res, &e) == PC_OK && !res.faulted && !res.impl_rc
        && res.status != PC_SKIP) {
        out->ran[n] = 1;
        out->ratio[n] = res.m.max_ratio;
        out->pass[n] = res.status == PC_OK;
    }
    free(own);
}

void pc_rope_form_probe_run(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_rope_params *p,
                            pc_rope_form_probe *out)
{
    memset(out, 0, sizeof *out);
    if (p && p->type == PC_ROPE_LONGROPE) {
        out->unprobed = "not proposed: LongRoPE's per-pair factors are fitted from the rows, and a "
                        "strict class would hold the rows to the fit";
        return;
    }
    for (int n = 0; n < PC_FORM_PROBES; n++) {
        probe_one(impl, cfg, p, n, out);
        if (!out->proposed && out->pass[n]) out->proposed = probe_class[n];
    }
}

void pc_rope_form_probe_text(FILE *f, const pc_rope_form_probe *pr)
{
    if (pr->unprobed) {
        fprintf(f, "  formulation: %s\n", pr->unprobed);
        return;
    }
    fprintf(f, "  formulation: %s (", pr->proposed ? pc_model_class_name(pr->proposed)
            : "none of hf and ggml");
    for (int n = 0; n < PC_FORM_PROBES; n++) {
        const char *k = pc_model_class_name(probe_class[n]);
        if (n) fprintf(f, "; ");
        if (pr->ran[n]) fprintf(f, "--formulation %s %s at err/bound %.3g", k,
                                pr->pass[n] ? "passes" : "fails", pr->ratio[n]);
        else fprintf(f, "%s not run: %s", k, pr->why[n][0] ? pr->why[n] : "the gate gave no result");
    }
    fprintf(f, ")\n");
}

void pc_rope_form_probe_json(pc_json *j, const pc_rope_form_probe *pr)
{
    pc_json_obj(j, "formulation");
    if (pr->proposed) pc_json_str(j, "proposed", pc_model_class_name(pr->proposed));
    else pc_json_str(j, "proposed", NULL);
    if (pr->unprobed) {
        pc_json_str(j, "why", pr->unprobed);
        pc_json_end(j);
        return;
    }
    for (int n = 0; n < PC_FORM_PROBES; n++) {
        pc_json_obj(j, pc_model_class_name(probe_class[n]));
        pc_json_bool(j, "ran", pr->ran[n]);
        if (pr->ran[n]) {
            pc_json_bool(j, "pass", pr->pass[n]);
            pc_json_num(j, "err_bound", pr->ratio[n]);
        } else {
            pc_json_str(j, "why", pr->why[n]);
        }
        pc_json_end(j);
    }
    pc_json_end(j);
}

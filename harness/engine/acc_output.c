/* acc_output.c: the accuracy verdict's text and JSON (accuracy.h:
 * pc_accuracy_print_text, pc_accuracy_json_fields, pc_witness_json): the
 * metrics, the witnesses with their split and likely cause, the bound and
 * the long-context note.  accuracy.c runs the gate; what these need of its
 * internals (the element bound, the strict class's reading) it exports. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "accuracy.h"
#include "fitmodel.h"
#include "model.h"
#include "harness/base/dtype.h"
#include "families/family.h"
#include "reference/schedule.h"

/* ---- output ---------------------------------------------------------- */

static const char *verdict(pc_status s)
{
    return s == PC_OK ? "PASS" : s == PC_FAIL ? "FAIL" : s == PC_SKIP ? "SKIP" : "ERROR";
}

static void print_float(FILE *f, const char *label, double v)
{
    fprintf(f, "%s=%a (%.9g)", label, v, v);
}

/* One line on the likely cause, when the pattern is recognisable. */
static const char *likely_cause(const pc_witness *w)
{
    if (!w->valid) return NULL;
    if (w->batched && w->batched_ratio <= 1.0)
        return "the position asked for alone (n = 1, the shape of a decode step) is off while "
               "the same position in a call of several is within its bound: the kernel's "
               "single-position path differs from its batched one";
    if (!isfinite(w->got))
        return "the implementation produced NaN or Inf";
    if (w->has_split >= 1 && fabs(w->norm_err) > 1e-3)
        return "the pair is not on the circle of the reference (its norm is off): a member is "
               "missing or uses another frequency (sin-only, mismatched frequencies), or the "
               "values carry an offset";
    if (w->has_split == 2 && w->angle_part > 2.0 * w->eval_part)
        return "the error comes from the angle pos*omega the implementation computed, not from "
               "sin/cos: the position or angle is held in too little precision";
    if (w->has_split >= 1 && fabs(w->angle_err) > 4.0 * fabs(w->norm_err))
        return "the pair points the wrong way but has the right length: the angle is wrong "
               "(low-precision position or angle, or error accumulated along the positions)";
    if (w->theta == 0.0)
        return "an error at angle 0, where sin and cos are exact: the values themselves are off";
    return NULL;
}

static void print_class_why(FILE *f, const pc_acc_cfg *cfg, const pc_witness *w)
{
    char buf[512];
    if (pc_accuracy_class_why(buf, sizeof buf, cfg, w)) fprintf(f, "  %s\n", buf);
}

/* 1 when CFG's schedule maps a row to its pairs' positions (position
 * ids: the rows are not the positions). */
static int rows_mapped(const pc_acc_cfg *cfg)
{
    return cfg->sched && cfg->sched->kind && cfg->sched->kind->position;
}

/* The long-context note: where the budget stops constraining (model.h);
 * reached when a pair of the run is rotated that far (vac_pairs). */
static void print_reach(FILE *f, const pc_acc_cfg *cfg, const pc_acc_result *res)
{
    const pc_acc_reach *z = &res->reach;
    if (!z->known || cfg->tol_abs >= 0 || z->vac_pairs == 0) return;
    fprintf(f, "  long context: from position %lld the bound of pair %d exceeds %g of the pair's "
            "norm; ", (long long)z->vac_pos, z->vac_pair, PC_MODEL_VACUOUS);
    if (rows_mapped(cfg))
        fprintf(f, "at the largest positions of the rows' ids it no longer constrains %d of the %d "
                "pairs. ", z->vac_pairs, cfg->d / 2);
    else
        fprintf(f, "at position %lld it no longer constrains %d of the %d pairs. ",
                (long long)cfg->pos_hi, z->vac_pairs, cfg->d / 2);
    if (z->rep_pos != INT64_MAX)
        fprintf(f, "From position %lld a binary32 angle pos*omega cannot represent the angle of "
                "pair %d to %g rad (its rounding alone, u|theta|). ", (long long)z->rep_pos,
                z->rep_pair, PC_MODEL_VACUOUS);
    fprintf(f, "There the gate checks the angle of the exactly computed pairs only, and the norm "
            "of every pair: one whose norm is off by more than sqrt(2) times the bound's part "
            "that is not the angle's is held to that part alone.  Compute the "
            "angles in binary64 and round the values once, or split positions (pos = q*2^k + r: "
            "the rotation by r*omega composed with an exact one by q*2^k*omega), and give "
            "--max-abs-err E for an absolute budget.\n");
}

static void print_witness(FILE *f, const char *title, const pc_witness *w, const char *pair)
{
    if (!w->valid) return;
    fprintf(f, "  %s: pos=%lld%s dim=%d ", title, (long long)w->pos,
            pc_witness_alone_differs(w) ? " (asked for alone, n = 1)" : "", w->dim);
    print_float(f, "got", (double)w->got);
    fputc(' ', f);
    print_float(f, "ref", w->ref);
    fprintf(f, "\n      |err| = %.3g vs bound %.3g (err/bound %.3g)", w->err, w->bound,
            w->bound > 0 ? w->err / w->bound : (double)INFINITY);
    /* an ulp count only where it means something: the exact value at
     * least 2^-4 (RoPE's and sinusoidal's values are O(1)); nearer a zero
     * of cos or sin the binary32 spacing shrinks (to 2^-149) while the
     * error stays absolute */
    if (fabs(w->ref) >= 0x1p-4 && isfinite(w->ulp))
        fprintf(f, " = %.3g ulp of the exact value", w->ulp);
    fprintf(f, ", theta = pos*omega = %.9g\n", w->theta);
    if (w->has_split >= 1)
        fprintf(f, "      split: the %s pair is off by %.3g rad in angle and %.3g in relative norm\n",
                pair, w->angle_err, w->norm_err);
    if (w->has_split == 2)
        fprintf(f, "      the implementation's angle %a (%.9g) is off by %.3g; from the angle: %.3g, "
                "from sin/cos evaluation: %.3g\n", (double)w->theta_impl, (double)w->theta_impl,
                (double)w->theta_impl - w->theta, w->angle_part, w->eval_part);
    if (w->batched)
        fprintf(f, "      the same element in a call of %d positions: err/bound %.3g\n",
                w->batched_n, w->batched_ratio);
}

void pc_accuracy_print_text(FILE *f, const pc_impl *impl, const pc_acc_cfg *cfg,
                            const pc_acc_result *res)
{
    const pc_rows *rw = pc_accuracy_rows_of(cfg);
    fprintf(f, "%s  %s  %s d=%d base=%g layout=%s dtype=%s positions %lld..%lld",
            verdict(res->status), impl->name, cfg->family, cfg->d, cfg->base,
            pc_layout_name(cfg->layout), pc_dtype_name(cfg->dtype),
            (long long)cfg->pos_lo, (long long)cfg->pos_hi);
    if (rw->input) fprintf(f, " seed=%llu", (unsigned long long)cfg->seed);
    fputc('\n', f);
    if (cfg->sched_note) fprintf(f, "  %s\n", cfg->sched_note);
    if (res->status == PC_SKIP || res->note[0]) {
        fprintf(f, "  %s\n", res->note);
        if (res->status == PC_SKIP) return;
    }
    const pc_metrics *m = &res->m;
    char model[320];
    pc_model_describe_budget(model, sizeof model, res->C, cfg->strict, cfg->dtype, cfg->tol_abs,
                             rw->input, cfg->form ? 2 : cfg->sched != NULL || cfg->kappa_sched);
    if (cfg->half_arith && cfg->tol_abs < 0)
        snprintf(model, sizeof model, "|err| <= |pair|*A*(R*u + min(kappa_i*u*|theta|, 2) + "
                 "(1+R*u)*((1+u_s)^3 - 1)) + u_min*(sqrt(2)*|pair| + 3): %s arithmetic (cos/sin "
                 "cache, products and sum each rounded: docs/schedules.md), default class, kappa_i "
                 "largest %.4g, u = 2^-24, u_s = %s, u_min = %s", pc_dtype_name(cfg->dtype), res->C,
                 cfg->dtype == PC_DT_BF16 ? "2^-8" : "2^-11",
                 cfg->dtype == PC_DT_BF16 ? "2^-134" : "2^-25");
    if (cfg->max_abs_err > 0 && cfg->tol_abs < 0) {
        size_t k = strlen(model);
        snprintf(model + k, sizeof model - k, "; and |err| <= %g (--max-abs-err)", cfg->max_abs_err);
    }
    fprintf(f, "  %llu values: max |err|/bound %.3g, max abs err %.3g, rms %.3g, nmse %.3g, "
            "%.2f%% correctly rounded\n", (unsigned long long)m->count, m->max_ratio, m->max_abs,
            pc_rms(m), pc_nmse(m), m->count ? 100.0 * (double)m->n_exact / (double)m->count : 0.0);
    fprintf(f, "  bound: %s\n", model);
    if (res->status == PC_FAIL && m->n_over > 0) {
        fprintf(f, "  %llu values exceed the bound", (unsigned long long)m->n_over);
        if (m->n_nonfinite) fprintf(f, " (%llu NaN/Inf)", (unsigned long long)m->n_nonfinite);
        fprintf(f, "; the first at pos=%lld\n", (long long)m->first_over.pos);
        print_witness(f, "worst (largest err/bound)", &m->worst, rw->pair_name);
        print_class_why(f, cfg, &m->worst);
        const char *cause = likely_cause(&m->worst);
        if (impl->flaw) fprintf(f, "  known flaw: %s\n", impl->flaw);
        else if (cause)
            fprintf(f, "  %s: %s\n", cfg->cause_given ? "the worst element alone suggests"
                                                       : "likely cause", cause);
    } else if (res->status != PC_FAIL) {
        print_witness(f, "largest error", &m->worst_abs, rw->pair_name);
        fprintf(f, "  largest err/bound = %.3g\n", m->max_ratio);
    }
    print_reach(f, cfg, res);
}

void pc_witness_json(pc_json *j, const char *key, const pc_witness *w)
{
    if (!w->valid) { pc_json_str(j, key, NULL); return; }
    pc_json_obj(j, key);
    pc_json_int(j, "pos", w->pos);
    pc_json_int(j, "dim", w->dim);
    pc_json_float(j, "got", (double)w->got);
    pc_json_float(j, "ref", w->ref);
    pc_json_float(j, "ref_f32", (double)w->ref32);
    pc_json_num(j, "abs_err", w->err);
    pc_json_num(j, "ulp_err", w->ulp);
    pc_json_num(j, "bound", w->bound);
    pc_json_num(j, "theta", w->theta);
    if (w->alone) pc_json_bool(j, "asked_alone", 1);
    if (w->batched) {
        pc_json_num(j, "batched_err_over_bound", w->batched_ratio);
        pc_json_int(j, "batched_positions", w->batched_n);
    }
    if (w->has_split >= 1) {
        pc_json_obj(j, "split");
        pc_json_num(j, "angle_err_rad", w->angle_err);
        pc_json_num(j, "norm_err_rel", w->norm_err);
        if (w->has_split == 2) {
            pc_json_float(j, "impl_angle", (double)w->theta_impl);
            pc_json_num(j, "from_angle", w->angle_part);
            pc_json_num(j, "from_evaluation", w->eval_part);
        }
        pc_json_end(j);
    }
    pc_json_end(j);
}

/* The family's strict class (cfg->form) as JSON: per pair its kappa_i,
 * the formulation's frequency error k_i (units of u) and, where it has
 * them (hf; not ggml, whose angle is a product), the binary32 frequencies
 * it can produce (each once). */
static void form_json(pc_json *j, const pc_acc_cfg *cfg)
{
    const pc_acc_form *f = cfg->form;
    pc_json_obj(j, "formulation");
    pc_json_str(j, "name", pc_model_class_name(cfg->strict));
    pc_json_str(j, "what", f->what);
    pc_json_arr(j, "kappa");
    for (int i = 0; i < cfg->d / 2; i++) pc_json_num(j, NULL, f->kappa[i]);
    pc_json_end(j);
    pc_json_arr(j, "k");
    for (int i = 0; i < cfg->d / 2; i++) pc_json_num(j, NULL, f->k[i]);
    pc_json_end(j);
    if (!f->cand) {
        pc_json_end(j);
        return;
    }
    pc_json_arr(j, "omega");
    for (int i = 0; i < cfg->d / 2; i++) {
        const float *c = f->cand + PC_ACC_FORM_CANDS * i; /* ascending: each value once */
        pc_json_arr(j, NULL);
        for (int k = 0; k < PC_ACC_FORM_CANDS; k++)
            if (k == 0 || c[k] != c[k - 1]) pc_json_num(j, NULL, (double)c[k]);
        pc_json_end(j);
    }
    pc_json_end(j);
    pc_json_end(j);
}

/* The JSON's "bound": the budget's model and members, as the text says it. */
static void bound_json(pc_json *j, const pc_acc_cfg *cfg, const pc_rows *rw,
                       const pc_acc_result *res)
{
    pc_json_obj(j, "bound");
    if (cfg->tol_abs >= 0) {
        pc_json_str(j, "model", "absolute");
        pc_json_num(j, "tol_abs", cfg->tol_abs);
    } else {
        pc_json_str(j, "model", cfg->half_arith ? "|pair|*A*(R*u+min(kappa_i*u*|theta|,2)+(1+R*u)*"
                    "((1+u_s)^3-1))+u_min*(sqrt(2)*|pair|+3)" : rw->model);
        pc_json_str(j, "class", pc_model_class_name(cfg->strict));
        if (cfg->storage || pc_model_u_storage(cfg->dtype) > 0)
            pc_json_str(j, "storage", pc_dtype_name(cfg->dtype));
        /* a merged result has the shards' R (harness/shard/shard.c); a run
         * that ended before its first block has none */
        pc_json_num(j, "R", res->R > 0 ? res->R : pc_model_radial(rw->input, 1.0));
        pc_json_num(j, "C", res->C);
        pc_json_str(j, "C_formula", cfg->form ? "the largest kappa_i (per pair, computed from the "
                    "formulation's binary32 operations: docs/precision-model.md) times the attention "
                    "factor" : (cfg->sched || cfg->kappa_sched) && !cfg->strict
                    ? PC_ACC_C_SCHED : "the largest kappa_i of the class (docs/precision-model.md)");
        pc_json_num(j, "u", res->u);
        pc_json_num(j, "u_s", pc_model_u_storage(cfg->dtype));
        pc_json_str(j, "u_definition", "u: binary32's unit roundoff 2^-24 (every value is "
                    "computed in binary32); u_s: the storage's unit roundoff (--dtype f16 2^-11, "
                    "bf16 2^-8; 0 for binary32 values)");
        if (cfg->storage)
            pc_json_int(j, "storage_roundings", cfg->half_arith ? 3 : 1);
        if (cfg->max_abs_err > 0) pc_json_num(j, "max_abs_err", cfg->max_abs_err);
        if (cfg->form) form_json(j, cfg);
    }
    pc_json_str(j, "ulp_definition", "2^(max(e,-126)-23) for the binary32 reference in [2^e, 2^(e+1))");
    pc_json_end(j);
}

/* The long-context note as JSON (null when not computed or under --tol-abs). */
static void reach_json(pc_json *j, const pc_acc_cfg *cfg, const pc_acc_reach *z)
{
    if (!z->known || cfg->tol_abs >= 0) { pc_json_str(j, "long_context", NULL); return; }
    pc_json_obj(j, "long_context");
    pc_json_num(j, "vacuous_share", PC_MODEL_VACUOUS);
    if (z->vac_pos != INT64_MAX) {
        pc_json_int(j, "bound_vacuous_from_pos", z->vac_pos);
        pc_json_int(j, "bound_vacuous_pair", z->vac_pair);
    } else {
        pc_json_str(j, "bound_vacuous_from_pos", NULL);
    }
    pc_json_int(j, "pairs_unconstrained_at_end", z->vac_pairs);
    if (z->rep_pos != INT64_MAX) {
        pc_json_int(j, "f32_angle_unrepresentable_from_pos", z->rep_pos);
        pc_json_int(j, "f32_angle_unrepresentable_pair", z->rep_pair);
    } else {
        pc_json_str(j, "f32_angle_unrepresentable_from_pos", NULL);
    }
    pc_json_bool(j, "reached", z->vac_pairs > 0);
    if (z->vac_pairs > 0)
        pc_json_str(j, "advice", "compute the angles in binary64 and round the values once, or split "
                    "positions (pos = q*2^k + r); --max-abs-err E adds an absolute budget");
    pc_json_end(j);
}

static void exact_sum_json(pc_json *j, const char *key, const pc_xsum *x, double blk)
{
    pc_xsum t = *x;
    pc_xsum_add(&t, blk);
    double terms[64]; /* an expansion of a binary64-range sum has at most 40 terms */
    int n = pc_xsum_expansion(&t, terms, 64);
    if (n < 0) { pc_json_str(j, key, NULL); return; } /* not finite */
    pc_json_arr(j, key);
    for (int k = 0; k < n; k++) {
        char buf[40];
        snprintf(buf, sizeof buf, "%a", terms[k]);
        pc_json_str(j, NULL, buf);
    }
    pc_json_end(j);
}

void pc_accuracy_json_fields(pc_json *j, const pc_impl *impl, const pc_acc_cfg *cfg,
                             const pc_acc_result *res)
{
    const pc_rows *rw = pc_accuracy_rows_of(cfg);
    pc_json_str(j, "implementation", impl->name);
    pc_json_str(j, "family", cfg->family);
    pc_json_obj(j, "params");
    pc_json_int(j, "d", cfg->d);
    pc_json_num(j, "base", cfg->base);
    if (cfg->base_from) pc_json_str(j, "base_from", cfg->base_from);
    /* the schedule the text's second line names (a shard's merge says it too) */
    if (cfg->sched_note) pc_json_str(j, "schedule", cfg->sched_note);
    pc_json_str(j, "layout", pc_layout_name(cfg->layout));
    pc_json_str(j, "dtype", pc_dtype_name(cfg->dtype));
    pc_json_obj(j, "positions");
    pc_json_int(j, "start", cfg->pos_lo);
    pc_json_int(j, "end", cfg->pos_hi);
    pc_json_end(j);
    pc_json_end(j);
    pc_json_int(j, "seed", (long long)cfg->seed);
    if (cfg->shard_n > 1) { /* only in a shard's result: a merged one has none */
        pc_json_obj(j, "shard");
        pc_json_int(j, "k", cfg->shard_k);
        pc_json_int(j, "n", cfg->shard_n);
        pc_json_end(j);
    }
    const char *status = res->status == PC_OK ? "pass" : res->status == PC_FAIL ? "fail" :
                         res->status == PC_SKIP ? "skip" : "error";
    pc_json_str(j, "status", status);
    if (res->note[0]) pc_json_str(j, "note", res->note);
    const pc_metrics *m = &res->m;
    pc_json_int(j, "values", (long long)m->count);
    pc_json_int(j, "values_over_bound", (long long)m->n_over);
    pc_json_int(j, "values_nonfinite", (long long)m->n_nonfinite);
    pc_json_int(j, "values_correctly_rounded", (long long)m->n_exact);
    pc_json_num(j, "max_abs_err", m->max_abs);
    pc_json_num(j, "max_ulp_err", m->max_ulp);
    pc_json_num(j, "rms_err", pc_rms(m));
    pc_json_num(j, "nmse", pc_nmse(m));
    pc_json_num(j, "max_err_over_bound", m->max_ratio);
    /* the exact sums behind rms and nmse, as exact expansions (hex binary64
     * terms, largest first): `pecheck merge` adds shards' sums exactly */
    exact_sum_json(j, "sum_sq_err_exact", &m->xsq_err, m->blk_sq_err);
    exact_sum_json(j, "sum_sq_ref_exact", &m->xsq_ref, m->blk_sq_ref);
    if (res->faulted) { /* the block whose call faulted: `pecheck merge` stops there */
        pc_json_obj(j, "fault");
        pc_json_int(j, "start", res->fault_lo);
        pc_json_end(j);
    }
    if (res->impl_rc) {
        pc_json_obj(j, "impl_error");
        pc_json_int(j, "rc", res->impl_rc);
        pc_json_int(j, "start", res->impl_rc_lo);
        pc_json_int(j, "end", res->impl_rc_hi);
        pc_json_end(j);
    }
    bound_json(j, cfg, rw, res);
    reach_json(j, cfg, &res->reach);
    char why[512];
    if (res->status == PC_FAIL && pc_accuracy_class_why(why, sizeof why, cfg, &m->worst))
        pc_json_str(j, "class_note", why);
    pc_witness_json(j, "worst", &m->worst);
    pc_witness_json(j, "max_abs_at", &m->worst_abs);
    pc_witness_json(j, "first_over_bound", &m->first_over);
    pc_json_num(j, "seconds", res->seconds);
}

/* identify_gate.c: the accuracy gate `pecheck check` runs with an
 * identified schedule on a table's rows (pc_rope_ident_gate, identify.h):
 * identify says FOUND only when it passes (docs/identify.md, "The accuracy
 * gate before FOUND"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "identify.h"
#include "identify_form.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"
#include "harness/base/rng.h"
#include "harness/sources/table.h"

/* check's accuracy configuration of the reading ID on the table T's rows
 * (P and S hold its schedule; pc_rope_params_free(P) after): 0, or -1. */
static int gate_cfg(const pc_table_info *t, const pc_rope_ident *id, int layout, int dtype,
                    pc_rope_params *p, pc_schedule *s, pc_acc_cfg *c)
{
    pc_err e;
    if (pc_rope_ident_params(id, p, &e) != PC_OK) return -1;
    *s = pc_rope_schedule(p);
    memset(c, 0, sizeof *c);
    c->family = "rope";
    c->seed = PC_DEFAULT_SEED;   /* check's default --seed */
    c->tol_abs = -1.0;           /* the precision model, as check without --tol-abs */
    c->quiet = 1;
    pc_table_adjust_cfg(t, c);
    c->layout = layout;
    c->base = p->base;
    c->base_from = NULL;
    /* --base alone: check's geometric schedule of the base, whose
     * precision-model constants are not those of a prepared default */
    c->sched = id->type == PC_ROPE_DEFAULT ? NULL : s;
    /* check_args' --dtype when the storage was found from the values */
    c->dtype = dtype;
    c->storage = dtype == PC_DT_BF16 || dtype == PC_DT_F16;
    return 0;
}

static int gate_rows(const pc_impl *impl, const pc_table_info *t, const pc_rope_ident *id,
                     int layout, int dtype, double *ratio)
{
    pc_rope_params p;
    pc_schedule s;
    pc_acc_cfg c;
    if (gate_cfg(t, id, layout, dtype, &p, &s, &c) != 0) return -1;
    pc_err e;
    pc_acc_result res;
    int rc = -1;
    if (pc_accuracy_run(impl, &c, &res, &e) == PC_OK && !res.faulted && !res.impl_rc
        && res.status != PC_SKIP) {
        *ratio = res.m.max_ratio;
        rc = res.status == PC_OK;
    }
    pc_rope_params_free(&p);
    return rc;
}

int pc_rope_ident_gate(const pc_impl *impl, const pc_rope_ident *id, int layout, int dtype,
                       int64_t at, double *ratio)
{
    const pc_table_info *t = pc_table_info_of(impl);
    if (!t) return -1;
    int64_t own = t->pos_lo;
    /* a whole offset moves the rows' positions: read them there for the
     * gate, put back after (no other call of the hooks meanwhile) */
    if (at != own && pc_table_set_pos_start(impl, at) != 0) return -1;
    int rc = gate_rows(impl, t, id, layout, dtype, ratio);
    if (at != own) (void)pc_table_set_pos_start(impl, own);
    return rc;
}

int pc_rope_ident_gate_form(const pc_impl *impl, const pc_rope_ident *id, int layout, int dtype,
                            int64_t at, pc_rope_form_probe *out)
{
    const pc_table_info *t = pc_table_info_of(impl);
    if (!t) return -1;
    int64_t own = t->pos_lo;
    if (at != own && pc_table_set_pos_start(impl, at) != 0) return -1;
    pc_rope_params p;
    pc_schedule s;
    pc_acc_cfg c;
    int rc = gate_cfg(t, id, layout, dtype, &p, &s, &c);
    if (rc == 0) {
        pc_rope_form_probe_run(impl, &c, c.sched ? &p : NULL, out);
        pc_rope_params_free(&p);
    }
    if (at != own) (void)pc_table_set_pos_start(impl, own);
    return rc;
}

#define ANCHORED_MAX 8     /* readings of the anchored frequencies gated (polish.c) */
/* The model's relative error each refit round anchors with: a ramp or
 * band read from the fit's frequencies, then from anchored ones */
static const double model_rel[] = { 1e-3, 1e-4, 1e-5 };
#define N_ROUNDS (sizeof model_rel / sizeof model_rel[0])

typedef struct saved_fit {
    double *omega, *omega_ls, *err;
    int *resolved;
} saved_fit;

static int fit_save(const pc_rope_fit *f, saved_fit *s)
{
    size_t h = (size_t)f->h;
    s->omega = malloc(h * sizeof *s->omega);
    s->omega_ls = malloc(h * sizeof *s->omega_ls);
    s->err = malloc(h * sizeof *s->err);
    s->resolved = malloc(h * sizeof *s->resolved);
    if (!s->omega || !s->omega_ls || !s->err || !s->resolved) return 0;
    memcpy(s->omega, f->omega, h * sizeof *s->omega);
    if (f->omega_ls) memcpy(s->omega_ls, f->omega_ls, h * sizeof *s->omega_ls);
    for (size_t i = 0; i < h; i++) s->err[i] = f->omega_err ? f->omega_err[i] : (double)NAN;
    memcpy(s->resolved, f->resolved, h * sizeof *s->resolved);
    return 1;
}

static void fit_restore(pc_rope_fit *f, const saved_fit *s)
{
    size_t h = (size_t)f->h;
    memcpy(f->omega, s->omega, h * sizeof *s->omega);
    if (f->omega_ls) memcpy(f->omega_ls, s->omega_ls, h * sizeof *s->omega_ls);
    if (f->omega_err) memcpy(f->omega_err, s->err, h * sizeof *s->err);
    memcpy(f->resolved, s->resolved, h * sizeof *s->resolved);
}

static void saved_free(saved_fit *s)
{
    free(s->omega); free(s->omega_ls); free(s->err); free(s->resolved);
}

/* ID's frequencies (d/2, malloc'd), or NULL. */
static double *ident_omega(const pc_rope_ident *id)
{
    pc_rope_params p;
    pc_err e;
    if (pc_rope_ident_params(id, &p, &e) != PC_OK) return NULL;
    pc_freqs *fr = pc_freqs_new(id->d, pc_rope_schedule(&p));
    double *w = fr ? malloc((size_t)(id->d / 2) * sizeof *w) : NULL;
    for (int i = 0; w && i < id->d / 2; i++) w[i] = pc_freqs_omega(fr, i);
    pc_freqs_free(fr);
    pc_rope_params_free(&p);
    return w;
}

typedef struct anchored_run {
    const pc_impl *impl;
    int d, layout, dtype;
    double base;
    int64_t lo, hi;
    pc_rope_fit *f;
} anchored_run;

/* C refitted in rounds, each anchoring the pairs still loose at C's own
 * frequencies and refitting C's type to them, gated after each: 1 (C the
 * reading that passed) or 0 (F as it was). */
static int refit_rounds(const anchored_run *a, pc_rope_ident *c, double *ratio)
{
    saved_fit sv;
    int pass = 0;
    if (!fit_save(a->f, &sv)) { saved_free(&sv); return 0; }
    for (size_t k = 0; k < N_ROUNDS && !pass; k++) {
        double *w = ident_omega(c);
        if (!w) break;
        pc_rope_fit_anchor(a->impl, a->d, a->base, a->layout, a->lo, a->hi, a->f, w, model_rel[k]);
        free(w);
        pc_rope_ident next;
        if (pc_rope_ident_candidates(a->f, c, &next, 1) != 1) break;
        if (next.type != c->type) { pc_rope_ident_free(&next); break; }
        pc_rope_ident_free(c);
        *c = next;
        pass = pc_rope_ident_gate(a->impl, c, a->layout, a->dtype, a->lo, ratio) == 1;
    }
    fit_restore(a->f, &sv);
    saved_free(&sv);
    return pass;
}

/* V to K significant digits. */
static double digits(double v, int k)
{
    if (!(v > 0) || !isfinite(v)) return v;
    double q = pow(10.0, floor(log10(v)) - (k - 1));
    return round(v / q) * q;
}

/* 1 when a strict class (hf, ggml) that BEFORE passed fails ID's gate on
 * A's rows: a rounding the strict classes tell apart (a base 123456.702
 * fitted for 123456.7 passes hf; rounded to 123457 it fails at 27). */
static int strict_lost(const anchored_run *a, const pc_rope_ident *id,
                       const pc_rope_form_probe *before)
{
    pc_rope_form_probe after;
    if (pc_rope_ident_gate_form(a->impl, id, a->layout, a->dtype, a->lo, &after) != 0) return 1;
    for (int k = 0; k < PC_FORM_PROBES; k++)
        if (before->pass[k] && !after.pass[k]) return 1;
    return 0;
}

/* *V (a fitted base or factor of ID) to the fewest significant digits,
 * within 1e-5 of it, under which the gate still passes and, on float32
 * rows, no strict class that passed the fitted value fails (a fitted
 * 9999.99997 is base 10000: what a config holds); 1 when changed. */
static int tidy_one(const anchored_run *a, pc_rope_ident *id, double *v, double *ratio)
{
    double was = *v;
    pc_rope_form_probe before;
    int strict = a->dtype == PC_DT_F32
                 && pc_rope_ident_gate_form(a->impl, id, a->layout, a->dtype, a->lo, &before) == 0;
    for (int k = 1; k <= 9; k++) {
        double t = digits(was, k);
        if (t == was || !(fabs(t / was - 1.0) < 1e-5)) continue;
        *v = t;
        double r = 0;
        if (pc_rope_ident_gate(a->impl, id, a->layout, a->dtype, a->lo, &r) == 1
            && !(strict && strict_lost(a, id, &before))) {
            *ratio = r;
            return 1;
        }
    }
    *v = was;
    return 0;
}

/* The note of ID once its base FITTED was rounded (tidy_one): the clause
 * saying the fitted base is given as it is would now be false. */
static void tidy_note(pc_rope_ident *id, double fitted)
{
    static const char as_is[] = "the fitted base is given as it is";
    char *at = strstr(id->note, as_is);
    char said[320];
    snprintf(said, sizeof said, "the fitted base %.9g is given rounded to %.9g, the fewest "
             "digits under which the accuracy gate passes and no strict class that passed the "
             "fitted value fails (these rows tell them apart no better)",
             fitted, id->base);
    size_t u = at ? (size_t)(at - id->note) : strlen(id->note);
    char rest[sizeof id->note];
    snprintf(rest, sizeof rest, "%s", at ? at + strlen(as_is) : "");
    snprintf(id->note + u, sizeof id->note - u, "%s%s%s", !at && u ? "; " : "", said, rest);
}

/* A reading that passed with fitted digits: its factors (llama3's band
 * too), then its base, as round as the gate allows; a linear factor 1 is the default schedule. */
static void tidy(const anchored_run *a, pc_rope_ident *id, double *ratio)
{
    if (id->type == PC_ROPE_LINEAR || id->type == PC_ROPE_YARN || id->type == PC_ROPE_LLAMA3)
        (void)tidy_one(a, id, &id->factor, ratio);
    if (id->type == PC_ROPE_LLAMA3) { /* the band's factors, before the base they shift */
        (void)tidy_one(a, id, &id->lf, ratio);
        (void)tidy_one(a, id, &id->hf, ratio);
    }
    double fitted = id->base;
    if (tidy_one(a, id, &id->base, ratio)) tidy_note(id, fitted);
    if (id->type == PC_ROPE_LINEAR && id->factor == 1.0) {
        double r = 0;
        id->type = PC_ROPE_DEFAULT;
        if (pc_rope_ident_gate(a->impl, id, a->layout, a->dtype, a->lo, &r) == 1) *ratio = r;
        else id->type = PC_ROPE_LINEAR;
    }
}

int pc_rope_ident_anchored(const pc_impl *impl, int d, double base, int layout, int64_t lo,
                           int64_t hi, double u_s, int dtype, const pc_rope_ident *id,
                           int schedules_only, pc_rope_ident *out, double *ratio)
{
    pc_rope_fit f;
    if (pc_rope_fit_run(impl, d, base, layout, lo, hi, u_s, &f) != PC_OK) return -1;
    pc_rope_fit_anchor(impl, d, base, layout, lo, hi, &f, NULL, 0);
    anchored_run a = { impl, d, layout, dtype, base, lo, hi, &f };
    pc_rope_ident cand[ANCHORED_MAX];
    int n = pc_rope_ident_candidates(&f, id, cand, ANCHORED_MAX), hit = -1;
    /* in order, each as it is, then refitted at its own frequencies (a
     * ramp or band that the first anchoring did not reach): a schedule's
     * reading before the factor per pair that explains any cache */
    for (int k = 0; k < n && hit < 0; k++)
        if (schedules_only && cand[k].type == PC_ROPE_LONGROPE) continue;
        else if (pc_rope_ident_gate(impl, &cand[k], layout, dtype, lo, ratio) == 1
            || (cand[k].type != PC_ROPE_LONGROPE && refit_rounds(&a, &cand[k], ratio)))
            hit = k;
    for (int j = 0; j < n; j++)
        if (j != hit) pc_rope_ident_free(&cand[j]);
    int found = hit >= 0;
    if (found) {
        tidy(&a, &cand[hit], ratio);
        *out = cand[hit];
        size_t u = strlen(out->note);
        snprintf(out->note + u, sizeof out->note - u, "%sfitted to the phases of the rows at "
                 "their own positions (the fit's reading failed the gate)", u ? "; " : "");
    }
    pc_rope_fit_free(&f);
    return found ? 1 : 0;
}

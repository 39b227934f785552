/* gate.c: the helpers of the families' gates in `pecheck check`, and the
 * accuracy gate of the families with certified rows. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "acc_verdict.h"
#include "accuracy.h"
#include "fitmodel.h"
#include "fitsums.h"
#include "gate.h"
#include "harness/sandbox/hook.h"
#include "harness/io/json.h"
#include "properties/params.h"
#include "rowdigest.h"
#include "harness/sources/table.h"
#include "families/spec_sched.h"

pc_verdict *pc_gate_verdict(pc_gate *c, const pc_impl *impl, const char *family,
                            const char *check, const char *layout)
{
    pc_verdict *v = pc_verdicts_add(c->vs);
    if (!v) return NULL;
    snprintf(v->check, sizeof v->check, "%s", check);
    snprintf(v->family, sizeof v->family, "%s", family);
    snprintf(v->impl, sizeof v->impl, "%s", impl->name);
    snprintf(v->layout, sizeof v->layout, "%s", layout ? layout : "");
    v->seed = c->run->seed;
    v->measured = (double)NAN;
    v->bound = (double)NAN;
    return v;
}

pc_status pc_gate_oom(pc_gate *c)
{
    return pc_seterr(c->err, PC_ENOMEM, "out of memory");
}

/* ---- the accuracy gate ------------------------------------------------- */

void pc_gate_acc_context(const pc_impl *impl, char *buf, size_t len)
{
    const pc_table_info *t = pc_table_info_of(impl);
    buf[0] = '\0';
    if (t) snprintf(buf, len, "table: %s\nstorage: %.150s%s%.200s", t->layout_note,
                    t->dtype_note, t->base_note[0] ? "\n" : "", t->base_note);
}

void pc_gate_acc_render(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                        const char *fault, const char *table, const char *likely, const char *own,
                        pc_verdict *v)
{
    char context[3400];
    snprintf(context, sizeof context, "%s", table);
    if (likely[0]) {
        size_t l = strlen(context);
        snprintf(context + l, sizeof context - l, "%slikely cause: %.2000s", l ? "\n" : "", likely);
    }
    pc_acc_cfg shown = *cfg; /* the family's cause comes first; the witness's is its own */
    shown.cause_given = likely[0] != '\0';
    pc_acc_verdict_own(impl, &shown, res, fault, context[0] ? context : NULL, own, v);
    if (likely[0]) /* the summary names it too: its first line, the best-supported cause */
        pc_verdict_add_cause(v, likely);
}

int pc_gate_acc_rotates(const char *family)
{
    const pc_family *fam = pc_family_find(family);
    return fam && fam->rows && fam->rows->input;
}

void pc_gate_cfg_spec(const pc_gate *c, int layout, pc_acc_cfg *cfg)
{
    *cfg = *c->run;
    cfg->family = c->spec->family->name;
    cfg->d = c->spec->d;
    cfg->base = c->spec->base;
    cfg->base_from = c->spec->base_from;
    cfg->layout = layout;
}

void pc_gate_cfg(const pc_gate *c, const pc_impl *impl, int layout, pc_acc_cfg *cfg)
{
    pc_gate_cfg_spec(c, layout, cfg);
    if (c->shard) {
        cfg->shard_k = c->shard->k;
        cfg->shard_n = c->shard->n;
    }
    const pc_table_info *t = pc_table_info_of(impl);
    if (t) pc_table_adjust_cfg(t, cfg);
}

/* Column of pair I's first member in the user's table T (its own width):
 * a (n, d/2) cache has one column per pair. */
static int table_column(const pc_table_info *t, int layout, int i)
{
    if (!t->full_width) return i;
    return layout ? i : 2 * i;
}

/* For rows that rotate an input (RoPE): the source's own (A cos, A sin)
 * of the witness's pair, its rotation of (1, 0) there, beside the exact
 * ones, as one line into BUF ("" when the family's rows take no input or
 * the call fails): "pair 0: cos[340, 0] = 0.7009 (0x1.66e248p-1), exact
 * 0.7028; sin[340, 0] = ...".  A table's indices are its row (position -
 * first position) and column; another source's the position and pair. */
static void own_values(const pc_impl *impl, const pc_family *fam, const pc_acc_cfg *cfg,
                       const pc_witness *w, char *buf, size_t len)
{
    buf[0] = '\0';
    const pc_rows *rw = fam->rows;
    if (!rw || !rw->input || !w->valid) return;
    int d = cfg->d, h = d / 2, i = cfg->layout ? w->dim % h : w->dim / 2;
    size_t a = (size_t)(cfg->layout ? i : 2 * i), b = (size_t)(cfg->layout ? i + h : 2 * i + 1);
    float *x = calloc((size_t)d, sizeof *x), *y = malloc((size_t)d * sizeof *y);
    double *ex = malloc((size_t)d * sizeof *ex);
    pc_schedule s = cfg->sched ? *cfg->sched : pc_schedule_geometric(cfg->base);
    pc_freqs *fr = x && y && ex ? pc_freqs_new(d, s) : NULL;
    pc_fault fault = { 0, "" };
    int64_t pos = w->pos;
    if (fr) x[a] = 1.0f;
    if (fr && rw->call(impl, &fault, &pos, 1, d, cfg->base, cfg->layout, x, y) == 0 && !fault.faulted
        && rw->ref(fr, pos, cfg->layout, x, NULL, ex) == PC_OK) {
        const pc_table_info *t = pc_table_info_of(impl);
        char at[64] = ""; /* a table's own indices: row, column */
        if (t) snprintf(at, sizeof at, "[%" PRId64 ", %d]", pos - t->pos_lo,
                        pc_table_file_column(impl, table_column(t, cfg->layout, i)));
        snprintf(buf, len, "pair %d: cos%s = %.9g (%a), exact %.9g; sin%s = %.9g (%a), exact %.9g",
                 i, at, (double)y[a], (double)y[a], ex[a], at, (double)y[b], (double)y[b], ex[b]);
    }
    pc_freqs_free(fr);
    free(x); free(y); free(ex);
}

/* What the family's diagnosis says of a failure (RoPE: the rotations'
 * fitted frequencies and amplitude).  A shard diagnoses when its own
 * blocks fail or stop at an error (the merged result can fail only then),
 * over the whole run's range. */
static int likely_cause(const pc_impl *impl, const pc_family *fam, const pc_spec *spec,
                        const pc_acc_cfg *cfg, const pc_acc_result *res, int sharded, char *buf,
                        size_t len)
{
    buf[0] = '\0';
    int failing = res->status == PC_FAIL || (sharded && res->impl_rc);
    if (!failing || res->faulted || !fam->diagnosis || !fam->diagnosis->likely_cause) return 0;
    pc_acc_cfg whole = *cfg;
    whole.shard_k = whole.shard_n = 1;
    fam->diagnosis->likely_cause(impl, spec, &whole, buf, len);
    return 1;
}

/* The verdict of one layout's result (and, in a shard, its record). */
static pc_status acc_verdict(pc_gate *c, const pc_impl *impl, const pc_family *fam,
                             const pc_acc_cfg *cfg, const pc_acc_result *res)
{
    char likely[2000], table[1200], own[400] = "";
    int likely_set = likely_cause(impl, fam, c->spec, cfg, res, c->shard != NULL, likely,
                                  sizeof likely);
    pc_gate_acc_context(impl, table, sizeof table);
    /* at this run's (or shard's) worst witness: merge takes the one of the
     * shard whose witness is the merged one */
    if (res->status == PC_FAIL && !res->faulted) own_values(impl, fam, cfg, &res->m.worst, own, sizeof own);
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "accuracy", pc_layout_name(cfg->layout));
    if (!v) return pc_gate_oom(c);
    pc_gate_acc_render(impl, cfg, res, res->faulted ? res->note : NULL, table,
                       res->status == PC_FAIL ? likely : "", own, v);
    if (!c->shard) return PC_OK;
    return c->shard->accuracy(c->shard->ctx, c->vs->n - 1, cfg, res, table, likely, likely_set,
                              own) == PC_OK ? PC_OK : pc_gate_oom(c);
}

/* A passed accuracy run's remark (pc_diagnosis.pass_note): the family's
 * checked note, appended to the verdict just made, V.  Not in a shard,
 * whose pass is not the run's. */
static void pass_note(const pc_gate *c, const pc_impl *impl, const pc_family *fam,
                      const pc_acc_cfg *cfg, const pc_acc_result *res, pc_verdict *v)
{
    if (c->shard || res->status != PC_OK || res->faulted || !fam->diagnosis
        || !fam->diagnosis->pass_note)
        return;
    char note[800];
    fam->diagnosis->pass_note(impl, c->spec, cfg, note, sizeof note);
    size_t have = strlen(v->summary);
    if (note[0] && have < sizeof v->summary - 1)
        snprintf(v->summary + have, sizeof v->summary - have, "; note: %s", note);
}

/* The fitted model of a layout (harness/engine/fitmodel.h): its constants set up
 * before the pass, its sums made by the pass (cfg->fit), its verdict
 * after. */
typedef struct fit_job {
    pc_status st;      /* PC_OK: fitted; PC_SKIP: not (NOTE), or not run */
    pc_fitm m;
    pc_fitp *sums;
    char note[200];
} fit_job;

/* Set up the fit of CFG (not under --tol-abs: the user's bound replaces
 * the model) and point the pass at its sums. */
static pc_status fit_setup(pc_gate *c, pc_acc_cfg *cfg, fit_job *j)
{
    memset(j, 0, sizeof *j);
    j->st = PC_SKIP;
    if (cfg->tol_abs >= 0.0) return PC_OK;
    j->st = pc_fitm_setup(cfg, &j->m, j->note, sizeof j->note);
    if (j->st == PC_OK && !(j->sums = pc_fitp_new(j->m.h))) j->st = PC_ENOMEM;
    if (j->st == PC_ENOMEM) return pc_gate_oom(c);
    cfg->fit = j->sums;
    return PC_OK;
}

static void fit_release(fit_job *j)
{
    pc_fitm_free(&j->m);
    pc_fitp_free(j->sums);
    j->sums = NULL;
}

/* The fitted model of the rows as a verdict of its own: the per-element
 * bound decides "accuracy", the fit's aggregate bounds decide
 * "fitted-model" (docs/fitted-model.md).  Not made under --tol-abs, after
 * a fault or a skipped gate.  A shard cannot tell from its own blocks
 * whether the whole run faulted or skipped: it makes the verdict (its
 * sums, or why it has none) unless the family is not implemented (every
 * shard skips then), and merge drops it where the merged gate faulted or
 * skipped (check_shard.c, merge_slots).  Its seconds: its share of the
 * pass (res->fit_seconds, accuracy.h). */
static pc_status fit_verdict(pc_gate *c, const pc_impl *impl, const pc_family *fam,
                             const pc_acc_cfg *cfg, const pc_acc_result *res, fit_job *j)
{
    int ended = c->shard ? res->status == PC_SKIP && !res->impl_rc
                       : res->faulted || res->status == PC_SKIP;
    if (cfg->tol_abs >= 0.0 || ended) return PC_OK;
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "fitted-model", pc_layout_name(cfg->layout));
    if (!v) return pc_gate_oom(c);
    v->seconds = res->fit_seconds;
    if (j->st == PC_OK && res->fit_note[0]) {
        j->st = PC_SKIP;
        snprintf(j->note, sizeof j->note, "%s", res->fit_note);
    }
    if (c->shard) { /* merge judges the shards' sums (check_shard.h, FITTED) */
        v->status = PC_SKIP;
        snprintf(v->summary, sizeof v->summary, "this shard's sums; `pecheck merge` judges them");
        return c->shard->fitted(c->shard->ctx, c->vs->n - 1, &j->m,
                                j->st == PC_OK ? j->sums : NULL, j->note, v->seconds) == PC_OK
                   ? PC_OK : pc_gate_oom(c);
    }
    if (j->st == PC_OK && pc_fitm_judge(&j->m, j->sums) != 0)
        return pc_seterr(c->err, PC_EINTERNAL, "fitted model: the sums do not cover the range");
    pc_fitm_verdict(j->st == PC_OK ? &j->m : NULL, j->note, v);
    return PC_OK;
}

/* The digest of the rows a sweep of the properties that follow will read
 * (rowdigest.h): the layout they use first (--layout's, else interleaved),
 * of a family whose rows are the encoding itself, in a run that is not a
 * shard, when a selected property sweeps; none otherwise (no error: the
 * sweep then calls the implementation itself). */
static void digest_setup(pc_gate *c, const pc_impl *impl, const pc_family *fam,
                         pc_acc_cfg *cfg, int nl)
{
    if (c->shard || !c->par || fam->rows->input || !pc_properties_sweep_selected(fam->name, c->par))
        return;
    for (int k = 0; k < nl && !c->digest; k++)
        if (cfg[k].layout == (c->spec->layout >= 0 ? c->spec->layout : 0) && !cfg[k].positions)
            cfg[k].digest = c->digest = pc_row_digest_new(impl, fam->name, cfg[k].d, cfg[k].base,
                                                          cfg[k].layout, cfg[k].pos_lo,
                                                          cfg[k].pos_hi);
}

/* Both layouts (or --layout's) in one pass (pc_accuracy_run_layouts), one
 * accuracy verdict each, in layout order, each followed by its fitted
 * model's, whose sums the same pass makes. */
pc_status pc_gate_accuracy(pc_gate *c, const pc_impl *impl, const pc_family *fam)
{
    int layouts[2] = { 0, 1 }, nl = 2, made = 0, fits = 0;
    const pc_table_info *t = pc_table_info_of(impl);
    if (c->spec->layout >= 0) { layouts[0] = c->spec->layout; nl = 1; }
    /* a table holds the layout found in its columns: the other is no check */
    else if (t && t->layout >= 0) { layouts[0] = t->layout; nl = 1; }
    pc_acc_cfg cfg[2];
    pc_spec_sched sched[2];
    pc_acc_result res[2];
    fit_job fj[2];
    pc_status st = PC_OK;
    for (; made < nl; made++) {
        pc_gate_cfg(c, impl, layouts[made], &cfg[made]);
        if ((st = pc_spec_schedule(c->spec, &cfg[made], &sched[made], c->err)) != PC_OK) break;
    }
    for (; st == PC_OK && fits < nl; fits++) st = fit_setup(c, &cfg[fits], &fj[fits]);
    if (st == PC_OK) digest_setup(c, impl, fam, cfg, nl);
    if (st == PC_OK) st = pc_accuracy_run_layouts(impl, cfg, nl, res, c->err);
    for (int k = 0; k < nl && st == PC_OK; k++) {
        if ((st = acc_verdict(c, impl, fam, &cfg[k], &res[k])) != PC_OK) break;
        /* the first layout's: an (n, d/2) table's two layouts read the same values */
        if (k == 0) pass_note(c, impl, fam, &cfg[k], &res[k], &c->vs->v[c->vs->n - 1]);
        st = fit_verdict(c, impl, fam, &cfg[k], &res[k], &fj[k]);
    }
    for (int k = 0; k < fits; k++) fit_release(&fj[k]);
    for (int k = 0; k < made; k++) pc_spec_sched_release(&sched[k]);
    return st;
}

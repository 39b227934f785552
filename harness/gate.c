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
#include "acc_opts.h"
#include "acc_verdict.h"
#include "accuracy.h"
#include "check_shard.h"
#include "fitmodel.h"
#include "gate.h"
#include "hook.h"
#include "json.h"
#include "sources.h"
#include "table.h"
#include "../families/rope/options.h"
#include "../families/rope/fit.h"

pc_verdict *pc_gate_verdict(pc_gate *c, const pc_impl *impl, const char *family,
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
                        const char *fault, const char *table, const char *likely, pc_verdict *v)
{
    char context[2200];
    snprintf(context, sizeof context, "%s", table);
    if (likely[0]) {
        size_t l = strlen(context);
        snprintf(context + l, sizeof context - l, "%slikely cause: %.900s", l ? "\n" : "", likely);
    }
    pc_acc_verdict(impl, cfg, res, fault, context[0] ? context : NULL, v);
    if (likely[0]) { /* the summary names it too */
        size_t l = strlen(v->summary);
        snprintf(v->summary + l, sizeof v->summary - l, "; likely cause: %s", likely);
    }
}

int pc_gate_acc_rotates(const char *family)
{
    const pc_family *fam = pc_family_find(family);
    return fam && fam->rows && fam->rows->input;
}

/* In a shard (check --shard K/N): what merge needs to make the verdict of
 * the merged result (check_shard.h). */
static pc_status record(pc_gate *c, int index, const pc_acc_cfg *cfg, const pc_acc_result *res,
                        const char *table, const char *likely, int likely_set)
{
    pc_slot *s = pc_shard_rec_slot(c->rec, index);
    if (!s) return pc_gate_oom(c);
    s->mode = PC_SLOT_ACCURACY;
    s->cfg = *cfg;
    s->sched = cfg->sched != NULL;
    s->storage = cfg->storage;
    snprintf(s->sched_note, sizeof s->sched_note, "%s", cfg->sched_note ? cfg->sched_note : "");
    s->cfg.sched = NULL;
    s->cfg.sched_note = NULL;
    s->cfg.positions = NULL;
    s->cfg.observe = NULL;
    s->cfg.observe_ctx = NULL;
    s->res = *res;
    snprintf(s->context, sizeof s->context, "%s", table);
    s->likely_set = likely_set;
    snprintf(s->likely, sizeof s->likely, "%s", likely);
    return PC_OK;
}

static void gate_cfg(const pc_opts *o, const pc_impl *impl, const pc_family *fam, int layout,
                     pc_acc_cfg *cfg)
{
    pc_acc_cfg_from_opts(o, fam->name, layout, cfg);
    pc_sources_adjust_cfg(impl, cfg);
}

/* RoPE: what the rotations' fitted frequencies and amplitude say of a
 * failure.  A shard fits when its own blocks fail or stop at an error (the
 * merged result can fail only then), over the whole run's range. */
static int likely_cause(const pc_impl *impl, const pc_acc_cfg *cfg, const pc_acc_result *res,
                        int sharded, char *buf, size_t len)
{
    buf[0] = '\0';
    int failing = res->status == PC_FAIL || (sharded && res->impl_rc);
    if (!failing || res->faulted || !pc_gate_acc_rotates(cfg->family)) return 0;
    pc_acc_cfg whole = *cfg;
    whole.shard_k = whole.shard_n = 1;
    pc_rope_likely_cause(impl, &whole, buf, len);
    return 1;
}

/* The verdict of one layout's result (and, in a shard, its record). */
static pc_status acc_verdict(pc_gate *c, const pc_impl *impl, const pc_family *fam,
                             const pc_acc_cfg *cfg, const pc_acc_result *res)
{
    char likely[960], table[1200];
    int likely_set = likely_cause(impl, cfg, res, c->rec != NULL, likely, sizeof likely);
    pc_gate_acc_context(impl, table, sizeof table);
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "accuracy", pc_layout_name(cfg->layout));
    if (!v) return pc_gate_oom(c);
    pc_gate_acc_render(impl, cfg, res, res->faulted ? res->note : NULL, table,
                       res->status == PC_FAIL ? likely : "", v);
    return c->rec ? record(c, c->vs->n - 1, cfg, res, table, likely, likely_set) : PC_OK;
}

/* The fitted model of the rows (harness/fitmodel.h) as a verdict of its
 * own: the per-element bound decides "accuracy", the fit's aggregate
 * bounds decide "fitted-model" (docs/fitted-model.md).  Not run under
 * --tol-abs (the user's bound replaces the model), after a fault or a
 * skipped gate.  A shard cannot tell from its own blocks whether the
 * whole run faulted or skipped: it makes the verdict unless the family is
 * not implemented (every shard skips then), and merge drops it where the
 * merged gate faulted or skipped (check_shard.c, merge_slots). */
static pc_status fit_verdict(pc_gate *c, const pc_impl *impl, const pc_family *fam,
                             const pc_acc_cfg *cfg, const pc_acc_result *res)
{
    int ended = c->rec ? res->status == PC_SKIP && !res->impl_rc
                       : res->faulted || res->status == PC_SKIP;
    if (cfg->tol_abs >= 0.0 || ended) return PC_OK;
    pc_fitm f;
    char note[200];
    pc_status st = pc_fitm_run(impl, fam->rows, cfg, &f, note, sizeof note);
    if (st == PC_ENOMEM) return pc_gate_oom(c);
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "fitted-model", pc_layout_name(cfg->layout));
    if (!v) { pc_fitm_free(&f); return pc_gate_oom(c); }
    if (st != PC_OK) {
        v->status = PC_SKIP;
        snprintf(v->summary, sizeof v->summary, "not fitted: %s", note);
        return PC_OK;
    }
    v->status = f.bad ? PC_FAIL : PC_OK;
    v->measured = f.worst;
    v->bound = 1.0;
    snprintf(v->measured_what, sizeof v->measured_what, "max fitted/bound");
    char line[400];
    pc_fitm_summary(&f, line, sizeof line);
    if (f.bad)
        snprintf(v->summary, sizeof v->summary, "%d of %d pairs outside the fitted model's bounds: %s",
                 f.bad, f.h, line);
    else
        snprintf(v->summary, sizeof v->summary, "frequency, phase offset, amplitude and DC offset of "
                 "all %d pairs within their bounds (worst fitted/bound %.3g)", f.h, f.worst);
    v->details = malloc(2048);
    if (v->details) pc_fitm_details(&f, v->details, 2048);
    pc_fitm_free(&f);
    return PC_OK;
}

/* Both layouts (or --layout's) in one pass (pc_accuracy_run_layouts), one
 * verdict each, in layout order. */
pc_status pc_gate_accuracy(pc_gate *c, const pc_impl *impl, const pc_family *fam)
{
    const pc_opts *o = c->o;
    int layouts[2] = { 0, 1 }, nl = 2, made = 0;
    if (o->layout >= 0) { layouts[0] = o->layout; nl = 1; }
    pc_acc_cfg cfg[2];
    pc_rope_cfg rc[2];
    pc_acc_result res[2];
    pc_status st = PC_OK;
    for (; made < nl; made++) {
        gate_cfg(o, impl, fam, layouts[made], &cfg[made]);
        if (c->rec) {
            cfg[made].shard_k = c->rec->k;
            cfg[made].shard_n = c->rec->n;
        }
        if ((st = pc_rope_cfg_apply(o, &cfg[made], &rc[made], c->err)) != PC_OK) break;
    }
    if (st == PC_OK) st = pc_accuracy_run_layouts(impl, cfg, nl, res, c->err);
    for (int k = 0; k < nl && st == PC_OK; k++)
        if ((st = acc_verdict(c, impl, fam, &cfg[k], &res[k])) == PC_OK)
            /* the fit covers the whole range in every shard: the same
             * verdict in each (a SAME slot, check_shard.h) */
            st = fit_verdict(c, impl, fam, &cfg[k], &res[k]);
    for (int k = 0; k < made; k++) pc_rope_cfg_release(&rc[k]);
    return st;
}

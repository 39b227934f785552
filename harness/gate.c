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
#include "check_shard.h"
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
    char context[1200];
    snprintf(context, sizeof context, "%s", table);
    if (likely[0]) {
        size_t l = strlen(context);
        snprintf(context + l, sizeof context - l, "%slikely cause: %.400s", l ? "\n" : "", likely);
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
    memset(cfg, 0, sizeof *cfg);
    cfg->family = fam->name;
    cfg->d = o->d;
    cfg->base = o->base;
    cfg->layout = layout;
    cfg->dtype = o->dtype;
    cfg->pos_lo = o->pos_lo;
    cfg->pos_hi = o->pos_hi;
    cfg->seed = o->seed;
    cfg->tol_abs = o->tol_abs;
    cfg->strict = o->strict;
    cfg->max_abs_err = o->max_abs_err;
    cfg->quiet = o->quiet;
    cfg->threads = o->threads;
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

pc_status pc_gate_accuracy(pc_gate *c, const pc_impl *impl, const pc_family *fam)
{
    const pc_opts *o = c->o;
    int layouts[2] = { 0, 1 }, nl = 2;
    if (o->layout >= 0) { layouts[0] = o->layout; nl = 1; }
    for (int k = 0; k < nl; k++) {
        pc_acc_cfg cfg;
        gate_cfg(o, impl, fam, layouts[k], &cfg);
        if (c->rec) {
            cfg.shard_k = c->rec->k;
            cfg.shard_n = c->rec->n;
        }
        pc_rope_cfg rc;
        pc_status st = pc_rope_cfg_apply(o, &cfg, &rc, c->err);
        if (st != PC_OK) return st;
        pc_acc_result res;
        st = pc_accuracy_run(impl, &cfg, &res, c->err);
        if (st != PC_OK) { pc_rope_cfg_release(&rc); return st; }
        char likely[480], table[1200];
        int likely_set = likely_cause(impl, &cfg, &res, c->rec != NULL, likely, sizeof likely);
        pc_gate_acc_context(impl, table, sizeof table);
        pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "accuracy", pc_layout_name(cfg.layout));
        if (v) pc_gate_acc_render(impl, &cfg, &res, res.faulted ? res.note : NULL, table,
                                  res.status == PC_FAIL ? likely : "", v);
        if (v && c->rec) st = record(c, c->vs->n - 1, &cfg, &res, table, likely, likely_set);
        pc_rope_cfg_release(&rc);
        if (!v) return pc_gate_oom(c);
        if (st != PC_OK) return st;
    }
    return PC_OK;
}

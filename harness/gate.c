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

static void accuracy_verdict(const pc_impl *impl, const pc_acc_cfg *cfg,
                             const pc_acc_result *res, const char *fault, const char *likely,
                             pc_verdict *v)
{
    const pc_table_info *t = pc_table_info_of(impl);
    char context[1200] = "";
    if (t) snprintf(context, sizeof context, "table: %s\nstorage: %.150s%s%.200s", t->layout_note,
                    t->dtype_note, t->base_note[0] ? "\n" : "", t->base_note);
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

pc_status pc_gate_accuracy(pc_gate *c, const pc_impl *impl, const pc_family *fam)
{
    const pc_opts *o = c->o;
    int layouts[2] = { 0, 1 }, nl = 2;
    if (o->layout >= 0) { layouts[0] = o->layout; nl = 1; }
    for (int k = 0; k < nl; k++) {
        pc_acc_cfg cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.family = fam->name;
        cfg.d = o->d;
        cfg.base = o->base;
        cfg.layout = layouts[k];
        cfg.dtype = o->dtype;
        cfg.pos_lo = o->pos_lo;
        cfg.pos_hi = o->pos_hi;
        cfg.seed = o->seed;
        cfg.tol_abs = o->tol_abs;
        cfg.strict = o->strict;
        cfg.max_abs_err = o->max_abs_err;
        cfg.quiet = o->quiet;
        cfg.threads = o->threads;
        pc_sources_adjust_cfg(impl, &cfg);
        pc_rope_cfg rc;
        pc_status st = pc_rope_cfg_apply(o, &cfg, &rc, c->err);
        if (st != PC_OK) return st;
        pc_acc_result res;
        st = pc_accuracy_run(impl, &cfg, &res, c->err);
        if (st != PC_OK) { pc_rope_cfg_release(&rc); return st; }
        /* RoPE: what the rotations' fitted frequencies and amplitude say */
        char likely[480] = "";
        if (res.status == PC_FAIL && !res.faulted && fam->rows && fam->rows->input)
            pc_rope_likely_cause(impl, &cfg, likely, sizeof likely);
        pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "accuracy", pc_layout_name(cfg.layout));
        if (v) accuracy_verdict(impl, &cfg, &res, res.faulted ? res.note : NULL, likely, v);
        pc_rope_cfg_release(&rc);
        if (!v) return pc_gate_oom(c);
    }
    return PC_OK;
}


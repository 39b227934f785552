/* cmd_check.c: `pecheck check`: gate implementations (built-ins, plugins,
 * .npy tables) on every family they provide, and print verdicts.
 *
 * Per implementation and family (the registry, families/registry.c), the
 * family's gate (pc_family.gate: the accuracy gate, harness/gate.c, for
 * the families with certified rows; families/NAME/gate.c for the others;
 * none for those checked by their properties alone), then the properties
 * (pc_properties_run).  A table is first checked for NaN/Inf values, and a
 * cache that rotates an input (RoPE's (cos, sin) pair) for columns repeated
 * as its detected layout says.  A plugin that crashes, hangs or
 * writes outside OUT during a check fails that check with the cause. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "accuracy.h"
#include "cli.h"
#include "format.h"
#include "isolate.h"
#include "model.h"
#include "output.h"
#include "progress.h"
#include "plugin.h"
#include "property.h"
#include "rng.h"
#include "sources.h"
#include "table.h"
#include "verdict.h"
#include "gate.h"
#include "../families/family.h"

/* ---- tables ----------------------------------------------------------------- */

static pc_status check_table(pc_gate *c, const pc_impl *impl, const pc_table_info *t)
{
    pc_verdict *v = pc_gate_verdict(c, impl, t->family, "table-values", NULL);
    if (!v) return pc_gate_oom(c);
    v->measured = t->nonfinite;
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "NaN/Inf values");
    if (t->nonfinite) {
        v->status = PC_FAIL;
        snprintf(v->summary, sizeof v->summary, "%d NaN/Inf value%s; the first: %s row %" PRId64
                 " (pos %" PRId64 ") column %d = %g", t->nonfinite, t->nonfinite == 1 ? "" : "s",
                 t->nf_file, t->nf_pos - t->pos_lo, t->nf_pos, t->nf_col, t->nf_val);
        char *buf = NULL;
        size_t len = 0;
        FILE *f = open_memstream(&buf, &len);
        if (f) {
            pc_json j;
            pc_json_init(&j, f);
            pc_json_obj(&j, NULL);
            pc_json_str(&j, "file", t->nf_file);
            pc_json_int(&j, "row", t->nf_pos - t->pos_lo);
            pc_json_int(&j, "pos", t->nf_pos);
            pc_json_int(&j, "col", t->nf_col);
            pc_json_str(&j, "value", isnan(t->nf_val) ? "nan" : t->nf_val > 0 ? "inf" : "-inf");
            pc_json_end(&j);
            if (fclose(f) == 0) v->json = buf; else free(buf);
        }
    } else {
        v->status = PC_OK;
        snprintf(v->summary, sizeof v->summary, "every value is finite (positions %" PRId64 "..%"
                 PRId64 ", d=%d)", t->pos_lo, t->pos_hi, t->d);
    }
    const pc_family *fam = pc_family_find(t->family);
    if (fam && fam->rows && fam->rows->input) {
        v = pc_gate_verdict(c, impl, t->family, "cache-layout", t->layout >= 0 ? pc_layout_name(t->layout) : NULL);
        if (!v) return pc_gate_oom(c);
        v->measured = t->dup_mismatch;
        v->bound = 0;
        snprintf(v->measured_what, sizeof v->measured_what, "repeated columns that differ");
        v->status = t->dup_mismatch ? PC_FAIL : PC_OK;
        if (t->dup_mismatch)
            snprintf(v->summary, sizeof v->summary, "%.200s; first: %.250s", t->layout_note, t->dup_note);
        else
            snprintf(v->summary, sizeof v->summary, "%s", t->layout_note);
    }
    return PC_OK;
}

/* ---- properties ------------------------------------------------------------------ */

static pc_status check_properties(pc_gate *c, const pc_impl *impl, const char *family)
{
    pc_prop_params par;
    pc_prop_params_from_opts(&par, c->o);
    par.gate_outside = 1; /* the accuracy gate is check's own (fam->gate) */
    const pc_table_info *t = pc_table_info_of(impl);
    if (t) { /* a table: its d, rows and layout */
        par.d = t->d;
        par.pos_lo = t->pos_lo;
        par.pos_hi = t->pos_hi;
        if (t->layout >= 0) par.layout = t->layout;
    }
    pc_isolate_clear(impl);
    double t0 = pc_now();
    int before = c->vs->n;
    pc_status st = pc_properties_run_with(impl, family, &par, c->vs, c->err);
    if (st < 0) return st;
    char cause[PC_ERR_LEN];
    int n = pc_gate_take_fault(impl, cause, sizeof cause);
    if (n) {
        pc_verdict *v = pc_gate_verdict(c, impl, family, "isolation", NULL);
        if (!v) return pc_gate_oom(c);
        v->status = PC_FAIL;
        v->measured = n;
        v->bound = 0;
        snprintf(v->measured_what, sizeof v->measured_what, "faults");
        snprintf(v->summary, sizeof v->summary, "during the properties (%d verdicts): %.400s",
                 c->vs->n - 1 - before, cause);
        v->seconds = pc_now() - t0;
    }
    return PC_OK;
}

/* ---- the command ------------------------------------------------------------------ */

/* The skip verdict of a family IMPL does not provide. */
static pc_status not_provided(pc_gate *c, const pc_impl *impl, const pc_family *fam, int is_table)
{
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "family", NULL);
    if (!v) return pc_gate_oom(c);
    v->status = PC_SKIP;
    if (pc_plugin_is(impl))
        snprintf(v->summary, sizeof v->summary, "the plugin does not export %s", fam->symbols);
    else
        snprintf(v->summary, sizeof v->summary, "%s does not implement the %s family",
                 is_table ? "the table" : "the implementation", fam->name);
    return PC_OK;
}

/* --property NAME runs the named properties only: the accuracy gate is the
 * property "accuracy"; the other gates (tables, the learned contract,
 * attention) run without --property or with --property all. */
static int named(const pc_opts *o, const char *name)
{
    for (int k = 0; k < o->n_properties; k++)
        if (!strcmp(o->properties[k], name) || !strcmp(o->properties[k], "all")) return 1;
    return 0;
}

static int runs_gate(const pc_opts *o, const pc_family *fam)
{
    return o->n_properties == 0 || named(o, fam && fam->rows ? "accuracy" : "all");
}

pc_status pc_check_impl(pc_gate *c, const pc_impl *impl, const pc_family *want)
{
    const pc_table_info *t = pc_table_info_of(impl);
    if (t && runs_gate(c->o, NULL)) {
        pc_status st = check_table(c, impl, t);
        if (st != PC_OK) return st;
    }
    for (size_t k = 0; k < pc_family_count(); k++) {
        const pc_family *fam = pc_family_at(k);
        if (want && want != fam) continue;
        pc_status st = PC_OK;
        if (!fam->provides(impl)) {
            /* a plugin reports the families flagged REPORTED; the others
             * only when asked for (most plugins have none) */
            if (want || (pc_plugin_is(impl) && (fam->flags & PC_FAM_REPORTED)))
                st = not_provided(c, impl, fam, t != NULL);
            if (st != PC_OK) return st;
            continue;
        }
        if (fam->gate && runs_gate(c->o, fam)) st = fam->gate(c, impl, fam);
        if (st == PC_OK) st = check_properties(c, impl, fam->name);
        if (st != PC_OK) return st;
    }
    return PC_OK;
}

/* The verdicts in the format asked for (--quiet: text has one line per
 * check); with --output, the text report goes to stderr too, so that a CI
 * log shows what failed (the file is for tools). */
static pc_status report(const pc_opts *o, const pc_verdicts *vs, pc_err *err)
{
    pc_result r = { .vs = vs, .brief = o->quiet, .has_seed = 1, .seed = o->seed };
    pc_out out;
    pc_status st = pc_out_open(&out, o->output, err);
    if (st == PC_OK) {
        pc_format_result(out.f, o->format, &r);
        st = pc_out_close(&out, 1, err);
    }
    if (st == PC_OK && o->output) pc_format_result(stderr, PC_FMT_TEXT, &r);
    return st;
}

static int fail(const pc_opts *o, pc_status st, pc_err *err)
{
    return pc_cli_fail_output("check", o, st, err);
}

/* Nothing checked is an error, not a pass: a run whose every verdict was
 * skipped (a --family the implementation lacks, a --layout it declines),
 * or a --property that ran on nothing, is exit 2 naming what did not apply. */
static int checked(const pc_verdict *v)
{
    return v->status == PC_OK || v->status == PC_FAIL;
}

static pc_status require_checked(const pc_opts *o, const pc_verdicts *vs, pc_err *err)
{
    for (int p = 0; p < o->n_properties; p++) {
        int ran = 0;
        for (int k = 0; k < vs->n && !ran; k++)
            ran = checked(&vs->v[k]) && !strcmp(vs->v[k].check, o->properties[p]);
        if (!ran)
            return pc_seterr(err, PC_EINPUT, "nothing checked: --property %s does not apply to "
                             "any family checked here (see `pecheck explain %s`)",
                             o->properties[p], o->properties[p]);
    }
    for (int k = 0; k < vs->n; k++)
        if (checked(&vs->v[k])) return PC_OK;
    if (vs->n == 0)
        return pc_seterr(err, PC_EINPUT, "nothing checked: no family%s%s applies to the sources given",
                         o->family ? " matching --family " : "", o->family ? o->family : "");
    const pc_verdict *v = &vs->v[0];
    char asked[96] = "";
    if (o->family || o->layout >= 0)
        snprintf(asked, sizeof asked, " (%s%s%s%s)", o->family ? "--family " : "",
                 o->family ? o->family : "", o->family && o->layout >= 0 ? ", " : "",
                 o->layout >= 0 ? (o->layout ? "--layout half" : "--layout interleaved") : "");
    return pc_seterr(err, PC_EINPUT, "nothing checked, every check skipped%s; the first: %.160s "
                     "%s%s%s: %.200s", asked, v->impl, v->family, v->layout[0] ? " " : "",
                     v->layout, v->summary);
}

int pc_cmd_check(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_CHECK, 0, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    const pc_family *want = NULL;
    if (o.family && strcmp(o.family, "all")) {
        want = pc_family_find(o.family);
        if (!want) {
            char names[256];
            pc_family_names(names, sizeof names, 0, 0, " or all");
            return fail(&o, pc_seterr(&err, PC_EINPUT, "--family: expected %s, got '%s'",
                                      names, o.family), &err);
        }
    }
    if (o.dtype == PC_DT_F64)
        return fail(&o, pc_seterr(&err, PC_EINPUT, "--dtype: check takes f32, bf16 or f16"), &err);
    pc_sources src;
    st = pc_sources_open(&o, o.family, &src, &err);
    if (st != PC_OK) return fail(&o, st, &err);

    pc_verdicts vs = { NULL, 0, 0 };
    pc_gate c = { &o, &vs, &err };
    for (int k = 0; k < src.n && st == PC_OK; k++)
        st = pc_check_impl(&c, src.impl[k], want);
    if (st == PC_OK) st = require_checked(&o, &vs, &err);
    if (st == PC_OK) st = report(&o, &vs, &err);
    pc_status verdict = pc_verdicts_status(&vs);
    pc_verdicts_free(&vs);
    pc_sources_close(&src);
    if (st != PC_OK) return fail(&o, st, &err);
    return verdict == PC_FAIL ? PC_EXIT_FAIL : PC_EXIT_PASS;
}

/* cmd_check.c: `pecheck check`: gate implementations (built-ins, plugins,
 * .npy tables) on every family they provide, and print verdicts.
 *
 * Per implementation and family (the registry, families/registry.c), the
 * family's gate (pc_family.gate: the accuracy gate, harness/engine/gate.c, for
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
#include "harness/engine/accuracy.h"
#include "harness/shard/check_shard.h"
#include "acc_opts.h"
#include "cli.h"
#include "harness/formats/format.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/host.h"
#include "harness/engine/model.h"
#include "harness/io/output.h"
#include "harness/base/progress.h"
#include "harness/sources/plugin.h"
#include "property.h"
#include "harness/base/rng.h"
#include "harness/engine/rowdigest.h"
#include "harness/sources/sources.h"
#include "harness/sources/table.h"
#include "harness/formats/verdict.h"
#include "harness/engine/gate.h"
#include "harness/engine/acc_verdict.h"
#include "families/spec_sched.h"
#include "families/family.h"

/* ---- tables ----------------------------------------------------------------- */

/* A cache whose columns hold the other layout than the pairs the model's
 * code rotates (SPEC's model_layout, from its config), checked as found:
 * the verdict says so, since the cache is right only where the model
 * permutes q and k to its layout first (DeepSeek-V3's
 * apply_rotary_pos_emb_interleave does; Cohere's code does not). */
static void layout_vs_model(const pc_spec *spec, const pc_table_info *t, pc_verdict *v)
{
    if (!spec || spec->model_layout < 0 || spec->layout >= 0 || t->layout < 0 ||
        t->layout == spec->model_layout)
        return;
    size_t u = strlen(v->summary);
    snprintf(v->summary + u, sizeof v->summary - u, "; note: the model's code rotates the %s "
             "pairs (%.150s): this %s cache is right only if the model permutes q and k to it "
             "first (DeepSeek-V3 does), else it pairs the wrong dimensions: pass --layout %s to "
             "check it in the model's pairs", pc_layout_name(spec->model_layout),
             spec->model_layout_why, pc_layout_name(t->layout), pc_layout_name(spec->model_layout));
}

static pc_status check_table(pc_gate *c, const pc_check_ctx *cr, const pc_impl *impl,
                             const pc_table_info *t)
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
            snprintf(v->summary, sizeof v->summary, "%.400s; first: %.250s", t->layout_note, t->dup_note);
        else
            snprintf(v->summary, sizeof v->summary, "%s", t->layout_note);
        layout_vs_model(pc_specs_of(cr->specs, fam), t, v);
    }
    return PC_OK;
}

/* ---- repeated calls (plugins) ----------------------------------------------- *
 * A plugin's calls to a host share its process (host.h; these go to the
 * first), so state kept between calls can change results: the same call
 * made again must give the same bits, and a short call made first (say one
 * that sizes a cos/sin cache) must not change a longer one.  Calls: the first REPEAT_SHORT positions, then
 * REPEAT_LONG positions from the same start, then those again. */
#define REPEAT_SHORT 4
#define REPEAT_LONG 256 /* one block of the accuracy run (PC_ACC_BLOCK) */

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The first element (row R, dim J) where A and B differ bit for bit, or 0. */
static int first_diff(const float *a, const float *b, size_t n, int d, size_t *r, int *j)
{
    for (size_t k = 0; k < n * (size_t)d; k++)
        if (!same_bits(a[k], b[k])) { *r = k / (size_t)d; *j = (int)(k % (size_t)d); return 1; }
    return 0;
}

/* The three calls' outcome in V. */
static void repeat_verdict(pc_verdict *v, const int rc[3], const pc_fault f[3], const int64_t *pos,
                           size_t ns, size_t n, int d, const float *s, const float *a,
                           const float *b)
{
    size_t r = 0, w = (size_t)d;
    int j = 0;
    v->status = PC_FAIL;
    v->measured = 1;
    if (f[0].faulted || f[1].faulted || f[2].faulted)
        snprintf(v->summary, sizeof v->summary, "%s",
                 f[0].faulted ? f[0].cause : f[1].faulted ? f[1].cause : f[2].cause);
    else if (rc[0] != 0 && rc[1] != 0 && rc[2] != 0) {
        v->status = PC_SKIP;
        v->measured = (double)NAN;
        snprintf(v->summary, sizeof v->summary, "the implementation declines the %s layout "
                 "(returned %d)", v->layout, rc[0]);
    } else if (rc[0] != 0 || rc[1] != 0 || rc[2] != 0)
        snprintf(v->summary, sizeof v->summary, "the same positions returned %d, %d, then %d "
                 "(%zu, %zu, %zu positions from %" PRId64 ")", rc[0], rc[1], rc[2], ns, n, n,
                 pos[0]);
    else if (first_diff(a, b, n, d, &r, &j))
        snprintf(v->summary, sizeof v->summary, "the same call made twice differs: pos=%" PRId64
                 " dim=%d: %a (%.9g), then %a (%.9g) (%zu positions from %" PRId64 ")", pos[r], j,
                 (double)a[r * w + (size_t)j], (double)a[r * w + (size_t)j],
                 (double)b[r * w + (size_t)j], (double)b[r * w + (size_t)j], n, pos[0]);
    else if (first_diff(s, a, ns, d, &r, &j))
        snprintf(v->summary, sizeof v->summary, "a call of %zu positions, then one of %zu from "
                 "the same start, differ: pos=%" PRId64 " dim=%d: %a (%.9g), then %a (%.9g)",
                 ns, n, pos[r], j, (double)s[r * w + (size_t)j], (double)s[r * w + (size_t)j],
                 (double)a[r * w + (size_t)j], (double)a[r * w + (size_t)j]);
    else {
        v->status = PC_OK;
        v->measured = 0;
        snprintf(v->summary, sizeof v->summary, "%zu positions from %" PRId64 ": a call of %zu, "
                 "then %zu twice, the same bits", n, pos[0], ns, n);
    }
}

static pc_status check_repeat(pc_gate *c, const pc_impl *impl, const pc_family *fam)
{
    const pc_spec *spec = c->spec;
    const pc_rows *rw = fam->rows;
    int d = spec->d, layout = spec->layout >= 0 ? spec->layout : 0;
    int64_t lo = c->run->pos_lo;
    size_t n = (size_t)(c->run->pos_hi - lo + 1 < REPEAT_LONG ? c->run->pos_hi - lo + 1
                                                              : REPEAT_LONG);
    size_t w = (size_t)d, ns = n < REPEAT_SHORT ? n : REPEAT_SHORT;
    double t0 = pc_now();
    int64_t *pos = malloc(n * sizeof *pos);
    float *x = malloc(n * w * sizeof *x), *s = malloc(n * w * sizeof *s);
    float *a = malloc(n * w * sizeof *a), *b = malloc(n * w * sizeof *b);
    pc_verdict *v = pos && x && s && a && b ? pc_gate_verdict(c, impl, fam->name, "repeat", NULL)
                                            : NULL;
    if (!v) { free(pos); free(x); free(s); free(a); free(b); return pc_gate_oom(c); }
    for (size_t r = 0; r < n; r++) {
        pos[r] = lo + (int64_t)r;
        pc_normal_row(c->run->seed, (uint64_t)pos[r], d, x + r * w);
    }
    const float *in = rw->input ? x : NULL;
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "differing calls");
    pc_fault f[3];
    int rc[3];
    rc[0] = rw->call(impl, &f[0], pos, ns, d, spec->base, layout, in, s);
    if (rc[0] != 0 && !f[0].faulted && spec->layout < 0) /* a single-layout implementation */
        rc[0] = rw->call(impl, &f[0], pos, ns, d, spec->base, layout = 1, in, s);
    rc[1] = rw->call(impl, &f[1], pos, n, d, spec->base, layout, in, a);
    rc[2] = rw->call(impl, &f[2], pos, n, d, spec->base, layout, in, b);
    snprintf(v->layout, sizeof v->layout, "%s", pc_layout_name(layout));
    repeat_verdict(v, rc, f, pos, ns, n, d, s, a, b);
    v->seconds = pc_now() - t0;
    free(pos); free(x); free(s); free(a); free(b);
    return PC_OK;
}

/* Add what the plugin wrote to its stdout and stderr (captured by its host,
 * never pecheck's own) to the details of its first verdict, FIRST. */
static void add_plugin_output(pc_gate *c, const pc_impl *impl, int first)
{
    char text[2048];
    /* the count is of the text up to its first NUL (host.h drops NUL bytes,
     * and a text that is empty, whatever the count says, adds nothing) */
    if (first >= c->vs->n || pc_plugin_output(impl, text, sizeof text) == 0) return;
    size_t n = strlen(text);
    if (n == 0) return;
    pc_verdict *v = &c->vs->v[first];
    const char *old = v->details ? v->details : "";
    size_t len = strlen(old) + n + 128;
    char *buf = malloc(len);
    if (!buf) return;
    snprintf(buf, len, "%s%splugin output (its stdout and stderr, the last %zu bytes):\n%s%s",
             old, *old && old[strlen(old) - 1] != '\n' ? "\n" : "", n, text,
             text[n - 1] == '\n' ? "" : "\n");
    free(v->details);
    v->details = buf;
}

/* ---- properties ------------------------------------------------------------------ */

/* IMPL is a .npy table: of rows (harness/sources/table.c) or of a family's
 * own reader (T5 buckets, ALiBi slopes or biases) */
static int is_table(const pc_impl *impl)
{
    if (pc_table_info_of(impl)) return 1;
    for (size_t k = 0; k < pc_family_count(); k++) {
        const pc_family *f = pc_family_at(k);
        if (f->table && f->table->is_table(impl)) return 1;
    }
    return 0;
}

/* The properties' parameters of the family whose spec is SPEC on IMPL. */
static void check_params(pc_prop_params *par, const pc_check_ctx *cr, const pc_spec *spec,
                         const pc_impl *impl)
{
    pc_prop_params_from_opts(par, cr->o, spec);
    par->gate_outside = 1; /* the accuracy gate is check's own (fam->gate) */
    const pc_table_info *t = pc_table_info_of(impl);
    par->fixed_hooks = is_table(impl); /* no hooks beyond those its values serve */
    if (t) { /* a table of rows: its d, rows and layout */
        par->d = t->d;
        par->pos_lo = t->pos_lo;
        par->pos_hi = t->pos_hi;
        if (t->layout >= 0) par->layout = t->layout;
        par->dtype = t->dtype; /* its storage type */
        if (t->base_fitted) par->base = t->base;
    }
    if (cr->rec) { /* a shard: its part of the cases (check_shard.h) */
        par->shard_k = cr->rec->k;
        par->shard_n = cr->rec->n;
        par->split = pc_shard_rec_split;
        par->split_ctx = cr->rec;
    }
}

static pc_status check_properties(pc_gate *c, const pc_impl *impl, const char *family)
{
    pc_prop_params par = *c->par;
    par.digest = c->digest; /* the rows' hashes it made (rowdigest.h) */
    /* each property reports a fault of its own calls (properties/util.c) */
    pc_status st = pc_properties_run_with(impl, family, &par, c->vs, c->err);
    return st < 0 ? st : PC_OK;
}

/* ---- the command ------------------------------------------------------------------ */

/* The skip verdict of a family IMPL does not provide. */
static pc_status not_provided(pc_gate *c, const pc_impl *impl, const pc_family *fam, int is_table)
{
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "family", NULL);
    if (!v) return pc_gate_oom(c);
    v->status = PC_SKIP;
    if (pc_plugin_is(impl) && !fam->hooks[0])
        snprintf(v->summary, sizeof v->summary, "no plugin entry point provides the %s family "
                 "(built-ins only)", fam->name);
    else if (pc_plugin_is(impl))
        snprintf(v->summary, sizeof v->summary, "the plugin does not export %s%s%s",
                 pc_hook_symbol(fam->hooks[0]), fam->hooks[1] ? " or " : "",
                 fam->hooks[1] ? pc_hook_symbol(fam->hooks[1]) : "");
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

/* A table whose base was fitted from its own rows (no --base, no config:
 * table.h): the check named "base" says so, and fails unless the spec
 * accepts it (--assume-fitted): a cache built with another model's base
 * passes against the base it fits, so that pass says nothing of the base. */
static pc_status check_base(pc_gate *c, const pc_impl *impl, const pc_family *fam)
{
    const pc_table_info *t = pc_table_info_of(impl);
    if (!t || !t->base_fitted || strcmp(t->family, fam->name)) return PC_OK;
    pc_verdict *v = pc_gate_verdict(c, impl, fam->name, "base", NULL);
    if (!v) return pc_gate_oom(c);
    v->measured = t->base;
    snprintf(v->measured_what, sizeof v->measured_what, "base fitted from the table");
    v->status = c->spec->assume_fitted ? PC_OK : PC_FAIL;
    if (c->spec->assume_fitted)
        snprintf(v->summary, sizeof v->summary, "base %.17g fitted from the table's own rows, "
                 "accepted (--assume-fitted): the checks hold the table to its own base", t->base);
    else
        snprintf(v->summary, sizeof v->summary, "no base given: the table was checked against base "
                 "%.17g, fitted from its own rows, and a cache built with another model's base "
                 "passes against its own; pass the model's --base or --hf-config config.json, or "
                 "--assume-fitted to accept the fitted base", t->base);
    return PC_OK;
}

/* What FAM's verdicts of IMPL from FIRST on were held to
 * (pc_verdict.against): the accuracy gate's say it themselves; the others
 * get the spec's as the gate's configuration says it (the table's fitted
 * base, the schedule instantiated for the run's positions).  Set whatever
 * their status, so that every shard of a run says the same. */
static void family_against(pc_gate *c, const pc_impl *impl, const pc_family *fam, int first)
{
    if (!fam->rows) return;
    char text[sizeof c->vs->v[0].against] = "";
    pc_acc_cfg cfg;
    pc_spec_sched hold;
    pc_err e;
    pc_gate_cfg(c, impl, c->spec->layout >= 0 ? c->spec->layout : 0, &cfg);
    if (pc_spec_schedule(c->spec, &cfg, &hold, &e) == PC_OK) {
        pc_acc_against(&cfg, text, sizeof text);
        pc_spec_sched_release(&hold);
    }
    for (int k = first; k < c->vs->n; k++)
        if (!c->vs->v[k].against[0])
            snprintf(c->vs->v[k].against, sizeof c->vs->v[k].against, "%s", text);
}

/* FAM's gate and properties on IMPL, under its spec. */
static pc_status check_family(pc_gate *c, const pc_check_ctx *cr, const pc_impl *impl,
                              const pc_family *fam)
{
    pc_prop_params par;
    int first = c->vs->n;
    c->spec = pc_specs_of(cr->specs, fam);
    check_params(&par, cr, c->spec, impl);
    c->par = &par;
    pc_status st = pc_spec_usable(c->spec, c->err); /* demo's families, a config not theirs */
    if (st == PC_OK) st = check_base(c, impl, fam);
    c->family_done = 0;
    if (st == PC_OK && fam->gate && runs_gate(cr->o, fam)) st = fam->gate(c, impl, fam);
    int done = c->family_done; /* the gate's verdict ends the family's checks */
    c->family_done = 0;
    /* with the accuracy gate; the rows' call is the family's first
     * entry point (an ABI v2-only plugin lacks it) */
    if (st == PC_OK && !done && fam->rows && impl->host && runs_gate(cr->o, fam) &&
        pc_hook_present(impl, fam->hooks[0]))
        st = check_repeat(c, impl, fam);
    if (st == PC_OK && !done) st = check_properties(c, impl, fam->name);
    if (st == PC_OK && !done) family_against(c, impl, fam, first);
    pc_row_digest_free(c->digest);
    c->digest = NULL;
    c->par = NULL;
    return st;
}

pc_status pc_check_impl(pc_gate *c, const pc_check_ctx *cr, const pc_impl *impl,
                        const pc_family *want)
{
    const pc_table_info *t = pc_table_info_of(impl);
    if (t && runs_gate(cr->o, NULL)) {
        pc_status st = check_table(c, cr, impl, t);
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
        if ((st = check_family(c, cr, impl, fam)) != PC_OK) return st;
    }
    /* a layout the source does not hold is said in the other's verdict; a
     * shard keeps its slots (merge folds them) */
    if (!cr->rec) pc_verdicts_fold_declined(c->vs);
    return PC_OK;
}

pc_status pc_check_report(const pc_opts *o, const pc_verdicts *vs, pc_err *err)
{
    pc_result r = { .vs = vs, .brief = o->quiet, .has_seed = 1, .seed = o->seed,
                    .tap_version = o->tap_version };
    pc_out out;
    pc_status st = pc_out_open(&out, o->output, err);
    if (st == PC_OK) {
        pc_format_result(out.f, o->format, &r);
        st = pc_out_close(&out, 1, err);
    }
    if (st == PC_OK && o->output) pc_format_result(stderr, PC_FMT_TEXT, &r);
    return st;
}

/* A shard in which a plugin's call timed out, or whose faults spent the
 * plugin's budget: that entry point, or the plugin, is not called again in
 * this shard's process only (host.h), so its later verdicts are not the
 * unsharded run's.  Refused, no file written (docs/sharding.md, "Limits"). */
static pc_status shard_hung(const pc_opts *o, const pc_sources *src, pc_err *err)
{
    for (int k = 0; k < src->n; k++)
        if (src->impl[k]->host && pc_host_timed_out(src->impl[k]->host))
            return pc_seterr(err, PC_EINPUT, "check shard %d/%d: %s timed out (a call past "
                             "--timeout-ms %ld), and later calls are refused in this shard only: "
                             "the shards cannot give the unsharded verdicts; check it without "
                             "--shard", o->shard_k, o->shard_n, src->impl[k]->name, o->timeout_ms);
    for (int k = 0; k < src->n; k++)
        if (src->impl[k]->host && pc_host_budget_spent(src->impl[k]->host))
            return pc_seterr(err, PC_EINPUT, "check shard %d/%d: %s's faults (crashes, exits, "
                             "time-outs) took its time budget, and later calls are refused in "
                             "this shard only: the shards cannot give the unsharded verdicts; "
                             "check it without --shard", o->shard_k, o->shard_n,
                             src->impl[k]->name);
    return PC_OK;
}

/* A shard's file (check_shard.h): its verdicts are merge's to judge. */
static pc_status write_shard(const pc_opts *o, const pc_specs *specs, const pc_verdicts *vs,
                             const pc_shard_rec *rec, pc_err *err)
{
    pc_out out;
    pc_status st = pc_out_open(&out, o->output, err);
    if (st == PC_OK) {
        pc_check_shard_write(out.f, o, specs, vs, rec);
        st = pc_out_close(&out, 1, err);
    }
    if (st == PC_OK && !o->quiet)
        fprintf(stderr, "pecheck: check shard %d/%d: %d verdicts written%s%s; `pecheck merge` "
                "of the %d shards gives the verdict\n", rec->k, rec->n, vs->n,
                o->output ? " to " : "", o->output ? o->output : "", rec->n);
    return st;
}

static int fail(const pc_opts *o, pc_status st, pc_err *err)
{
    return pc_cli_fail_output("check", o, st, err);
}

/* Nothing checked is an error, not a pass: a run in which no check compared
 * a value with a certified one (every verdict skipped: a --family the
 * implementation lacks, a --layout it declines, position ids or timesteps
 * its entry point cannot be given), or a --property that ran on nothing,
 * is exit 2 naming what did not apply.  The checks that compare nothing
 * with a reference (NO_REFERENCE: the same call made twice, a table's
 * values being finite, its repeated columns, its fitted base) do not count
 * when they pass: a kernel that returns the same garbage every time passes
 * them.  A failure counts, whatever the check: it found something wrong. */
static const char *const no_reference[] = { "repeat", "table-values", "cache-layout", "base" };

static int compares_nothing(const pc_verdict *v)
{
    for (size_t k = 0; k < sizeof no_reference / sizeof no_reference[0]; k++)
        if (!strcmp(v->check, no_reference[k])) return 1;
    return 0;
}

static int checked(const pc_verdict *v)
{
    return v->status == PC_FAIL || (v->status == PC_OK && !compares_nothing(v));
}

/* The first skip that is not a family's absence (the reason a source
 * served by the family was not checked), else the first verdict. */
static const pc_verdict *first_skip(const pc_verdicts *vs)
{
    for (int k = 0; k < vs->n; k++)
        if (vs->v[k].status == PC_SKIP && strcmp(vs->v[k].check, "family")) return &vs->v[k];
    return &vs->v[0];
}

/* "; only repeat, table-values passed (they compare no value with a
 * certified one)" into BUF when such a check passed, else "". */
static void passed_unreferenced(const pc_verdicts *vs, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = '\0';
    for (size_t n = 0; n < sizeof no_reference / sizeof no_reference[0]; n++) {
        int seen = 0;
        for (int k = 0; k < vs->n && !seen; k++)
            seen = vs->v[k].status == PC_OK && !strcmp(vs->v[k].check, no_reference[n]);
        if (!seen || u >= len) continue;
        int w = snprintf(buf + u, len - u, "%s%s", u ? ", " : "; only ", no_reference[n]);
        if (w > 0) u += (size_t)w;
    }
    if (u && u < len)
        snprintf(buf + u, len - u, " passed (%s no value with a certified one)",
                 strchr(buf, ',') ? "they compare" : "it compares");
}

pc_status pc_check_require(const pc_opts *o, int layout, const pc_verdicts *vs, pc_err *err)
{
    for (int p = 0; p < o->n_properties; p++) {
        if (!strcmp(o->properties[p], "all")) continue; /* anything checked below */
        int ran = 0;
        const pc_verdict *skip = NULL; /* its skip, where it applies and did not run */
        for (int k = 0; k < vs->n && !ran; k++) {
            ran = checked(&vs->v[k]) && !strcmp(vs->v[k].check, o->properties[p]);
            if (!skip && vs->v[k].status == PC_SKIP && !strcmp(vs->v[k].check, o->properties[p]))
                skip = &vs->v[k];
        }
        if (!ran && skip)
            return pc_seterr(err, PC_EINPUT, "nothing checked: --property %s on %.200s: %.400s",
                             o->properties[p], skip->impl, skip->summary);
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
    const pc_verdict *v = first_skip(vs);
    char asked[96] = "", only[160];
    if (o->family || layout >= 0)
        snprintf(asked, sizeof asked, " (%s%s%s%s)", o->family ? "--family " : "",
                 o->family ? o->family : "", o->family && layout >= 0 ? ", " : "",
                 layout >= 0 ? (layout ? "--layout half" : "--layout interleaved") : "");
    passed_unreferenced(vs, only, sizeof only);
    return pc_seterr(err, PC_EINPUT, "nothing checked, every check %s%s%s; the first skipped: "
                     "%.160s %s %s%s%s: %.200s", only[0] ? "against a reference skipped" : "skipped",
                     asked, only, v->impl, v->family, v->check, v->layout[0] ? " " : "", v->layout,
                     v->summary);
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
            char names[256], hint[64];
            pc_family_names(names, sizeof names, 0, 0, " or all");
            return fail(&o, pc_seterr(&err, PC_EINPUT, "--family: expected %s, got '%s'%s",
                                      names, o.family, pc_family_hint(o.family, hint, sizeof hint)),
                        &err);
        }
    }
    if (o.shard_set && o.format != PC_FMT_TEXT && o.format != PC_FMT_JSON)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--shard: a check shard is a JSON file; give "
                                     "--format to `pecheck merge`"), &err);
    if (o.dtype == PC_DT_F64)
        return fail(&o, pc_seterr(&err, PC_EINPUT, "--dtype: check takes f32, bf16 or f16, not f64 "
                                     "(float64, fp64 and double name f64; only `pecheck reference` writes f64)"), &err);
    pc_specs specs; /* each family's encoding: --d, --base, --hf-config, ... */
    st = pc_specs_resolve(&o.given, &specs, &err);
    if (st != PC_OK) return fail(&o, st, &err);
    pc_sources src;
    st = pc_sources_open(&o, &specs, o.family, &src, &err);
    if (st == PC_OK) st = pc_sources_options_apply(&o, &specs, want, &src, &err);
    if (st != PC_OK) {
        pc_sources_close(&src);
        pc_specs_release(&specs);
        return fail(&o, st, &err);
    }
    pc_sources_seal_note(&src, o.quiet, stderr);

    pc_verdicts vs = { NULL, 0, 0 };
    pc_shard_rec rec = { o.shard_k, o.shard_n, NULL, 0 };
    pc_gate_shard shard = pc_shard_rec_gate(&rec);
    pc_acc_cfg run;
    pc_acc_run_from_opts(&o, &run);
    pc_gate c = { .run = &run, .vs = &vs, .err = &err, .shard = o.shard_set ? &shard : NULL };
    pc_check_ctx cr = { &o, &specs, o.shard_set ? &rec : NULL };
    for (int k = 0; k < src.n && st == PC_OK; k++) {
        int first = vs.n;
        st = pc_check_impl(&c, &cr, src.impl[k], want);
        /* a shard's plugin output is its own calls': not the run's (docs/sharding.md) */
        if (st == PC_OK && pc_plugin_is(src.impl[k]) && !o.shard_set)
            add_plugin_output(&c, src.impl[k], first);
    }
    if (st == PC_OK) st = pc_sources_status(&src, &err); /* a table's file failed */
    if (st == PC_OK && o.shard_set) st = shard_hung(&o, &src, &err);
    /* the plugins' hosts and all they started end before anything is written */
    pc_sources_stop(&src);
    if (st == PC_OK && o.shard_set) st = write_shard(&o, &specs, &vs, &rec, &err);
    if (st == PC_OK && !o.shard_set) st = pc_check_require(&o, pc_specs_of(&specs, NULL)->layout, &vs, &err);
    if (st == PC_OK && !o.shard_set) st = pc_check_report(&o, &vs, &err);
    pc_status verdict = o.shard_set ? PC_OK : pc_verdicts_status(&vs);
    pc_verdicts_free(&vs);
    pc_shard_rec_free(&rec);
    pc_sources_close(&src);
    pc_specs_release(&specs);
    if (st != PC_OK) return fail(&o, st, &err);
    return verdict == PC_FAIL ? PC_EXIT_FAIL : PC_EXIT_PASS;
}

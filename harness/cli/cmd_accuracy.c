/* cmd_accuracy.c: `pecheck accuracy`: the accuracy gate for one or more
 * implementations, written by a format of the table (format.h). */
#include <stdlib.h>
#include <string.h>
#include "acc_opts.h"
#include "harness/engine/acc_verdict.h"
#include "harness/engine/accuracy.h"
#include "families/family.h"
#include "cli.h"
#include "harness/formats/format.h"
#include "harness/io/output.h"
#include "harness/sources/sources.h"
#include "harness/base/version.h"
#include "families/spec_sched.h"

/* "--family: expected sinusoidal or rope, got 'NAME'": the families with
 * certified rows, from the registry. */
static pc_status bad_family(const char *name, pc_err *err)
{
    char names[160], hint[64];
    pc_family_names(names, sizeof names, 0, 1, NULL);
    return pc_seterr(err, PC_EINPUT, "--family: expected %s, got '%s'%s", names, name,
                     pc_family_hint(name, hint, sizeof hint));
}

static int has_rows(const char *name)
{
    const pc_family *f = pc_family_find(name);
    return f && f->rows;
}

/* Fill CFG from the options for IMPL.  Without --family the implementation's
 * own family is used. */
static pc_status make_cfg(const pc_opts *o, const pc_spec *spec, pc_acc_cfg *cfg, pc_err *err)
{
    if (o->dtype == PC_DT_F64)
        return pc_seterr(err, PC_EINPUT, "--dtype: accuracy takes f32, bf16 or f16, not f64 "
                                     "(float64, fp64 and double name f64; only `pecheck reference` writes f64)");
    pc_acc_cfg_from_opts(o, spec, spec->layout < 0 ? 0 : spec->layout, cfg);
    cfg->shard_k = o->shard_k;
    cfg->shard_n = o->shard_n;
    return PC_OK;
}

/* Run one implementation; with no --layout, a RoPE implementation that
 * declines the interleaved layout is run on the half layout. */
static pc_status run_one(const pc_opts *o, const pc_specs *specs, const pc_impl *impl,
                         pc_acc_cfg *cfg, pc_spec_sched *sched, pc_acc_result *res, pc_err *err)
{
    const char *family = o->family ? o->family : impl->family_hint;
    if (!has_rows(family)) return bad_family(family, err);
    const pc_spec *spec = pc_specs_of(specs, pc_family_find(family));
    pc_status st = make_cfg(o, spec, cfg, err);
    if (st != PC_OK) return st;
    pc_sources_adjust_cfg(impl, cfg); /* a table fixes d and the positions */
    st = pc_spec_schedule(spec, cfg, sched, err); /* the spec's schedule (SCHED keeps it) */
    if (st != PC_OK) return st;
    st = pc_accuracy_run(impl, cfg, res, err);
    if (st == PC_OK && res->status == PC_SKIP && spec->layout < 0 && res->m.count == 0
        && pc_family_find(cfg->family)->provides(impl)) {
        cfg->layout = 1;
        st = pc_accuracy_run(impl, cfg, res, err);
    }
    return st;
}

/* The results as verdicts of a gate, in the format asked for. */
static pc_status write_result(const pc_opts *o, const pc_impl *const *impls, int n,
                              const pc_acc_cfg *cfg, const pc_acc_result *res, pc_err *err)
{
    pc_verdicts vs = { NULL, 0, 0 };
    for (int k = 0; k < n; k++) {
        pc_verdict *v = pc_verdicts_add(&vs);
        if (!v) { pc_verdicts_free(&vs); return pc_seterr(err, PC_ENOMEM, "out of memory"); }
        pc_acc_gate_verdict(impls[k], &cfg[k], &res[k], v);
    }
    pc_result r = { .vs = &vs, .gate = 1, .single = n == 1, .tap_version = o->tap_version };
    pc_out out;
    pc_status st = pc_out_open(&out, o->output, err);
    if (st == PC_OK) {
        pc_format_result(out.f, o->format, &r);
        st = pc_out_close(&out, 1, err);
    }
    pc_verdicts_free(&vs);
    return st;
}

/* `--impl all` without --family: the built-ins of the families the gate
 * applies to (certified rows); a source named on its own is always gated. */
static int gated(const pc_opts *o, const pc_impl *impl)
{
    if (o->family || !pc_builtin_find(impl->name)) return 1;
    for (int k = 0; k < o->n_impls; k++)
        if (!strcmp(o->impls[k], impl->name)) return 1;
    return has_rows(impl->family_hint);
}

/* Run the gate on every gated source; *ANY_FAIL when one fails. */
static pc_status run_all(const pc_opts *o, const pc_specs *specs, const pc_sources *src,
                         const pc_impl **impls, int *n, pc_acc_cfg *cfg, pc_spec_sched *sched,
                         pc_acc_result *res, int *any_fail, pc_err *err)
{
    pc_status st = PC_OK;
    *n = 0;
    for (int k = 0; k < src->n && st == PC_OK; k++) {
        if (!gated(o, src->impl[k])) continue;
        impls[*n] = src->impl[k];
        st = run_one(o, specs, src->impl[k], &cfg[*n], &sched[*n], &res[*n], err);
        if (st == PC_OK && res[*n].status == PC_FAIL) *any_fail = 1;
        (*n)++;
    }
    return st;
}

/* Nothing checked is an error, not a pass (a --family the sources lack). */
static pc_status require_checked(const pc_opts *o, const pc_acc_result *res, const pc_impl **impls,
                                 int n, pc_err *err)
{
    for (int k = 0; k < n; k++)
        if (res[k].status != PC_SKIP) return PC_OK;
    char fam[64] = "", v2[480] = "";
    if (o->family) snprintf(fam, sizeof fam, " (--family %.40s)", o->family);
    /* this command calls the ABI v1 entry points; a kernel of ABI v2 only
     * (half-precision tensors, strides) is gated by check's accuracy gate */
    if (n && impls[0]->rope_v2 && !impls[0]->rope)
        snprintf(v2, sizeof v2, "; %.200s exports the ABI v2 entry point pecheck_rope_v2, which "
                 "`pecheck check --plugin %.100s --property accuracy` gates", impls[0]->name,
                 impls[0]->name);
    return pc_seterr(err, PC_EINPUT, "nothing checked: %.300s%s%.480s",
                     n ? res[0].note : "no source has a family the gate applies to", fam, v2);
}

int pc_cmd_accuracy(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_ACCURACY, 0, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    if (o.family && !has_rows(o.family))
        return pc_cli_fail_output("accuracy", &o, bad_family(o.family, &err), &err);
    pc_specs specs; /* each family's encoding: --d, --base, --hf-config, ... */
    st = pc_specs_resolve(&o.given, &specs, &err);
    if (st != PC_OK) return pc_cli_fail_output("accuracy", &o, st, &err);
    pc_sources src;
    st = pc_sources_open(&o, &specs, o.family, &src, &err);
    if (st == PC_OK)
        st = pc_sources_options_apply(&o, &specs, o.family ? pc_family_find(o.family) : NULL, &src,
                                      &err);
    if (st != PC_OK) {
        pc_sources_close(&src);
        pc_specs_release(&specs);
        return pc_cli_fail_output("accuracy", &o, st, &err);
    }

    pc_acc_result *res = calloc((size_t)src.n, sizeof *res);
    pc_acc_cfg *cfg = calloc((size_t)src.n, sizeof *cfg);
    pc_spec_sched *sched = calloc((size_t)src.n, sizeof *sched);
    const pc_impl **impls = calloc((size_t)src.n, sizeof *impls);
    int n = 0, any_fail = 0;
    if (!res || !cfg || !sched || !impls) st = pc_seterr(&err, PC_ENOMEM, "out of memory");
    pc_sources_seal_note(&src, o.quiet, stderr);
    if (st == PC_OK) st = run_all(&o, &specs, &src, impls, &n, cfg, sched, res, &any_fail, &err);
    if (st == PC_OK) st = pc_sources_status(&src, &err); /* a table's file failed */
    pc_sources_stop(&src); /* the plugins' hosts end before anything is written */
    if (st == PC_OK) st = require_checked(&o, res, impls, n, &err);
    if (st == PC_OK) st = write_result(&o, impls, n, cfg, res, &err);
    for (int k = 0; sched && k < src.n; k++) pc_spec_sched_release(&sched[k]);
    free(res);
    free(cfg);
    free(sched);
    free(impls);
    pc_sources_close(&src);
    pc_specs_release(&specs);
    if (st != PC_OK) return pc_cli_fail_output("accuracy", &o, st, &err);
    return any_fail ? PC_EXIT_FAIL : PC_EXIT_PASS;
}

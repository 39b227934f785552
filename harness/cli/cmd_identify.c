/* cmd_identify.c: `pecheck identify`: which encoding a table, built-in or
 * plugin computes, as its family says it (pc_diagnosis.identify,
 * families/family.h; RoPE: its schedule and parameters, docs/identify.md).
 * Each source goes to --family's identify, else to the first family with
 * an identify that provides it (a table: the family it was read as; one
 * of ALiBi's or T5's shape and dtype is read as theirs).
 * Each result ends with the `pecheck check` arguments that express what was
 * found (check_args; a command line in the text).
 * Exit 0 when what it found explains every value, 1 when it does not. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "harness/sandbox/hook.h"
#include "harness/io/json.h"
#include "harness/engine/model.h"
#include "harness/io/output.h"
#include "harness/sources/plugin.h"
#include "harness/sources/sources.h"
#include "harness/sources/table.h"
#include "harness/base/dtype.h"
#include "harness/base/version.h"
#include "families/family.h"

/* One source's identification. */
typedef struct ident {
    const pc_family *fam;
    void *found;
    pc_args args;             /* check's arguments */
} ident;

/* The family identify runs on IMPL: WANT (--family), else the first that
 * has an identify and provides IMPL. */
static const pc_family *family_of(const pc_impl *impl, const pc_family *want)
{
    if (want) return want;
    for (size_t k = 0; k < pc_family_count(); k++) {
        const pc_family *f = pc_family_at(k);
        if (f->diagnosis && f->diagnosis->identify && f->provides(impl)) return f;
    }
    return NULL;
}

/* How check is given IMPL: --table (and --table-sin), --plugin or --impl. */
static void source_args(const pc_impl *impl, const pc_family *fam, pc_args *a)
{
    const pc_table_info *t = pc_table_info_of(impl);
    if (t || (fam->table && fam->table->is_table(impl))) {
        pc_args_add(a, "--table");
        pc_args_add(a, "%s", t ? t->path : impl->name);
        if (t && t->sin_path) {
            pc_args_add(a, "--table-sin");
            pc_args_add(a, "%s", t->sin_path);
        }
    } else {
        pc_args_add(a, pc_plugin_is(impl) ? "--plugin" : "--impl");
        pc_args_add(a, "%s", impl->name);
    }
}

/* check's arguments for IT: the family, the source, the storage option the
 * source was read with, then what the family found. */
static void make_args(ident *it, const pc_impl *impl, const pc_opts *o)
{
    pc_args_add(&it->args, "--family");
    pc_args_add(&it->args, "%s", it->fam->name);
    source_args(impl, it->fam, &it->args);
    if (o->dtype_set) {
        pc_args_add(&it->args, "--dtype");
        pc_args_add(&it->args, "%s", pc_dtype_name(o->dtype));
    }
    it->fam->diagnosis->identify->check_args(it->found, &it->args);
}

/* ARG quoted for a POSIX shell where it needs it. */
static void shell_word(FILE *f, const char *arg)
{
    if (arg[0] && strspn(arg, "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789"
                              "-_./:=+,@%") == strlen(arg)) {
        fputs(arg, f);
        return;
    }
    fputc('\'', f);
    for (const char *p = arg; *p; p++)
        if (*p == '\'') fputs("'\\''", f); else fputc(*p, f);
    fputc('\'', f);
}

static void write_one_json(pc_json *j, const ident *it)
{
    pc_json_obj(j, NULL);
    pc_json_str(j, "family", it->fam->name);
    it->fam->diagnosis->identify->json(j, it->found);
    pc_json_arr(j, "check_args");
    for (int k = 0; k < it->args.n; k++) pc_json_str(j, NULL, it->args.v[k]);
    pc_json_end(j);
    pc_json_end(j);
}

static void write_one_text(FILE *f, const ident *it)
{
    it->fam->diagnosis->identify->text(f, it->found);
    fprintf(f, "  check: pecheck check");
    for (int k = 0; k < it->args.n; k++) {
        fputc(' ', f);
        shell_word(f, it->args.v[k]);
    }
    fputc('\n', f);
}

static pc_status write_all(const pc_opts *o, const ident *ids, int n, pc_err *err)
{
    pc_out out;
    pc_status st = pc_out_open(&out, o->output, err);
    if (st != PC_OK) return st;
    if (o->format == PC_FMT_JSON) {
        pc_json j;
        pc_json_init(&j, out.f);
        pc_json_obj(&j, NULL);
        pc_json_str(&j, "tool", PC_TOOL);
        pc_json_str(&j, "version", PC_VERSION);
        pc_json_str(&j, "command", "identify");
        pc_json_arr(&j, "results");
        for (int k = 0; k < n; k++) write_one_json(&j, &ids[k]);
        pc_json_end(&j);
        pc_json_end(&j);
        fputc('\n', out.f);
    } else {
        for (int k = 0; k < n; k++) write_one_text(out.f, &ids[k]);
    }
    return pc_out_close(&out, 1, err);
}

/* --family NAME, which identify must take; NULL when not given. */
static pc_status wanted(const pc_opts *o, const pc_family **want, pc_err *err)
{
    *want = NULL;
    if (!o->family || !strcmp(o->family, "all")) return PC_OK;
    *want = pc_family_find(o->family);
    if (*want && (*want)->diagnosis && (*want)->diagnosis->identify) return PC_OK;
    char names[200] = "";
    for (size_t k = 0, n = 0; k < pc_family_count(); k++) {
        const pc_family *f = pc_family_at(k);
        if (!f->diagnosis || !f->diagnosis->identify) continue;
        size_t u = strlen(names);
        snprintf(names + u, sizeof names - u, "%s%s", n++ ? ", " : "", f->name);
    }
    return pc_seterr(err, PC_EINPUT, "--family %s: identify takes %s", o->family, names);
}

/* "[a, b, c]": the index of value K of A, row-major. */
static void npy_index(const pc_npy *a, size_t k, char *buf, size_t len)
{
    size_t idx[3] = { 0, 0, 0 };
    for (int d = a->rank - 1; d >= 0; d--) {
        idx[d] = k % a->shape[d];
        k /= a->shape[d];
    }
    int u = snprintf(buf, len, "[");
    for (int d = 0; d < a->rank && u > 0 && (size_t)u < len; d++)
        u += snprintf(buf + u, len - (size_t)u, "%s%zu", d ? ", " : "", idx[d]);
    if (u > 0 && (size_t)u < len) snprintf(buf + u, len - (size_t)u, "]");
}

/* A table a family reads itself (ALiBi, T5) holding NaN or +Inf: exit 2
 * as a table of rows (finite_values).  -Inf is left to the family: a
 * causal ALiBi table masks the keys after the query with it. */
static pc_status family_table_finite(const pc_impl *impl, const pc_family *fam, pc_err *err)
{
    if (!fam->table || !fam->table->is_table(impl) || impl->ctx != (const void *)impl)
        return PC_OK;
    const pc_family_table *t = impl->ctx;  /* its head (pc_family_table_of) */
    size_t n = 0, first = 0;
    for (size_t k = 0; k < t->a.count; k++)
        if (isnan(t->a.data[k]) || t->a.data[k] == (double)INFINITY) {
            if (n++ == 0) first = k;
        }
    if (!n) return PC_OK;
    char at[80];
    npy_index(&t->a, first, at, sizeof at);
    return pc_seterr(err, PC_EINPUT, "%s: cannot be identified: %zu NaN/Inf value%s; the first: "
                     "%s = %g (`pecheck check --family %s` reports them in its table gate)",
                     t->path, n, n == 1 ? "" : "s", at, t->a.data[first], fam->name);
}

/* A table holding NaN or Inf: exit 2, "cannot be identified" (a fit of
 * the finite values would call the table explained, and check_args would
 * fail check's table-values gate). */
static pc_status finite_values(const pc_impl *impl, const pc_family *fam, pc_err *err)
{
    const pc_table_info *t = pc_table_info_of(impl);
    if (!t) return family_table_finite(impl, fam, err);
    if (!t->nonfinite) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "%s: cannot be identified: %d NaN/Inf value%s; the first: "
                     "row %" PRId64 " (pos %" PRId64 ") column %d = %g (`pecheck check` reports "
                     "them as table-values)", t->nf_file, t->nonfinite, t->nonfinite == 1 ? "" : "s",
                     t->nf_pos - t->pos_lo, t->nf_pos, t->nf_col, t->nf_val);
}

/* IMPL is a built-in that --impl all brought and --impl does not name
 * itself. */
static int all_builtin(const pc_opts *o, const pc_impl *impl)
{
    int all = 0;
    for (int k = 0; k < o->n_impls; k++) {
        if (!strcmp(o->impls[k], impl->name)) return 0;
        all |= !strcmp(o->impls[k], "all");
    }
    return all && pc_builtin_find(impl->name) == impl;
}

/* Identify every source of SRC into IDS (*N of them: --impl all's
 * built-ins of no family identify takes are skipped, said on stderr);
 * *ALL: every one explained. */
static pc_status identify_all(const pc_opts *o, const pc_specs *specs, const pc_family *want,
                              const pc_sources *src, ident *ids, int *n, int *all, pc_err *err)
{
    pc_status st = PC_OK;
    *all = 1;
    for (int k = 0; st == PC_OK && k < src->n; k++) {
        const pc_impl *impl = src->impl[k];
        ident *it = &ids[*n];
        if (!(it->fam = family_of(impl, want))) {
            if (all_builtin(o, impl)) { /* --impl all: the built-ins identify takes */
                if (!o->quiet)
                    fprintf(stderr, "pecheck: identify: %s skipped (--impl all): no family that "
                            "identify takes provides it\n", impl->name);
                continue;
            }
            st = pc_seterr(err, PC_EINPUT, "%s: no family that identify takes provides it "
                           "(give --family)", impl->name);
            break;
        }
        const pc_identify_kind *ik = it->fam->diagnosis->identify;
        if ((st = finite_values(impl, it->fam, err)) != PC_OK) break;
        st = ik->run(impl, pc_specs_of(specs, it->fam), o->pos_lo, o->pos_hi, &it->found, err);
        if (st == PC_EINPUT && all_builtin(o, impl)) { /* a kind of source its family's identify refuses */
            if (!o->quiet) fprintf(stderr, "pecheck: identify: skipped (--impl all): %s\n", err->msg);
            err->msg[0] = '\0';
            if (it->found) ik->free(it->found); /* as the cleanup frees a failed run's */
            it->found = NULL;
            st = PC_OK;
            continue;
        }
        (*n)++;
        if (st == PC_OK) make_args(it, impl, o);
        *all &= st == PC_OK && ik->explained(it->found);
    }
    return st;
}

/* The family the tables of O are read as without --family: that of
 * their shape and dtype when every table is one family's own kind (ALiBi
 * slopes, T5 buckets: pc_sources_table_family), else NULL (tables of rows,
 * read as sources.c reads them). */
static const char *tables_family(const pc_opts *o)
{
    const pc_family *fam = NULL;
    if (!o->n_tables || o->n_impls || o->n_plugins) return NULL;
    for (int k = 0; k < o->n_tables; k++) {
        const pc_family *f = pc_sources_table_family(o->tables[k], o->table_sin != NULL);
        if (!f || !f->table || (fam && f != fam)) return NULL;
        fam = f;
    }
    return fam->name;
}

int pc_cmd_identify(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_IDENTIFY, 0, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    if (o.format != PC_FMT_TEXT && o.format != PC_FMT_JSON)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--format: identify writes text or json"), &err);
    const pc_family *want;
    if ((st = wanted(&o, &want, &err)) != PC_OK) return pc_cli_fail(st, &err);
    pc_specs specs;
    st = pc_specs_resolve(&o.given, &specs, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    pc_sources src;
    st = pc_sources_open(&o, &specs, want ? want->name : tables_family(&o), &src, &err);
    if (st == PC_OK) st = pc_sources_options_apply(&o, &specs, want, &src, &err);
    if (st != PC_OK) {
        pc_sources_close(&src);
        pc_specs_release(&specs);
        return pc_cli_fail(st, &err);
    }
    ident *ids = calloc((size_t)src.n, sizeof *ids);
    int n = 0, all = 1;
    if (!ids) st = pc_seterr(&err, PC_ENOMEM, "out of memory");
    else {
        pc_sources_seal_note(&src, o.quiet, stderr);
        st = identify_all(&o, &specs, want, &src, ids, &n, &all, &err);
    }
    if (st == PC_OK) st = pc_sources_status(&src, &err); /* a table's file failed */
    pc_sources_stop(&src); /* the plugins' hosts end before anything is written */
    if (st == PC_OK) st = write_all(&o, ids, n, &err);
    for (int k = 0; ids && k < n; k++) {
        if (ids[k].found) ids[k].fam->diagnosis->identify->free(ids[k].found);
        pc_args_free(&ids[k].args);
    }
    free(ids);
    pc_sources_close(&src);
    pc_specs_release(&specs);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    return all ? PC_EXIT_PASS : PC_EXIT_FAIL;
}

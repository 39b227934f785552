/* cmd_merge.c: `pecheck merge FILE...`: combine the JSON results of
 * `pecheck accuracy --shard K/N --format json`, or the shard files of
 * `pecheck check --shard K/N` (check_shard.h), one file per shard, any
 * order, into the result of the unsharded run: its verdict (exit 0 pass,
 * 1 fail, 2 when the files are not the N shards of one run) and its report
 * in any format of the table (format.h), equal to what the unsharded run
 * writes except "seconds" (the merged value is the shards' total). */
#include <stdlib.h>
#include <string.h>
#include "harness/engine/acc_verdict.h"
#include "harness/shard/check_shard.h"
#include "harness/engine/gate.h"
#include "cli.h"
#include "harness/formats/format.h"
#include "harness/sandbox/impl.h"
#include "harness/io/jsonread.h"
#include "harness/io/output.h"
#include "property.h"
#include "harness/shard/shard.h"
#include "harness/base/version.h"
#include "properties/regressions.h"

/* A file holds one result (its top object) or several ("results"). */
static pc_status results_of(const pc_jnode *top, const char *file, const pc_jnode **list,
                            size_t *n, pc_err *err)
{
    if (!top || top->type != PC_J_OBJ)
        return pc_seterr(err, PC_EINPUT, "%s: expected a JSON object (a pecheck accuracy result)", file);
    const pc_jnode *tool = pc_jget(top, "tool"), *ver = pc_jget(top, "version");
    if (!tool || tool->type != PC_J_STR || strcmp(tool->text, PC_TOOL))
        return pc_seterr(err, PC_EINPUT, "%s: not a %s result (no \"tool\": \"%s\")", file,
                         PC_TOOL, PC_TOOL);
    if (!ver || ver->type != PC_J_STR || strcmp(ver->text, PC_VERSION))
        return pc_seterr(err, PC_EINPUT, "%s: written by another %s version (%s, this is %s)",
                         file, PC_TOOL, ver && ver->type == PC_J_STR ? ver->text : "?", PC_VERSION);
    const pc_jnode *arr = pc_jget(top, "results");
    if (arr) {
        if (arr->type != PC_J_ARR || arr->n == 0)
            return pc_seterr(err, PC_EINPUT, "%s: \"results\" is not a non-empty array", file);
        *list = arr->kids;
        *n = arr->n;
    } else {
        *list = top;
        *n = 1;
    }
    return PC_OK;
}

/* The merged results as verdicts of a gate, in the format asked for; SINGLE:
 * the shards held one result at their top, so does the output.  The written
 * name is the implementation's; a built-in's known flaw comes back for the
 * explanation in text. */
static pc_status write_merged(const pc_opts *o, const pc_shard_item *merged, size_t nr, int single,
                              pc_err *err)
{
    pc_verdicts vs = { NULL, 0, 0 };
    for (size_t r = 0; r < nr; r++) {
        pc_verdict *v = pc_verdicts_add(&vs);
        if (!v) { pc_verdicts_free(&vs); return pc_seterr(err, PC_ENOMEM, "out of memory"); }
        pc_impl impl;
        memset(&impl, 0, sizeof impl);
        const pc_impl *b = pc_builtin_find(merged[r].name);
        impl.name = merged[r].name;
        impl.flaw = b ? b->flaw : NULL;
        pc_acc_gate_verdict(&impl, &merged[r].cfg, &merged[r].res, v);
    }
    pc_result res = { .vs = &vs, .gate = 1, .single = single, .tap_version = o->tap_version };
    pc_out out;
    pc_status st = pc_out_open(&out, o->output, err);
    if (st == PC_OK) {
        pc_format_result(out.f, o->format, &res);
        st = pc_out_close(&out, 1, err);
    }
    pc_verdicts_free(&vs);
    return st;
}

/* Verdict V's note says its case was saved to PATH; it could not be (E),
 * and the note says so, as the unsharded run's (properties/run.c). */
static void note_unsaved(pc_verdict *v, const char *path, const pc_err *e)
{
    char said[PC_ERR_LEN + 64], now[PC_ERR_LEN + 64];
    pc_regress_saved_note(said, sizeof said, path);
    pc_regress_failed_note(now, sizeof now, e);
    char *at = v->details ? strstr(v->details, said) : NULL;
    if (!at) return;
    size_t head = (size_t)(at - v->details), tail = strlen(at + strlen(said));
    char *d = malloc(head + strlen(now) + tail + 1);
    if (!d) return;
    memcpy(d, v->details, head);
    memcpy(d + head, now, strlen(now));
    memcpy(d + head + strlen(now), at + strlen(said), tail + 1);
    free(v->details);
    v->details = d;
}

/* The failing cases the unsharded run saves (a shard saves none): saved
 * to the shards' regression file, in verdict order, which must be merge's
 * own (--regressions, $PECHECK_REGRESSIONS, .pecheck-regressions). */
static pc_status save_cases(const pc_opts *o, const pc_check_run *run, pc_verdicts *vs, pc_err *err)
{
    if (!run->n_saves) return PC_OK;
    const char *path = pc_regress_path(o);
    if (!path || strcmp(path, run->regressions))
        return pc_seterr(err, PC_EINPUT, "merge: the shards' failing cases go to the regression file "
                         "%s, merge's is %s (give merge --regressions %s)", run->regressions,
                         path ? path : "off", run->regressions);
    for (int k = 0; k < run->n_saves; k++) {
        const pc_check_save *c = &run->saves[k];
        pc_verdict *v = &vs->v[c->verdict];
        pc_regress_case rc = { .prop = v->check, .family = v->family, .impl = c->impl,
                               .seed = c->seed, .d = c->d, .pos_lo = c->pos_lo, .pos_hi = c->pos_hi,
                               .options = c->options };
        pc_err e = { "" };
        if (pc_regress_save(path, &rc, &e) != PC_OK) note_unsaved(v, path, &e);
    }
    return PC_OK;
}

/* Check shards: the merged verdicts judged and written as check does. */
static pc_status merge_checks(const pc_opts *o, pc_jnode *const *doc, int nf, int *any_fail,
                              pc_err *err)
{
    pc_verdicts vs = { NULL, 0, 0 };
    pc_check_run run;
    pc_status st = pc_check_shard_merge((const pc_jnode *const *)doc, o->args, nf, &vs, &run, err);
    if (st == PC_OK) st = save_cases(o, &run, &vs, err);
    pc_check_run_free(&run);
    if (st != PC_OK) { pc_verdicts_free(&vs); return st; }
    pc_verdicts_fold_declined(&vs); /* as check does (pc_check_impl) */
    pc_opts co = *o; /* the run's options that check's verdict rules read */
    co.seed = run.seed;
    co.family = run.family;
    co.n_properties = run.n_properties;
    for (int k = 0; k < run.n_properties; k++) co.properties[k] = run.properties[k];
    st = pc_check_require(&co, run.layout, &vs, err);
    if (st == PC_OK) st = pc_check_report(&co, &vs, err);
    *any_fail = pc_verdicts_status(&vs) == PC_FAIL;
    pc_verdicts_free(&vs);
    return st;
}

/* The files are check shards (the first says so; the others must too). */
static pc_status check_kind(pc_jnode *const *doc, const char *const *files, int nf, int *is_check,
                            pc_err *err)
{
    *is_check = pc_check_shard_is(doc[0]);
    for (int f = 1; f < nf; f++)
        if (pc_check_shard_is(doc[f]) != *is_check)
            return pc_seterr(err, PC_EINPUT, "merge: %s is %s check shard, %s is not", *is_check
                             ? files[0] : files[f], "a", *is_check ? files[f] : files[0]);
    return PC_OK;
}

int pc_cmd_merge(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_MERGE, 64, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    if (o.n_args < 1)
        return pc_cli_fail_output("merge", &o, pc_seterr(&err, PC_EINPUT, "merge: give the shard files "
                                  "(pecheck merge [--format json] [--output FILE] SHARD.json...)"), &err);
    int nf = o.n_args;
    pc_jnode **doc = calloc((size_t)nf, sizeof *doc);
    const pc_jnode **lists = calloc((size_t)nf, sizeof *lists);
    size_t *counts = calloc((size_t)nf, sizeof *counts);
    pc_shard_item *items = NULL, *merged = NULL;
    if (!doc || !lists || !counts) st = pc_seterr(&err, PC_ENOMEM, "out of memory");
    for (int f = 0; f < nf && st == PC_OK; f++) {
        st = pc_jread_file(o.args[f], &doc[f], &err);
        if (st == PC_EINPUT && strstr(err.msg, "invalid JSON at byte 0")) /* a text, TAP or JUnit report */
            pc_seterr(&err, st, "%s: not a shard file (not JSON): write each shard with --format json "
                      "(pecheck accuracy|check ... --shard K/N --format json --output FILE)", o.args[f]);
        const char *dup = st == PC_OK ? pc_jdup_key(doc[f]) : NULL;
        char key[64];
        if (dup) /* pecheck writes each member once */
            st = pc_seterr(&err, PC_EINPUT, "%s: member \"%s\" appears twice in one object (not a "
                           "file pecheck wrote)", o.args[f], pc_check_shard_shown(dup, key, sizeof key));
        if (st == PC_OK) st = results_of(doc[f], o.args[f], &lists[f], &counts[f], &err);
    }
    int is_check = 0, any_fail = 0;
    if (st == PC_OK) st = check_kind(doc, o.args, nf, &is_check, &err);
    if (st == PC_OK && is_check) {
        st = merge_checks(&o, doc, nf, &any_fail, &err);
        counts[0] = 0; /* nothing more to merge */
    }
    for (int f = 1; f < nf && st == PC_OK && !is_check; f++)
        if (counts[f] != counts[0])
            st = pc_seterr(&err, PC_EINPUT, "merge: %s has %zu results, %s has %zu", o.args[f],
                           counts[f], o.args[0], counts[0]);
    size_t nr = st == PC_OK ? counts[0] : 0;
    if (st == PC_OK && !is_check) {
        items = calloc((size_t)nf, sizeof *items);
        merged = calloc(nr, sizeof *merged);
        if (!items || !merged) st = pc_seterr(&err, PC_ENOMEM, "out of memory");
    }
    for (size_t r = 0; r < nr && st == PC_OK; r++) {
        for (int f = 0; f < nf && st == PC_OK; f++)
            st = pc_shard_read(&lists[f][r], o.args[f], &items[f], &err);
        if (st == PC_OK) st = pc_shard_merge(items, nf, &merged[r], &err);
        if (st == PC_OK && merged[r].res.status == PC_FAIL) any_fail = 1;
    }
    if (st == PC_OK && !is_check)
        st = write_merged(&o, merged, nr, nr == 1 && !pc_jget(doc[0], "results"), &err);
    for (int f = 0; doc && f < nf; f++) pc_jfree(doc[f]);
    free(doc); free(lists); free(counts); free(items); free(merged);
    if (st != PC_OK) return pc_cli_fail_output("merge", &o, st, &err);
    return any_fail ? PC_EXIT_FAIL : PC_EXIT_PASS;
}

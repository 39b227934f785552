/* cmd_merge.c: `pecheck merge FILE...`: combine the JSON results of
 * `pecheck accuracy --shard K/N --format json` (one file per shard, any
 * order) into the result of the unsharded run: one verdict (exit 0 pass,
 * 1 fail, 2 when the files are not the N shards of one run) and one report,
 * text or JSON, equal to what the unsharded run writes except "seconds"
 * (the merged value is the shards' total). */
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "impl.h"
#include "jsonread.h"
#include "output.h"
#include "shard.h"
#include "version.h"

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

int pc_cmd_merge(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_MERGE, 64, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    if (o.format != PC_FMT_TEXT && o.format != PC_FMT_JSON)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--format: merge writes text or json"), &err);
    if (o.n_args < 1)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "merge: give the shard files "
                           "(pecheck merge [--format json] [--output FILE] SHARD.json...)"), &err);
    int nf = o.n_args;
    pc_jnode **doc = calloc((size_t)nf, sizeof *doc);
    const pc_jnode **lists = calloc((size_t)nf, sizeof *lists);
    size_t *counts = calloc((size_t)nf, sizeof *counts);
    pc_shard_item *items = NULL, *merged = NULL;
    if (!doc || !lists || !counts) st = pc_seterr(&err, PC_ENOMEM, "out of memory");
    for (int f = 0; f < nf && st == PC_OK; f++) {
        st = pc_jread_file(o.args[f], &doc[f], &err);
        if (st == PC_OK) st = results_of(doc[f], o.args[f], &lists[f], &counts[f], &err);
        if (st == PC_OK && counts[f] != counts[0])
            st = pc_seterr(&err, PC_EINPUT, "merge: %s has %zu results, %s has %zu", o.args[f],
                           counts[f], o.args[0], counts[0]);
    }
    size_t nr = st == PC_OK ? counts[0] : 0;
    if (st == PC_OK) {
        items = calloc((size_t)nf, sizeof *items);
        merged = calloc(nr, sizeof *merged);
        if (!items || !merged) st = pc_seterr(&err, PC_ENOMEM, "out of memory");
    }
    int any_fail = 0;
    for (size_t r = 0; r < nr && st == PC_OK; r++) {
        for (int f = 0; f < nf && st == PC_OK; f++)
            st = pc_shard_read(&lists[f][r], o.args[f], &items[f], &err);
        if (st == PC_OK) st = pc_shard_merge(items, nf, &merged[r], &err);
        if (st == PC_OK && merged[r].res.status == PC_FAIL) any_fail = 1;
    }
    if (st == PC_OK) {
        pc_out out;
        st = pc_out_open(&out, o.output, &err);
        if (st == PC_OK) {
            /* the written name is the implementation's; a built-in's known flaw
             * comes back for the explanation in text */
            pc_impl *impls = calloc(nr, sizeof *impls);
            for (size_t r = 0; impls && r < nr; r++) {
                const pc_impl *b = pc_builtin_find(merged[r].name);
                impls[r].name = merged[r].name;
                impls[r].flaw = b ? b->flaw : NULL;
            }
            if (!impls) {
                st = pc_seterr(&err, PC_ENOMEM, "out of memory");
            } else if (o.format == PC_FMT_JSON) {
                pc_json j;
                pc_json_init(&j, out.f);
                pc_json_obj(&j, NULL);
                pc_json_str(&j, "tool", PC_TOOL);
                pc_json_str(&j, "version", PC_VERSION);
                if (nr == 1 && !pc_jget(doc[0], "results")) {
                    pc_accuracy_json_fields(&j, &impls[0], &merged[0].cfg, &merged[0].res);
                } else {
                    pc_json_str(&j, "status", any_fail ? "fail" : "pass");
                    pc_json_arr(&j, "results");
                    for (size_t r = 0; r < nr; r++) {
                        pc_json_obj(&j, NULL);
                        pc_accuracy_json_fields(&j, &impls[r], &merged[r].cfg, &merged[r].res);
                        pc_json_end(&j);
                    }
                    pc_json_end(&j);
                }
                pc_json_end(&j);
            } else {
                for (size_t r = 0; r < nr; r++)
                    pc_accuracy_print_text(out.f, &impls[r], &merged[r].cfg, &merged[r].res);
            }
            free(impls);
            pc_status cs = pc_out_close(&out, st == PC_OK, &err);
            if (st == PC_OK) st = cs;
        }
    }
    for (int f = 0; doc && f < nf; f++) pc_jfree(doc[f]);
    free(doc); free(lists); free(counts); free(items); free(merged);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    return any_fail ? PC_EXIT_FAIL : PC_EXIT_PASS;
}

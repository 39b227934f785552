/* cmd_identify.c: `pecheck identify`: which encoding a cache, built-in or
 * plugin computes, as the family says it (pc_diagnosis.identify,
 * families/family.h; RoPE: its schedule and parameters, docs/identify.md).
 * Exit 0 when what it found explains every value, 1 when it does not. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "harness/sandbox/hook.h"
#include "harness/io/json.h"
#include "harness/engine/model.h"
#include "harness/io/output.h"
#include "harness/sources/sources.h"
#include "harness/sources/table.h"
#include "harness/base/version.h"
#include "families/family.h"

static pc_status write_all(const pc_opts *o, const pc_identify_kind *ik, void *const *found, int n,
                           pc_err *err)
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
        for (int k = 0; k < n; k++) ik->json(&j, found[k]);
        pc_json_end(&j);
        pc_json_end(&j);
        fputc('\n', out.f);
    } else {
        for (int k = 0; k < n; k++) ik->text(out.f, found[k]);
    }
    return pc_out_close(&out, 1, err);
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
    const pc_family *fam = pc_family_identified();
    if (!fam) return pc_cli_fail(pc_seterr(&err, PC_EINTERNAL, "no family is identified"), &err);
    const pc_identify_kind *ik = fam->diagnosis->identify;
    pc_specs specs;
    st = pc_specs_resolve(&o.given, &specs, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    const pc_spec *spec = pc_specs_of(&specs, fam);
    pc_sources src;
    st = pc_sources_open(&o, &specs, fam->name, &src, &err);
    if (st != PC_OK) { pc_specs_release(&specs); return pc_cli_fail(st, &err); }
    void **found = calloc((size_t)src.n, sizeof *found);
    int n = 0, all = 1;
    if (!found) st = pc_seterr(&err, PC_ENOMEM, "out of memory");
    pc_sources_seal_note(&src, o.quiet, stderr);
    for (int k = 0; st == PC_OK && k < src.n; k++, n++) {
        st = ik->run(src.impl[k], spec, o.pos_lo, o.pos_hi, &found[k], &err);
        all &= st == PC_OK && ik->explained(found[k]);
    }
    if (st == PC_OK) st = pc_sources_status(&src, &err); /* a table's file failed */
    pc_sources_stop(&src); /* the plugins' hosts end before anything is written */
    if (st == PC_OK) st = write_all(&o, ik, found, n, &err);
    for (int k = 0; found && k < n; k++) ik->free(found[k]);
    free(found);
    pc_sources_close(&src);
    pc_specs_release(&specs);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    return all ? PC_EXIT_PASS : PC_EXIT_FAIL;
}

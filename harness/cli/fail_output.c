/* fail_output.c: a command that ends in an error still leaves its TAP or
 * JUnit --output (cli.h: pc_cli_fail_output). */
#include <math.h>
#include <stdio.h>
#include "cli.h"
#include "harness/formats/format.h"
#include "harness/io/output.h"

int pc_cli_fail_output(const char *command, const pc_opts *o, pc_status st, const pc_err *err)
{
    if (o->output && (o->format == PC_FMT_TAP || o->format == PC_FMT_JUNIT)) {
        pc_verdicts vs = { NULL, 0, 0 };
        pc_verdict *v = pc_verdicts_add(&vs);
        if (v) {
            snprintf(v->impl, sizeof v->impl, "pecheck %s", command);
            snprintf(v->command, sizeof v->command, "%s", command);
            snprintf(v->check, sizeof v->check, "run");
            v->status = st;
            v->measured = v->bound = (double)NAN;
            snprintf(v->summary, sizeof v->summary, "%s", err->msg);
            pc_out out;
            pc_err e2 = { "" };
            if (pc_out_open(&out, o->output, &e2) == PC_OK) {
                pc_format_write_tap(out.f, o->format, &vs, o->tap_version);
                pc_out_close(&out, 1, &e2);
            }
        }
        pc_verdicts_free(&vs);
    }
    return pc_cli_fail(st, err);
}

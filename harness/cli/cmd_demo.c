/* cmd_demo.c: `pecheck demo`: what `pecheck check` runs (each family's gate
 * and every property that applies) on every built-in, one line each: the
 * verdict, the documented one, and the first failed check.  Exit 0 when
 * every built-in gets the verdict it is documented to get (correct ones
 * pass, known-bad ones fail).  The demo writes no regression file. */
#include <string.h>
#include "cli.h"
#include "acc_opts.h"
#include "harness/engine/gate.h"
#include "harness/sandbox/impl.h"
#include "harness/formats/verdict.h"

/* Width of the first failure's text: the line fits 140 columns. */
#define DEMO_WHY 62

static void demo_line(const pc_impl *impl, const pc_verdicts *vs, pc_status verdict)
{
    int pass = 0, fail = 0, skip = 0;
    const pc_verdict *first = NULL;
    for (int k = 0; k < vs->n; k++) {
        pass += vs->v[k].status == PC_OK;
        skip += vs->v[k].status == PC_SKIP;
        if (vs->v[k].status == PC_FAIL && !first) first = &vs->v[k];
        fail += vs->v[k].status == PC_FAIL;
    }
    char counts[40];
    snprintf(counts, sizeof counts, "%d/%d/%d", pass, fail, skip);
    printf("%-18s %-10s %-7s %-10s %-14s", impl->name, impl->family_hint,
           verdict == PC_FAIL ? "FAIL" : verdict == PC_OK ? "PASS" : "SKIP",
           impl->expect_pass ? "correct" : "known bad", counts);
    if (first)
        printf(" %s: %.*s%s", first->check, DEMO_WHY, first->summary,
               strlen(first->summary) > DEMO_WHY ? "..." : "");
    putchar('\n');
}

int pc_cmd_demo(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_DEMO, 0, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    o.regressions = "off"; /* known-bad built-ins fail by design: nothing to replay */
    o.quiet = 1;
    pc_specs specs;
    if ((st = pc_specs_resolve(&o.given, &specs, &err)) != PC_OK) return pc_cli_fail(st, &err);
    const pc_spec *shared = pc_specs_of(&specs, NULL); /* --d and --base: every family's */
    printf("pecheck demo: pecheck check on every built-in, d=%d base=%g positions %lld..%lld "
           "seed %llu\n\n", shared->d, shared->base, (long long)o.pos_lo, (long long)o.pos_hi,
           (unsigned long long)o.seed);
    printf("%-18s %-10s %-7s %-10s %-14s %s\n", "IMPLEMENTATION", "FAMILY", "VERDICT", "DOCUMENTED",
           "PASS/FAIL/SKIP", "FIRST FAILED CHECK");
    int surprises = 0;
    pc_acc_cfg run;
    pc_acc_run_from_opts(&o, &run);
    pc_check_ctx cr = { &o, &specs, NULL };
    for (size_t k = 0; k < pc_builtin_count() && st == PC_OK; k++) {
        const pc_impl *impl = pc_builtin_at(k);
        pc_verdicts vs = { NULL, 0, 0 };
        pc_gate g = { .run = &run, .vs = &vs, .err = &err };
        st = pc_check_impl(&g, &cr, impl, NULL);
        pc_status verdict = pc_verdicts_status(&vs);
        if (st == PC_OK) {
            demo_line(impl, &vs, verdict);
            surprises += (verdict == PC_FAIL) == (impl->expect_pass != 0);
        }
        pc_verdicts_free(&vs);
    }
    pc_specs_release(&specs);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    printf("\n%zu built-ins: %s\n", pc_builtin_count(),
           surprises ? "some did not get their documented verdict"
                     : "every correct one passes and every known-bad one fails");
    return surprises ? PC_EXIT_FAIL : PC_EXIT_PASS;
}

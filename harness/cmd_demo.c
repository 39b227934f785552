/* cmd_demo.c: `pecheck demo`: the accuracy gate on every built-in of the
 * families with certified rows (sinusoidal, RoPE), as a summary table.  Exit 0 when every built-in gets the
 * verdict it is documented to get (correct ones pass, known-bad ones fail). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "accuracy.h"
#include "cli.h"
#include "impl.h"
#include "../families/family.h"

int pc_cmd_demo(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_DEMO, 0, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    printf("pecheck demo: accuracy gate, d=%d base=%g positions %lld..%lld, f32 precision model\n\n",
           o.d, o.base, (long long)o.pos_lo, (long long)o.pos_hi);
    printf("%-18s %-10s %-11s %-4s %10s %10s  %s\n", "IMPLEMENTATION", "FAMILY", "LAYOUT",
           "", "MAX ABS", "MAX ULP", "WORST ELEMENT / WHY");
    int surprises = 0;
    for (size_t k = 0; k < pc_builtin_count(); k++) {
        const pc_impl *impl = pc_builtin_at(k);
        const pc_family *fam = pc_family_of_impl(impl); /* the built-in's family */
        if (!fam || !fam->rows) continue;
        pc_acc_cfg cfg = { fam->name, o.d, o.base, 0, PC_DT_F32,
                           o.pos_lo, o.pos_hi, o.seed, -1.0, o.quiet, 0, 1, 1 };
        pc_acc_result res;
        st = pc_accuracy_run(impl, &cfg, &res, &err);
        if (st == PC_OK && res.status == PC_SKIP) { /* declined interleaved: try half */
            cfg.layout = 1;
            st = pc_accuracy_run(impl, &cfg, &res, &err);
        }
        if (st != PC_OK) return pc_cli_fail(st, &err);
        const char *v = res.status == PC_OK ? "PASS" : res.status == PC_FAIL ? "FAIL" : "SKIP";
        if ((res.status == PC_OK) != (impl->expect_pass != 0)) surprises++;
        const pc_witness *w = res.status == PC_FAIL ? &res.m.worst : &res.m.worst_abs;
        printf("%-18s %-10s %-11s %-4s %10.3g %10.3g  pos=%lld dim=%d got=%.7g ref=%.7g\n",
               impl->name, cfg.family, cfg.layout ? "half" : "interleaved", v, res.m.max_abs,
               res.m.max_ulp, (long long)w->pos, w->dim, (double)w->got, w->ref);
        if (res.status == PC_FAIL)
            printf("%-18s %s\n", "", impl->flaw ? impl->flaw : "(unexpected failure)");
    }
    printf("\n%s\n", surprises ? "some built-ins did not get their documented verdict"
                               : "every correct built-in passes and every known-bad one fails");
    return surprises ? PC_EXIT_FAIL : PC_EXIT_PASS;
}

/* family.c: the demo family's descriptor and its gate in `check`: every
 * angle of positions 0..--max-pos within one ulp of the certified binary32
 * angle (demo_ref.c).  Registered by the test build only, through
 * PC_FAMILIES_EXTRA (Makefile, build/tests/pecheck_demo). */
#include <math.h>
#include <stdio.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "demo.h"
#include "families/family.h"
#include "harness/engine/gate.h"
#include "harness/engine/accuracy.h"
#include "harness/base/progress.h"
#include "harness/base/parse.h"

extern const pc_impl pc_impl_demo_double, pc_impl_demo_shifted;
static const pc_impl *const builtins[] = { &pc_impl_demo_double, &pc_impl_demo_shifted };

/* Only an implementation with angles and no encoding hook: the encodings'
 * angles hooks belong to their own families. */
static int provides(const pc_impl *impl)
{
    return impl->angles && !impl->sinusoidal && !impl->rope;
}

/* ---- the family's spec: its own option, --demo-ulps N ------------------ */

static pc_status check_ulps(const char *v, pc_err *err)
{
    int64_t x;
    return pc_parse_i64("--demo-ulps", v, 1, 1000000, &x, err);
}

static const pc_option options[] = {
    { "demo-ulps", "N", "demo: the ulps an angle may be off (the angle-ulp gate's bound); "
      "default 1", check_ulps, 0 },
};

static pc_status resolve(const pc_given *g, pc_spec *spec, pc_err *err)
{
    (void)err;
    const char *v = pc_given_value(g, "demo-ulps");
    spec->own = (void *)(intptr_t)(v ? strtol(v, NULL, 10) : 1); /* a number, not a pointer */
    return PC_OK;
}

static void args(const pc_spec *spec, char *buf, size_t len)
{
    size_t u = strlen(buf);
    if ((intptr_t)spec->own != 1 && u < len)
        snprintf(buf + u, len - u, " --demo-ulps %ld", (long)(intptr_t)spec->own);
}

static const pc_spec_kind spec_kind = {
    .options = options, .n_options = 1, .resolve = resolve, .args = args
};

/* Elements of position POS more than the spec's ulps from the exact angle;
 * the first of the run into WHY (when still empty). */
static long bad_row(const pc_spec *o, int64_t pos, const float *theta, char *why, size_t len,
                    pc_status *st)
{
    long bad = 0;
    double ulps = (double)(intptr_t)o->own;
    for (int i = 0; i < o->d / 2 && *st == PC_OK; i++) {
        float ref;
        *st = pc_demo_ref_angle(pc_schedule_geometric(o->base), o->d, i, pos, &ref);
        double ulp = ref != 0.0f ? (double)nextafterf(fabsf(ref), INFINITY) - (double)fabsf(ref) : 0x1p-149;
        if (*st != PC_OK || fabs((double)theta[i] - (double)ref) <= ulps * ulp) continue;
        if (bad++ == 0 && !why[0])
            snprintf(why, len, "pos=%lld pair=%d: got %a, exact %a", (long long)pos, i,
                     (double)theta[i], (double)ref);
    }
    return bad;
}

static pc_status gate(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    pc_verdict *v = pc_gate_verdict(g, impl, fam->name, "angle-ulp", NULL);
    float *theta = malloc((size_t)g->spec->d / 2 * sizeof *theta);
    if (!v || !theta) { free(theta); return pc_gate_oom(g); }
    double t0 = pc_now();
    long bad = 0;
    char why[200] = "";
    pc_status st = PC_OK;
    for (int64_t p = g->run->pos_lo; p <= g->run->pos_hi && st == PC_OK; p++) {
        if (impl->angles(impl->ctx, &p, 1, g->spec->d, g->spec->base, theta) != 0) { bad++; continue; }
        bad += bad_row(g->spec, p, theta, why, sizeof why, &st);
    }
    free(theta);
    if (st != PC_OK) return pc_seterr(g->err, st, "demo reference: precision ceiling reached");
    v->measured = (double)bad;
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "angles over 1 ulp");
    v->status = bad ? PC_FAIL : PC_OK;
    long ulps = (long)(intptr_t)g->spec->own;
    snprintf(v->summary, sizeof v->summary, bad ? "%ld angles off by more than %ld ulp; first: %s"
             : "%ld angles over %ld ulp%s", bad, ulps, why);
    v->seconds = pc_now() - t0;
    return PC_OK;
}

const pc_family pc_family_demo = {
    .name = "demo", .title = "demo (test build)", /* no entry point: built-ins only */
    .flags = 0, .provides = provides, .gate = gate,
    .builtins = builtins, .n_builtins = sizeof builtins / sizeof builtins[0],
    .spec = &spec_kind
};

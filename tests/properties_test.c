/* properties_test.c: TAP tests of the property engine and the catalogue
 * (properties/).
 *
 * Every property passes on a correct built-in and fails on a wrong one with
 * the expected shrunk counterexample (the line printed under "smallest
 * counterexample"); replay reruns one case; the regression file is written
 * and read back; implementation errors and limited position ranges are
 * handled; `accuracy` runs only when selected.  Output: TAP, plan at the
 * end; exit 0 when every test passed. */
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "harness/sandbox/impl.h"
#include "harness/cli/opts.h"
#include "harness/cli/property.h"
#include "harness/formats/verdict.h"
#include "properties/property.h"
#include "families/family.h"

static int tap_n, tap_failed;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!cond) tap_failed++;
    fflush(stdout);
}

static void diag(const char *text)
{
    if (!text) return;
    for (const char *s = text; *s;) {
        const char *e = strchr(s, '\n');
        size_t n = e ? (size_t)(e - s) : strlen(s);
        printf("# %.*s\n", (int)n, s);
        s += n + (e ? 1 : 0);
    }
}

/* Give O the family option NAME (V: its value, "" for a flag), as the
 * command line does; the value must outlive O (VALUE keeps numbers). */
static void give(pc_opts *o, const char *name, const char *v)
{
    pc_err err = { "" };
    if (pc_opts_give(o, name, v, &err) != PC_OK) printf("# --%s %s: %s\n", name, v, err.msg);
}

static const char *num(int x)
{
    static char pool[64][16];
    static int next;
    char *s = pool[next++ % 64];
    snprintf(s, sizeof pool[0], "%d", x);
    return s;
}

static void opts(pc_opts *o, int d)
{
    pc_opts_defaults(o);
    give(o, "d", num(d));
    o->cases = 100;
    o->regressions = "off";
}

static void opts_variant(pc_opts *o, int layout, int causal)
{
    if (layout >= 0) give(o, "layout", layout ? "half" : "interleaved");
    if (causal) give(o, "causal", "");
}

/* FAMILY's spec under O, into SPECS (released by the caller). */
static const pc_spec *spec_of(const pc_opts *o, const char *family, pc_specs *specs)
{
    pc_err err = { "" };
    if (pc_specs_resolve(&o->given, specs, &err) != PC_OK) {
        printf("# specs: %s\n", err.msg);
        return NULL;
    }
    return pc_specs_of(specs, pc_family_find(family));
}

/* Run PROP on IMPL; V receives the verdict (caller frees details/json). */
static int run(const char *prop, const pc_impl *impl, const char *family, const pc_opts *o,
               pc_verdict *v)
{
    const pc_property *p = pc_property_find(prop);
    pc_err err = { "" };
    memset(v, 0, sizeof *v);
    if (!p || !impl) { printf("# no property %s or no implementation\n", prop); return -1; }
    pc_specs specs;
    const pc_spec *spec = spec_of(o, family, &specs);
    if (!spec) return -1;
    pc_status st = pc_property_run_one(p, impl, spec, o, v, &err);
    pc_specs_release(&specs);
    if (st != PC_OK) { printf("# error: %s\n", err.msg); return -1; }
    return 0;
}

/* The properties of FAMILY on IMPL under O, into VS. */
static pc_status run_all(const pc_impl *impl, const char *family, const pc_opts *o,
                         pc_verdicts *vs, pc_err *err)
{
    pc_specs specs;
    const pc_spec *spec = spec_of(o, family, &specs);
    if (!spec) return PC_EINTERNAL;
    pc_status st = pc_properties_run(impl, spec, o, vs, err);
    pc_specs_release(&specs);
    return st;
}

static void vfree(pc_verdict *v) { free(v->details); free(v->json); v->details = v->json = NULL; }

static void expect_pass(const char *prop, const char *impl, const char *family, int d, int layout,
                        int causal)
{
    pc_opts o;
    opts(&o, d);
    opts_variant(&o, layout, causal);
    pc_verdict v;
    int rc = run(prop, pc_builtin_find(impl), family, &o, &v);
    int good = rc == 0 && v.status == PC_OK;
    ok(good, "%s passes on %s (%s, d=%d%s%s): %s", prop, impl, family, d,
       layout == 1 ? ", half" : "", causal ? ", causal" : "", v.summary);
    if (!good) diag(v.details);
    vfree(&v);
}

/* SHRUNK: the expected case line of the shrunk counterexample */
static void expect_fail(const char *prop, const char *impl, const char *family, int d, int layout,
                        int causal, const char *shrunk)
{
    pc_opts o;
    opts(&o, d);
    opts_variant(&o, layout, causal);
    pc_verdict v;
    int rc = run(prop, pc_builtin_find(impl), family, &o, &v);
    char want[256];
    snprintf(want, sizeof want, "):\n      %s\n", shrunk);
    int good = rc == 0 && v.status == PC_FAIL && v.details && strstr(v.details, want) &&
               v.json && strstr(v.json, "\"original\"") && strstr(v.json, "\"shrunk\"");
    ok(good, "%s fails on %s with the smallest case [%s]", prop, impl, shrunk);
    if (!good) diag(v.details ? v.details : v.summary);
    vfree(&v);
}

/* ------------------------------------------------------------------ */
/* An implementation that serves a limited range and fails outside    */

extern const pc_impl pc_impl_torch_exp;

static int ranged(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                  float *out)
{
    (void)ctx;
    for (size_t r = 0; r < n; r++)
        if (pos[r] < 100 || pos[r] > 300) return 7;
    return pc_impl_torch_exp.sinusoidal(NULL, pos, n, d, base, layout, out);
}

static int flaky(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                 float *out)
{
    (void)ctx;
    for (size_t r = 0; r < n; r++)
        if (pos[r] >= 1000) return 5; /* an implementation error past 1000 */
    return pc_impl_torch_exp.sinusoidal(NULL, pos, n, d, base, layout, out);
}

static void test_ranges(void)
{
    pc_impl t = { .name = "ranged-table", .family_hint = "sinusoidal", .sinusoidal = ranged,
                  .pos_min = 100, .pos_max = 300, .pos_bounded = 1 };
    const char *props[] = { "unique", "linear-shift", "dot-distance", "pair-norm" };
    for (int k = 0; k < 4; k++) {
        pc_opts o;
        opts(&o, 64);
        pc_verdict v;
        int rc = run(props[k], &t, "sinusoidal", &o, &v);
        ok(rc == 0 && v.status == PC_OK, "%s draws positions from the source's range 100..300: %s",
           props[k], v.summary);
        if (v.status != PC_OK) diag(v.details);
        vfree(&v);
    }
    pc_opts o;
    opts(&o, 64);
    pc_verdict v;
    int rc = run("extrapolation", &t, "sinusoidal", &o, &v);
    ok(rc == 0 && v.status == PC_SKIP, "extrapolation is skipped for a source with a fixed range: %s",
       v.summary);
    vfree(&v);

    pc_impl f = { .name = "flaky", .family_hint = "sinusoidal", .sinusoidal = flaky };
    opts(&o, 64);
    rc = run("linear-shift", &f, "sinusoidal", &o, &v);
    ok(rc == 0 && v.status == PC_FAIL && strstr(v.summary, "implementation error") &&
       strstr(v.summary, "returned 5"), "a hook error is reported as the implementation's: %s",
       v.summary);
    ok(v.details && strstr(v.details, "p = 999"),
       "the hook error shrinks to the first failing position (p + k = 1000)");
    if (!(v.details && strstr(v.details, "p = 999"))) diag(v.details);
    vfree(&v);
}

/* ------------------------------------------------------------------ */
/* Seeds, replay, the regression file                                 */

/* A word of a space-separated list. */
static int has_word(const char *list, const char *w)
{
    size_t n = strlen(w);
    for (const char *s = list; (s = strstr(s, w)) != NULL; s += n)
        if ((s == list || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0')) return 1;
    return 0;
}

/* The families' descriptors register the properties: each property's
 * `families` string names exactly the families whose descriptor lists it,
 * and the catalogue holds every listed property once. */
static void test_registration(void)
{
    int agree = 1;
    size_t listed = 0;
    for (size_t f = 0; f < pc_family_count(); f++) {
        const pc_family *fam = pc_family_at(f);
        listed += fam->n_properties;
        for (size_t k = 0; k < pc_property_count(); k++) {
            const pc_property *p = pc_property_at(k);
            if (pc_property_applies(p, fam->name) != has_word(p->families, fam->name)) {
                printf("# %s: descriptor of %s and families \"%s\" disagree\n", p->name,
                       fam->name, p->families);
                agree = 0;
            }
        }
    }
    ok(agree, "each property's families are exactly the descriptors that list it");
    int once = 1;
    for (size_t k = 0; k < pc_property_count(); k++)
        for (size_t j = k + 1; j < pc_property_count(); j++)
            once &= pc_property_at(k) != pc_property_at(j);
    for (size_t f = 0; f < pc_family_count(); f++)
        for (size_t k = 0; k < pc_family_at(f)->n_properties; k++) {
            const pc_property *p = pc_family_at(f)->properties[k];
            once &= pc_property_find(p->name) == p;
        }
    ok(once && pc_property_count() > 0 && listed >= pc_property_count(),
       "the catalogue: %zu properties from %zu listings, each once", pc_property_count(), listed);
}

static void test_replay_and_regressions(void)
{
    char path[] = "/tmp/pecheck-regress-XXXXXX";
    int fd = mkstemp(path);
    if (fd >= 0) close(fd);
    unlink(path); /* start without a file */

    pc_opts o;
    opts(&o, 128);
    o.regressions = path;
    pc_verdict v1, v2, v3;
    run("linear-shift", pc_builtin_find("cos-shifted"), "sinusoidal", &o, &v1);
    ok(v1.status == PC_FAIL && v1.seed != o.seed, "a failure reports its case seed (0x%016" PRIx64 ")",
       v1.seed);
    ok(v1.details && strstr(v1.details, "replay: pecheck check --impl cos-shifted") &&
       strstr(v1.details, "--replay 0x"), "the failure prints the replay command");

    /* the regression file holds the case */
    FILE *f = fopen(path, "r");
    char buf[4096] = "";
    size_t n = f ? fread(buf, 1, sizeof buf - 1, f) : 0;
    buf[n] = '\0';
    if (f) fclose(f);
    char want[64];
    snprintf(want, sizeof want, "seed=0x%016" PRIx64, v1.seed);
    ok(strstr(buf, "property=linear-shift family=sinusoidal") && strstr(buf, want) &&
       strstr(buf, "impl=cos-shifted"), "the failing case is saved to the regression file");

    /* replay reruns exactly that case: same shrunk counterexample */
    pc_opts r = o;
    r.regressions = "off";
    r.replay_set = 1;
    r.replay = v1.seed;
    run("linear-shift", pc_builtin_find("cos-shifted"), "sinusoidal", &r, &v2);
    const char *a = v1.details ? strstr(v1.details, "smallest counterexample") : NULL;
    const char *b = v2.details ? strstr(v2.details, "smallest counterexample") : NULL;
    const char *ae = a ? strstr(a, "\n      pair") : NULL, *be = b ? strstr(b, "\n      pair") : NULL;
    ok(v2.status == PC_FAIL && a && b && ae && be && ae - a == be - b && !strncmp(a, b, (size_t)(ae - a)),
       "--replay SEED reproduces the saved failure and its shrunk counterexample");
    ok(v2.details && strstr(v2.details, "(replay, run seed"), "the replayed case is marked as a replay");

    /* a later run with another seed and a single case tries the saved case first */
    pc_opts l = o;
    l.seed = 12345;
    l.cases = 1;
    run("linear-shift", pc_builtin_find("cos-shifted"), "sinusoidal", &l, &v3);
    ok(v3.status == PC_FAIL && v3.seed == v1.seed && v3.details && strstr(v3.details, "(regression case 0"),
       "the regression file is read back: its case runs first");
    vfree(&v3);

    /* the same case replayed on a correct implementation passes */
    run("linear-shift", pc_builtin_find("torch-exp"), "sinusoidal", &r, &v3);
    ok(v3.status == PC_OK && strstr(v3.summary, "replayed case passes"),
       "the replayed case passes on a correct implementation");
    vfree(&v1); vfree(&v2); vfree(&v3);

    /* a damaged regression file is ignored line by line, not fatal */
    f = fopen(path, "a");
    if (f) { fputs("garbage line\nproperty=linear-shift seed=zz impl=cos-shifted\n", f); fclose(f); }
    run("linear-shift", pc_builtin_find("cos-shifted"), "sinusoidal", &l, &v3);
    ok(v3.status == PC_FAIL && v3.details && strstr(v3.details, "(regression case 0"),
       "bad lines in the regression file are skipped");
    vfree(&v3);
    unlink(path);
}

static void test_selection(void)
{
    pc_opts o;
    opts(&o, 32);
    pc_verdicts vs = { 0 };
    pc_err err = { "" };
    pc_status st = run_all(pc_builtin_find("torch-exp"), "sinusoidal", &o, &vs, &err);
    int has_acc = 0, has_unique = 0;
    for (int k = 0; k < vs.n; k++) {
        has_acc |= !strcmp(vs.v[k].check, "accuracy");
        has_unique |= !strcmp(vs.v[k].check, "unique");
    }
    ok(st == PC_OK && has_unique && !has_acc,
       "the default selection runs the catalogue but not `accuracy` (check runs the gate itself)");
    pc_verdicts_free(&vs);

    o.properties[0] = "accuracy";
    o.n_properties = 1;
    o.pos_hi = 255;
    st = run_all(pc_builtin_find("plus-1e-4"), "sinusoidal", &o, &vs, &err);
    ok(st == PC_OK && vs.n == 1 && !strcmp(vs.v[0].check, "accuracy") && vs.v[0].status == PC_FAIL,
       "--property accuracy runs the gate as a catalogue entry (plus-1e-4 fails)");
    pc_verdicts_free(&vs);
    st = run_all(pc_builtin_find("torch-exp"), "sinusoidal", &o, &vs, &err);
    ok(st == PC_OK && vs.n == 1 && vs.v[0].status == PC_OK, "--property accuracy passes on torch-exp");
    pc_verdicts_free(&vs);

    o.properties[0] = "no-such-property";
    st = run_all(pc_builtin_find("torch-exp"), "sinusoidal", &o, &vs, &err);
    ok(st == PC_EINPUT && strstr(err.msg, "no-such-property"), "an unknown property is an input error: %s",
       err.msg);
    pc_verdicts_free(&vs);

    o.properties[0] = "unique";
    o.properties[1] = "pair-norm";
    o.n_properties = 2;
    o.replay_set = 1;
    st = run_all(pc_builtin_find("torch-exp"), "sinusoidal", &o, &vs, &err);
    ok(st == PC_EINPUT, "--replay with two properties is an input error: %s", err.msg);
    pc_verdicts_free(&vs);

    /* every catalogue entry has its explanation */
    int complete = 1;
    for (size_t k = 0; k < pc_property_count(); k++) {
        const pc_property *p = pc_property_at(k);
        if (!p->name || !p->families || !p->title || !p->math || !p->why || !p->tolerance ||
            !p->measured_what || !p->expect || (!p->whole && (!p->gen || !p->check))) {
            printf("# %s is incomplete\n", p->name ? p->name : "?");
            complete = 0;
        }
    }
    ok(complete, "every property has a name, families, math, why, tolerance, generator and check");
    test_registration();
}

int main(void)
{
    /* unique: the bfloat16 collision pair 256, 257 */
    expect_pass("unique", "torch-exp", "sinusoidal", 128, -1, 0);
    expect_pass("unique", "learned-table", "learned", 64, -1, 0);
    expect_fail("unique", "bf16-positions", "sinusoidal", 128, -1, 0, "d = 2, p = 256, k = 1");

    /* linear-shift: sin-only and mismatched frequencies fail at d = 2, k = 1 */
    expect_pass("linear-shift", "torch-exp", "sinusoidal", 128, -1, 0);
    expect_pass("linear-shift", "torch-exp", "sinusoidal", 128, 1, 0);
    expect_pass("linear-shift", "double-angle", "sinusoidal", 128, -1, 0);
    expect_fail("linear-shift", "sin-only", "sinusoidal", 128, -1, 0, "d = 2, p = 0, k = 1");
    expect_fail("linear-shift", "cos-shifted", "sinusoidal", 128, -1, 0, "d = 2, p = 0, k = 1");

    /* dot-distance: half-split with matched frequencies passes */
    expect_pass("dot-distance", "torch-exp", "sinusoidal", 128, 1, 0);
    expect_pass("dot-distance", "torch-pow", "sinusoidal", 128, -1, 0);
    expect_fail("dot-distance", "sin-only", "sinusoidal", 128, -1, 0, "d = 2, p = 0, q = 0");
    expect_fail("dot-distance", "cos-shifted", "sinusoidal", 128, 1, 0, "d = 2, p = 0, q = 1");

    expect_pass("pair-norm", "double-angle", "sinusoidal", 128, -1, 0);
    expect_fail("pair-norm", "sin-only", "sinusoidal", 128, -1, 0, "d = 2, p = 0");

    /* RoPE: the bfloat16 cache breaks shift invariance, norms and the decay curve */
    expect_pass("rope-relative", "rope-polar", "rope", 128, -1, 0);
    expect_pass("rope-relative", "rope-half", "rope", 128, -1, 0);
    expect_fail("rope-relative", "rope-bf16-cache", "rope", 128, -1, 0,
                "d = 2, m = 0, n = 0, s = 1, vectors = (1, 0) on pair 0");
    expect_pass("rope-norm", "rope-half", "rope", 128, -1, 0);
    expect_fail("rope-norm", "rope-bf16-cache", "rope", 128, -1, 0, "d = 2, m = 1, vectors = (1, 0) on pair 0");
    expect_pass("decay", "rope-polar", "rope", 64, -1, 0);
    expect_fail("decay", "rope-bf16-cache", "rope", 64, -1, 0, "d = 2, r = 1");

    /* attention: equivariant without PE; PE or an ignored mask show up */
    expect_pass("equivariance", "attention-f32", "attention", 16, -1, 0);
    expect_fail("equivariance", "attention-sinpe", "attention", 16, -1, 0,
                "d = 2, n = 2, permutation = swap rows 0 and 1");
    expect_pass("equivariance", "attention-f32", "attention", 16, -1, 1);
    expect_fail("equivariance", "attention-nocausal", "attention", 16, -1, 1,
                "d = 2, n = 2, permutation = swap rows 0 and 1");

    /* learned tables */
    expect_pass("learned-range", "learned-table", "learned", 32, -1, 0);
    expect_fail("learned-range", "learned-clamp", "learned", 32, -1, 0, "d = 32, positions = [-1]");

    /* extrapolation: formula families pass, the clamping table pretends */
    expect_pass("extrapolation", "torch-exp", "sinusoidal", 64, -1, 0);
    expect_pass("extrapolation", "rope-half", "rope", 64, -1, 0);
    expect_pass("extrapolation", "learned-table", "learned", 32, -1, 0);
    expect_fail("extrapolation", "learned-clamp", "learned", 32, -1, 0, "d = 32, p = 512");

    test_ranges();
    test_replay_and_regressions();
    test_selection();

    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

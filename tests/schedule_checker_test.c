/* schedule_checker_test.c: the frequency schedule as a value and the one
 * checker (TAP output).
 *
 *  - a schedule defined here, in the test, as a later RoPE-scaling change
 *    would add one (position interpolation: omega_i / 2), is used by
 *    pc_freqs_new unchanged, and the certified sin/cos of position 2k
 *    under it equal, bit for bit, those of position k under the geometric
 *    schedule (pos * omega_i / 2 is the same real number);
 *  - an invalid schedule's parameters are refused (NULL);
 *  - pc_check_element: error, ulp and err/bound, including a non-finite
 *    value and a zero bound;
 *  - a sampled run of the accuracy gate on the positions A..B equals the
 *    run on the range A..B (counts, maxima, worst element), and its
 *    observer sees every element once, in position order. */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "harness/engine/accuracy.h"
#include "harness/cli/opts.h"
#include "reference/schedule.h"

static int n_test, n_fail;

static void ok(int cond, const char *what)
{
    n_test++;
    if (!cond) n_fail++;
    printf("%s %d - %s\n", cond ? "ok" : "not ok", n_test, what);
}

/* ---- a schedule added by a test: the geometric one halved ------------ */

static pc_status half_check(const pc_schedule *s, int d, pc_err *err)
{
    return pc_ref_check_params(d, s->base, err);
}

/* omega_i / 2: the geometric omega's relative error, the halving exact. */
static void half_omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    pc_schedule g = pc_schedule_geometric(s->base);
    g.kind->omega(out, &g, d, i);
    mpfr_div_2ui(out, out, 1, MPFR_RNDN);
}

static const pc_schedule_kind half_kind = { "geometric-halved", half_check, half_omega, NULL, NULL,
                                            NULL, NULL, NULL, NULL, NULL, NULL };

static int same_ref(pc_ref2 a, pc_ref2 b)
{
    return memcmp(&a.f32, &b.f32, sizeof a.f32) == 0 && memcmp(&a.f64, &b.f64, sizeof a.f64) == 0;
}

static void test_schedule(void)
{
    const int d = 64;
    pc_schedule half = { &half_kind, 10000.0, NULL };
    pc_freqs *g = pc_freqs_new(d, pc_schedule_geometric(10000.0)), *h = pc_freqs_new(d, half);
    ok(g && h, "pc_freqs_new takes the geometric schedule and one defined outside reference/");
    int same = g && h, n = 0;
    for (int64_t k = 0; k <= 4000 && same; k += 37)
        for (int i = 0; i < d / 2 && same; i++, n++) {
            pc_ref2 s1, c1, s2, c2;
            same = pc_ref_sincos(g, k, i, &s1, &c1) == PC_OK && pc_ref_sincos(h, 2 * k, i, &s2, &c2) == PC_OK
                   && same_ref(s1, s2) && same_ref(c1, c2);
        }
    char what[160];
    snprintf(what, sizeof what, "sin/cos of 2k under omega/2 equal those of k under omega, bit for "
             "bit (%d pairs)", n);
    ok(same, what);
    ok(g && pc_freqs_omega(h, 5) == pc_freqs_omega(g, 5) / 2, "pc_freqs_omega reads the schedule's omega");
    pc_freqs_free(g);
    pc_freqs_free(h);
    ok(pc_freqs_new(d, pc_schedule_geometric(1.0)) == NULL, "base 1: the schedule's check refuses it");
    pc_schedule none = { NULL, 10000.0, NULL };
    ok(pc_freqs_new(d, none) == NULL, "a schedule without a kind is refused");
}

/* ---- the checker -------------------------------------------------------- */

static void test_check_element(void)
{
    pc_witness w = { .got = 1.0f, .ref32 = 1.0f, .ref = 1.0 + 0x1p-30, .bound = 0x1p-29 };
    double r = pc_check_element(&w);
    ok(w.err == 0x1p-30 && r == 0.5 && w.ulp == 0x1p-30 / 0x1p-23, "error, ulp and err/bound");
    w.got = NAN;
    r = pc_check_element(&w);
    ok(isinf(r) && isinf(w.err) && !(w.err <= w.bound), "a NaN is infinitely over the bound");
    w.got = 1.0f; w.ref = 1.0; w.bound = 0;
    ok(pc_check_element(&w) == 0.0 && w.err <= w.bound, "zero error under a zero bound passes");
    w.ref = 1.0 + 0x1p-40;
    ok(isinf(pc_check_element(&w)) && !(w.err <= w.bound), "any error under a zero bound fails");
}

/* ---- a sampled run is the gate on its positions -------------------------- */

typedef struct seen { long n; int64_t last; int ordered; } seen;

static void count(void *ctx, const pc_witness *w, int pair, double ratio)
{
    seen *s = ctx;
    (void)ratio;
    if (w->pos < s->last || pair < 0) s->ordered = 0;
    s->last = w->pos;
    s->n++;
}

static void test_sampled(const char *impl_name, const char *family, int layout)
{
    const pc_impl *impl = pc_builtin_find(impl_name);
    pc_acc_cfg c = { .family = family, .d = 32, .layout = layout, .base = 10000.0, .dtype = PC_DT_F32,
                     .pos_lo = 100, .pos_hi = 700, .seed = 7, .tol_abs = -1.0, .quiet = 1, .threads = 2 };
    int64_t pos[601];
    for (int k = 0; k <= 600; k++) pos[k] = 100 + k;
    pc_acc_cfg s = c;
    seen sn = { 0, 0, 1 };
    s.positions = pos;
    s.n_positions = 601;
    s.observe = count;
    s.observe_ctx = &sn;
    pc_acc_result a, b;
    pc_err err = { "" };
    int ran = impl && pc_accuracy_run(impl, &c, &a, &err) == PC_OK && pc_accuracy_run(impl, &s, &b, &err) == PC_OK;
    char what[160];
    snprintf(what, sizeof what, "%s: the sampled run on 100..700 equals the range run", impl_name);
    ok(ran && a.m.count > 0 && a.status == b.status && a.m.count == b.m.count && a.m.n_over == b.m.n_over
       && a.m.max_abs == b.m.max_abs && a.m.max_ratio == b.m.max_ratio
       && a.m.worst.pos == b.m.worst.pos && a.m.worst.dim == b.m.worst.dim, what);
    snprintf(what, sizeof what, "%s: the observer sees all %llu elements, in position order", impl_name,
             ran ? (unsigned long long)b.m.count : 0ull);
    ok(ran && (uint64_t)sn.n == b.m.count && sn.ordered, what);
    snprintf(what, sizeof what, "%s: verdict %s, %llu elements over the bound", impl_name,
             ran && b.status == PC_FAIL ? "fail" : "pass", ran ? (unsigned long long)b.m.n_over : 0ull);
    ok(ran && (b.status == PC_FAIL) == (impl->expect_pass == 0), what);
}

int main(void)
{
    test_schedule();
    test_check_element();
    test_sampled("torch-exp", "sinusoidal", 0);
    test_sampled("rope-bf16-cache", "rope", 1);
    printf("1..%d\n", n_test);
    mpfr_free_cache();
    return n_fail != 0;
}

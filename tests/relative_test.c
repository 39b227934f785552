/* relative_test.c: the relative-position families (T5, ALiBi,
 * Transformer-XL): exact references against hand-computed values and
 * independent formulas, and every property against the correct built-ins
 * (pass) and the known-bad ones (fail, with the expected smallest
 * counterexample).  TAP, plan at the end.
 *
 * Hand values (HF defaults num_buckets 32, max_distance 128):
 *   bidirectional: nb = 16, max_exact 8, X = 8 ln(n/8)/ln 16 = 2 log2(n/8);
 *   causal:        nb = 32, max_exact 16, X = 16 ln(n/16)/ln 8 = (16/3) log2(n/16).
 * X is exactly an integer at bidirectional n = 16, 32, 64 (2, 4, 6): those
 * buckets are checked against the hand values only (a double formula is
 * not trusted there). */
#include <inttypes.h>
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness/sandbox/impl.h"
#include "harness/cli/opts.h"
#include "harness/cli/property.h"
#include "harness/formats/verdict.h"
#include "properties/property.h"
#include "families/family.h"
#include "families/alibi/alibi.h"
#include "reference/relative.h"

static int n_tests, n_fail;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
    va_list ap;
    n_tests++;
    if (!cond) n_fail++;
    printf("%s %d - ", cond ? "ok" : "not ok", n_tests);
    va_start(ap, fmt);
    vprintf(fmt, ap);
    va_end(ap);
    putchar('\n');
    fflush(stdout);
}

/* ---- T5 reference --------------------------------------------------------- */

typedef struct { int64_t rel; int32_t bi, causal; } t5_row;

/* by hand from the formulas in the header comment */
static const t5_row t5_hand[] = {
    {    0,  0,  0 },
    {   -1,  1,  1 }, {    1, 17, 0 },
    {   -7,  7,  7 }, {    7, 23, 0 },
    {   -8,  8,  8 }, {    8, 24, 0 },   /* bi: X = 0 (n = max_exact) */
    {  -15,  9, 15 }, {   15, 25, 0 },   /* bi: X = 1.81 */
    {  -16, 10, 16 }, {   16, 26, 0 },   /* bi: X = 2 exactly; causal X = 0 */
    {  -20, 10, 17 }, {   20, 26, 0 },   /* bi 2.64, causal 1.72 */
    {  -32, 12, 21 }, {   32, 28, 0 },   /* bi: X = 4 exactly; causal 5.33 */
    {  -50, 13, 24 }, {   50, 29, 0 },   /* bi 5.29, causal 8.77 */
    {  -64, 14, 26 }, {   64, 30, 0 },   /* bi: X = 6 exactly; causal 10.67 */
    { -127, 15, 31 }, {  127, 31, 0 },   /* bi 7.98, causal 15.94 */
    { -128, 15, 31 }, {  128, 31, 0 },   /* saturated */
    { -1000, 15, 31 }, { 1000, 31, 0 },
    { INT64_MIN, 15, 31 }, { INT64_MAX, 31, 0 },
};

/* the straightforward double formula (HF's, in binary64) */
static int32_t t5_double(int64_t rel, int bidirectional, int nb, int md, int *safe)
{
    int32_t off = 0;
    double n;
    if (bidirectional) { nb /= 2; if (rel > 0) off = nb; n = fabs((double)rel); }
    else n = rel < 0 ? -(double)rel : 0.0;
    int me = nb / 2;
    *safe = 1;
    if (n < me) return off + (int32_t)n;
    double x = log(n / me) / log((double)md / me) * (nb - me);
    if (fabs(x - nearbyint(x)) < 1e-9) *safe = 0; /* within double's error of an integer */
    double b = me + floor(x);
    return off + (int32_t)(b < nb - 1 ? b : nb - 1);
}

static void test_t5_reference(void)
{
    int bad = 0;
    for (size_t k = 0; k < sizeof t5_hand / sizeof t5_hand[0]; k++)
        for (int m = 0; m < 2; m++) {
            int32_t b = -1;
            pc_status st = pc_ref_t5_bucket(t5_hand[k].rel, m == 0, 32, 128, &b);
            int32_t want = m == 0 ? t5_hand[k].bi : t5_hand[k].causal;
            if (st != PC_OK || b != want) {
                bad++;
                printf("# FAIL %s rel=%" PRId64 " ref=%d want=%d\n", m ? "causal" : "bidirectional",
                       t5_hand[k].rel, (int)b, (int)want);
            }
        }
    ok(bad == 0, "T5 reference: hand values at HF defaults (0, +-1, +-7, +-8, +-15, +-16, +-20, "
       "+-32, +-50, +-64, +-127, +-128, +-1000, int64 extremes), both variants");

    /* independent double formula away from integer X, several parameter sets */
    static const int params[][2] = { {32, 128}, {64, 256}, {16, 64}, {128, 1024}, {8, 20} };
    long compared = 0, skipped = 0;
    bad = 0;
    for (size_t p = 0; p < sizeof params / sizeof params[0]; p++)
        for (int m = 0; m < 2; m++)
            for (int64_t rel = -3 * params[p][1]; rel <= 3 * params[p][1]; rel++) {
                int safe;
                int32_t want = t5_double(rel, m == 0, params[p][0], params[p][1], &safe), b = -1;
                if (!safe) { skipped++; continue; }
                compared++;
                if (pc_ref_t5_bucket(rel, m == 0, params[p][0], params[p][1], &b) != PC_OK ||
                    b != want) {
                    if (bad++ < 5)
                        printf("# FAIL nb=%d md=%d %s rel=%" PRId64 " ref=%d double=%d\n",
                               params[p][0], params[p][1], m ? "causal" : "bi", rel, (int)b,
                               (int)want);
                }
            }
    ok(bad == 0 && compared > 10000, "T5 reference = double formula on %ld distances "
       "(%ld within 1e-9 of an integer X left to the hand values)", compared, skipped);

    /* X exactly an integer: recognised */
    int64_t f;
    int ex, all = 1;
    for (int n = 16; n <= 64; n *= 2) {
        pc_status st = pc_t5_log_floor((uint64_t)n, 8, 8, 128, &f, &ex);
        all &= st == PC_OK && ex == 1 && f == 2 * (int64_t)log2(n / 8);
    }
    pc_status st = pc_t5_log_floor(17, 8, 8, 128, &f, &ex);
    all &= st == PC_OK && ex == 0 && f == 2;
    ok(all, "T5 reference: X = 2, 4, 6 at n = 16, 32, 64 recognised as exact integers; n = 17 not");

    /* Where HF's binary32 formula lands on the wrong side (found by a scan of
     * nb 2..128, max_distance up to 4 nb; see the report): causal nb 17,
     * md 27, n 12: X = 9 ln(1.5)/ln(3.375) = 3 exactly ((3/2)^9 = (27/8)^3). */
    int32_t b1 = -1, b2 = -1;
    pc_status s1 = pc_ref_t5_bucket(-12, 0, 17, 27, &b1);
    pc_t5_log_floor(12, 8, 9, 27, &f, &ex);
    /* nb 46, md 164, n 107: X = 23 ln(107/23)/ln(164/23) = 17.99999..., not an integer */
    pc_status s2 = pc_ref_t5_bucket(-107, 0, 46, 164, &b2);
    int64_t f2;
    int ex2;
    pc_t5_log_floor(107, 23, 23, 164, &f2, &ex2);
    ok(s1 == PC_OK && b1 == 11 && ex == 1 && s2 == PC_OK && b2 == 40 && f2 == 17 && ex2 == 0,
       "T5 reference at the float32 formula's failures: (17, 27, -12) -> 11 (X = 3 exactly), "
       "(46, 164, -107) -> 40 (X = 17.99999...)");
    const pc_impl *hf = pc_builtin_find("t5-hf");
    int64_t rels[2] = { -12, -107 };
    int32_t g[2] = { -1, -1 };
    if (hf) {
        hf->t5_bucket(NULL, rels, 1, 0, 17, 27, g);
        hf->t5_bucket(NULL, rels + 1, 1, 0, 46, 164, g + 1);
        printf("# note: t5-hf (binary32, HF's formula) gives %d and %d there\n", (int)g[0], (int)g[1]);
    }

    /* bad parameters are input errors */
    pc_err e;
    ok(pc_t5_check_params(1, 3, 128, &e) == PC_EINPUT && pc_t5_check_params(0, 32, 16, &e) == PC_EINPUT &&
       pc_t5_check_params(0, 0, 16, &e) == PC_EINPUT && pc_t5_check_params(1, 32, 128, &e) == PC_OK,
       "T5 parameters: num_buckets 3 bidirectional, max_distance <= max_exact, 0 buckets refused");
}

/* ---- ALiBi reference ------------------------------------------------------ */

static int same_bits(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }

static void test_alibi_reference(void)
{
    int bad = 0;
    for (int h = 0; h < 8; h++) {
        pc_ref2 r;
        float want = ldexpf(1.0f, -(h + 1));   /* 1/2 .. 1/256 */
        if (pc_ref_alibi_slope(8, h, &r) != PC_OK || !same_bits(r.f32, want) ||
            r.f64 != (double)want) bad++;
    }
    ok(bad == 0, "ALiBi slopes H=8: 1/2, 1/4, ..., 1/256 exactly");

    /* H = 12: C = 8 -> 1/2..1/256, then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5;
     * sqrtf is correctly rounded (IEEE 754), scaling by 2^-k exact */
    float r2 = sqrtf(0.5f);
    float want12[12] = { 0.5f, 0.25f, 0.125f, 0.0625f, 0x1p-5f, 0x1p-6f, 0x1p-7f, 0x1p-8f,
                         r2, r2 * 0.5f, r2 * 0.25f, r2 * 0.125f };
    bad = 0;
    for (int h = 0; h < 12; h++) {
        pc_ref2 r;
        if (pc_ref_alibi_slope(12, h, &r) != PC_OK || !same_bits(r.f32, want12[h])) {
            bad++;
            printf("# FAIL H=12 h=%d ref=%a want=%a\n", h, (double)r.f32, (double)want12[h]);
        }
    }
    ok(bad == 0, "ALiBi slopes H=12: 1/2..1/256 then 2^-0.5, 2^-1.5, 2^-2.5, 2^-3.5");

    float want3[3] = { 0x1p-4f, 0x1p-8f, 0x1p-2f };
    float want6[6] = { 0x1p-2f, 0x1p-4f, 0x1p-6f, 0x1p-8f, 0x1p-1f, 0x1p-3f };
    bad = 0;
    for (int h = 0; h < 3; h++) { pc_ref2 r; pc_ref_alibi_slope(3, h, &r); bad += !same_bits(r.f32, want3[h]); }
    for (int h = 0; h < 6; h++) { pc_ref2 r; pc_ref_alibi_slope(6, h, &r); bad += !same_bits(r.f32, want6[h]); }
    ok(bad == 0, "ALiBi slopes H=3 (1/16, 1/256, 1/4) and H=6 (1/4..1/256, 1/2, 1/8)");

    /* bias: -d * slope, one rounding */
    pc_ref2 b;
    int good = pc_ref_alibi_bias(8, 2, 3, &b) == PC_OK && same_bits(b.f32, -0.375f);
    double exact = -1000.0 * sqrt(0.5);
    good &= pc_ref_alibi_bias(12, 8, -1000, &b) == PC_OK &&
            fabs((double)b.f32 - exact) <= 0.5 * ldexp(1.0, ilogb(exact) - 23) &&
            fabs(b.f64 - exact) <= 2e-16 * fabs(exact);
    good &= pc_ref_alibi_bias(12, 8, 0, &b) == PC_OK && b.f32 == 0.0f;
    ok(good, "ALiBi bias reference: -3/8 exact, -1000/sqrt(2) correctly rounded, 0 at distance 0");
}

/* The binary32 class of slopes (families/alibi/slope_class.c): BLOOM's and
 * MPT's formulations, computed exactly, lie within it at every head count
 * 1..512 (B = 8, and MPT's B = 16); the exact slopes rounded once within
 * --strict's ulp; a neighbour's slope (a wrong order) outside both. */
static void test_alibi_class(void)
{
    int bad = 0, badstrict = 0, caught = 0, pairs = 0;
    double worst = 0;
    for (int b = 8; b <= 16; b += 8)
        for (int H = 1; H <= 512; H++)
            for (int h = 0; h < H; h++) {
                pc_ref2 r;
                pc_ref_alibi_slope_b(H, b, h, &r);
                double ulp = ldexp(1.0, ilogb((double)r.f32) - 23);
                double beta = pc_alibi_slope_beta(H, h, r.f64, ulp, 0);
                for (int f = PC_ALIBI_FORM_BLOOM; f <= PC_ALIBI_FORM_MPT; f++) {
                    if (f == PC_ALIBI_FORM_BLOOM && b != 8) continue; /* BLOOM has no B */
                    double e = fabs((double)pc_alibi_form_slope(f, H, b, h) - r.f64);
                    bad += !(e <= beta * r.f64);
                    if (e / (beta * r.f64) > worst) worst = e / (beta * r.f64);
                }
                double ecr = fabs((double)pc_alibi_form_slope(PC_ALIBI_FORM_CR, H, b, h) - r.f64);
                badstrict += !(ecr <= pc_alibi_slope_beta(H, h, r.f64, ulp, 1) * r.f64);
                if (h + 1 < H) { /* head h given head h+1's slope */
                    pc_ref2 n;
                    pc_ref_alibi_slope_b(H, b, h + 1, &n);
                    pairs++;
                    caught += fabs(n.f64 - r.f64) > beta * r.f64;
                }
            }
    ok(bad == 0, "BLOOM's and MPT's binary32 slopes, heads 1..512, within the binary32 class "
       "(%d outside; worst err/bound %.3g)", bad, worst);
    ok(badstrict == 0, "the exact slopes rounded once within --strict's 1 ulp (%d outside)",
       badstrict);
    ok(caught == pairs, "every neighbour's slope is outside the class (%d of %d)", caught, pairs);
    long a, b;
    pc_alibi_exponent_b(40, 16, 35, &a, &b); /* C = 32, m = 3: 2^(-16*7/64) = 2^(-7/4) */
    ok(a == 7 && b == 4 && pc_alibi_power(40, 35) == 7, "MPT bias max 16, 40 heads, head 35: "
       "2^(-%ld/%ld), power %d", a, b, pc_alibi_power(40, 35));
}

/* ---- Transformer-XL reference --------------------------------------------- */

static void test_txl_reference(void)
{
    /* d = 2, WR = I, u = v = 0: A = q.k + q.R_{rel}, R = (sin rel, cos rel) in
     * HALF layout (omega_0 = 1): compare with a double evaluation */
    float wr[4] = { 1, 0, 0, 1 }, q[2] = { 0.75f, -1.5f }, k[2] = { 2.0f, 0.5f }, z[2] = { 0, 0 };
    pc_txl_ref *t = NULL;
    pc_err e;
    int good = pc_txl_ref_new(2, 10000.0, 1, wr, &t, &e) == PC_OK;
    for (int64_t rel = -5; rel <= 5 && good; rel++) {
        float a32;
        double a64;
        good &= pc_txl_ref_score(t, q, k, z, z, rel, &a32, &a64, NULL, NULL) == PC_OK;
        double rs = (double)(float)sin((double)rel), rc = (double)(float)cos((double)rel);
        double want = 0.75 * 2.0 - 1.5 * 0.5 + 0.75 * rs - 1.5 * rc;
        good &= fabs(a64 - want) < 1e-15 && fabs((double)a32 - want) <= 2e-7 * fabs(want) + 1e-30;
    }
    pc_txl_ref_free(t);
    ok(good, "TXL reference: d=2, WR=I, u=v=0 equals q.k + q.R_{i-j} (sin odd, cos even), "
       "rel -5..5");

    /* exactness: q.k = 2^60 - 2^60 + 2^-20 must come out exactly, where a
     * binary32 sum loses the small term */
    float q2[2] = { 0x1p60f, 1.0f }, k2[2] = { 1.0f, 0x1p-20f }, u2[2] = { -0x1p60f, 0.0f };
    float w0[4] = { 0, 0, 0, 0 };
    good = pc_txl_ref_new(2, 10000.0, 0, w0, &t, &e) == PC_OK;
    float a32 = 0;
    double a64 = 0;
    good &= pc_txl_ref_score(t, q2, k2, u2, z, 7, &a32, &a64, NULL, NULL) == PC_OK;
    pc_txl_ref_free(t);
    ok(good && a32 == 0x1p-20f && a64 == 0x1p-20, "TXL reference: 2^60 - 2^60 + 2^-20 exact "
       "(got %a)", a64);
}

/* ---- properties on the built-ins ------------------------------------------ */

static int run_prop(const char *prop, const pc_impl *impl, const char *family, pc_verdict *v)
{
    pc_opts o;
    pc_opts_defaults(&o);
    o.cases = 40;             /* enough to hit every failing built-in; keeps the test fast */
    o.regressions = "off";
    o.quiet = 1;
    const pc_property *p = pc_property_find(prop);
    memset(v, 0, sizeof *v);
    if (!p || !impl) return -1;
    pc_err e = { "" };
    pc_specs specs;
    pc_status st = pc_specs_resolve(&o.given, &specs, &e);
    if (st == PC_OK)
        st = pc_property_run_one(p, impl, pc_specs_of(&specs, pc_family_find(family)), &o, v, &e);
    pc_specs_release(&specs);
    if (st != PC_OK) { printf("# error: %s\n", e.msg); return -1; }
    return v->status;
}

typedef struct expect_row {
    const char *prop, *impl, *family;
    int status;               /* PC_OK or PC_FAIL */
    const char *needle;       /* text the failure details must contain */
} expect_row;

static const expect_row expected[] = {
    { "t5-reference", "t5-hf", "t5", PC_OK, NULL },
    { "t5-exact", "t5-hf", "t5", PC_OK, NULL },
    { "t5-monotone", "t5-hf", "t5", PC_OK, NULL },
    { "t5-saturate", "t5-hf", "t5", PC_OK, NULL },
    { "t5-symmetric", "t5-hf", "t5", PC_OK, NULL },
    { "t5-bias-relative", "t5-hf", "t5", PC_OK, NULL },
    /* round instead of truncate: first wrong at |j - i| = 10 (X = 0.644) */
    { "t5-reference", "t5-round", "t5", PC_FAIL, "bidirectional, j - i = -10: bucket 9, expected 8" },
    { "t5-exact", "t5-round", "t5", PC_OK, NULL },
    { "t5-monotone", "t5-round", "t5", PC_OK, NULL },
    { "t5-saturate", "t5-round", "t5", PC_OK, NULL },
    /* max_exact 16 in the bidirectional case: 9 gets bucket 9 instead of 8 */
    { "t5-reference", "t5-max-exact", "t5", PC_FAIL, "bidirectional, j - i = -9: bucket 9, expected 8" },
    /* no clamp: 128 reads 16 (the first bucket of j > i) */
    { "t5-saturate", "t5-no-clamp", "t5", PC_FAIL, "bidirectional, j - i = -128: bucket 16, expected 15" },
    { "t5-monotone", "t5-no-clamp", "t5", PC_FAIL, "bidirectional, j - i = 128: bucket 32" },
    { "alibi-slopes", "alibi-paper", "alibi", PC_OK, NULL },
    { "alibi-linear", "alibi-paper", "alibi", PC_OK, NULL },
    { "alibi-relative", "alibi-paper", "alibi", PC_OK, NULL },
    { "alibi-decay", "alibi-paper", "alibi", PC_OK, NULL },
    /* smallest head count that is not a power of two */
    { "alibi-slopes", "alibi-pow2", "alibi", PC_FAIL, "slopes, heads 3, head 0" },
    { "alibi-linear", "alibi-pow2", "alibi", PC_OK, NULL },
    { "alibi-decay", "alibi-pow2", "alibi", PC_OK, NULL },
    { "txl-relative", "txl-f32", "txl", PC_OK, NULL },
    { "txl-segment", "txl-f32", "txl", PC_OK, NULL },
    { "txl-reference", "txl-f32", "txl", PC_OK, NULL },
    { "txl-relative", "txl-absolute", "txl", PC_FAIL, "d = 2, p = 0, s = 1" },
    { "txl-segment", "txl-absolute", "txl", PC_FAIL, "tau = 2" },
    { "txl-reference", "txl-absolute", "txl", PC_FAIL, NULL },
};

static void test_builtins(void)
{
    for (size_t k = 0; k < sizeof expected / sizeof expected[0]; k++) {
        const expect_row *x = &expected[k];
        pc_verdict v;
        int st = run_prop(x->prop, pc_builtin_find(x->impl), x->family, &v);
        int good = st == x->status;
        if (good && x->needle) good = v.details && strstr(v.details, x->needle);
        if (!good && v.details) {
            printf("# details:\n");
            for (char *s = v.details, *e; *s; s = e + 1) {
                e = strchr(s, '\n');
                if (!e) { printf("#   %s\n", s); break; }
                printf("#   %.*s\n", (int)(e - s), s);
            }
        }
        ok(good, "%s on %s: %s%s%s%s (%.2fs)", x->prop, x->impl,
           x->status == PC_OK ? "passes" : "fails", x->needle ? " at \"" : "",
           x->needle ? x->needle : "", x->needle ? "\"" : "", v.seconds);
        free(v.details);
        free(v.json);
    }
}

/* ---- mutants: every property can fail --------------------------------------- */

static int32_t mut_bucket(int64_t rel, int bidirectional, int nb, int md)
{
    int32_t b = -1;
    pc_ref_t5_bucket(rel, bidirectional, nb, md, &b);
    return b;
}

/* bias from the bucket of the ABSOLUTE key position */
static int t5_bias_abs(void *ctx, const float *emb, int heads, int bidirectional, int nb, int md,
                       const int64_t *qpos, size_t nq, const int64_t *kpos, size_t nk, float *out)
{
    (void)ctx;
    for (int h = 0; h < heads; h++)
        for (size_t r = 0; r < nq; r++)
            for (size_t c = 0; c < nk; c++)
                out[((size_t)h * nq + r) * nk + c] =
                    emb[(size_t)mut_bucket(kpos[c] - qpos[r] + (kpos[c] % 2), bidirectional, nb, md) *
                        (size_t)heads + (size_t)h];
    return 0;
}

/* bidirectional without the +nb offset for j > i */
static int t5_no_offset(void *ctx, const int64_t *rel, size_t n, int bidirectional, int nb, int md,
                        int32_t *out)
{
    (void)ctx;
    for (size_t r = 0; r < n; r++) {
        int64_t x = rel[r];
        out[r] = mut_bucket(bidirectional && x > 0 ? -x : x, bidirectional, nb, md);
    }
    return 0;
}

/* ALiBi with binary32 positions: (float)j - (float)i */
static int alibi_floatpos(void *ctx, int heads, const int64_t *qpos, size_t nq,
                          const int64_t *kpos, size_t nk, int causal, float *out)
{
    (void)ctx;
    for (int h = 0; h < heads; h++) {
        pc_ref2 s;
        pc_ref_alibi_slope(heads, h, &s);
        for (size_t r = 0; r < nq; r++)
            for (size_t c = 0; c < nk; c++) {
                size_t o = ((size_t)h * nq + r) * nk + c;
                if (causal && kpos[c] > qpos[r]) { out[o] = -INFINITY; continue; }
                out[o] = -(s.f32 * fabsf((float)kpos[c] - (float)qpos[r]));
            }
    }
    return 0;
}

/* ALiBi with a quadratic penalty -m d^2 (still decaying, not linear) */
static int alibi_square(void *ctx, int heads, const int64_t *qpos, size_t nq,
                        const int64_t *kpos, size_t nk, int causal, float *out)
{
    (void)ctx; (void)causal;
    for (int h = 0; h < heads; h++) {
        pc_ref2 s;
        pc_ref_alibi_slope(heads, h, &s);
        for (size_t r = 0; r < nq; r++)
            for (size_t c = 0; c < nk; c++) {
                float d = (float)(kpos[c] - qpos[r]);
                out[((size_t)h * nq + r) * nk + c] = -(s.f32 * d * d);
            }
    }
    return 0;
}

/* ALiBi with the sign lost on one side: +m d for j > i */
static int alibi_signed(void *ctx, int heads, const int64_t *qpos, size_t nq,
                        const int64_t *kpos, size_t nk, int causal, float *out)
{
    (void)ctx; (void)causal;
    for (int h = 0; h < heads; h++) {
        pc_ref2 s;
        pc_ref_alibi_slope(heads, h, &s);
        for (size_t r = 0; r < nq; r++)
            for (size_t c = 0; c < nk; c++)
                out[((size_t)h * nq + r) * nk + c] = -(s.f32 * (float)(qpos[r] - kpos[c]));
    }
    return 0;
}

static void test_mutants(void)
{
    pc_impl m1 = { .name = "mutant-t5-bias-abs", .family_hint = "t5", .t5_bias = t5_bias_abs };
    pc_impl m2 = { .name = "mutant-t5-no-offset", .family_hint = "t5", .t5_bucket = t5_no_offset };
    pc_impl m3 = { .name = "mutant-alibi-floatpos", .family_hint = "alibi", .alibi_bias = alibi_floatpos };
    pc_impl m4 = { .name = "mutant-alibi-square", .family_hint = "alibi", .alibi_bias = alibi_square };
    pc_impl m5 = { .name = "mutant-alibi-signed", .family_hint = "alibi", .alibi_bias = alibi_signed };
    struct { const char *prop; pc_impl *impl; const char *family, *needle; } rows[] = {
        { "t5-bias-relative", &m1, "t5", "n = 2" },
        { "t5-symmetric", &m2, "t5", "j - i = 1: bucket 1, expected 17" },
        { "t5-exact", &m2, "t5", "j - i = 1: bucket 1, expected 17" },
        { "alibi-relative", &m3, "alibi", "head 0" },
        { "alibi-linear", &m4, "alibi", "|j - i| = 2" },
        { "alibi-decay", &m5, "alibi", "|j - i| = 1 (j > i)" },
    };
    for (size_t k = 0; k < sizeof rows / sizeof rows[0]; k++) {
        pc_verdict v;
        int st = run_prop(rows[k].prop, rows[k].impl, rows[k].family, &v);
        int good = st == PC_FAIL && v.details && strstr(v.details, rows[k].needle);
        if (!good && v.details) printf("# details: %s\n", v.details);
        ok(good, "%s catches %s (\"%s\")", rows[k].prop, rows[k].impl->name, rows[k].needle);
        free(v.details);
        free(v.json);
    }
}

int main(void)
{
    test_t5_reference();
    test_alibi_reference();
    test_alibi_class();
    test_txl_reference();
    test_builtins();
    test_mutants();
    printf("1..%d\n", n_tests);
    return n_fail ? 1 : 0;
}

/* identify.c: which ALiBi slopes a source holds (pc_alibi_diagnosis):
 *
 *   the rule: the paper's (MPT's gen_slopes with its alibi_bias_max B in
 *     place of the paper's 8), B found by trying 8, the run's, then 1..64;
 *     when none explains the slopes, the nearest wrong rule: reversed,
 *     sorted, or 2^(-B(h+1)/H) for every head count (the power-of-two rule
 *     where the interleaving is due);
 *   the computation: the heads equal bit for bit to each formulation's
 *     slopes, computed exactly with MPFR: a binary64 evaluation rounded
 *     once (the paper's get_slopes), BLOOM's binary32 powers of the ratio
 *     rounded to binary32 (build_alibi_tensor), MPT's 1 / pow(2, m) in
 *     binary32 (gen_slopes), each pow and division correctly rounded;
 *   the worst error in ulps and against the default class's bound.
 * A table's slopes are its own (or its biases at distance 1); another
 * source's come from its slopes hook at --heads. */
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alibi.h"
#include "harness/base/dtype.h"
#include "harness/base/half.h"
#include "harness/engine/model.h"
#include "harness/io/json.h"
#include "harness/sandbox/call.h"

enum rule { RULE_PAPER = 0, RULE_REVERSED, RULE_SORTED, RULE_POW2, RULE_PREFIX, RULE_NONE };
static const char *const rule_names[] = { "paper", "reversed", "sorted", "power-of-two-every-H",
                                          "first-H-of-more-heads",
                                          "unknown" };

enum form { F_CR = PC_ALIBI_FORM_CR, F_BLOOM = PC_ALIBI_FORM_BLOOM, F_MPT = PC_ALIBI_FORM_MPT,
            F_N };
static const char *const form_names[] = {
    "binary64 rounded once to binary32 (the paper's get_slopes)",
    "binary32 powers of the ratio rounded to binary32 (BLOOM build_alibi_tensor)",
    "binary32 1 / pow(2, m) (MPT gen_slopes)"
};
static const char *const form_keys[] = { "binary64-rounded-once", "binary32-powers",
                                         "binary32-reciprocal-pow" };

typedef struct alibi_found {
    const pc_impl *impl;
    const pc_alibi_table *t;
    int heads, bias_max, rule, found;
    int prefix_of;            /* RULE_PREFIX: the head count whose first HEADS slopes these are */
    int bit_exact[F_N];       /* heads equal bit for bit to each formulation */
    int form;                 /* the formulation of the most heads (-1: none) */
    double worst_ulps, worst_ratio; /* against the exact slopes; the default class */
    int dtype;                /* the slopes' storage (a half-precision table's bias) */
    double u_s;               /* its unit roundoff (0: binary32 or wider) */
    float *s;                 /* the source's slopes */
} alibi_found;

/* ---- the formulations' slopes, exactly --------------------------------- */

/* RN32(RN64(2^(-B/D))): the ratio as Python computes it, then torch.tensor
 * in float32 (glibc's pow is correctly rounded). */
static double ratio32(int bias_max, long den)
{
    mpfr_t x;
    mpfr_init2(x, 53);
    mpfr_set_si(x, -bias_max, MPFR_RNDN);
    mpfr_div_si(x, x, den, MPFR_RNDN); /* exact: -B / 2^k */
    mpfr_exp2(x, x, MPFR_RNDN);
    double r = (double)mpfr_get_flt(x, MPFR_RNDN);
    mpfr_clear(x);
    return r;
}

/* RN32(R^K) for a binary32 R: exact at 24 K bits, rounded once. */
static float pow32(double r, long k)
{
    mpfr_t x;
    mpfr_init2(x, 24 * (mpfr_prec_t)k + 24);
    mpfr_set_d(x, r, MPFR_RNDN);
    mpfr_pow_ui(x, x, (unsigned long)k, MPFR_RNDN); /* exact */
    float v = mpfr_get_flt(x, MPFR_RNDN);
    mpfr_clear(x);
    return v;
}

/* RN32(1 / RN32(2^(A/B))) */
static float mpt32(long a, long b)
{
    mpfr_t x;
    mpfr_init2(x, 24);
    mpfr_set_si(x, a, MPFR_RNDN);
    mpfr_div_si(x, x, b, MPFR_RNDN); /* A/B with B a power of two: exact */
    mpfr_exp2(x, x, MPFR_RNDN);
    mpfr_ui_div(x, 1, x, MPFR_RNDN);
    float v = mpfr_get_flt(x, MPFR_RNDN);
    mpfr_clear(x);
    return v;
}

float pc_alibi_form_slope(int form, int heads, int bias_max, int h)
{
    pc_ref2 r;
    pc_ref_alibi_slope_b(heads, bias_max, h, &r);
    long c = 1;
    while (2 * c <= heads) c *= 2;
    long a, b;
    pc_alibi_exponent_b(heads, bias_max, h, &a, &b);
    if (form == F_CR) return r.f32;
    if (form == F_MPT) return mpt32(a, b);
    return pow32(ratio32(bias_max, h < c ? c : 2 * c), pc_alibi_power(heads, h));
}

/* Head H's slope under formulation F (B the bias maximum). */
static float form_slope(int f, int heads, int bias_max, int h, const pc_ref2 *exact)
{
    long a, b;
    pc_alibi_exponent_b(heads, bias_max, h, &a, &b);
    if (f == F_CR) return exact->f32;
    if (f == F_MPT) return mpt32(a, b);
    long c = 1;
    while (2 * c <= heads) c *= 2;
    return pow32(ratio32(bias_max, h < c ? c : 2 * c), pc_alibi_power(heads, h));
}

/* ---- the rules ---------------------------------------------------------- */

/* The slope of head H under RULE with bias maximum B, exactly. */
static void rule_slope(int rule, int heads, int bias_max, int h, pc_ref2 *out)
{
    if (rule == RULE_POW2) { /* 2^(-B(h+1)/H) for every H */
        mpfr_t x;
        mpfr_inits2(64, x, (mpfr_ptr)0);
        mpfr_set_si(x, -(long)bias_max * (h + 1), MPFR_RNDN);
        mpfr_div_si(x, x, heads, MPFR_RNDN);
        mpfr_exp2(x, x, MPFR_RNDN);
        out->f64 = mpfr_get_d(x, MPFR_RNDN);
        out->f32 = mpfr_get_flt(x, MPFR_RNDN);
        mpfr_clear(x);
        return;
    }
    pc_ref_alibi_slope_b(heads, bias_max, rule == RULE_REVERSED ? heads - 1 - h : h, out);
}

static int cmp_desc(const void *a, const void *b)
{
    double x = *(const double *)a, y = *(const double *)b;
    return x < y ? 1 : x > y ? -1 : 0;
}

/* The worst err / (default class bound, and the storage's U_S) of slopes S
 * under RULE and B. */
static double rule_ratio(const float *s, int heads, int bias_max, int rule, double u_s)
{
    double *ex = malloc((size_t)heads * sizeof *ex), worst = 0;
    if (!ex) return (double)INFINITY;
    pc_ref2 r;
    for (int h = 0; h < heads; h++) {
        rule_slope(rule == RULE_SORTED ? RULE_PAPER : rule, heads, bias_max, h, &r);
        ex[h] = r.f64;
    }
    if (rule == RULE_SORTED) qsort(ex, (size_t)heads, sizeof *ex, cmp_desc);
    for (int h = 0; h < heads; h++) {
        double beta = pc_alibi_slope_beta(heads, h, ex[h], 0, 0);
        double e = fabs((double)s[h] - ex[h]) / pc_alibi_value_bound(ex[h], beta, 1, u_s);
        if (!(e <= worst)) worst = isnan(e) ? (double)INFINITY : e;
    }
    free(ex);
    return worst;
}

/* The worst err / bound of slopes S (HEADS of them) as the first HEADS of
 * the paper's rule for N heads, bias maximum B. */
static double prefix_ratio(const float *s, int heads, int n, int bias_max, double u_s)
{
    double worst = 0;
    for (int h = 0; h < heads; h++) {
        pc_ref2 r;
        pc_ref_alibi_slope_b(n, bias_max, h, &r);
        double beta = pc_alibi_slope_beta(n, h, r.f64, 0, 0);
        double e = fabs((double)s[h] - r.f64) / pc_alibi_value_bound(r.f64, beta, 1, u_s);
        if (!(e <= worst)) worst = isnan(e) ? (double)INFINITY : e;
    }
    return worst;
}

/* F's slopes as the first of the rule for more heads (a model that kept
 * the first H slopes of a 2^k-head list without the interleaving): the
 * next power of two first, then H + 1 .. 2H. */
static void find_prefix(alibi_found *f, int want_b)
{
    int pow2 = 1;
    while (pow2 <= f->heads) pow2 *= 2;
    if (prefix_ratio(f->s, f->heads, pow2, want_b, f->u_s) <= 1.0) {
        f->rule = RULE_PREFIX;
        f->prefix_of = pow2;
        return;
    }
    for (int n = f->heads + 1; n <= 2 * f->heads && n <= PC_ALIBI_HEADS_MAX; n++)
        if (n != pow2 && prefix_ratio(f->s, f->heads, n, want_b, f->u_s) <= 1.0) {
            f->rule = RULE_PREFIX;
            f->prefix_of = n;
            return;
        }
}

/* The rule and bias maximum that explain F's slopes (WANT_B first). */
static void find_rule(alibi_found *f, int want_b)
{
    int tries[2 + PC_ALIBI_BIAS_MAX_MAX], n = 0;
    tries[n++] = PC_ALIBI_PAPER_BIAS_MAX;
    if (want_b != PC_ALIBI_PAPER_BIAS_MAX) tries[n++] = want_b;
    for (int b = 1; b <= PC_ALIBI_BIAS_MAX_MAX; b++)
        if (b != want_b && b != PC_ALIBI_PAPER_BIAS_MAX) tries[n++] = b;
    for (int k = 0; k < n; k++)
        if (rule_ratio(f->s, f->heads, tries[k], RULE_PAPER, f->u_s) <= 1.0) {
            f->found = 1;
            f->rule = RULE_PAPER;
            f->bias_max = tries[k];
            return;
        }
    f->bias_max = want_b; /* the nearest wrong rule, at the run's bias maximum */
    f->rule = RULE_NONE;
    for (int r = RULE_REVERSED; r <= RULE_POW2 && f->rule == RULE_NONE; r++)
        if (rule_ratio(f->s, f->heads, want_b, r, f->u_s) <= 1.0) f->rule = r;
    if (f->rule == RULE_NONE) find_prefix(f, want_b);
}

/* Bit-exact counts and the worst errors under the rule found. */
static void measure(alibi_found *f)
{
    f->form = -1;
    f->worst_ulps = f->worst_ratio = 0;
    for (int h = 0; h < f->heads; h++) {
        pc_ref2 r;
        pc_ref_alibi_slope_b(f->heads, f->bias_max, h, &r);
        double ulps = fabs((double)f->s[h] - r.f64) / pc_ulp32(r.f32);
        double beta = pc_alibi_slope_beta(f->heads, h, r.f64, 0, 0);
        double ratio = fabs((double)f->s[h] - r.f64) / pc_alibi_value_bound(r.f64, beta, 1, f->u_s);
        if (!(ulps <= f->worst_ulps)) f->worst_ulps = ulps;
        if (!(ratio <= f->worst_ratio)) f->worst_ratio = ratio;
        for (int k = 0; k < F_N && f->rule == RULE_PAPER; k++) {
            if (k == F_BLOOM && f->bias_max != PC_ALIBI_PAPER_BIAS_MAX) continue;
            float v = pc_round_to(f->dtype, form_slope(k, f->heads, f->bias_max, h, &r));
            f->bit_exact[k] += memcmp(&v, &f->s[h], sizeof v) == 0;
        }
    }
    for (int k = 0; k < F_N; k++)
        if (f->bit_exact[k] && (f->form < 0 || f->bit_exact[k] > f->bit_exact[f->form])) f->form = k;
}

/* ---- the run -------------------------------------------------------------- */

static void set_storage(alibi_found *f)
{
    f->dtype = f->t ? f->t->dtype : PC_DT_F32;
    f->u_s = f->dtype == PC_DT_F16 || f->dtype == PC_DT_BF16 ? pc_model_u(f->dtype) : 0.0;
}

static pc_status slopes_of(alibi_found *f, const pc_spec *spec, pc_err *err)
{
    f->heads = f->t ? f->t->heads : pc_alibi_spec_of(spec)->heads;
    if (!f->heads)
        return pc_seterr(err, PC_EINPUT, "%s: identify of ALiBi slopes needs --heads H (or a "
                         "table)", f->impl->name);
    f->s = malloc((size_t)f->heads * sizeof *f->s);
    if (!f->s) return pc_seterr(err, PC_ENOMEM, "out of memory");
    if (f->t) {
        for (int h = 0; h < f->heads; h++) f->s[h] = (float)pc_alibi_table_slope(f->t, h);
        return PC_OK;
    }
    pc_fault fault;
    if (!f->impl->alibi_slopes || pc_call_alibi_slopes(f->impl, &fault, f->heads, f->s) != 0 ||
        fault.faulted)
        return pc_seterr(err, PC_EINPUT, "%s gives no ALiBi slopes at %d heads", f->impl->name,
                         f->heads);
    return PC_OK;
}

static pc_status run(const pc_impl *impl, const pc_spec *spec, int64_t lo, int64_t hi,
                     void **found, pc_err *err)
{
    (void)lo; (void)hi;
    alibi_found *f = calloc(1, sizeof *f);
    *found = f;
    if (!f) return pc_seterr(err, PC_ENOMEM, "out of memory");
    f->impl = impl;
    f->t = pc_alibi_table_of(impl);
    set_storage(f);
    pc_status st = slopes_of(f, spec, err);
    if (st != PC_OK) return st;
    find_rule(f, pc_alibi_spec_of(spec)->bias_max);
    measure(f);
    return PC_OK;
}

static int explained(const void *found)
{
    return ((const alibi_found *)found)->found;
}

/* The largest power of two <= H. */
static int pow2_below(int h)
{
    int c = 1;
    while (2 * c <= h) c *= 2;
    return c;
}

static const char *rule_text(const alibi_found *f, char *buf, size_t len)
{
    if (f->rule == RULE_PAPER)
        snprintf(buf, len, "the paper's (power-of-two heads, interleaved for the others), "
                 "alibi_bias_max %d%s", f->bias_max, f->bias_max == 8 ? " (the paper's 8)" : "");
    else if (f->rule == RULE_REVERSED)
        snprintf(buf, len, "the paper's in reverse order (head h holds head %d - h's slope)",
                 f->heads - 1);
    else if (f->rule == RULE_SORTED)
        snprintf(buf, len, "the paper's slopes sorted in decreasing order (the rule interleaves "
                 "them for %d heads, not a power of two)", f->heads);
    else if (f->rule == RULE_POW2)
        snprintf(buf, len, "2^(-%d(h+1)/%d) for every head: the power-of-two rule at %d heads, "
                 "which is not a power of two (the paper interleaves the rule for 2C)",
                 f->bias_max, f->heads, f->heads);
    else if (f->rule == RULE_PREFIX)
        snprintf(buf, len, "the first %d slopes of the rule for %d heads (2^(-%d(h+1)/%d)%s): "
                 "for %d heads the paper takes the rule for %d and the odd slopes of the rule "
                 "for %d", f->heads, f->prefix_of, f->bias_max, f->prefix_of,
                 (f->prefix_of & (f->prefix_of - 1)) ? ", interleaved" : "", f->heads,
                 pow2_below(f->heads), 2 * pow2_below(f->heads));
    else
        snprintf(buf, len, "none found (not the paper's with any alibi_bias_max 1..64, nor "
                 "reversed, sorted, the power-of-two rule or the first slopes of the rule for "
                 "more heads)");
    return buf;
}

static void print_text(FILE *out, const void *found)
{
    const alibi_found *f = found;
    char rule[300];
    fprintf(out, "%s  %s: ALiBi, %d heads\n", f->found ? "FOUND" : "UNKNOWN", f->impl->name,
            f->heads);
    if (f->t) fprintf(out, "  table: %s; %s\n", f->t->form_note, f->t->dtype_note);
    fprintf(out, "  rule: %s\n", rule_text(f, rule, sizeof rule));
    if (f->rule == RULE_PAPER) {
        fprintf(out, "  computation: %s\n", f->form >= 0 ? form_names[f->form]
                : "none of the known formulations bit for bit");
        for (int k = 0; k < F_N; k++)
            fprintf(out, "    %s: %d of %d heads bit for bit\n", form_keys[k], f->bit_exact[k],
                    f->heads);
    }
    fprintf(out, "  slopes: worst %.3g ulps of the exact slope, %.3g of the binary32 class's "
            "bound\n", f->worst_ulps, f->worst_ratio);
}

static void write_json(pc_json *j, const void *found)
{
    const alibi_found *f = found;
    char rule[300];
    pc_json_str(j, "source", f->impl->name);
    pc_json_bool(j, "found", f->found);
    pc_json_int(j, "heads", f->heads);
    if (f->t) {
        pc_json_str(j, "form", f->t->form == PC_ALIBI_SLOPES ? "slopes"
                    : f->t->form == PC_ALIBI_KEYS ? "keys" : "full");
        pc_json_str(j, "storage", pc_dtype_name(f->t->dtype));
    }
    pc_json_str(j, "rule", rule_names[f->rule]);
    pc_json_str(j, "rule_text", rule_text(f, rule, sizeof rule));
    pc_json_int(j, "alibi_bias_max", f->bias_max);
    pc_json_str(j, "computation", f->form >= 0 ? form_keys[f->form] : NULL);
    pc_json_obj(j, "heads_bit_exact");
    for (int k = 0; k < F_N; k++) pc_json_int(j, form_keys[k], f->bit_exact[k]);
    pc_json_end(j);
    pc_json_num(j, "worst_ulps", f->worst_ulps);
    pc_json_num(j, "worst_err_over_bound", f->worst_ratio);
}

static void check_args(const void *found, pc_args *out)
{
    const alibi_found *f = found;
    if (f->bias_max != PC_ALIBI_PAPER_BIAS_MAX) {
        pc_args_add(out, "--alibi-bias-max");
        pc_args_add(out, "%d", f->bias_max);
    }
    if (!f->t) {
        pc_args_add(out, "--heads");
        pc_args_add(out, "%d", f->heads);
    }
}

static void ident_free(void *found)
{
    alibi_found *f = found;
    if (f) free(f->s);
    free(f);
}

static const pc_identify_kind identify = {
    .run = run, .explained = explained, .text = print_text, .json = write_json,
    .check_args = check_args, .free = ident_free
};

/* ---- the likely cause of a failed table ---------------------------------- */

void pc_alibi_table_cause(const pc_alibi_table *t, const pc_spec *spec, int strict, char *buf,
                          size_t len)
{
    alibi_found f;
    memset(&f, 0, sizeof f);
    buf[0] = '\0';
    f.t = t;
    set_storage(&f);
    f.heads = t->heads;
    f.s = malloc((size_t)t->heads * sizeof *f.s);
    if (!f.s) return;
    for (int h = 0; h < t->heads; h++) f.s[h] = (float)pc_alibi_table_slope(t, h);
    int want = pc_alibi_spec_of(spec)->bias_max;
    find_rule(&f, want);
    measure(&f);
    char rule[300];
    if (f.found && f.bias_max != want)
        snprintf(buf, len, "the slopes follow the rule with alibi_bias_max %d, not %d (pass "
                 "--alibi-bias-max %d)", f.bias_max, want, f.bias_max);
    else if (f.found && strict && f.worst_ratio <= 1.0 && f.worst_ulps > 1.0)
        snprintf(buf, len, "the slopes are %s (%.3g ulps from exact): within the binary32 "
                 "class, not --strict's 1 ulp", f.form >= 0 ? form_names[f.form]
                 : "a binary32 formulation", f.worst_ulps);
    else if (f.found)
        snprintf(buf, len, "the slopes follow the rule (worst %.3g ulps); the %s are off",
                 f.worst_ulps, t->form == PC_ALIBI_SLOPES ? "slopes' last bits" : "biases");
    else
        snprintf(buf, len, "the slopes' rule is %s", rule_text(&f, rule, sizeof rule));
    free(f.s);
}

const pc_diagnosis pc_alibi_diagnosis = { .identify = &identify };

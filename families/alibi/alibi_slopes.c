/* alibi-slopes: the slopes follow the ALiBi paper's rule for every head
 * count up to N and --heads' (a table: its own), exact references
 * (families/alibi/alibi_ref.c), from the slopes hook and from the bias at
 * distance 1, within the run's class (slope_class.c).  Case: N = largest
 * head count scanned, so the shrinker ends on the smallest failing head
 * count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "alibi.h"
#include "properties/relative_util.h"
#include "harness/engine/accuracy.h"

/* Head counts the scan reaches: 1..128 (BLOOM-176B has 112, Baichuan-13B
 * 40), and a table's or --heads' own. */
#define SLOPES_HMAX 128

/* The one head count a table (or --heads) fixes; 0: scan 1..N. */
static int fixed_heads(const pc_prun *r)
{
    const pc_alibi_table *t = pc_alibi_table_of(r->impl);
    return t ? t->heads : 0;
}

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    if (!r->impl->alibi_slopes && !r->impl->alibi_bias) return pc_p_no_hook(r, oc, "alibi");
    return PC_OK;
}

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    int fixed = fixed_heads(r);
    c->n = fixed ? fixed : 1 + (int)pc_rng_below(g, SLOPES_HMAX);
}

static int valid(const pc_prun *r, const pc_case *c)
{
    int fixed = fixed_heads(r);
    return fixed ? c->n == fixed : c->n >= 1 && c->n <= PC_ALIBI_HEADS_MAX;
}

/* slope of head H of HEADS from the bias hook: -bias(query 0, key 1) */
static int bias_slopes(pc_prun *r, int heads, float *out, pc_outcome *oc)
{
    int64_t q = 0, k = 1;
    if (pc_rp_alibi_bias(r, heads, &q, 1, &k, 1, 0, out, oc)) return 1;
    for (int h = 0; h < heads; h++) out[h] = -out[h];
    return 0;
}

/* Slopes S of H heads from SRC (0 the slopes hook, 1 the bias at distance
 * 1) against the exact ones under the run's class: 1 when one fails (OC
 * filled), -1 when the reference failed. */
static int check_heads(pc_prun *r, int H, int src, const float *s, pc_outcome *oc)
{
    const pc_alibi_spec *as = pc_alibi_spec_of(r->params->spec);
    for (int h = 0; h < H; h++) {
        pc_ref2 ref;
        if (pc_ref_alibi_slope_b(H, as->bias_max, h, &ref) != PC_OK) return -1;
        double ulp = pc_ulp32(ref.f32);
        double beta = pc_alibi_slope_beta(H, h, ref.f64, ulp, r->params->strict);
        double bound = beta * ref.f64 / ulp; /* in ulps of the exact slope */
        double e = fabs((double)s[h] - ref.f64) / ulp;
        if (!(e <= bound)) {
            long a, b;
            char ex[48];
            pc_alibi_exponent_b(H, as->bias_max, h, &a, &b);
            if (b == 1) snprintf(ex, sizeof ex, "2^-%ld", a);
            else snprintf(ex, sizeof ex, "2^(-%ld/%ld)", a, b);
            pc_rp_fail(oc, 0, e, bound, "%s, heads %d, head %d: slope %.9g (%a), expected %s = "
                       "%.9g (%a), %s class", src ? "bias at distance 1" : "slopes", H, h,
                       (double)s[h], (double)s[h], ex, ref.f64, (double)ref.f32,
                       r->params->strict ? "strict" : "binary32");
            return 1;
        }
        if (e / bound > oc->score) { oc->score = e / bound; oc->measured = e; oc->bound = bound; }
    }
    return 0;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    int fixed = fixed_heads(r), extra = pc_alibi_spec_of(r->params->spec)->heads;
    int top = fixed ? fixed : c->n > extra ? c->n : extra;
    float *s = malloc((size_t)top * sizeof *s);
    if (!s) return pc_p_nomem(err);
    pc_rp_pass(oc);
    oc->bound = 1.0;
    for (int H = fixed ? fixed : 1; H <= top; H++) {
        if (H > c->n && H != extra && !fixed) continue; /* the scan, then --heads */
        for (int src = 0; src < 2; src++) {
            if (src == 0 && !r->impl->alibi_slopes) continue;
            if (src == 1 && !r->impl->alibi_bias) continue;
            int rc = src == 0 ? pc_rp_alibi_slopes(r, H, s, oc) : bias_slopes(r, H, s, oc);
            if (!rc) rc = check_heads(r, H, src, s, oc);
            if (rc) {
                free(s);
                return rc < 0 ? pc_seterr(err, PC_EINTERNAL, "alibi reference failed (H=%d)", H)
                              : PC_OK;
            }
        }
    }
    free(s);
    return PC_OK;
}

const pc_property pc_prop_alibi_slopes = {
    .name = "alibi-slopes",
    .families = "alibi",
    .title = "ALiBi slopes follow the paper's rule (power of two and interleaved)",
    .measured_what = "|slope - exact| in ulps",
    .expect = "every slope within the class's bound of the exact 2^(-a/b): binary32 powers of "
              "a rounded ratio by default, 1 ulp with --strict",
    .pos_names = NULL,
    .k_name = NULL,
    .math = "H a power of two: m_h = 2^(-B(h+1)/H), h = 0..H-1 (B = 8, the paper's; MPT's\n"
            "alibi_bias_max with --alibi-bias-max).  Otherwise, C = 2^floor(log2 H): the C slopes\n"
            "of the rule for C, then 2^(-B(2m+1)/(2C)) for m = 0..H-C-1 (the rule for 2C at even\n"
            "0-based indices).  H = 8: 1/2, 1/4, ..., 1/256; H = 12: those, then 2^(-1/2),\n"
            "2^(-3/2), 2^(-5/2), 2^(-7/2).  Every head count 1..N is checked (N up to 128), and\n"
            "--heads' or a table's own.",
    .why = "The paper's get_slopes: a geometric sequence starting at and with ratio\n"
           "2^(-8/H) when H is a power of two; other head counts borrow the odd members of\n"
           "the sequence for 2C so that the slopes stay spread over (0, 1).",
    .tolerance = "default (binary32 class): |m~ - m| <= ((1+u0)^K (1+8u) - 1) m, K the head's\n"
                 "power of the ratio (h+1, or 2m+1 for the interleaved heads), u = 2^-24,\n"
                 "u0 = 2^-24 + 2^-51: BLOOM's build_alibi_tensor (a binary32 ratio raised to\n"
                 "integer powers, 9 ulps off at 128 heads) and MPT's 1/pow(2, m) pass\n"
                 "(docs/relative.md).  --strict: 1 ulp (a binary64 evaluation rounded once:\n"
                 "within 0.5 ulp + a few 2^-29 ulp).  The reference is mpfr_rootn_ui(2^-a, b),\n"
                 "correctly rounded.",
    .concept_impl = "alibi-pow2",
    .concept_note = "alibi-pow2 uses 2^(-8(h+1)/H) for every H: first wrong at H = 3, head 0 "
                  "(2^(-8/3) instead of 2^-4)",
    .precision_impl = "alibi-f16",
    .precision_note = "alibi-f16 stores the bias in float16: the slope read from bias(1) is rounded to 11 significant bits",
    .shrink = PC_SH_N,
    .setup = setup,
    .gen = gen,
    .check = check,
    .valid = valid,
};

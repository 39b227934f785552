/* alibi-slopes: the slopes follow the ALiBi paper's rule for every head
 * count up to N (exact references, families/alibi/alibi_ref.c), from the slopes hook
 * and from the bias at distance 1.  Case: N = largest head count scanned,
 * so the shrinker ends on the smallest failing head count. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include "properties/relative_util.h"
#include "harness/engine/accuracy.h"

static pc_status setup(pc_prun *r, pc_outcome *oc)
{
    if (!r->impl->alibi_slopes && !r->impl->alibi_bias) {
        snprintf(oc->msg, sizeof oc->msg, "the implementation has no alibi hook");
        return PC_SKIP;
    }
    return PC_OK;
}

static void gen(pc_prun *r, pc_rng *g, pc_case *c)
{
    (void)r;
    c->n = 1 + (int)pc_rng_below(g, PC_RP_ALIBI_HMAX);
}

static int valid(const pc_prun *r, const pc_case *c)
{
    (void)r;
    return c->n >= 1 && c->n <= PC_ALIBI_HEADS_MAX;
}

/* slope of head H of HEADS from the bias hook: -bias(query 0, key 1) */
static int bias_slopes(pc_prun *r, int heads, float *out, pc_outcome *oc)
{
    int64_t q = 0, k = 1;
    if (pc_rp_alibi_bias(r, heads, &q, 1, &k, 1, 0, out, oc)) return 1;
    for (int h = 0; h < heads; h++) out[h] = -out[h];
    return 0;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    float *s = malloc((size_t)c->n * sizeof *s);
    if (!s) return pc_p_nomem(err);
    pc_rp_pass(oc);
    oc->bound = 1.0;
    for (int H = 1; H <= c->n; H++)
        for (int src = 0; src < 2; src++) {
            if (src == 0 && !r->impl->alibi_slopes) continue;
            if (src == 1 && !r->impl->alibi_bias) continue;
            if (src == 0 ? pc_rp_alibi_slopes(r, H, s, oc) : bias_slopes(r, H, s, oc)) {
                free(s);
                return PC_OK;
            }
            for (int h = 0; h < H; h++) {
                pc_ref2 ref;
                if (pc_ref_alibi_slope(H, h, &ref) != PC_OK) {
                    free(s);
                    return pc_seterr(err, PC_EINTERNAL, "alibi reference failed (H=%d)", H);
                }
                /* 1 ulp: the paper's code computes in binary64 (a few ulps
                 * of 2^-53) and rounds once to binary32, so it is within
                 * half an ulp plus 2^-29 ulp of the exact slope */
                double e = fabs((double)s[h] - ref.f64) / pc_ulp32(ref.f32);
                if (!(e <= 1.0)) {
                    long a, b;
                    char ex[48];
                    pc_alibi_exponent(H, h, &a, &b);
                    if (b == 1) snprintf(ex, sizeof ex, "2^-%ld", a);
                    else snprintf(ex, sizeof ex, "2^(-%ld/%ld)", a, b);
                    pc_rp_fail(oc, 0, e, 1.0, "%s, heads %d, head %d: slope %.9g (%a), "
                               "expected %s = %.9g (%a)",
                               src ? "bias at distance 1" : "slopes", H, h, (double)s[h],
                               (double)s[h], ex, ref.f64, (double)ref.f32);
                    free(s);
                    return PC_OK;
                }
                if (e > oc->measured) oc->measured = e;
            }
        }
    oc->score = oc->measured;
    free(s);
    return PC_OK;
}

const pc_property pc_prop_alibi_slopes = {
    .name = "alibi-slopes",
    .families = "alibi",
    .title = "ALiBi slopes follow the paper's rule (power of two and interleaved)",
    .measured_what = "|slope - exact| in ulps",
    .expect = "every slope within 1 ulp of the exact 2^(-a/b)",
    .pos_names = NULL,
    .k_name = NULL,
    .math = "H a power of two: m_h = 2^(-8(h+1)/H), h = 0..H-1.  Otherwise, C = 2^floor(log2 H):\n"
            "the C slopes of the rule for C, then 2^(-8(2m+1)/(2C)) for m = 0..H-C-1 (the rule\n"
            "for 2C at even 0-based indices).  H = 8: 1/2, 1/4, ..., 1/256; H = 12: those,\n"
            "then 2^(-1/2), 2^(-3/2), 2^(-5/2), 2^(-7/2).  Every head count 1..n is checked.",
    .why = "The paper's get_slopes: a geometric sequence starting at and with ratio\n"
           "2^(-8/H) when H is a power of two; other head counts borrow the odd members of\n"
           "the sequence for 2C so that the slopes stay spread over (0, 1).",
    .tolerance = "1 ulp of the exact slope (a binary64 evaluation rounded once to binary32 is\n"
                 "within 0.5 ulp + a few 2^-29 ulp); the reference is mpfr_rootn_ui(2^-a, b),\n"
                 "correctly rounded.",
    .teach_impl = "alibi-pow2",
    .teach_note = "alibi-pow2 uses 2^(-8(h+1)/H) for every H: first wrong at H = 3, head 0 "
                  "(2^(-8/3) instead of 2^-4)",
    .shrink = PC_SH_N,
    .setup = setup,
    .gen = gen,
    .check = check,
    .valid = valid,
};

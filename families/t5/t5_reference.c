/* t5-reference: every T5 bucket equals the exact bucket (families/t5/t5_ref.c).
 * Case: every distance |j - i| <= R and the far distances +-F, both
 * variants, HF's num_buckets 32 and max_distance 128 (relative_util.h). */
#include <inttypes.h>
#include "properties/relative_util.h"

static int pred(int m, int64_t rel, int32_t got, const pc_t5_scan *s, int64_t n, int32_t *exp)
{
    (void)s; (void)n;
    *exp = pc_rp_t5_expected(m, rel);
    return got == *exp;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    if (pc_rp_t5_expected(0, 0) < 0)
        return pc_seterr(err, PC_EINTERNAL, "t5-reference: the exact reference failed");
    return pc_rp_t5_check(r, c, oc, err, pred, 1);
}

const pc_property pc_prop_t5_reference = {
    .name = "t5-reference",
    .families = "t5",
    .title = "T5 buckets equal the exact buckets (MPFR floor of the log term)",
    .measured_what = "bucket",
    .expect = "every bucket equals the exact one",
    .pos_names = "F",
    .k_name = "R",
    .math = "bucket(j - i) = offset + n for n = |j - i| < max_exact, else\n"
            "offset + min(max_exact + floor(X), nb - 1),\n"
            "X = (nb - max_exact) ln(n / max_exact) / ln(max_distance / max_exact);\n"
            "bidirectional: nb = num_buckets/2, offset nb when j > i; causal: nb = num_buckets,\n"
            "n = max(i - j, 0).  Checked for every |j - i| <= R and at +-F, both variants,\n"
            "num_buckets 32, max_distance 128 (HF's T5Config defaults).",
    .why = "The reference computes floor(X) exactly: an MPFR enclosure of X with directed\n"
           "roundings, raised in precision until it does not straddle an integer, and an\n"
           "integer test in GMP ((n/me)^span == (md/me)^k) where X is exactly an integer\n"
           "(HF bidirectional: X = 2 log2(n/8) is an integer at n = 16, 32, 64).  A float\n"
           "formula is right when its error does not cross an integer.",
    .tolerance = "none: buckets are integers and must be equal",
    .concept_impl = "t5-round",
    .concept_note = "t5-round rounds X instead of truncating it: first wrong at |j - i| = 10 "
                  "(X = 0.644, bucket 9 instead of 8)",
    .shrink = PC_SH_K | PC_SH_POS,
    .k_min = 0,
    .setup = pc_rp_t5_setup,
    .gen = pc_rp_t5_gen,
    .check = check,
    .valid = pc_rp_t5_valid,
    .pos_target = pc_rp_t5_far_target,
    .show = pc_rp_t5_show,
};

/* t5-monotone: buckets lie in [0, num_buckets) and never decrease as
 * |j - i| grows, on each side. */
#include <inttypes.h>
#include "properties/relative_util.h"

static int pred(int m, int64_t rel, int32_t got, const pc_t5_scan *s, int64_t n, int32_t *exp)
{
    if (got < 0 || got >= PC_RP_T5_NB) { *exp = got < 0 ? 0 : PC_RP_T5_NB - 1; return 0; }
    if (n == 0 || n > s->R) return 1;            /* far distances: range only */
    if (m == 1 && rel > 0) return 1;             /* causal future: constant (t5-exact) */
    if (rel > 0 && n == 1) return 1;             /* +1 starts the other half */
    int32_t prev = rel > 0 ? s->pos[m][n - 1] : s->neg[m][n - 1];
    *exp = prev;
    return got >= prev;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    return pc_rp_t5_check(r, c, oc, err, pred, 1);
}

const pc_property pc_prop_t5_monotone = {
    .name = "t5-monotone",
    .families = "t5",
    .title = "T5 buckets are in range and monotone in |j - i|",
    .measured_what = "bucket",
    .expect = "0 <= bucket < num_buckets, non-decreasing in |j - i| on each side",
    .pos_names = "F",
    .k_name = "R",
    .math = "0 <= bucket(r) < num_buckets, and for n >= 1:\n"
            "bucket(-n) >= bucket(-(n-1)); bidirectional, n >= 2: bucket(n) >= bucket(n-1).\n"
            "(\"expected\" in a failure is the lower bound: the previous bucket.)",
    .why = "n -> n (exact part) and n -> max_exact + floor(c ln n) (log part, c > 0) are\n"
           "non-decreasing and the clamp min(., nb - 1) keeps that; the exact part ends at\n"
           "max_exact - 1 and the log part starts at max_exact + floor(0) = max_exact.",
    .tolerance = "none: integers",
    .concept_impl = "t5-full-buckets",
    .concept_note = "t5-full-buckets does not halve num_buckets when bidirectional: keys after the query read buckets >= num_buckets",
    .shrink = PC_SH_K | PC_SH_POS,
    .k_min = 0,
    .setup = pc_rp_t5_setup,
    .gen = pc_rp_t5_gen,
    .check = check,
    .valid = pc_rp_t5_valid,
    .pos_target = pc_rp_t5_far_target,
    .show = pc_rp_t5_show,
};

/* t5-saturate: every distance at or beyond max_distance reads the last
 * bucket of its side. */
#include <inttypes.h>
#include "properties/relative_util.h"

static int pred(int m, int64_t rel, int32_t got, const pc_t5_scan *s, int64_t n, int32_t *exp)
{
    (void)s;
    pc_t5_shape sh = pc_t5_shape_of(m == 0, PC_RP_T5_NB);
    if (n < PC_RP_T5_MD || (m == 1 && rel > 0)) return 1;
    *exp = (m == 0 && rel > 0 ? sh.offset : 0) + sh.nb - 1;
    return got == *exp;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    return pc_rp_t5_check(r, c, oc, err, pred, 1);
}

const pc_property pc_prop_t5_saturate = {
    .name = "t5-saturate",
    .families = "t5",
    .title = "T5 buckets saturate at max_distance",
    .measured_what = "bucket",
    .expect = "|j - i| >= max_distance reads the side's last bucket",
    .pos_names = "F",
    .k_name = "R",
    .math = "n = |j - i| >= max_distance  =>  bucket = offset + nb - 1\n"
            "(bidirectional 15 or 31, causal 31, at num_buckets 32, max_distance 128),\n"
            "up to |j - i| = 2^62.",
    .why = "X = span ln(n/me)/ln(md/me) >= span when n >= md, so max_exact + floor(X) >= nb\n"
           "and the clamp min(., nb - 1) applies; without the clamp the bucket runs into\n"
           "the other side's buckets (bidirectional) or out of the embedding table.",
    .tolerance = "none: integers",
    .concept_impl = "t5-no-clamp",
    .concept_note = "t5-no-clamp drops the min(., nb - 1): |j - i| = 128 reads bucket 16, "
                  "the first bucket of keys after the query",
    .shrink = PC_SH_K | PC_SH_POS,
    .k_min = 0,
    .setup = pc_rp_t5_setup,
    .gen = pc_rp_t5_gen,
    .check = check,
    .valid = pc_rp_t5_valid,
    .pos_target = pc_rp_t5_far_target,
    .show = pc_rp_t5_show,
};

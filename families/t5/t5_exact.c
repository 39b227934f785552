/* t5-exact: distances below max_exact have their own bucket (the bucket is
 * the distance), and in the causal variant every key after the query
 * shares bucket 0. */
#include <inttypes.h>
#include "properties/relative_util.h"

static int pred(int m, int64_t rel, int32_t got, const pc_t5_scan *s, int64_t n, int32_t *exp)
{
    (void)s;
    pc_t5_shape sh = pc_t5_shape_of(m == 0, PC_RP_T5_NB);
    if (m == 1 && rel > 0) { *exp = 0; return got == 0; }
    if (n >= sh.max_exact) return 1;
    *exp = (int32_t)((m == 0 && rel > 0 ? sh.offset : 0) + n);
    return got == *exp;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    return pc_rp_t5_check(r, c, oc, err, pred, 1);
}

const pc_property pc_prop_t5_exact = {
    .name = "t5-exact",
    .families = "t5",
    .title = "T5: small distances get exact buckets; causal future keys share bucket 0",
    .measured_what = "bucket",
    .expect = "bucket = offset + |j - i| below max_exact",
    .pos_names = "F",
    .k_name = "R",
    .math = "n = |j - i| < max_exact  =>  bucket = n (j <= i) or nb + n (j > i, bidirectional);\n"
            "causal: bucket(j - i) = 0 for every j > i.",
    .why = "Half of each sign's buckets are reserved for exact increments (HF: \"half of the\n"
           "buckets are for exact increments in positions\"); the causal variant maps\n"
           "-min(j - i, 0) so that keys after the query all read 0.",
    .tolerance = "none: integers",
    .concept_impl = "t5-swapped",
    .concept_note = "t5-swapped takes i - j for j - i: causal keys after the query get nonzero buckets",
    .shrink = PC_SH_K | PC_SH_POS,
    .k_min = 0,
    .setup = pc_rp_t5_setup,
    .gen = pc_rp_t5_gen,
    .check = check,
    .valid = pc_rp_t5_valid,
    .pos_target = pc_rp_t5_far_target,
    .show = pc_rp_t5_show,
};

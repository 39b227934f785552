/* t5-symmetric: the bidirectional buckets of keys after the query are
 * those of keys before it, shifted by num_buckets/2; bucket(0) = 0. */
#include <inttypes.h>
#include "properties/relative_util.h"

static int pred(int m, int64_t rel, int32_t got, const pc_t5_scan *s, int64_t n, int32_t *exp)
{
    if (m != 0) return 1;
    pc_t5_shape sh = pc_t5_shape_of(1, PC_RP_T5_NB);
    if (n == 0) { *exp = 0; return got == 0; }
    if (rel < 0) return 1;
    *exp = (n <= s->R ? s->neg[0][n] : s->farneg[0]) + sh.offset;
    return got == *exp;
}

static pc_status check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    return pc_rp_t5_check(r, c, oc, err, pred, 1);
}

const pc_property pc_prop_t5_symmetric = {
    .name = "t5-symmetric",
    .families = "t5",
    .title = "T5 bidirectional buckets: the future side mirrors the past side",
    .measured_what = "bucket",
    .expect = "bucket(+n) = bucket(-n) + num_buckets/2, bucket(0) = 0",
    .pos_names = "F",
    .k_name = "R",
    .math = "bidirectional: bucket(n) = bucket(-n) + num_buckets/2 for n >= 1, bucket(0) = 0.",
    .why = "The bidirectional variant adds (j - i > 0) * nb and then buckets |j - i| the same\n"
           "way on both sides.",
    .tolerance = "none: integers",
    .concept_impl = "t5-swapped",
    .concept_note = "t5-swapped takes i - j for j - i: the past side reads the future half of the buckets",
    .shrink = PC_SH_K | PC_SH_POS,
    .k_min = 0,
    .setup = pc_rp_t5_setup,
    .gen = pc_rp_t5_gen,
    .check = check,
    .valid = pc_rp_t5_valid,
    .pos_target = pc_rp_t5_far_target,
    .show = pc_rp_t5_show,
};

/* txl-absolute (known bad): the position term uses R of the ABSOLUTE key
 * position j instead of the relative distance i - j: the "temporal
 * confusion" Transformer-XL was designed to avoid (a key at position j of
 * segment tau and of segment tau+1 get the same encoding). */
#include "impl/relative_common.h"

static int64_t abs_index(int64_t i, int64_t j) { (void)i; return j; } /* the flaw */

static int run(void *ctx, size_t nq, size_t nk, int d, double base, int layout,
               const float *q, const float *k, const float *u, const float *v,
               const float *wr, const int64_t *qpos, const int64_t *kpos, float *out)
{
    (void)ctx;
    return pc_rel_txl_scores(abs_index, nq, nk, d, base, layout, q, k, u, v, wr, qpos,
                             kpos, out);
}

const pc_impl pc_impl_txl_absolute = {
    .name = "txl-absolute",
    .description = "KNOWN BAD: Transformer-XL score with R of the absolute key position j",
    .family_hint = "txl",
    .flaw = "R_j (absolute key position) instead of R_{i-j}: scores change when both positions shift",
    .txl_score = run,
};

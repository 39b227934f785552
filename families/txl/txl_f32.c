/* txl-f32: Transformer-XL relative attention score in binary32, in the
 * original code's grouping: AC = (q + u).k, BD = (q + v).(WR R_{i-j}),
 * R from PositionalEmbedding (inv_freq = 1/base^(arange(0,d,2)/d)). */
#include "impl/relative_common.h"

static int64_t rel_index(int64_t i, int64_t j) { return i - j; }

static int run(void *ctx, size_t nq, size_t nk, int d, double base, int layout,
               const float *q, const float *k, const float *u, const float *v,
               const float *wr, const int64_t *qpos, const int64_t *kpos, float *out)
{
    (void)ctx;
    return pc_rel_txl_scores(rel_index, nq, nk, d, base, layout, q, k, u, v, wr, qpos,
                             kpos, out);
}

const pc_impl pc_impl_txl_f32 = {
    .name = "txl-f32",
    .description = "Transformer-XL four-term score, binary32, R of the relative distance i-j",
    .family_hint = "txl",
    .expect_pass = 1,
    .txl_score = run,
};

/* attention-sinpe (teaching): the textbook attention of attention-f32 run on
 * X + PE, with PE the sinusoidal encoding of the row index (base 10000).
 * Position-aware by design, so it is NOT permutation-equivariant: the
 * teaching counterexample of the `equivariance` property. */
#include <stdlib.h>
#include "impl/common.h"

extern const pc_impl pc_impl_attention_f32;

static int run(void *ctx, size_t n, int d, const float *x, const float *wq,
               const float *wk, const float *wv, int causal, float *out)
{
    (void)ctx;
    float *xp = malloc(n * (size_t)d * sizeof *xp);
    if (!xp) return 1;
    for (size_t r = 0; r < n; r++)
        for (int i = 0; i < d / 2; i++) {
            double a = (double)r * pow(10000.0, -2.0 * i / d); /* the paper's base */
            size_t s = r * (size_t)d + (size_t)(2 * i), c = s + 1;
            xp[s] = x[s] + (float)sin(a);
            xp[c] = x[c] + (float)cos(a);
        }
    int rc = pc_impl_attention_f32.attention(NULL, n, d, xp, wq, wk, wv, causal, out);
    free(xp);
    return rc;
}

const pc_impl pc_impl_attention_sinpe = {
    .name = "attention-sinpe",
    .description = "TEACHING: attention-f32 on X + sinusoidal PE (position-aware, not permutation-equivariant)",
    .family_hint = "attention",
    .flaw = "sinusoidal PE is added to X: the output depends on where a row is (by design: this is what PE is for)",
    .attention = run,
};

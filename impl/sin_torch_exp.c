/* torch-exp: the source articles' PositionalEncoding module, in binary32:
 *   position = arange(max_len).float(); div_term = exp(arange(0,d,2).float()
 *   * (-log(base)/d)); pe[:,0::2] = sin(position*div_term); pe[:,1::2] = cos(...) */
#include "common.h"

static int run(void *ctx, const int64_t *pos, size_t n, int d, double base,
               int layout, float *out)
{
    (void)ctx;
    if (!pc_layout_ok(layout)) return 1;
    for (size_t r = 0; r < n; r++) {
        float p = (float)pos[r];
        for (int i = 0; i < d / 2; i++) {
            float a = p * pc_torch_div_term(i, d, base);
            out[r * (size_t)d + pc_col(layout, d, i, 0)] = sinf(a);
            out[r * (size_t)d + pc_col(layout, d, i, 1)] = cosf(a);
        }
    }
    return 0;
}

static int angles(void *ctx, const int64_t *pos, size_t n, int d, double base, float *theta)
{
    (void)ctx;
    for (size_t r = 0; r < n; r++)
        for (int i = 0; i < d / 2; i++)
            theta[r * (size_t)(d / 2) + (size_t)i] = (float)pos[r] * pc_torch_div_term(i, d, base);
    return 0;
}

const pc_impl pc_impl_torch_exp = {
    .name = "torch-exp",
    .description = "source articles' PositionalEncoding: div_term = exp(2i * -ln(base)/d), all binary32",
    .family_hint = "sinusoidal",
    .expect_pass = 1,
    .sinusoidal = run,
    .angles = angles,
};

/* sin-only (known bad): both members of every pair are sin(pos*omega_i);
 * the cos partner is missing, so PE(pos+k) is no longer a rotation of
 * PE(pos) and the dot product depends on absolute positions. */
#include "common.h"

static int run(void *ctx, const int64_t *pos, size_t n, int d, double base,
               int layout, float *out)
{
    (void)ctx;
    if (!pc_layout_ok(layout)) return 1;
    for (size_t r = 0; r < n; r++) {
        float p = (float)pos[r];
        for (int i = 0; i < d / 2; i++) {
            float s = sinf(p * pc_torch_div_term(i, d, base));
            out[r * (size_t)d + pc_col(layout, d, i, 0)] = s;
            out[r * (size_t)d + pc_col(layout, d, i, 1)] = s;
        }
    }
    return 0;
}

const pc_impl pc_impl_sin_only = {
    .name = "sin-only",
    .description = "KNOWN BAD: sin in every column, no cos partner",
    .family_hint = "sinusoidal",
    .flaw = "the cos member of each pair is replaced by sin: no rotation structure",
    .sinusoidal = run,
};

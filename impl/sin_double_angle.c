/* double-angle: omega and pos*omega in binary64, sin/cos in binary64, each
 * value rounded once to binary32 (what a careful table builder does). */
#include "common.h"

static int run(void *ctx, const int64_t *pos, size_t n, int d, double base,
               int layout, float *out)
{
    (void)ctx;
    if (!pc_layout_ok(layout)) return 1;
    for (int i = 0; i < d / 2; i++) {
        double w = pow(base, -2.0 * i / d);
        for (size_t r = 0; r < n; r++) {
            double a = (double)pos[r] * w;
            out[r * (size_t)d + pc_col(layout, d, i, 0)] = (float)sin(a);
            out[r * (size_t)d + pc_col(layout, d, i, 1)] = (float)cos(a);
        }
    }
    return 0;
}

const pc_impl pc_impl_double_angle = {
    .name = "double-angle",
    .description = "angles pos*omega in binary64, sin/cos in binary64, rounded once to binary32",
    .family_hint = "sinusoidal",
    .expect_pass = 1,
    .sinusoidal = run,
};

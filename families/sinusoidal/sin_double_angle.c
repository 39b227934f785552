/* double-angle: omega and pos*omega in binary64, sin/cos in binary64, each
 * value rounded once to binary32 (what a careful table builder does). */
#include "impl/common.h"

/*@ requires valid: pc_encoding_args(pos, n, d, out);
    assigns out[0 .. n * d - 1], errno;
    behavior supported:
      assumes layout_ok: pc_layout_valid(layout);
      ensures ok: \result == 0;
    behavior unsupported:
      assumes layout_bad: !pc_layout_valid(layout);
      assigns \nothing;
      ensures rejected: \result == 1;
    complete behaviors;
    disjoint behaviors;
*/
static int run(void *ctx, const int64_t *pos, size_t n, int d, double base,
               int layout, float *out)
{
    (void)ctx;
    if (!pc_layout_ok(layout)) return 1;
    /*@ loop invariant pairs: 0 <= i <= d / 2;
        loop assigns i, out[0 .. n * d - 1], errno;
        loop variant d / 2 - i; */
    for (int i = 0; i < d / 2; i++) {
        double w = pow(base, -2.0 * i / d);
        /*@ loop invariant rows: 0 <= r <= n;
            loop assigns r, out[0 .. n * d - 1], errno;
            loop variant n - r; */
        for (size_t r = 0; r < n; r++) {
            //@ assert row_fits: r * d + d <= n * d <= SIZE_MAX;
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

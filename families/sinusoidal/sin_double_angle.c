/* double-angle: omega and pos*omega in binary64, sin/cos in binary64, each
 * value rounded once to binary32 (what a careful table builder does;
 * pc_sin_table_f64 in sin_kernel.h, the table plus-1e-4 breaks). */
#include "sin_kernel.h"

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
    if (!pc_layout_ok(layout)) return 1; /* declined: nothing written */
    return pc_sin_table_f64(pos, n, d, base, layout, out, PC_SIN_NO_FLAW);
}

const pc_impl pc_impl_double_angle = {
    .name = "double-angle",
    .description = "angles pos*omega in binary64, sin/cos in binary64, rounded once to binary32",
    .family_hint = "sinusoidal",
    .expect_pass = 1,
    .sinusoidal = run,
};

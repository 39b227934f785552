/* cos-shifted (known bad): torch-exp with one flaw, the cos member of pair
 * i uses the frequency of pair i+1 (an off-by-one in the cos slice); the
 * last pair uses 1/base.  The flaw is PC_SIN_COS_SHIFTED, the line of
 * pc_sin_cos_column (sin_kernel.h) marked "flaw: cos-shifted". */
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
    return pc_sin_module_f32(pos, n, d, base, layout, out, PC_OMEGA_DIV_TERM,
                             PC_SIN_COS_SHIFTED);
}

const pc_impl pc_impl_cos_shifted = {
    .name = "cos-shifted",
    .description = "KNOWN BAD: cos of pair i uses the frequency of pair i+1 (mismatched frequencies)",
    .family_hint = "sinusoidal",
    .flaw = "sin and cos of a pair have different frequencies",
    .sinusoidal = run,
};

/* bf16-positions (known bad): torch-exp with one flaw, the position tensor
 * held in bfloat16 (e.g. arange(...).to(torch.bfloat16) under autocast).
 * bfloat16 has 8 significand bits, so positions above 256 are rounded:
 * 257 -> 256.  The flaw is PC_SIN_BF16_POSITIONS, the line of
 * pc_sin_module_f32 (sin_kernel.h) marked "flaw: bf16-positions", and of the
 * angles pc_position_f32's rounding (impl/common.h). */
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
                             PC_SIN_BF16_POSITIONS);
}

/*@ requires valid: pc_angle_args(pos, n, d, theta);
    assigns theta[0 .. n * (d / 2) - 1], errno;
    ensures ok: \result == 0;
*/
static int angles(void *ctx, const int64_t *pos, size_t n, int d, double base, float *theta)
{
    (void)ctx;
    return pc_angles_f32(pos, n, d, base, theta, PC_OMEGA_DIV_TERM,
                         1 /* the flaw: positions in bfloat16 */);
}

const pc_impl pc_impl_bf16_positions = {
    .name = "bf16-positions",
    .description = "KNOWN BAD: positions rounded to bfloat16 before the angle (257 -> 256)",
    .family_hint = "sinusoidal",
    .flaw = "positions are held in bfloat16: 8 significand bits, so distinct positions above 256 share an angle",
    .sinusoidal = run,
    .angles = angles,
};

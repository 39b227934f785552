/* torch-exp: the source articles' PositionalEncoding module, in binary32:
 *   position = arange(max_len).float(); div_term = exp(arange(0,d,2).float()
 *   * (-log(base)/d)); pe[:,0::2] = sin(position*div_term); pe[:,1::2] = cos(...)
 * (pc_sin_module_f32 with div_term, sin_kernel.h: the table bf16-positions,
 * sin-only and cos-shifted each break with one flaw). */
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
    return pc_sin_module_f32(pos, n, d, base, layout, out, PC_OMEGA_DIV_TERM, PC_SIN_NO_FLAW);
}

/*@ requires valid: pc_angle_args(pos, n, d, theta);
    assigns theta[0 .. n * (d / 2) - 1], errno;
    ensures ok: \result == 0;
*/
static int angles(void *ctx, const int64_t *pos, size_t n, int d, double base, float *theta)
{
    (void)ctx;
    return pc_angles_f32(pos, n, d, base, theta, PC_OMEGA_DIV_TERM, 0);
}

const pc_impl pc_impl_torch_exp = {
    .name = "torch-exp",
    .description = "source articles' PositionalEncoding: div_term = exp(2i * -ln(base)/d), all binary32",
    .family_hint = "sinusoidal",
    .expect_pass = 1,
    .sinusoidal = run,
    .angles = angles,
};

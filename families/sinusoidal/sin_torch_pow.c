/* torch-pow: the second formulation of the source articles, in binary32:
 *   omega = arange(d//2).float() / (d/2); omega = 1/(base**omega);
 *   sita = pos[:,None] @ omega[None,:]; sin(sita), cos(sita)
 * (the module's table of torch-exp with this omega, pc_sin_module_f32 in
 * sin_kernel.h; pc_torch_pow_omega in impl/common.h). */
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
    return pc_sin_module_f32(pos, n, d, base, layout, out, PC_OMEGA_POW_HALF, PC_SIN_NO_FLAW);
}

/*@ requires valid: pc_angle_args(pos, n, d, theta);
    assigns theta[0 .. n * (d / 2) - 1], errno;
    ensures ok: \result == 0;
*/
static int angles(void *ctx, const int64_t *pos, size_t n, int d, double base, float *theta)
{
    (void)ctx;
    return pc_angles_f32(pos, n, d, base, theta, PC_OMEGA_POW_HALF, 0);
}

const pc_impl pc_impl_torch_pow = {
    .name = "torch-pow",
    .description = "source articles' second form: omega = 1/powf(base, i/(d/2)), sita = pos @ omega, binary32",
    .family_hint = "sinusoidal",
    .expect_pass = 1,
    .sinusoidal = run,
    .angles = angles,
};

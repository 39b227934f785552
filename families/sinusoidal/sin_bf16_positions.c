/* bf16-positions (known bad): torch-exp with the position tensor held in
 * bfloat16 (e.g. arange(...).to(torch.bfloat16) under autocast).  bfloat16
 * has 8 significand bits, so positions above 256 are rounded: 257 -> 256. */
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
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * d - 1], errno;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        float p = pc_bf16((float)pos[r]);
        //@ assert row_fits: r * d + d <= n * d <= SIZE_MAX;
        /*@ loop invariant pairs: 0 <= i <= d / 2;
            loop assigns i, out[r * d .. r * d + d - 1], errno;
            loop variant d / 2 - i; */
        for (int i = 0; i < d / 2; i++) {
            float a = p * pc_torch_div_term(i, d, base);
            out[r * (size_t)d + pc_col(layout, d, i, 0)] = sinf(a);
            out[r * (size_t)d + pc_col(layout, d, i, 1)] = cosf(a);
        }
    }
    return 0;
}

/*@ requires valid: pc_angle_args(pos, n, d, theta);
    assigns theta[0 .. n * (d / 2) - 1], errno;
    ensures ok: \result == 0;
*/
static int angles(void *ctx, const int64_t *pos, size_t n, int d, double base, float *theta)
{
    (void)ctx;
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, theta[0 .. n * (d / 2) - 1], errno;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++)
        /*@ loop invariant pairs: 0 <= i <= d / 2;
            loop assigns i, theta[r * (d / 2) .. r * (d / 2) + d / 2 - 1], errno;
            loop variant d / 2 - i; */
        for (int i = 0; i < d / 2; i++)
            theta[r * (size_t)(d / 2) + (size_t)i] = pc_bf16((float)pos[r]) * pc_torch_div_term(i, d, base);
    return 0;
}

const pc_impl pc_impl_bf16_positions = {
    .name = "bf16-positions",
    .description = "KNOWN BAD: positions rounded to bfloat16 before the angle (257 -> 256)",
    .family_hint = "sinusoidal",
    .flaw = "positions are held in bfloat16: 8 significand bits, so distinct positions above 256 share an angle",
    .sinusoidal = run,
    .angles = angles,
};

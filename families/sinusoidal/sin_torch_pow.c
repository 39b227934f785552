/* torch-pow: the second formulation of the source articles, in binary32:
 *   omega = arange(d//2).float() / (d/2); omega = 1/(base**omega);
 *   sita = pos[:,None] @ omega[None,:]; sin(sita), cos(sita) */
#include "impl/common.h"

/*@ requires dim: pc_dim_ok(d);
    requires pair: 0 <= i < d / 2;
    assigns \result, errno \from i, d, base;
*/
static float omega(int i, int d, double base)
{
    float e = (float)i / (float)(d / 2);
    return 1.0f / powf((float)base, e);
}

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
        float p = (float)pos[r];
        //@ assert row_fits: r * d + d <= n * d <= SIZE_MAX;
        /*@ loop invariant pairs: 0 <= i <= d / 2;
            loop assigns i, out[r * d .. r * d + d - 1], errno;
            loop variant d / 2 - i; */
        for (int i = 0; i < d / 2; i++) {
            float a = p * omega(i, d, base);
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
            theta[r * (size_t)(d / 2) + (size_t)i] = (float)pos[r] * omega(i, d, base);
    return 0;
}

const pc_impl pc_impl_torch_pow = {
    .name = "torch-pow",
    .description = "source articles' second form: omega = 1/powf(base, i/(d/2)), sita = pos @ omega, binary32",
    .family_hint = "sinusoidal",
    .expect_pass = 1,
    .sinusoidal = run,
    .angles = angles,
};

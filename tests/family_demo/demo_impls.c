/* demo_impls.c: the demo family's built-ins.  demo-double: the angle in
 * binary64 rounded once (within an ulp of the exact angle: the binary64
 * product's relative error is about 2^-52); demo-shifted (KNOWN BAD): the
 * frequency of pair i+1 for pair i, as sin-cos-shifted does. */
#include <math.h>
#include "harness/sandbox/impl.h"

static int angles(const int64_t *pos, size_t n, int d, double base, float *theta, int shift)
{
    if (!pos || !theta || d < 2 || d % 2) return 1;
    int h = d / 2;
    for (size_t r = 0; r < n; r++)
        for (int i = 0; i < h; i++) {
            int k = i + shift < h ? i + shift : i;
            double omega = pow(base, -2.0 * k / d);
            theta[r * (size_t)h + (size_t)i] = (float)((double)pos[r] * omega);
        }
    return 0;
}

static int exact_hook(void *ctx, const int64_t *pos, size_t n, int d, double base, float *theta)
{
    (void)ctx;
    return angles(pos, n, d, base, theta, 0);
}

static int shifted_hook(void *ctx, const int64_t *pos, size_t n, int d, double base, float *theta)
{
    (void)ctx;
    return angles(pos, n, d, base, theta, 1);
}

const pc_impl pc_impl_demo_double = {
    .name = "demo-double", .description = "demo family: angles in binary64, rounded once",
    .family_hint = "demo", .expect_pass = 1, .angles = exact_hook
};

const pc_impl pc_impl_demo_shifted = {
    .name = "demo-shifted", .description = "KNOWN BAD: demo angles with the frequency of the next pair",
    .family_hint = "demo", .expect_pass = 0, .flaw = "the frequency index is off by one",
    .angles = shifted_hook
};

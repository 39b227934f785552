/* cos-shifted (known bad): the cos member of pair i uses the frequency of
 * pair i+1 (an off-by-one in the cos slice); the last pair uses 1/base. */
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
        float p = (float)pos[r];
        //@ assert row_fits: r * d + d <= n * d <= SIZE_MAX;
        /*@ loop invariant pairs: 0 <= i <= d / 2;
            loop assigns i, out[r * d .. r * d + d - 1], errno;
            loop variant d / 2 - i; */
        for (int i = 0; i < d / 2; i++) {
            out[r * (size_t)d + pc_col(layout, d, i, 0)] = sinf(p * pc_torch_div_term(i, d, base));
            out[r * (size_t)d + pc_col(layout, d, i, 1)] = cosf(p * pc_torch_div_term(i + 1, d, base));
        }
    }
    return 0;
}

const pc_impl pc_impl_cos_shifted = {
    .name = "cos-shifted",
    .description = "KNOWN BAD: cos of pair i uses the frequency of pair i+1 (mismatched frequencies)",
    .family_hint = "sinusoidal",
    .flaw = "sin and cos of a pair have different frequencies",
    .sinusoidal = run,
};

/* sin-only (known bad): both members of every pair are sin(pos*omega_i);
 * the cos partner is missing, so PE(pos+k) is no longer a rotation of
 * PE(pos) and the dot product depends on absolute positions. */
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
            float s = sinf(p * pc_torch_div_term(i, d, base));
            out[r * (size_t)d + pc_col(layout, d, i, 0)] = s;
            out[r * (size_t)d + pc_col(layout, d, i, 1)] = s;
        }
    }
    return 0;
}

const pc_impl pc_impl_sin_only = {
    .name = "sin-only",
    .description = "KNOWN BAD: sin in every column, no cos partner",
    .family_hint = "sinusoidal",
    .flaw = "the cos member of each pair is replaced by sin: no rotation structure",
    .sinusoidal = run,
};

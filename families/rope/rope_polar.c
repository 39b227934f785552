/* rope-polar: RoPE in the complex form of the source articles (Meta's
 * Llama code): inv_freq = 1/(base ** (arange(0,d,2).float()/d));
 * freqs = outer(t, inv_freq); freqs_cis = polar(1, freqs);
 * x viewed as complex pairs (2i, 2i+1), multiplied by freqs_cis; binary32.
 * Interleaved layout only: returns 1 for the half layout. */
#include "impl/common.h"

/*@
    requires valid: pc_encoding_args(pos, n, d, out);
    requires valid_x: pc_valid_read_matrix(x, n, d);
    requires separated_x: \separated(x + (0 .. n * d - 1), out + (0 .. n * d - 1));
    assigns out[0 .. n * d - 1], errno;
    behavior supported:
      assumes layout_ok: layout == PECHECK_LAYOUT_INTERLEAVED;
      ensures ok: \result == 0;
    behavior unsupported:
      assumes layout_bad: layout != PECHECK_LAYOUT_INTERLEAVED;
      assigns \nothing;
      ensures rejected: \result == 1;
    complete behaviors;
    disjoint behaviors;
*/
static int run(void *ctx, const int64_t *pos, size_t n, int d, double base,
               int layout, const float *x, float *out)
{
    (void)ctx;
    if (layout != PECHECK_LAYOUT_INTERLEAVED) return 1;
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * d - 1], errno;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        //@ assert row_fits: r * d + d <= n * d <= SIZE_MAX;
        float t = (float)pos[r];
        const float *xr = x + r * (size_t)d;
        float *o = out + r * (size_t)d;
        /*@ loop invariant pairs: 0 <= i <= d / 2;
            loop assigns i, out[r * d .. r * d + d - 1], errno;
            loop variant d / 2 - i; */
        for (int i = 0; i < d / 2; i++) {
            float a = t * pc_torch_inv_freq(i, d, base);
            float c = cosf(a), s = sinf(a);
            float re = xr[2 * i], im = xr[2 * i + 1];
            o[2 * i] = re * c - im * s;
            o[2 * i + 1] = re * s + im * c;
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
            theta[r * (size_t)(d / 2) + (size_t)i] = (float)pos[r] * pc_torch_inv_freq(i, d, base);
    return 0;
}

const pc_impl pc_impl_rope_polar = {
    .name = "rope-polar",
    .description = "RoPE, complex polar form (RoFormer/Llama, interleaved pairs), binary32",
    .family_hint = "rope",
    .expect_pass = 1,
    .rope = run,
    .angles = angles,
};

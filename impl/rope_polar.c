/* rope-polar: RoPE in the complex form of the source articles (Meta's
 * Llama code): inv_freq = 1/(base ** (arange(0,d,2).float()/d));
 * freqs = outer(t, inv_freq); freqs_cis = polar(1, freqs);
 * x viewed as complex pairs (2i, 2i+1), multiplied by freqs_cis; binary32.
 * Interleaved layout only: returns 1 for the half layout. */
#include "common.h"

static int run(void *ctx, const int64_t *pos, size_t n, int d, double base,
               int layout, const float *x, float *out)
{
    (void)ctx;
    if (layout != PECHECK_LAYOUT_INTERLEAVED) return 1;
    for (size_t r = 0; r < n; r++) {
        float t = (float)pos[r];
        const float *xr = x + r * (size_t)d;
        float *o = out + r * (size_t)d;
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

static int angles(void *ctx, const int64_t *pos, size_t n, int d, double base, float *theta)
{
    (void)ctx;
    for (size_t r = 0; r < n; r++)
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

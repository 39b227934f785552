/* rope-half: RoPE in the rotate_half form (GPT-NeoX, framework caches):
 * emb = cat(freqs, freqs); cos = emb.cos(); sin = emb.sin();
 * out = x*cos + rotate_half(x)*sin, rotate_half(x) = cat(-x2, x1); binary32.
 * Half layout only: returns 1 for the interleaved layout.
 * BF16_CACHE selects the known-bad variant with the cos/sin cache stored in
 * bfloat16 (the cache of many serving stacks under autocast). */
#include "impl/common.h"

/*@
    requires valid: pc_encoding_args(pos, n, d, out);
    requires valid_x: pc_valid_read_matrix(x, n, d);
    requires separated_x: \separated(x + (0 .. n * d - 1), out + (0 .. n * d - 1));
    assigns out[0 .. n * d - 1], errno;
    behavior supported:
      assumes layout_ok: layout == PECHECK_LAYOUT_HALF;
      ensures ok: \result == 0;
    behavior unsupported:
      assumes layout_bad: layout != PECHECK_LAYOUT_HALF;
      assigns \nothing;
      ensures rejected: \result == 1;
    complete behaviors;
    disjoint behaviors;
*/
static int rope_half(const int64_t *pos, size_t n, int d, double base, int layout,
                     const float *x, float *out, int bf16_cache)
{
    if (layout != PECHECK_LAYOUT_HALF) return 1;
    int h = d / 2;
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * d - 1], errno;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        //@ assert row_fits: r * d + d <= n * d <= SIZE_MAX;
        float t = (float)pos[r];
        const float *xr = x + r * (size_t)d;
        float *o = out + r * (size_t)d;
        /*@ loop invariant pairs: 0 <= i <= h;
            loop assigns i, out[r * d .. r * d + d - 1], errno;
            loop variant h - i; */
        for (int i = 0; i < h; i++) {
            float a = t * pc_torch_inv_freq(i, d, base);
            float c = cosf(a), s = sinf(a);
            if (bf16_cache) { c = pc_bf16(c); s = pc_bf16(s); }
            float x1 = xr[i], x2 = xr[i + h];
            o[i] = x1 * c + (-x2) * s;
            o[i + h] = x2 * c + x1 * s;
        }
    }
    return 0;
}

/*@
    requires valid: pc_encoding_args(pos, n, d, out);
    requires valid_x: pc_valid_read_matrix(x, n, d);
    requires separated_x: \separated(x + (0 .. n * d - 1), out + (0 .. n * d - 1));
    assigns out[0 .. n * d - 1], errno;
    behavior supported:
      assumes layout_ok: layout == PECHECK_LAYOUT_HALF;
      ensures ok: \result == 0;
    behavior unsupported:
      assumes layout_bad: layout != PECHECK_LAYOUT_HALF;
      assigns \nothing;
      ensures rejected: \result == 1;
    complete behaviors;
    disjoint behaviors;
*/
static int run(void *ctx, const int64_t *pos, size_t n, int d, double base,
               int layout, const float *x, float *out)
{
    (void)ctx;
    if (layout != PECHECK_LAYOUT_HALF) return 1; /* declined: nothing written */
    return rope_half(pos, n, d, base, layout, x, out, 0);
}

/*@
    requires valid: pc_encoding_args(pos, n, d, out);
    requires valid_x: pc_valid_read_matrix(x, n, d);
    requires separated_x: \separated(x + (0 .. n * d - 1), out + (0 .. n * d - 1));
    assigns out[0 .. n * d - 1], errno;
    behavior supported:
      assumes layout_ok: layout == PECHECK_LAYOUT_HALF;
      ensures ok: \result == 0;
    behavior unsupported:
      assumes layout_bad: layout != PECHECK_LAYOUT_HALF;
      assigns \nothing;
      ensures rejected: \result == 1;
    complete behaviors;
    disjoint behaviors;
*/
static int run_bf16(void *ctx, const int64_t *pos, size_t n, int d, double base,
                    int layout, const float *x, float *out)
{
    (void)ctx;
    if (layout != PECHECK_LAYOUT_HALF) return 1; /* declined: nothing written */
    return rope_half(pos, n, d, base, layout, x, out, 1);
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

const pc_impl pc_impl_rope_half = {
    .name = "rope-half",
    .description = "RoPE, rotate_half form (GPT-NeoX, HF cos/sin cache, half-split pairs), binary32",
    .family_hint = "rope",
    .expect_pass = 1,
    .rope = run,
    .angles = angles,
};

const pc_impl pc_impl_rope_bf16_cache = {
    .name = "rope-bf16-cache",
    .description = "KNOWN BAD: rotate_half RoPE with the cos/sin cache stored in bfloat16",
    .family_hint = "rope",
    .flaw = "cos and sin are rounded to bfloat16 (relative error up to 2^-9) before the rotation",
    .rope = run_bf16,
    .angles = angles,
};

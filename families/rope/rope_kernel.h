/* rope_kernel.h: RoPE as the source articles' binary32 code computes it, in
 * its two forms, and the flaw of the known-bad built-in written into it.
 *
 *   inv_freq = 1/(base ** (arange(0, d, 2).float() / d)); freqs = outer(t, inv_freq);
 *   PC_ROPE_POLAR        (Meta's Llama code) x viewed as complex pairs
 *                        (2i, 2i+1) times freqs_cis = polar(1, freqs):
 *                        the interleaved layout (rope-polar);
 *   PC_ROPE_ROTATE_HALF  (GPT-NeoX, framework caches) emb = cat(freqs, freqs),
 *                        out = x*cos + rotate_half(x)*sin, rotate_half(x) =
 *                        cat(-x2, x1): the half layout (rope-half).
 *
 * A known-bad built-in is one of them with one flaw (pc_rope_flaw): the
 * line that makes it is marked "flaw:"; with PC_ROPE_NO_FLAW it is passed
 * by.  Static inline: each hook is this code with its form and flaw as
 * constants, which the compiler folds, so that neither is tested in the
 * loop the accuracy gate runs on every row. */
#ifndef PECHECK_ROPE_KERNEL_H
#define PECHECK_ROPE_KERNEL_H

#include "impl/common.h"

typedef enum { PC_ROPE_POLAR, PC_ROPE_ROTATE_HALF } pc_rope_form;

typedef enum {
    PC_ROPE_NO_FLAW,     /* the formulation as written */
    PC_ROPE_BF16_CACHE,  /* the cos/sin cache stored in bfloat16 (rope-bf16-cache) */
    PC_ROPE_MIXED_LAYOUT /* rotate_half with the interleaved layout's cache (rope-mixed-layout) */
} pc_rope_flaw;

/* X's N rows (N x D) at POS rotated into OUT, as FORM computes it (in
 * FORM's layout), with FLAW; always 0. */
/*@
    requires valid: pc_encoding_args(pos, n, d, out);
    requires valid_x: pc_valid_read_matrix(x, n, d);
    requires separated_x: \separated(x + (0 .. n * d - 1), out + (0 .. n * d - 1));
    assigns out[0 .. n * d - 1], errno;
    ensures ok: \result == 0;
*/
static inline int pc_rope_f32(const int64_t *pos, size_t n, int d, double base, const float *x,
                              float *out, pc_rope_form form, pc_rope_flaw flaw)
{
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
            if (flaw == PC_ROPE_BF16_CACHE) { c = pc_bf16(c); s = pc_bf16(s); } /* flaw: rope-bf16-cache */
            if (flaw == PC_ROPE_MIXED_LAYOUT) {
                /* flaw: rope-mixed-layout.  The cache is repeat_interleave(freqs, 2),
                 * column j at freqs[j/2], where rotate_half wants cat(freqs, freqs):
                 * columns i and i + h, one pair, turn by different angles. */
                float a1 = t * pc_torch_inv_freq(i / 2, d, base);
                float a2 = t * pc_torch_inv_freq((i + h) / 2, d, base);
                float x1 = xr[i], x2 = xr[i + h];
                o[i] = x1 * cosf(a1) + (-x2) * sinf(a1);
                o[i + h] = x2 * cosf(a2) + x1 * sinf(a2);
                continue;
            }
            if (form == PC_ROPE_POLAR) {
                float re = xr[2 * i], im = xr[2 * i + 1];
                o[2 * i] = re * c - im * s;
                o[2 * i + 1] = re * s + im * c;
            } else {
                float x1 = xr[i], x2 = xr[i + h];
                o[i] = x1 * c + (-x2) * s;
                o[i + h] = x2 * c + x1 * s;
            }
        }
    }
    return 0;
}

/* The angles hook of the three: pos * inv_freq in binary32, the angle the
 * rotation takes (rope-bf16-cache rounds its cos and sin after it). */
/*@ requires valid: pc_angle_args(pos, n, d, theta);
    assigns theta[0 .. n * (d / 2) - 1], errno;
    ensures ok: \result == 0;
*/
static inline int pc_rope_angles(void *ctx, const int64_t *pos, size_t n, int d, double base,
                                 float *theta)
{
    (void)ctx;
    return pc_angles_f32(pos, n, d, base, theta, PC_OMEGA_INV_FREQ, 0);
}

#endif

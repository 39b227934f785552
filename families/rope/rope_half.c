/* rope-half: RoPE in the rotate_half form (GPT-NeoX, framework caches):
 * emb = cat(freqs, freqs); cos = emb.cos(); sin = emb.sin();
 * out = x*cos + rotate_half(x)*sin, rotate_half(x) = cat(-x2, x1); binary32
 * (pc_rope_f32's PC_ROPE_ROTATE_HALF, rope_kernel.h: the form
 * rope-bf16-cache breaks with one flaw).
 * Half layout only: returns 1 for the interleaved layout. */
#include "rope_kernel.h"

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
    return pc_rope_f32(pos, n, d, base, x, out, PC_ROPE_ROTATE_HALF, PC_ROPE_NO_FLAW);
}

const pc_impl pc_impl_rope_half = {
    .name = "rope-half",
    .description = "RoPE, rotate_half form (GPT-NeoX, HF cos/sin cache, half-split pairs), binary32",
    .family_hint = "rope",
    .expect_pass = 1,
    .rope = run,
    .angles = pc_rope_angles,
};

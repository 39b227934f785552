/* rope-polar: RoPE in the complex form of the source articles (Meta's
 * Llama code): inv_freq = 1/(base ** (arange(0,d,2).float()/d));
 * freqs = outer(t, inv_freq); freqs_cis = polar(1, freqs);
 * x viewed as complex pairs (2i, 2i+1), multiplied by freqs_cis; binary32
 * (pc_rope_f32's PC_ROPE_POLAR, rope_kernel.h).
 * Interleaved layout only: returns 1 for the half layout. */
#include "rope_kernel.h"

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
    if (layout != PECHECK_LAYOUT_INTERLEAVED) return 1; /* declined: nothing written */
    return pc_rope_f32(pos, n, d, base, x, out, PC_ROPE_POLAR, PC_ROPE_NO_FLAW);
}

const pc_impl pc_impl_rope_polar = {
    .name = "rope-polar",
    .description = "RoPE, complex polar form (RoFormer/Llama, interleaved pairs), binary32",
    .family_hint = "rope",
    .expect_pass = 1,
    .rope = run,
    .angles = pc_rope_angles,
};

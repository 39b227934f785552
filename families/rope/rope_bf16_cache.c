/* rope-bf16-cache (known bad): rope-half with one flaw, the cos/sin cache
 * stored in bfloat16 (the cache of many serving stacks under autocast).  The
 * flaw is PC_ROPE_BF16_CACHE, the line of pc_rope_f32 (rope_kernel.h) marked
 * "flaw: rope-bf16-cache".  Half layout only: returns 1 for the interleaved
 * layout. */
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
    return pc_rope_f32(pos, n, d, base, x, out, PC_ROPE_ROTATE_HALF, PC_ROPE_BF16_CACHE);
}

const pc_impl pc_impl_rope_bf16_cache = {
    .name = "rope-bf16-cache",
    .description = "KNOWN BAD: rotate_half RoPE with the cos/sin cache stored in bfloat16",
    .family_hint = "rope",
    .flaw = "cos and sin are rounded to bfloat16 (relative error up to 2^-9) before the rotation",
    .rope = run,
    .angles = pc_rope_angles,
};

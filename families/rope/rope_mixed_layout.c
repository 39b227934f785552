/* rope-mixed-layout (known bad): rope-half with one flaw, a conceptual one:
 * the cos/sin cache is built for the interleaved layout
 * (repeat_interleave(freqs, 2): column j turns at freqs[j/2]) and applied
 * with rotate_half, whose pairs are columns (i, i + d/2).  The two members
 * of a pair then turn by different angles: the map is no rotation, so it
 * changes the pair's norm and the score <R_m q, R_n k> depends on m and n,
 * not only on m - n.  Exact at d = 2 (one pair, both columns at freqs[0]);
 * wrong from d = 4.  The flaw is PC_ROPE_MIXED_LAYOUT, the lines of
 * pc_rope_f32 (rope_kernel.h) marked "flaw: rope-mixed-layout".  Half
 * layout only: returns 1 for the interleaved layout. */
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
    return pc_rope_f32(pos, n, d, base, x, out, PC_ROPE_ROTATE_HALF, PC_ROPE_MIXED_LAYOUT);
}

const pc_impl pc_impl_rope_mixed_layout = {
    .name = "rope-mixed-layout",
    .description = "KNOWN BAD: rotate_half RoPE with the interleaved layout's cos/sin cache "
                   "(a pair's two members turn by different angles)",
    .family_hint = "rope",
    .flaw = "the cos/sin cache was built for interleaved pairs (column j at frequency j/2) but "
            "applied with rotate_half, whose pairs are columns i and i + d/2: the two members of "
            "a pair turn by different angles, so the map is no rotation",
    .rope = run,
};

/* ring-slot (known bad): torch-exp with one flaw, a conceptual one: the row
 * is computed from the slot a rolling (ring-buffer) cache of RING_SLOTS rows
 * keeps the position in, pos mod RING_SLOTS, instead of from the position.
 * Every value is a correct row, but of the wrong position: positions
 * RING_SLOTS apart share a row, so the encoding no longer tells them apart.
 * The flaw is the line of run marked "flaw: ring-slot". */
#include "sin_kernel.h"

/* the cache's slots: 512, the rows of the learned table built-in
 * (families/learned/learned_table.c) and a common training context */
#define RING_SLOTS 512

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
    if (!pc_layout_ok(layout)) return 1; /* declined: nothing written */
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * d - 1], errno;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        int64_t slot = (pos[r] % RING_SLOTS + RING_SLOTS) % RING_SLOTS; /* flaw: ring-slot */
        pc_sin_module_f32(&slot, 1, d, base, layout, out + r * (size_t)d, PC_OMEGA_DIV_TERM,
                          PC_SIN_NO_FLAW);
    }
    return 0;
}

const pc_impl pc_impl_ring_slot = {
    .name = "ring-slot",
    .description = "KNOWN BAD: the row of the cache slot pos mod 512, not of the position "
                   "(a rolling cache's slot used as the position)",
    .family_hint = "sinusoidal",
    .flaw = "the encoding is computed from the slot a rolling cache of 512 rows keeps the "
            "position in (pos mod 512), not from the position: positions 512 apart get the "
            "same row",
    .sinusoidal = run,
};

/* sin-only (known bad): torch-exp with one flaw, both members of every
 * pair are sin(pos*omega_i): the cos partner is missing, so PE(pos+k) is no
 * longer a rotation of PE(pos) and the dot product depends on absolute
 * positions.  The flaw is PC_SIN_SIN_ONLY, the line of pc_sin_cos_column
 * (sin_kernel.h) marked "flaw: sin-only". */
#include "sin_kernel.h"

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
    return pc_sin_module_f32(pos, n, d, base, layout, out, PC_OMEGA_DIV_TERM,
                             PC_SIN_SIN_ONLY);
}

const pc_impl pc_impl_sin_only = {
    .name = "sin-only",
    .description = "KNOWN BAD: sin in every column, no cos partner",
    .family_hint = "sinusoidal",
    .flaw = "the cos member of each pair is replaced by sin: no rotation structure",
    .sinusoidal = run,
};

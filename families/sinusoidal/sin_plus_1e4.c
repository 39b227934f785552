/* plus-1e-4 (known bad, a calibration fixture): the correctly rounded
 * double-angle table with one flaw, a uniform 1e-4 absolute error.  The gate
 * must reject it; it shows how small an error the default bound catches.
 * The flaw is PC_SIN_PLUS_1E4, the line of pc_sin_table_f64 (sin_kernel.h)
 * marked "flaw: plus-1e-4". */
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
    return pc_sin_table_f64(pos, n, d, base, layout, out, PC_SIN_PLUS_1E4);
}

const pc_impl pc_impl_plus_1e4 = {
    .name = "plus-1e-4",
    .description = "KNOWN BAD: correct table plus a uniform 1e-4 absolute error (gate calibration)",
    .family_hint = "sinusoidal",
    .flaw = "every value is off by 1e-4",
    .sinusoidal = run,
};

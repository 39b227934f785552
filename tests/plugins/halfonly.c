/* halfonly: a correct sinusoidal implementation of the half layout only;
 * it declines the interleaved layout (nonzero return), which is reported
 * as skipped, not failed. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    if (layout != PECHECK_LAYOUT_HALF) return 1;
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

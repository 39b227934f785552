/* decode_error: a correct sinusoidal implementation that returns an error
 * when asked for one position (a decode step's call), as a kernel whose
 * single-position path is not implemented. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    if (n == 1) return 5;
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

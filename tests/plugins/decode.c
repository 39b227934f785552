/* decode: a correct sinusoidal implementation but for calls of one
 * position (a decode step's fast path), which give the row of pos + 1. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++)
        good_row(pos[r] + (n == 1), d, base, layout, out + r * (size_t)d);
    return 0;
}

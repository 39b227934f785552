/* nan: correct except a NaN at position 7, column 3. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) {
        good_row(pos[r], d, base, layout, out + r * (size_t)d);
        if (pos[r] == 7 && d > 3) out[r * (size_t)d + 3] = NAN;
    }
    return 0;
}

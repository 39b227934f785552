/* sin_offset: the sinusoidal encoding with 0.5 added to every value (its
 * rows off by far more than any bound; tests/checked_against.t). */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) {
        good_row(pos[r], d, base, layout, out + r * (size_t)d);
        for (int j = 0; j < d; j++) out[r * (size_t)d + (size_t)j] += 0.5f;
    }
    return 0;
}

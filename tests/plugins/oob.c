/* oob: correct values, plus one float written past the end of OUT. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    out[n * (size_t)d] = 1.0f; /* off by one */
    return 0;
}

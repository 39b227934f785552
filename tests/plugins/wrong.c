/* wrong: sin and cos swapped in every pair. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) {
        float *o = out + r * (size_t)d;
        good_row(pos[r], d, base, layout, o);
        for (int i = 0; i < d / 2; i++) {
            size_t a = layout ? (size_t)i : (size_t)(2 * i), b = layout ? (size_t)(i + d / 2) : (size_t)(2 * i + 1);
            float t = o[a]; o[a] = o[b]; o[b] = t;
        }
    }
    return 0;
}

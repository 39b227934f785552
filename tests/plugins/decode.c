/* decode: a correct sinusoidal implementation (and learned table) but for calls of one
 * position (a decode step's fast path), which give the row of pos + 1. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++)
        good_row(pos[r] + (n == 1), d, base, layout, out + r * (size_t)d);
    return 0;
}

/* A learned table of 64 rows (all distinct) whose lookup of one position (a decode
 * step's) gives the next row: the same on every lookup of several. */
int64_t pecheck_learned_max_len(void) { return 64; }
int pecheck_learned_f32(const int64_t *pos, size_t n, int d, float *out)
{
    for (size_t r = 0; r < n; r++)
        if (pos[r] < 0 || pos[r] >= 64) return 2;
    for (size_t r = 0; r < n; r++) {
        int64_t p = (pos[r] + (n == 1)) % 64;
        for (int j = 0; j < d; j++) out[r * (size_t)d + (size_t)j] = (float)(p * 1000 + j) / 65536.0f;
    }
    return 0;
}

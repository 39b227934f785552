/* learned_bad: a learned table that writes OUT (clamped rows) and returns
 * 0 for positions past its end, instead of returning an error. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int64_t pecheck_learned_max_len(void) { return 64; }
int pecheck_learned_f32(const int64_t *pos, size_t n, int d, float *out)
{
    for (size_t r = 0; r < n; r++) {
        int64_t p = pos[r] < 0 ? 0 : pos[r] > 63 ? 63 : pos[r];
        for (int j = 0; j < d; j++) out[r * (size_t)d + (size_t)j] = (float)((p * 31 + j) % 17) / 17.0f;
    }
    return 0;
}

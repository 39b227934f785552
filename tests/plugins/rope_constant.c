/* rope_constant: a RoPE kernel that returns 0.25 for every element, the
 * same bits in every call (so it passes `repeat`, which compares nothing
 * with a reference: tests/checked_against.t). */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_rope_f32(const int64_t *pos, size_t n, int d, double base, int layout, const float *x,
                     float *out)
{
    (void)pos; (void)base; (void)layout; (void)x;
    for (size_t k = 0; k < n * (size_t)d; k++) out[k] = 0.25f;
    return 0;
}

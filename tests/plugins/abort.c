/* abort: a failed assertion (abort) in the RoPE entry point; its
 * sinusoidal entry point is correct. */
#include <stdlib.h>
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}
int pecheck_rope_f32(const int64_t *pos, size_t n, int d, double base, int layout, const float *x, float *out)
{
    (void)pos; (void)n; (void)d; (void)base; (void)layout; (void)x; (void)out;
    abort();
}

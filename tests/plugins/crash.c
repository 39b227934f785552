/* crash: SIGSEGV (a NULL write) when asked for position 1000. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) {
        if (pos[r] == 1000) *(volatile int *)(uintptr_t)0 = 1;
        good_row(pos[r], d, base, layout, out + r * (size_t)d);
    }
    return 0;
}

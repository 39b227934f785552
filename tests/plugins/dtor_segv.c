/* dtor_segv: a correct plugin whose destructor writes through NULL.  It
 * never runs in pecheck's process: the run passes, exit 0. */
#include "common.h"

__attribute__((destructor)) static void on_unload(void) { *(volatile int *)(uintptr_t)0 = 1; }

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

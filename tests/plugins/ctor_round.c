/* ctor_round: a correct plugin whose constructor sets the rounding mode to
 * upward.  Its floating-point environment is the plugin host's alone: a
 * built-in checked in the same run (torch-exp) still passes. */
#include <fenv.h>
#include "common.h"

__attribute__((constructor)) static void on_load(void) { fesetround(FE_UPWARD); }

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

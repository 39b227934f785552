/* mangled: a C++ kernel built without extern "C": the entry point exists
 * only under its C++-mangled name (given here with an asm label, as g++
 * would name int pecheck_sinusoidal_f32(const long *, unsigned long, int,
 * double, int, float *)).  pecheck finds nothing to check: exit 2, with a
 * hint about extern "C". */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int cxx_kernel(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
    __asm__("_Z22pecheck_sinusoidal_f32PKlmidiPf");
int cxx_kernel(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

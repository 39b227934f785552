/* misspelt: the ABI version is there, but the kernel's name is misspelt
 * (sinusodial), so pecheck finds nothing to check: exit 2, naming the
 * entry points it expected. */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusodial_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out);
int pecheck_sinusodial_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

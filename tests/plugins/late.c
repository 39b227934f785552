/* late: a correct sinusoidal plugin (ABI v1) whose every call's OUT is
 * made NaN after the call returned (late.h says when and how). */
#define _GNU_SOURCE
#include "common.h"
#include "late.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    late_arm(out, n * (size_t)d * sizeof *out);
    return 0;
}

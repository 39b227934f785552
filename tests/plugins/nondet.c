/* nondet: correct values, but state kept between calls changes them: from
 * its second call on, the first value is one ulp up.  Each result is within
 * the accuracy bound; calling the same positions twice shows it: the
 * `repeat` check fails. */
#include <math.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    static long calls;
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    if (calls++ % 2 == 1 && n > 0) out[0] = nextafterf(out[0], INFINITY);
    return 0;
}

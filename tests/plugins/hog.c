/* hog: correct values, but from position 256 on each call allocates and
 * touches 256 MiB first, returning error 12 when it cannot.  Unlimited it
 * passes; under --plugin-mem-mb 64 the allocation fails: accuracy fails
 * with "returned error 12 at positions 256..511". */
#include <stdlib.h>
#include <string.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    if (n > 0 && pos[0] >= 256) {
        size_t big = (size_t)256 << 20;
        char *p = malloc(big);
        if (!p) return 12;
        memset(p, 1, big);
        free(p);
    }
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

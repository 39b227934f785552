/* exit: calls exit(0) instead of returning. */
#include <stdlib.h>
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    (void)pos; (void)n; (void)d; (void)base; (void)layout; (void)out;
    exit(0);
}

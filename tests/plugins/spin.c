/* spin: never returns, spinning on the CPU.  Under --plugin-cpu-s 1 the
 * plugin host dies of SIGXCPU after a second of CPU time, long before the
 * per-call --timeout-ms. */
#include "common.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    volatile unsigned long k = 0;
    (void)pos; (void)n; (void)d; (void)base; (void)layout; (void)out;
    for (;;) k++;
}

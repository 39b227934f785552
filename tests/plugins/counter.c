/* counter: correct values, but each plugin host process counts its calls:
 * every call writes "call K at pos=A" to stdout, the third value of its
 * last row is K % 3 ulps nearer zero (within the bound far from position
 * 0, but the measured error depends on which calls a process got), and call number PECHECK_TEST_NTH of a process
 * returns error 7, or, with PECHECK_TEST_CRASH set, writes through NULL.
 * pecheck's output for it must be the same whatever --threads says
 * (tests/plugin_pool.t). */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    static long calls;
    const char *nth = getenv("PECHECK_TEST_NTH");
    long k = ++calls;
    printf("call %ld at pos=%lld\n", k, n ? (long long)pos[0] : -1LL);
    fflush(stdout);
    if (nth && k == atol(nth)) {
        if (getenv("PECHECK_TEST_CRASH")) *(volatile int *)(uintptr_t)0 = 1;
        return 7;
    }
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    float *last = out + (n ? n - 1 : 0) * (size_t)d;
    for (long u = 0; u < k % 3 && n > 0 && d > 2; u++) last[2] = nextafterf(last[2], 0.0f);
    return 0;
}

/* bench_torch_exp.c: the built-in torch-exp (families/sinusoidal/
 * sin_torch_exp.c) as a plugin, the same binary32 formulation operation by
 * operation, for `make bench`: a plugin's gate against the built-in's.
 * Build (the built-ins' flags, Makefile): cc -O2 -ffp-contract=off -fno-math-errno -shared -fPIC -Iinclude scripts/bench_torch_exp.c -lm */
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include "pecheck_plugin.h"

int pecheck_abi_version(void) { return PECHECK_ABI_VERSION; }

/* exp(arange(0, d, 2).float() * (-math.log(base) / d)), as impl/common.h */
static float div_term(int i, int d, double base)
{
    float c = (float)(-log(base) / (double)d);
    return expf((float)(2 * i) * c);
}

int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    if (layout != PECHECK_LAYOUT_INTERLEAVED && layout != PECHECK_LAYOUT_HALF) return 1;
    for (size_t r = 0; r < n; r++) {
        float p = (float)pos[r];
        for (int i = 0; i < d / 2; i++) {
            float a = p * div_term(i, d, base);
            size_t ja = layout == PECHECK_LAYOUT_INTERLEAVED ? (size_t)(2 * i) : (size_t)i;
            size_t jb = layout == PECHECK_LAYOUT_INTERLEAVED ? (size_t)(2 * i + 1) : (size_t)(i + d / 2);
            out[r * (size_t)d + ja] = sinf(a);
            out[r * (size_t)d + jb] = cosf(a);
        }
    }
    return 0;
}

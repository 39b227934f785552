/* rng.c: xoshiro256** (Blackman & Vigna) seeded by splitmix64. */
#include <math.h>
#include "rng.h"

static uint64_t splitmix64(uint64_t *x)
{
    uint64_t z = (*x += 0x9E3779B97F4A7C15u);
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9u;
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBu;
    return z ^ (z >> 31);
}

void pc_rng_seed(pc_rng *r, uint64_t seed)
{
    uint64_t x = seed;
    for (int k = 0; k < 4; k++)
        r->s[k] = splitmix64(&x);
}

uint64_t pc_rng_below(pc_rng *r, uint64_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n; /* reject the biased tail */
    uint64_t x;
    do x = pc_rng_u64(r); while (x >= lim);
    return x % n;
}

float pc_rng_normal_f32(pc_rng *r)
{
    double u1 = pc_rng_unit(r), u2 = pc_rng_unit(r);
    if (u1 < 0x1p-60) u1 = 0x1p-60; /* log(0) guard: 2^-60 caps |z| near 9.1 */
    return (float)(sqrt(-2.0 * log(u1)) * cos(6.283185307179586 * u2));
}

uint64_t pc_hash3(uint64_t seed, uint64_t a, uint64_t b)
{
    uint64_t x = seed ^ (a * 0xD1B54A32D192ED03u);
    uint64_t h = splitmix64(&x);
    x = h ^ (b * 0x8CB92BA72F3D8DD7u);
    return splitmix64(&x);
}

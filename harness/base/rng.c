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

static uint64_t rotl(uint64_t x, int k) { return (x << k) | (x >> (64 - k)); }

uint64_t pc_rng_u64(pc_rng *r)
{
    uint64_t *s = r->s;
    uint64_t result = rotl(s[1] * 5, 7) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = rotl(s[3], 45);
    return result;
}

uint64_t pc_rng_below(pc_rng *r, uint64_t n)
{
    uint64_t lim = UINT64_MAX - UINT64_MAX % n; /* reject the biased tail */
    uint64_t x;
    do x = pc_rng_u64(r); while (x >= lim);
    return x % n;
}

double pc_rng_unit(pc_rng *r)
{
    return (double)(pc_rng_u64(r) >> 11) * 0x1p-53;
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

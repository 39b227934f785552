/* rng.h: seeded pseudo-random numbers (splitmix64 seeding + xoshiro256**).
 * Every generated input of pecheck derives from the user's seed, so a run is
 * reproduced exactly by its seed. */
#ifndef PECHECK_RNG_H
#define PECHECK_RNG_H

#include <stdint.h>

/* The fixed default seed (printed with every result). */
#define PC_DEFAULT_SEED 20260422u

typedef struct pc_rng { uint64_t s[4]; } pc_rng;

void     pc_rng_seed(pc_rng *r, uint64_t seed);

/* The next 64 bits (xoshiro256**; inline: the gate draws two a value). */
static inline uint64_t pc_rng_u64(pc_rng *r)
{
    uint64_t *s = r->s;
    uint64_t x = s[1] * 5;
    uint64_t result = ((x << 7) | (x >> 57)) * 9;
    uint64_t t = s[1] << 17;
    s[2] ^= s[0]; s[3] ^= s[1]; s[1] ^= s[2]; s[0] ^= s[3];
    s[2] ^= t;
    s[3] = (s[3] << 45) | (s[3] >> 19);
    return result;
}

/* uniform integer in [0, n), n > 0, without modulo bias */
uint64_t pc_rng_below(pc_rng *r, uint64_t n);

/* uniform double in [0, 1) with 53 random bits */
static inline double pc_rng_unit(pc_rng *r)
{
    return (double)(pc_rng_u64(r) >> 11) * 0x1p-53;
}
/* standard normal (Box-Muller), rounded to binary32 */
float    pc_rng_normal_f32(pc_rng *r);

/* Stateless mixing of a seed with two coordinates: used where an input must
 * not depend on the order work is done in (blocks, threads, shards). */
uint64_t pc_hash3(uint64_t seed, uint64_t a, uint64_t b);

/* Row of D standard normal binary32 values determined by (SEED, KEY):
 * pc_rng_normal_f32's values from a generator seeded with
 * pc_hash3(SEED, KEY, "ROPE"), bit for bit, made cheaper (normal_row.c:
 * runs of 16 values evaluated at once behind a rounding test). */
void pc_normal_row(uint64_t seed, uint64_t key, int d, float *out);

#endif

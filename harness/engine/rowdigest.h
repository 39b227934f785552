/* rowdigest.h: the hashes of an implementation's rows over a range, made
 * once by the accuracy gate's pass and read by a property's sweep.
 *
 * `check` calls the implementation on every position of the range for the
 * accuracy gate; the `unique` sweep needs every row of the same range in
 * one layout, hashed.  Instead of calling the implementation a third time,
 * the gate's pass hashes the rows it got (pc_acc_cfg.digest, in the
 * worker that holds them) and the sweep takes the hashes when the digest
 * is COMPLETE and made of the same calls: the same implementation, family,
 * d, base, layout and range (pc_row_digest_of).  Otherwise the sweep calls
 * the implementation itself, as without a digest (a shard, a failed call,
 * a layout the gate did not run, a table's own range).  Equal rows hash
 * equal; the sweep compares rows of equal hashes bit for bit by calling
 * the implementation again, so the hash only has to be deterministic. */
#ifndef PECHECK_ROWDIGEST_H
#define PECHECK_ROWDIGEST_H

#include <stdint.h>
#include <string.h>
#include "harness/sandbox/impl.h"

/* Rows a digest holds at most: 2^21 x 8 bytes = 16 MiB, the range of the
 * unique sweep (families/sinusoidal/unique.c, SWEEP_MAX). */
#define PC_DIGEST_MAX ((int64_t)1 << 21)

typedef struct pc_row_digest {
    const pc_impl *impl;      /* the rows' source (pointer identity) */
    char family[32];
    int d, layout;
    double base;
    int64_t lo, hi;           /* positions, inclusive */
    uint64_t *hash;           /* [hi - lo + 1]: hash[p - lo] of row p */
    int complete;             /* 1: every row hashed, no call failed */
} pc_row_digest;

/* FNV-1a over the row's D 32-bit words (their bit patterns: -0 and +0,
 * NaNs of other payloads hash apart, as memcmp tells them apart). */
static inline uint64_t pc_row_hash(const float *v, int d)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a's 64-bit offset basis */
    for (int j = 0; j < d; j++) {
        uint32_t u;
        memcpy(&u, &v[j], sizeof u);
        h = (h ^ u) * 0x100000001b3u; /* FNV's 64-bit prime */
    }
    return h;
}

/* An empty digest of IMPL's FAMILY rows (D, BASE, LAYOUT) over LO..HI;
 * NULL when out of memory or when the range exceeds PC_DIGEST_MAX. */
pc_row_digest *pc_row_digest_new(const pc_impl *impl, const char *family, int d, double base,
                                 int layout, int64_t lo, int64_t hi);
void pc_row_digest_free(pc_row_digest *g);

/* The hashes of G when it is complete and made of exactly these rows;
 * NULL otherwise (G may be NULL). */
const uint64_t *pc_row_digest_of(const pc_row_digest *g, const pc_impl *impl, const char *family,
                                 int d, double base, int layout, int64_t lo, int64_t hi);

#endif

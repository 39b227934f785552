/* xsum.h: exact sums of binary64 numbers (a small superaccumulator).
 *
 * The accuracy gate sums squared errors over every element.  To make the
 * result independent of how the work is split (threads, shards) each block
 * of positions keeps a plain binary64 running sum, and the block sums are
 * added EXACTLY here; the reported value is the exact total rounded once.
 * Exact addition is associative, so any merge order gives the same bits.
 *
 * Representation: value = sum_k limb[k] 2^(32k - PC_XSUM_BIAS), limbs are
 * 32-bit digits held in int64 (carry-save: up to 2^30 additions between
 * normalisations), covering every finite binary64 (2^-1074 .. 2^1024) and
 * 2^64 times the largest. */
#ifndef PECHECK_XSUM_H
#define PECHECK_XSUM_H

#include <stdint.h>

#define PC_XSUM_LIMBS 70   /* (1024 + 1088 + 64 carry bits) / 32, rounded up */
#define PC_XSUM_BIAS 1088  /* 34 * 32 >= 1074 + 13: the subnormal unit sits in limb 0 */

typedef struct pc_xsum {
    int64_t limb[PC_XSUM_LIMBS];
    int32_t adds;      /* additions since the last normalisation */
    int32_t nonfinite; /* an Inf or NaN was added: the sum is +Inf (or NaN) */
} pc_xsum;

void   pc_xsum_init(pc_xsum *x);
/* X += V exactly (V finite; Inf/NaN mark the sum non-finite). */
void   pc_xsum_add(pc_xsum *x, double v);
/* X += Y exactly. */
void   pc_xsum_merge(pc_xsum *x, const pc_xsum *y);
/* The exact value rounded to nearest binary64 (ties to even). */
double pc_xsum_value(const pc_xsum *x);
/* The exact value as a sum of at most MAX non-overlapping binary64 numbers,
 * largest first (an exact expansion, for JSON); returns the count, or -1 if
 * MAX is too small or the sum is not finite. */
int    pc_xsum_expansion(const pc_xsum *x, double *out, int max);

#endif

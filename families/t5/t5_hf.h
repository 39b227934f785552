/* t5_hf.h: T5's relative-position bucket as HF transformers writes it
 * (t5-hf), and the flaws of the known-bad T5 built-ins that derive from it.
 * Each flaw is one line of t5_hf.c marked "flaw:"; with PC_T5_NO_FLAW every
 * such line is passed by and the code is HF's.  (t5-swapped takes t5-hf's
 * hook as it is and swaps the sign of its argument, t5_swapped.c.) */
#ifndef PECHECK_T5_HF_H
#define PECHECK_T5_HF_H

#include <stddef.h>
#include <stdint.h>

typedef enum {
    PC_T5_NO_FLAW,          /* HF's code as written */
    PC_T5_ROUNDED,          /* the log term rounded to nearest, not truncated (t5-round) */
    PC_T5_MAX_EXACT_EARLY,  /* max_exact taken before num_buckets is halved (t5-max-exact) */
    PC_T5_NO_CLAMP,         /* no min(., nb - 1) on the log bucket (t5-no-clamp) */
    PC_T5_UNHALVED,         /* num_buckets not halved for the bidirectional split (t5-full-buckets) */
    PC_T5_QUERY_INDEX       /* the bias takes the query's index in the batch as its position (t5-bias-cache) */
} pc_t5_flaw;

/* The bucket of the relative position REL (key - query), with FLAW. */
int32_t pc_t5_hf_bucket(int64_t rel, int bidirectional, int num_buckets, int max_distance,
                        pc_t5_flaw flaw);

/* The t5_bucket hook's work (include/pecheck_plugin.h): OUT[r] = the bucket
 * of REL[r], with FLAW; 1 for parameters HF's code cannot bucket. */
int pc_t5_hf_buckets(const int64_t *rel, size_t n, int bidirectional, int num_buckets,
                     int max_distance, int32_t *out, pc_t5_flaw flaw);

/* The t5_bias hook's work: OUT[h][r][c] = EMB[bucket(KPOS[c] - QPOS[r])][h],
 * with FLAW; 1 for bad parameters, 2 for a bucket outside the table. */
int pc_t5_hf_bias(const float *emb, int heads, int bidirectional, int num_buckets,
                  int max_distance, const int64_t *qpos, size_t nq, const int64_t *kpos,
                  size_t nk, float *out, pc_t5_flaw flaw);

#endif

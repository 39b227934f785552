/* relative_common.h: shared float32 pieces of the relative-position
 * built-ins (T5, ALiBi, Transformer-XL).  Each built-in file defines its own
 * bucket / slope / R function and uses these to fill the ABI's outputs. */
#ifndef PECHECK_IMPL_RELATIVE_COMMON_H
#define PECHECK_IMPL_RELATIVE_COMMON_H

#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "common.h"

/* |A - B| for int64 without overflow on sane positions (|pos| <= 2^62). */
static inline uint64_t pc_rel_absdiff(int64_t a, int64_t b)
{
    return a >= b ? (uint64_t)a - (uint64_t)b : (uint64_t)b - (uint64_t)a;
}

/* The parameter checks every T5 built-in does (nonzero: refuse). */
static inline int pc_rel_t5_params_bad(int bidirectional, int num_buckets, int max_distance)
{
    int nb = bidirectional ? num_buckets / 2 : num_buckets;
    return num_buckets < 1 || nb / 2 < 1 || max_distance <= nb / 2;
}

typedef int32_t (*pc_rel_bucket_fn)(int64_t rel, int bidirectional, int num_buckets,
                                    int max_distance);

/* T5 bias from a bucket function: OUT[h][r][c] = EMB[bucket(k - q)][h]. */
/* The t5_bucket hook of every T5 built-in: BUCKET applied to each distance. */
static inline int pc_rel_t5_buckets(pc_rel_bucket_fn bucket, const int64_t *rel, size_t n,
                                    int bidirectional, int num_buckets, int max_distance,
                                    int32_t *out)
{
    if (pc_rel_t5_params_bad(bidirectional, num_buckets, max_distance)) return 1;
    for (size_t r = 0; r < n; r++)
        out[r] = bucket(rel[r], bidirectional, num_buckets, max_distance);
    return 0;
}

static inline int pc_rel_t5_bias(pc_rel_bucket_fn bucket, const float *emb, int heads,
                                 int bidirectional, int num_buckets, int max_distance,
                                 const int64_t *qpos, size_t nq, const int64_t *kpos,
                                 size_t nk, float *out)
{
    if (heads < 1 || pc_rel_t5_params_bad(bidirectional, num_buckets, max_distance))
        return 1;
    for (size_t r = 0; r < nq; r++)
        for (size_t c = 0; c < nk; c++) {
            int32_t b = bucket(kpos[c] - qpos[r], bidirectional, num_buckets, max_distance);
            if (b < 0 || b >= num_buckets) return 2;
            for (int h = 0; h < heads; h++)
                out[((size_t)h * nq + r) * nk + c] = emb[(size_t)b * (size_t)heads + (size_t)h];
        }
    return 0;
}

/* ALiBi bias from float32 slopes: RN(slope * |j - i|), negated (the
 * distance is formed in int64, then converted once, as torch does with an
 * integer arange difference). */
static inline void pc_rel_alibi_bias(const float *slopes, int heads, const int64_t *qpos,
                                     size_t nq, const int64_t *kpos, size_t nk, int causal,
                                     float *out)
{
    for (int h = 0; h < heads; h++)
        for (size_t r = 0; r < nq; r++)
            for (size_t c = 0; c < nk; c++) {
                size_t o = ((size_t)h * nq + r) * nk + c;
                if (causal && kpos[c] > qpos[r]) { out[o] = -INFINITY; continue; }
                float dist = (float)pc_rel_absdiff(kpos[c], qpos[r]);
                out[o] = -(slopes[h] * dist);
            }
}

/* R_p in binary32 as Transformer-XL's PositionalEmbedding computes it:
 * inv_freq = 1 / base^(arange(0, d, 2) / d) (float32), angle = p * inv_freq,
 * [sin | cos] (HALF) or interleaved. */
static inline void pc_rel_txl_r(int64_t p, int d, double base, int layout, float *r)
{
    for (int i = 0; i < d / 2; i++) {
        float a = (float)p * pc_torch_inv_freq(i, d, base);
        r[pc_col(layout, d, i, 0)] = sinf(a);
        r[pc_col(layout, d, i, 1)] = cosf(a);
    }
}

/* The four terms in the original code's grouping:
 *   AC = (q + u) . k,  BD = (q + v) . (WR R),  score = AC + BD. */
static inline float pc_rel_txl_one(int d, const float *q, const float *k, const float *u,
                                   const float *v, const float *wr, const float *r,
                                   float *w)
{
    for (int a = 0; a < d; a++) {
        float acc = 0.0f;
        for (int b = 0; b < d; b++)
            acc += wr[(size_t)a * (size_t)d + (size_t)b] * r[b];
        w[a] = acc;
    }
    float ac = 0.0f, bd = 0.0f;
    for (int a = 0; a < d; a++) {
        ac += (q[a] + u[a]) * k[a];
        bd += (q[a] + v[a]) * w[a];
    }
    return ac + bd;
}

/* A whole score matrix; WHICH_POS(i, j) gives the R index (the correct
 * built-in passes i - j). */
typedef int64_t (*pc_rel_txl_index)(int64_t i, int64_t j);
static inline int pc_rel_txl_scores(pc_rel_txl_index idx, size_t nq, size_t nk, int d,
                                    double base, int layout, const float *q,
                                    const float *k, const float *u, const float *v,
                                    const float *wr, const int64_t *qpos,
                                    const int64_t *kpos, float *out)
{
    if (d < 2 || d % 2 || !pc_layout_ok(layout)) return 1;
    float *r = malloc(2 * (size_t)d * sizeof *r);
    if (!r) return 2;
    for (size_t i = 0; i < nq; i++)
        for (size_t j = 0; j < nk; j++) {
            pc_rel_txl_r(idx(qpos[i], kpos[j]), d, base, layout, r);
            out[i * nk + j] = pc_rel_txl_one(d, q + i * (size_t)d, k + j * (size_t)d, u, v,
                                             wr, r, r + d);
        }
    free(r);
    return 0;
}

#endif

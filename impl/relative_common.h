/* relative_common.h: shared float32 pieces of the relative-position
 * built-ins: the distance of two positions (T5, ALiBi) and Transformer-XL's
 * score, whose index function (i - j, or the flaw of txl-absolute) each TXL
 * built-in passes.  T5's bucket and ALiBi's slopes and bias are their
 * families' (families/t5/t5_hf.c, families/alibi/alibi_paper.c). */
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

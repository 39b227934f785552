/* impl.h: one implementation under test, whatever its source.
 *
 * Built-ins (impl/), plugins (dlopen) and .npy tables all fill this struct;
 * the comparison engine and the properties see only these hooks.  The hooks
 * mirror the plugin ABI (include/pecheck_plugin.h) plus a context pointer.
 * A NULL hook means the family is not provided (reported as skipped).
 * Hooks return 0 on success, nonzero for an error of the implementation. */
#ifndef PECHECK_IMPL_H
#define PECHECK_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "../include/pecheck_plugin.h"

typedef struct pc_impl pc_impl;
struct pc_impl {
    const char *name;
    const char *description;  /* one line, for `pecheck list` */
    const char *family_hint;  /* family it is meant for: "sinusoidal", ... */
    int expect_pass;          /* 1 for a correct built-in, 0 for a known-bad one */
    const char *flaw;         /* known-bad: what is wrong, for explanations */
    void *ctx;                /* owned by the source (plugin handle, table) */

    int (*sinusoidal)(void *ctx, const int64_t *pos, size_t n, int d,
                      double base, int layout, float *out);
    int (*rope)(void *ctx, const int64_t *pos, size_t n, int d, double base,
                int layout, const float *x, float *out);
    int64_t (*learned_max_len)(void *ctx);
    int (*learned)(void *ctx, const int64_t *pos, size_t n, int d, float *out);
    int (*attention)(void *ctx, size_t n, int d, const float *x,
                     const float *wq, const float *wk, const float *wv,
                     int causal, float *out);
    /* Optional: the binary32 angles pos*omega_i the implementation uses
     * (N x D/2), so the error can be split into angle and evaluation. */
    int (*angles)(void *ctx, const int64_t *pos, size_t n, int d, double base,
                  float *theta);
    /* Positions the source can serve, inclusive, when POS_BOUNDED (a .npy
     * table knows its rows; one row at position 0 is 0..0); otherwise
     * unlimited.  Properties draw positions from this range. */
    int64_t pos_min, pos_max;
    int pos_bounded;
    /* Relative-position families (optional; appended, see the boxed section
     * of pecheck_plugin.h for the contracts). */
    int (*t5_bucket)(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                     int num_buckets, int max_distance, int32_t *out);
    int (*t5_bias)(void *ctx, const float *emb, int heads, int bidirectional,
                   int num_buckets, int max_distance, const int64_t *qpos, size_t nq,
                   const int64_t *kpos, size_t nk, float *out);
    int (*alibi_slopes)(void *ctx, int heads, float *out);
    int (*alibi_bias)(void *ctx, int heads, const int64_t *qpos, size_t nq,
                      const int64_t *kpos, size_t nk, int causal, float *out);
    int (*txl_score)(void *ctx, size_t nq, size_t nk, int d, double base, int layout,
                     const float *q, const float *k, const float *u, const float *v,
                     const float *wr, const int64_t *qpos, const int64_t *kpos,
                     float *out);
};

/* The built-in implementations (impl/registry.c). */
const pc_impl *pc_builtin_find(const char *name);
size_t pc_builtin_count(void);
const pc_impl *pc_builtin_at(size_t k);

#endif

/* pecheck_plugin.h: the pecheck plugin ABI, version 1.
 *
 * A plugin is a shared library that exports any subset of the entry points
 * below; pecheck loads it with dlopen() and checks every family whose
 * symbols are present (a missing family is reported as skipped).
 *
 * Conventions
 *   - Matrices are row-major; OUT is allocated by the caller.
 *   - A return value of 0 means success; anything else is an error reported
 *     by the implementation (pecheck reports it, it does not read OUT).
 *   - An implementation that supports only one layout returns nonzero for
 *     the other; pecheck reports that layout as skipped, not failed.
 *   - Every function must be callable repeatedly and from a forked child.
 *
 * This header is self-contained and usable from C and C++. */
#ifndef PECHECK_PLUGIN_H
#define PECHECK_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PECHECK_ABI_VERSION 1

/* Pair layouts.  INTERLEAVED: pairs (2i, 2i+1); sinusoidal: sin at 2i,
 * cos at 2i+1 (the paper's).  HALF: pairs (i, i+d/2); sinusoidal: sin in
 * [0, d/2), cos in [d/2, d) (GPT-NeoX, rotate_half). */
#define PECHECK_LAYOUT_INTERLEAVED 0
#define PECHECK_LAYOUT_HALF        1

/* Returns PECHECK_ABI_VERSION (1).  Required. */
int pecheck_abi_version(void);

/* Sinusoidal absolute PE, omega_i = BASE^(-2i/D): OUT is N x D, row r for
 * position POS[r]. */
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base,
                           int layout, float *out);

/* RoPE: rotate row r of X (N x D) by the angles POS[r] * omega_i on the
 * pairs of LAYOUT; OUT is N x D. */
int pecheck_rope_f32(const int64_t *pos, size_t n, int d, double base,
                     int layout, const float *x, float *out);

/* Learned absolute table: valid positions are [0, max_len).  A lookup with
 * any position outside must return nonzero and must not write OUT. */
int64_t pecheck_learned_max_len(void);
int pecheck_learned_f32(const int64_t *pos, size_t n, int d, float *out);

/* Single-head self-attention, no positional encoding:
 * OUT = softmax(Q K^T / sqrt(D)) V with Q = X WQ, K = X WK, V = X WV
 * (X: N x D; W*: D x D); CAUSAL != 0 masks keys after the query. */
int pecheck_attention_f32(size_t n, int d, const float *x, const float *wq,
                          const float *wk, const float *wv, int causal,
                          float *out);

#ifdef __cplusplus
}
#endif

#endif /* PECHECK_PLUGIN_H */

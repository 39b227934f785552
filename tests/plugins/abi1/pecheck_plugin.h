/* tests/plugins/abi1/pecheck_plugin.h: the plugin header of ABI version 1 as it
 * shipped, kept so that tests/plugin_v2.t builds a plugin against it (a
 * version 1 plugin must keep working).  Not for new plugins: use
 * include/pecheck_plugin.h. */
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
 *   - Every function must be callable repeatedly; the same call must give
 *     the same bits.
 *
 * How pecheck calls a plugin (docs/plugins.md)
 *   - The library is loaded only in a plugin host process (never in
 *     pecheck's own), which serves many calls, one at a time, each with a
 *     time limit (--timeout-ms): a crash, abort, exit(), hang or write
 *     outside OUT fails that check with its cause, the host is replaced and
 *     pecheck goes on.  State (a GPU context, a cache) is kept from one
 *     call to the next until then.  The host's stdout and stderr are
 *     captured, not pecheck's.
 *   - pecheck_abi_version() is called first, in the host, while loading; a
 *     library that lacks it or returns another version is rejected (exit 2),
 *     as is one that exports none of the entry points below.
 *   - pecheck_learned_max_len and pecheck_learned_f32 come together.
 *
 * Build: cc -O2 -shared -fPIC -I<pecheck>/include plugin.c -o plugin.so
 * Gate:  pecheck check --plugin ./plugin.so
 * A complete example: examples/plugin_good.c; a CUDA host wrapper:
 * examples/cuda/pe_kernel.cu.
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

/* ------------------------------------------------------------------------
 * Relative-position families (optional, ABI version 1)
 *
 * Added without changing PECHECK_ABI_VERSION: each entry point below is
 * optional, a plugin built against the first v1 header simply lacks them
 * and those families are reported as skipped.  Relative distances follow
 * HF transformers: REL = key position - query position (j - i, HF's
 * memory_position - context_position); "distance" is |j - i|.
 * ------------------------------------------------------------------------ */

/* T5 relative-position buckets (Raffel et al.; HF T5Attention
 * ._relative_position_bucket, Mesh TF).  OUT[r] = bucket of REL[r]:
 *   BIDIRECTIONAL != 0: NB = NUM_BUCKETS / 2 per sign, REL > 0 adds NB,
 *                       N = |REL|;
 *   BIDIRECTIONAL == 0: NB = NUM_BUCKETS, N = max(-REL, 0) (keys after the
 *                       query all share bucket 0);
 *   MAX_EXACT = NB / 2; N < MAX_EXACT: bucket N (exact);
 *   else min(MAX_EXACT + floor(ln(N/MAX_EXACT) / ln(MAX_DISTANCE/MAX_EXACT)
 *            * (NB - MAX_EXACT)), NB - 1)   (logarithmic, saturating).
 * Integer divisions truncate.  pecheck calls it with MAX_EXACT >= 1 and
 * MAX_DISTANCE > MAX_EXACT. */
int pecheck_t5_bucket(const int64_t *rel, size_t n, int bidirectional,
                      int num_buckets, int max_distance, int32_t *out);

/* T5 attention bias: EMB is the NUM_BUCKETS x HEADS embedding table
 * (row-major, nn.Embedding(num_buckets, heads).weight); OUT is
 * HEADS x NQ x NK with OUT[h][r][c] = EMB[bucket(KPOS[c] - QPOS[r])][h]. */
int pecheck_t5_bias(const float *emb, int heads, int bidirectional,
                    int num_buckets, int max_distance,
                    const int64_t *qpos, size_t nq,
                    const int64_t *kpos, size_t nk, float *out);

/* ALiBi slopes (Press et al., the paper's get_slopes): OUT[h], 0 <= h < HEADS.
 * HEADS a power of two: 2^(-8(h+1)/HEADS).  Otherwise, with
 * C = 2^floor(log2 HEADS): the C slopes of the power-of-two rule for C,
 * then the first HEADS - C slopes of the rule for 2C taken at even 0-based
 * indices 0, 2, 4, ... (exponents -8(2m+1)/(2C)). */
int pecheck_alibi_slopes(int heads, float *out);

/* ALiBi bias: OUT is HEADS x NQ x NK, OUT[h][r][c] = -slope_h * |KPOS[c] -
 * QPOS[r]|.  CAUSAL != 0: entries with KPOS[c] > QPOS[r] are masked and not
 * read by pecheck (write -INFINITY or leave them). */
int pecheck_alibi_bias(int heads, const int64_t *qpos, size_t nq,
                       const int64_t *kpos, size_t nk, int causal, float *out);

/* Transformer-XL relative attention score (Dai et al., the four terms):
 *   OUT[r][c] = q_r . k_c + q_r . (WR R_{i-j}) + U . k_c + V . (WR R_{i-j})
 * with i = QPOS[r], j = KPOS[c]; Q (NQ x D) and K (NK x D) are the already
 * projected queries and keys, U and V the global biases (D), WR the D x D
 * position projection ((WR R)_a = sum_b WR[a*D+b] R_b), and R_p the
 * sinusoidal encoding of the relative distance p (may be negative:
 * sin(p omega_i), cos(p omega_i), omega_i = BASE^(-2i/D)) in LAYOUT (the
 * original code concatenates [sin | cos]: PECHECK_LAYOUT_HALF). */
int pecheck_txl_score(size_t nq, size_t nk, int d, double base, int layout,
                      const float *q, const float *k, const float *u,
                      const float *v, const float *wr,
                      const int64_t *qpos, const int64_t *kpos, float *out);

#ifdef __cplusplus
}
#endif

#endif /* PECHECK_PLUGIN_H */

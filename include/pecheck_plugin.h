/* pecheck_plugin.h: the pecheck plugin ABI, version 2 (with version 1).
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
 *   - The library is loaded only in plugin host processes (never in
 *     pecheck's own; --plugin-hosts of them, 2 by default, each loading
 *     it), each serving many calls, one at a time, each with a time limit
 *     (--timeout-ms): a crash, abort, exit(), hang or write outside OUT
 *     fails that check with its cause, the host is replaced and pecheck
 *     goes on.  State (a GPU context, a cache) is kept from one call to the
 *     next in a host until then.  The accuracy gate sends block b (256
 *     positions) to host b % N, each host's calls in (block, layout) order
 *     whatever --threads says (docs/plugins.md).  The hosts' stdout and
 *     stderr are captured, not pecheck's.
 *   - pecheck_abi_version() is called first, in the host, while loading; a
 *     library that lacks it or returns a version other than 1 or 2 is
 *     rejected (exit 2), as is one that exports none of the entry points
 *     below.  A plugin built against the version 1 header (returning 1)
 *     works unchanged; the version 2 entry points (pecheck_rope_v2,
 *     pecheck_sinusoidal_v2, at the end) take one versioned argument
 *     struct and carry what version 1 cannot: frequency schedules, the
 *     attention factor, partial rotary, heads and strides, half-precision
 *     tensors.
 *   - pecheck_learned_max_len and pecheck_learned_f32 come together.
 *
 * Build: cc -O2 -shared -fPIC -I<pecheck>/include plugin.c -o plugin.so
 * Gate:  pecheck check --plugin ./plugin.so
 * Complete examples: examples/plugin_good.c (version 1, every family),
 * examples/plugin_rope_half.c (version 2, an f16/bf16 RoPE kernel); CUDA
 * host wrappers: examples/cuda/pe_kernel.cu.
 *
 * This header is self-contained and usable from C and C++. */
#ifndef PECHECK_PLUGIN_H
#define PECHECK_PLUGIN_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define PECHECK_ABI_VERSION 2
/* the oldest version this pecheck still loads (its entry points unchanged) */
#define PECHECK_ABI_VERSION_MIN 1

/* Pair layouts.  INTERLEAVED: pairs (2i, 2i+1); sinusoidal: sin at 2i,
 * cos at 2i+1 (the paper's).  HALF: pairs (i, i+d/2); sinusoidal: sin in
 * [0, d/2), cos in [d/2, d) (GPT-NeoX, rotate_half). */
#define PECHECK_LAYOUT_INTERLEAVED 0
#define PECHECK_LAYOUT_HALF        1

/* Returns PECHECK_ABI_VERSION (2; a plugin built against the version 1
 * header returns 1).  Required. */
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


/* ------------------------------------------------------------------------
 * Version 2: one argument struct per call (docs/plugins.md "ABI v2")
 *
 * Each entry point takes a pointer to a struct whose first member SIZE is
 * the struct's size as the caller (pecheck) knows it.  Members are only
 * ever appended, so the struct can grow: a plugin built against this header
 * reads a member M only when PECHECK_ARGS_HAS(ARGS, TYPE, M) (a newer pecheck
 * passes a larger SIZE, whose tail an older plugin ignores); a plugin that
 * needs a member an older pecheck does not pass returns
 * PECHECK_V2_ARGS_TOO_SMALL, and pecheck reports that configuration as
 * skipped with that reason.  The struct and every array it points to are
 * valid during the call only.
 *
 * Return values: 0 success; PECHECK_V2_ARGS_TOO_SMALL (above);
 * PECHECK_V2_UNSUPPORTED (or any other nonzero value) for a configuration
 * the kernel does not handle (a layout, a dtype, a rotary dim): pecheck
 * reports that configuration as skipped, never as passed.
 *
 * Positions are int64_t, as in version 1: positions are integers in every
 * model (HF's position_ids are int64), and an integer carries them exactly
 * whatever their size; the kernel converts them as it does in production
 * (in binary32, that conversion is part of what pecheck judges).
 * ------------------------------------------------------------------------ */

/* Element types of tensors.  F16: IEEE 754 binary16; BF16: bfloat16 (the
 * upper 16 bits of a binary32); both passed as uint16_t bit patterns. */
#define PECHECK_DTYPE_F32  0
#define PECHECK_DTYPE_F16  1
#define PECHECK_DTYPE_BF16 2

#define PECHECK_V2_UNSUPPORTED     1
#define PECHECK_V2_ARGS_TOO_SMALL  2

/* Is member M of the struct *A (of type TYPE) inside what its caller
 * passed? */
#define PECHECK_ARGS_HAS(A, TYPE, M) \
    ((A)->size >= offsetof(TYPE, M) + sizeof(((const TYPE *)0)->M))

/* RoPE over a tensor of N_TOKENS tokens x HEADS heads x HEAD_DIM, element
 * (t, h, j) at index t * STRIDE_TOKEN + h * STRIDE_HEAD + j (strides in
 * elements, as PyTorch's x.stride() of a [tokens, heads, head_dim] view),
 * so that a kernel that rotates q or k in place is called as it is:
 *
 *   for j < ROTARY_DIM, the pairs of LAYOUT within the first ROTARY_DIM
 *   dims (INTERLEAVED: (2i, 2i+1); HALF: (i, i + ROTARY_DIM/2)), pair i of
 *   token t rotated by theta = POS[t] * FREQS[i] and scaled by
 *   ATTENTION_FACTOR (A):
 *     out_a = A (x_a cos theta - x_b sin theta)
 *     out_b = A (x_a sin theta + x_b cos theta);
 *   for ROTARY_DIM <= j < HEAD_DIM (partial rotary: GPT-NeoX, Phi, ...):
 *     out_j = x_j, bit for bit (pass-through);
 *   elements outside the view (padding between heads or tokens) are
 *   neither read nor written.
 *
 * X holds DTYPE_IN elements, OUT receives DTYPE_OUT elements, both with
 * the same strides; pecheck calls in place (OUT == X) whenever DTYPE_IN ==
 * DTYPE_OUT, which is every call it makes today.  A half-precision kernel
 * is expected to compute in binary32 and round its outputs once (pecheck
 * holds f16/bf16 outputs to that storage model, docs/schedules.md).
 *
 * FREQS are the ROTARY_DIM/2 frequencies omega_i (radians per position) of
 * the schedule, each the binary64 number nearest the certified value,
 * scaling included (linear, dynamic, yarn, longrope, llama3, rope_freqs),
 * and ATTENTION_FACTOR its attention factor (1 without one); a kernel that
 * takes cos/sin tables or frequencies from its caller uses these.  A kernel
 * that computes its own frequencies reads SCHEDULE (HF's rope_type:
 * "default", "linear", "dynamic", "yarn", "longrope", "llama3", or "freqs"
 * for per-pair frequency factors) and SCHEDULE_JSON, the parameters as one
 * JSON object with HF's field names ({"rope_type": "llama3", "rope_theta":
 * 500000, "factor": 8, ...}; docs/plugins.md lists them).
 *
 * Positions with several axes (M-RoPE of Qwen2-VL, axial RoPE of vision
 * models; `pecheck check --position-ids`): POS_AXES holds N_TOKENS rows of
 * N_AXES positions, and pair i of token t is rotated by
 * theta = POS_AXES[t * N_AXES + PAIR_AXIS[i]] * FREQS[i] (PAIR_AXIS: the
 * axis of each of the ROTARY_DIM/2 pairs: M-RoPE's sections, or the axes of
 * an axial RoPE, whose FREQS restart in each axis).  With one position a
 * token, N_AXES is 1, POS_AXES == POS and PAIR_AXIS is all 0; POS is always
 * the first axis' position, so a kernel unaware of these members rotates
 * by it (and fails a run with several axes, as it should).
 *
 * pecheck checks the rotated elements of one head per token (head
 * T mod HEADS of the run's rows, so consecutive rows cover every head)
 * against their certified reference, and the pass-through dims of every
 * head and the padding between views for bit identity (docs/plugins.md). */
typedef struct pecheck_rope_args {
    size_t size;                /* sizeof (pecheck_rope_args) of the caller */
    const int64_t *pos;         /* N_TOKENS positions */
    size_t n_tokens;
    int heads;                  /* >= 1 */
    int head_dim;               /* even, >= ROTARY_DIM */
    int rotary_dim;             /* even, 2 <= ROTARY_DIM <= HEAD_DIM */
    int layout;                 /* PECHECK_LAYOUT_*, within the rotary dims */
    int64_t stride_token;       /* elements; views never overlap */
    int64_t stride_head;
    int dtype_in;               /* PECHECK_DTYPE_* of X */
    int dtype_out;              /* PECHECK_DTYPE_* of OUT */
    const void *x;
    void *out;                  /* == X when in place */
    const double *freqs;        /* ROTARY_DIM / 2 */
    double attention_factor;
    const char *schedule;
    const char *schedule_json;
    /* positions with several axes (above) */
    const int64_t *pos_axes;    /* N_TOKENS x N_AXES */
    int n_axes;                 /* 1 .. 4 */
    const int *pair_axis;       /* ROTARY_DIM / 2, each in 0 .. N_AXES - 1 */
} pecheck_rope_args;

int pecheck_rope_v2(const pecheck_rope_args *args);

/* Sinusoidal absolute PE: row r (element j at OUT[r * STRIDE + j], DTYPE_OUT)
 * is the encoding of POS[r], pair i = (sin, cos)(POS[r] * FREQS[i]) in
 * LAYOUT (as pecheck_sinusoidal_f32), FREQS[i] = BASE^(-2i/D) as the
 * binary64 number nearest it; SCHEDULE is "default", SCHEDULE_JSON
 * {"rope_type": "default", "rope_theta": BASE}.  Elements between rows
 * (STRIDE > D) are neither read nor written. */
typedef struct pecheck_sinusoidal_args {
    size_t size;                /* sizeof (pecheck_sinusoidal_args) of the caller */
    const int64_t *pos;         /* N positions */
    size_t n;
    int d;                      /* even */
    int layout;
    int64_t stride;             /* elements between rows, >= D */
    int dtype_out;
    void *out;
    const double *freqs;        /* D / 2 */
    double base;
    const char *schedule;
    const char *schedule_json;
} pecheck_sinusoidal_args;

int pecheck_sinusoidal_v2(const pecheck_sinusoidal_args *args);

#ifdef __cplusplus
}
#endif

#endif /* PECHECK_PLUGIN_H */

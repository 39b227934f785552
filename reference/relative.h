/* relative.h: exact references of the relative-position families
 * (T5 bucketed bias, ALiBi, Transformer-XL), computed with GNU MPFR/GMP.
 *
 *   T5     bucket of a relative distance: an integer, computed EXACTLY
 *          (the floor of the logarithmic term is certified by interval
 *          bounds, and an exact integer value is recognised with GMP).
 *   ALiBi  slope 2^(-a/b) and bias -slope*|j - i|, correctly rounded to
 *          binary32 and binary64.
 *   TXL    the four-term score from exact binary32 inputs, R_{i-j} the
 *          certified binary32 sinusoidal row, summed exactly, rounded once.
 *
 * Conventions as in include/pecheck_plugin.h ("Relative-position families"):
 * REL = key position - query position (j - i).  docs/relative.md has the
 * derivations of the error bounds quoted in the .c files. */
#ifndef PECHECK_REF_RELATIVE_H
#define PECHECK_REF_RELATIVE_H

#include <stddef.h>
#include <stdint.h>
#include "reference.h"

/* ---- T5 ------------------------------------------------------------- */

/* Limits: NUM_BUCKETS up to 2^16 (HF uses 32), MAX_DISTANCE up to 2^31 - 1
 * (HF 128).  The exactness test raises integers to powers <= NUM_BUCKETS,
 * so these keep it below a few MiB. */
#define PC_T5_BUCKETS_MAX 65536
#define PC_T5_DIST_MAX    2147483647

/* HF's defaults (T5Config.relative_attention_num_buckets / _max_distance). */
#define PC_T5_HF_BUCKETS  32
#define PC_T5_HF_MAXDIST  128

/* Validate: max_exact = NB/2 >= 1 (NB = NUM_BUCKETS/2 when bidirectional,
 * else NUM_BUCKETS) and MAX_EXACT < MAX_DISTANCE <= PC_T5_DIST_MAX. */
pc_status pc_t5_check_params(int bidirectional, int num_buckets, int max_distance,
                             pc_err *err);

/* The derived quantities of one parameter set. */
typedef struct pc_t5_shape {
    int nb;        /* buckets per sign (NUM_BUCKETS/2 bidirectional) */
    int max_exact; /* nb / 2 */
    int offset;    /* bucket offset of REL > 0 (nb bidirectional, 0 causal) */
} pc_t5_shape;
pc_t5_shape pc_t5_shape_of(int bidirectional, int num_buckets);

/* The exact bucket of REL (any int64). */
pc_status pc_ref_t5_bucket(int64_t rel, int bidirectional, int num_buckets,
                           int max_distance, int32_t *bucket);

/* The exact floor of X = SPAN * ln(N/ME) / ln(MD/ME) for ME <= N < MD
 * (SPAN = nb - max_exact), used by pc_ref_t5_bucket; *EXACT_INT is set to 1
 * when X is an integer (where a float formula is most likely wrong). */
pc_status pc_t5_log_floor(uint64_t n, int me, int span, int md, int64_t *floor_x,
                          int *exact_int);

/* ---- ALiBi ---------------------------------------------------------- */

#define PC_ALIBI_HEADS_MAX 4096
/* The paper's 8 in 2^(-8/H); MPT's alibi_bias_max generalises it (1..64:
 * every slope then stays a normal binary32 value, >= 2^-64). */
#define PC_ALIBI_PAPER_BIAS_MAX 8
#define PC_ALIBI_BIAS_MAX_MAX 64

pc_status pc_alibi_check_heads(int heads, pc_err *err);
pc_status pc_alibi_check_bias_max(int bias_max, pc_err *err);

/* Slope of head H (0-based) of HEADS is 2^(-NUM/DEN), NUM/DEN in lowest
 * terms (the paper's rule, pecheck_plugin.h).  With C = 2^floor(log2
 * HEADS) and B the bias maximum (8 in the paper, MPT's alibi_bias_max):
 * 2^(-B(h+1)/C) for h < C, then 2^(-B(2m+1)/(2C)) for h = C + m. */
void pc_alibi_exponent(int heads, int h, long *num, long *den);
void pc_alibi_exponent_b(int heads, int bias_max, int h, long *num, long *den);
/* The power K of head H: its slope is r^K for the rule's ratio r (2^(-B/C)
 * for h < C: K = h + 1; 2^(-B/(2C)) for h = C + m: K = 2m + 1), the
 * number of roundings a binary32 power of a rounded ratio accumulates
 * (families/alibi/slope_class.c). */
int pc_alibi_power(int heads, int h);

/* slope_h correctly rounded. */
pc_status pc_ref_alibi_slope(int heads, int h, pc_ref2 *out);
pc_status pc_ref_alibi_slope_b(int heads, int bias_max, int h, pc_ref2 *out);

/* -slope_h * |DIST| correctly rounded (|DIST| <= 2^53; -0 never: 0 for 0). */
pc_status pc_ref_alibi_bias(int heads, int h, int64_t dist, pc_ref2 *out);
pc_status pc_ref_alibi_bias_b(int heads, int bias_max, int h, int64_t dist, pc_ref2 *out);

/* ---- Transformer-XL --------------------------------------------------- */

/* One reference context: dimension, base, layout of R and the projection
 * WR (D x D, copied).  D even in [2, PC_TXL_D_MAX]. */
#define PC_TXL_D_MAX 1024
typedef struct pc_txl_ref pc_txl_ref;
pc_status pc_txl_ref_new(int d, double base, int layout, const float *wr,
                         pc_txl_ref **out, pc_err *err);
void pc_txl_ref_free(pc_txl_ref *t);

/* R_REL in binary32: the certified row of |REL| with the sin entries
 * negated for REL < 0 (sin is odd, cos even: exact). */
pc_status pc_txl_ref_rrow(pc_txl_ref *t, int64_t rel, float *r32);

/* The score of query row Q and key row K at relative distance REL = i - j
 * (Transformer-XL's R_{i-j}), U and V the global biases: the exact value
 * of the four terms from the binary32 inputs and R_REL, rounded once.
 * TERMS_ABS (may be NULL) receives sum |q.k| + sum |u.k| +
 * sum_a (|q_a| + |v_a|) sum_b |WR_ab| |R_b|, and WR_ABS_Q (may be NULL)
 * sum_a (|q_a| + |v_a|) sum_b |WR_ab|: the two scales of the pass bound. */
pc_status pc_txl_ref_score(pc_txl_ref *t, const float *q, const float *k,
                           const float *u, const float *v, int64_t rel,
                           float *out32, double *out64, double *terms_abs,
                           double *wr_abs_q);

/* Pass bound for a binary32 implementation (docs/relative.md):
 *   |got - ref| <= 2 gamma_{2d+4} TERMS_ABS + WR_ABS_Q * eR,
 *   gamma_n = n u / (1 - n u), u = 2^-24, and eR = the sinusoidal precision
 *   model's bound at the largest angle |REL| (harness/engine/model.h), plus half an
 *   ulp (R_b is held in binary32), for the implementation's own R. */
double pc_txl_bound(int d, double base, int64_t rel, double terms_abs, double wr_abs_q);

/* ---- report data ------------------------------------------------------ */

/* Write DIR/t5_buckets.dat (j - i from -200 to 200: exact buckets at HF's
 * defaults, bidirectional and causal, then two columns per implementation
 * of IMPLS that has a t5_bucket hook) and DIR/alibi_bias.dat (distance 0..64,
 * exact -slope*d per head for H = 8 and H = 12), for families/t5/t5_buckets.gp
 * and families/alibi/alibi_bias.gp.  Files are written atomically. */
struct pc_impl;
pc_status pc_relative_plot_data(const char *dir, const struct pc_impl *const *impls,
                                int n_impls, pc_err *err);

#endif

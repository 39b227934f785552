/* attention.h: certified reference of single-head self-attention.
 *
 *   out = softmax(Q K^T / sqrt(d)) V,  Q = X WQ, K = X WK, V = X WV
 * (X: n x d, W*: d x d, row-major binary32 inputs taken as exact), with an
 * optional causal mask (query i sees keys 0..i).  Evaluated with interval
 * arithmetic (GNU MPFI over MPFR): the exact result lies in the computed
 * interval; when both ends round to the same binary32 (and binary64) the
 * rounding is certified, otherwise the precision is doubled (Ziv).
 *
 * Attention has no per-element "faithful" rounding of a float32 kernel the
 * way sin has; the pass bound for an implementation is the normwise model
 * pc_attention_bound (docs/precision-model.md). */
#ifndef PECHECK_REF_ATTENTION_H
#define PECHECK_REF_ATTENTION_H

#include <stddef.h>
#include "../harness/status.h"

/* Limits of the reference (cost is O(n^2 d + n d^2) interval operations). */
#define PC_ATT_N_MAX 1024
#define PC_ATT_D_MAX 1024

/* OUT32 / OUT64: n x d, either may be NULL. */
pc_status pc_ref_attention(size_t n, int d, const float *x, const float *wq,
                           const float *wk, const float *wv, int causal,
                           float *out32, double *out64, pc_err *err);

/* Normwise pass bound for row I of a binary32 implementation:
 *   max_t |out_it - ref_it| <= C_ATT * u * (4 d kappa_i + 2 n + d + 8) * vmax
 * kappa_i = max_j (|x_i||WQ|) . (|x_j||WK|) / sqrt(d)  (bounds |S_ij| and
 *           its error's growth through exp),
 * vmax    = max_j max_t (|x_j||WV|)_t                  (bounds |V| and its error),
 * C_ATT = 2 (first-order model, doubled for exp/div/sqrt's own ulps).
 * This is a worst-case bound: for random unit-scale inputs it sits about
 * 10^3 to 10^4 times above the error of a plain binary32 kernel, so it
 * catches structural faults (a missing 1/sqrt(d), a wrong mask, overflow,
 * an offset of 1e-2) without ever failing a correct kernel.
 * BOUNDS receives n values. */
#define PC_ATT_C 2.0
void pc_attention_bound(size_t n, int d, const float *x, const float *wq,
                        const float *wk, const float *wv, int causal, double u,
                        double *bounds);

#endif

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
#include "harness/base/status.h"

/* Limits of the reference (cost is O(n^2 d + n d^2) interval operations). */
#define PC_ATT_N_MAX 1024
#define PC_ATT_D_MAX 1024

/* OUT32 / OUT64: n x d, either may be NULL. */
pc_status pc_ref_attention(size_t n, int d, const float *x, const float *wq,
                           const float *wk, const float *wv, int causal,
                           float *out32, double *out64, pc_err *err);

/* Normwise pass bound for row I of a binary32 implementation (first order,
 * with the probabilistic inner-product model of Higham & Mary 2019,
 * g(k) = 6 sqrt(k) u, which holds with probability >= 1 - 3e-8 k per inner
 * product):
 *   dS_i  = max_j [g(d) (|a_i| |K_j| + |Q_i| |b_j| + |Q_i| |K_j|) + u |S_ij|] / sqrt(d)
 *   max_t |out_it - ref_it| <= C_ATT [(4 dS_i + 4u + 2 g(n) + u) vmax + g(d) cmax]
 * a_i = |x_i||WQ|, b_j = |x_j||WK| (error radii of Q and K), |.| Euclidean
 * norms, vmax = max |V|, cmax = max (|x||WV|); derivation in
 * docs/precision-model.md.  C_ATT = 2 covers second-order terms and the ulps
 * of exp, the division and the square root.  On unit-scale random inputs
 * the bound sits 10^2 to 10^4 above the error of a plain binary32 kernel
 * (more at large d), so it never fails a correct kernel and catches
 * structural faults (a missing 1/sqrt(d), a wrong mask, overflow, PE added
 * to X, an offset of 1e-2 at d <= 64). */
#define PC_ATT_C 2.0
void pc_attention_bound(size_t n, int d, const float *x, const float *wq,
                        const float *wk, const float *wv, int causal, double u,
                        double *bounds);

#endif

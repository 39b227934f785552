/* common.h: small helpers shared by the built-in float32 implementations.
 * Everything here computes in binary32 like the formulations it imitates. */
#ifndef PECHECK_IMPL_COMMON_H
#define PECHECK_IMPL_COMMON_H

#include <math.h>
#include <stdint.h>
#include <string.h>
#include "harness/sandbox/impl.h"
#include "ACSL/pecheck.acsl" /* ACSL predicates: comments only */

/* Round a binary32 to bfloat16 (8 significand bits), nearest-even, as
 * torch's .to(torch.bfloat16) does for finite values. */
/*@ assigns \result \from v; */
static inline float pc_bf16(float v)
{
    uint32_t u;
    memcpy(&u, &v, sizeof u);
    u += 0x7FFFu + ((u >> 16) & 1u);
    u &= 0xFFFF0000u;
    memcpy(&v, &u, sizeof v);
    return v;
}

/* Column of the sin (k = 0) or cos (k = 1) member of pair I. */
/*@ requires dim: pc_dim_ok(d);
    requires pair: 0 <= i < d / 2;
    requires member: k == 0 || k == 1;
    assigns \nothing;
    ensures column: 0 <= \result < d;
    ensures interleaved: layout == PECHECK_LAYOUT_INTERLEAVED ==> \result == 2 * i + k;
    ensures half: layout != PECHECK_LAYOUT_INTERLEAVED ==> \result == i + k * (d / 2);
*/
static inline size_t pc_col(int layout, int d, int i, int k)
{
    return layout == PECHECK_LAYOUT_INTERLEAVED ? (size_t)(2 * i + k)
                                                : (size_t)(i + k * (d / 2));
}

/* div_term of the source articles' PositionalEncoding module:
 *   exp(arange(0, d, 2).float() * (-math.log(base) / d))
 * the scalar is a Python double, cast to binary32 by the tensor product. */
/* (I may be d/2: cos-shifted asks for the pair past the last.) */
/*@ requires dim: pc_dim_ok(d);
    requires pair: 0 <= i <= d / 2;
    assigns \result, errno \from i, d, base;
*/
static inline float pc_torch_div_term(int i, int d, double base)
{
    float c = (float)(-log(base) / (double)d);
    return expf((float)(2 * i) * c);
}

/* inv_freq of the RoPE code in the source articles (and Llama/NeoX):
 *   1.0 / (base ** (arange(0, d, 2).float() / d)) */
/*@ requires dim: pc_dim_ok(d);
    requires pair: 0 <= i < d / 2;
    assigns \result, errno \from i, d, base;
*/
static inline float pc_torch_inv_freq(int i, int d, double base)
{
    return 1.0f / powf((float)base, (float)(2 * i) / (float)d);
}

/*@ assigns \nothing;
    ensures result: \result != 0 <==> pc_layout_valid(layout);
*/
static inline int pc_layout_ok(int layout)
{
    return layout == PECHECK_LAYOUT_INTERLEAVED || layout == PECHECK_LAYOUT_HALF;
}

#endif

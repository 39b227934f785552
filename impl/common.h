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
    requires pair: 0 <= i <= d / 2;
    assigns \result, errno \from i, d, base;
*/
static inline float pc_torch_inv_freq(int i, int d, double base)
{
    return 1.0f / powf((float)base, (float)(2 * i) / (float)d);
}

/* omega of the source articles' second sinusoidal formulation (torch-pow):
 *   omega = arange(d//2).float() / (d/2); omega = 1/(base**omega) */
/*@ requires dim: pc_dim_ok(d);
    requires pair: 0 <= i <= d / 2;
    assigns \result, errno \from i, d, base;
*/
static inline float pc_torch_pow_omega(int i, int d, double base)
{
    float e = (float)i / (float)(d / 2);
    return 1.0f / powf((float)base, e);
}

/* How a binary32 built-in forms omega_i: the three expressions above. */
typedef enum {
    PC_OMEGA_DIV_TERM,   /* pc_torch_div_term: exp(2i * -ln(base)/d) */
    PC_OMEGA_INV_FREQ,   /* pc_torch_inv_freq: 1/base^(2i/d) */
    PC_OMEGA_POW_HALF    /* pc_torch_pow_omega: 1/base^(i/(d/2)) */
} pc_omega_form;

/* omega_i formed as FORM says (I may be d/2: cos-shifted asks for the pair
 * past the last). */
/*@ requires dim: pc_dim_ok(d);
    requires pair: 0 <= i <= d / 2;
    assigns \result, errno \from form, i, d, base;
*/
static inline float pc_omega(pc_omega_form form, int i, int d, double base)
{
    if (form == PC_OMEGA_DIV_TERM) return pc_torch_div_term(i, d, base);
    if (form == PC_OMEGA_INV_FREQ) return pc_torch_inv_freq(i, d, base);
    return pc_torch_pow_omega(i, d, base);
}

/* Position POS as the binary32 formulations hold it, (float)pos, or held
 * in bfloat16 when BF16 (arange(...).to(torch.bfloat16): bf16-positions'
 * flaw). */
/*@ assigns \result \from pos, bf16; */
static inline float pc_position_f32(int64_t pos, int bf16)
{
    float p = (float)pos;
    return bf16 ? pc_bf16(p) : p;
}

/*@ assigns \nothing;
    ensures result: \result != 0 <==> pc_layout_valid(layout);
*/
static inline int pc_layout_ok(int layout)
{
    return layout == PECHECK_LAYOUT_INTERLEAVED || layout == PECHECK_LAYOUT_HALF;
}

/* The angles hook of the binary32 built-ins: THETA[r][i] = P * omega_i in
 * binary32, P = pc_position_f32(POS[r], BF16_POSITIONS), omega_i formed as
 * FORM says; always 0. */
/*@ requires valid: pc_angle_args(pos, n, d, theta);
    assigns theta[0 .. n * (d / 2) - 1], errno;
    ensures ok: \result == 0;
*/
static inline int pc_angles_f32(const int64_t *pos, size_t n, int d, double base, float *theta,
                                pc_omega_form form, int bf16_positions)
{
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, theta[0 .. n * (d / 2) - 1], errno;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        float p = pc_position_f32(pos[r], bf16_positions);
        /*@ loop invariant pairs: 0 <= i <= d / 2;
            loop assigns i, theta[r * (d / 2) .. r * (d / 2) + d / 2 - 1], errno;
            loop variant d / 2 - i; */
        for (int i = 0; i < d / 2; i++)
            theta[r * (size_t)(d / 2) + (size_t)i] = p * pc_omega(form, i, d, base);
    }
    return 0;
}

#endif

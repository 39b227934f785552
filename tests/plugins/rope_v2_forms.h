/* rope_v2_forms.h: shared body of the ABI v2 RoPE test plugins that round
 * more than once in half precision, as the mainstream f16/bf16 kernels do
 * (tests/plugin_v2.t builds each tests/plugins/rope_v2_form_NAME.c; the
 * bound is derived in docs/schedules.md, "A kernel computing in half
 * precision").  FORM (defined before including) picks the formulation:
 *   FORM_FLASH  flash-attn's rotary: cos/sin cache stored in the tensor's
 *               dtype (one rounding each), products and difference in
 *               binary32, the output rounded once;
 *   FORM_VLLM   vLLM's CUDA rotary_embedding: cache in the model dtype,
 *               x * cos - y * sin in scalar_t (c10::Half / BFloat16: each
 *               product and the difference computed in binary32 and
 *               rounded back to the dtype);
 *   FORM_HF     HF transformers' eager apply_rotary_pos_emb on f16/bf16
 *               tensors: q * cos + rotate_half(q) * sin, the cache cast to
 *               the dtype, each product and the sum one torch op (rounded);
 * and FLAW a deliberate error on top (FLAW_BASE: the frequencies of a base
 * 1% too large; FLAW_LONG: cos and sin 5% too long).  The cache holds
 * A cos, A sin computed in binary32 (HF and vLLM multiply by the attention
 * factor before the cast), the angle (float)pos * (float)omega_i. */
#define ROPE_V2_ENTRY rope_v2_plain /* rope_v2.h's once-rounding kernel, unused here */
#include "rope_v2.h"

enum { FORM_FLASH = 1, FORM_VLLM, FORM_HF };
enum { FLAW_FORM_NONE, FLAW_BASE, FLAW_LONG };
#ifndef FORM_FLAW
#define FORM_FLAW FLAW_FORM_NONE
#endif

/* one operation on half operands: computed in binary32 (exact for a
 * product of two half values: 22 or 16 significand bits) and rounded to the
 * dtype; binary32 has at least 2p + 2 bits of the dtype's p, so this double
 * rounding equals one rounding of the exact result (Figueroa 1995) */
static float hr(float v, int bf) { return ld(&(uint16_t){ st(v, bf) }, bf); }

static double flawed_freq(const pecheck_rope_args *p, int i)
{
    /* base b -> 1.01 b multiplies b^(-2i/R) by 1.01^(-2i/R) */
    if (FORM_FLAW == FLAW_BASE) return p->freqs[i] * pow(1.01, -2.0 * i / p->rotary_dim);
    return p->freqs[i];
}

/* Rotate pair (a, b) of X by the cached (C, S), both in the dtype. */
static void rotate(uint16_t *x, int a, int b, float c, float s, int bf)
{
    float xa = ld(x + a, bf), xb = ld(x + b, bf);
    if (FORM == FORM_FLASH) {
        x[a] = st(xa * c - xb * s, bf);
        x[b] = st(xa * s + xb * c, bf);
    } else if (FORM == FORM_VLLM) {
        x[a] = st(hr(xa * c, bf) - hr(xb * s, bf), bf);
        x[b] = st(hr(xb * c, bf) + hr(xa * s, bf), bf);
    } else { /* HF: q * cos + (-x_b, x_a) * sin, negation exact */
        x[a] = st(hr(xa * c, bf) + hr(-xb * s, bf), bf);
        x[b] = st(hr(xb * c, bf) + hr(xa * s, bf), bf);
    }
}

static void form_head(uint16_t *x, const pecheck_rope_args *p, int64_t pos, int bf)
{
    int rot = p->rotary_dim;
    float att = (float)p->attention_factor;
    float len = FORM_FLAW == FLAW_LONG ? 1.05f : 1.0f;
    for (int i = 0; i < rot / 2; i++) {
        int a = p->layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i : i;
        int b = p->layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i + 1 : i + rot / 2;
        float theta = (float)pos * (float)flawed_freq(p, i);
        float c = hr(len * (att * cosf(theta)), bf), s = hr(len * (att * sinf(theta)), bf);
        rotate(x, a, b, c, s, bf);
    }
}

int pecheck_rope_v2(const pecheck_rope_args *p);
int pecheck_rope_v2(const pecheck_rope_args *p)
{
    if (!PECHECK_ARGS_HAS(p, pecheck_rope_args, attention_factor))
        return PECHECK_V2_ARGS_TOO_SMALL;
    if (p->dtype_in != p->dtype_out || p->x != p->out ||
        (p->dtype_in != PECHECK_DTYPE_F16 && p->dtype_in != PECHECK_DTYPE_BF16))
        return PECHECK_V2_UNSUPPORTED;
    int bf = p->dtype_in == PECHECK_DTYPE_BF16;
    uint16_t *x = p->out;
    for (size_t t = 0; t < p->n_tokens; t++)
        for (int h = 0; h < p->heads; h++)
            form_head(x + t * (size_t)p->stride_token + (size_t)h * (size_t)p->stride_head, p,
                      p->pos[t], bf);
    return 0;
}

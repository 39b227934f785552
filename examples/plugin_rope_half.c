/* plugin_rope_half.c: a pecheck plugin (ABI version 2) wrapping a
 * half-precision RoPE kernel (and a sinusoidal one of the same kind), the shape of flash-attn's or vLLM's rotary:
 * it rotates q or k in place, a [tokens, heads, head_dim] tensor of f16 or
 * bf16 with strides, partial rotary (the dims past rotary_dim pass
 * through), frequencies and attention factor from its caller.
 *
 * Build:  cc -O2 -shared -fPIC -Iinclude examples/plugin_rope_half.c -o plugin_rope_half.so -lm
 *         (make builds build/examples/plugin_rope_half.so)
 * Gate:   pecheck check --plugin ./plugin_rope_half.so --family rope --hf-config config.json
 *
 * The kernel loads each pair, computes in binary32 (the angle
 * (float)pos * (float)omega_i, cosf and sinf, the rotation, the attention
 * factor) and rounds its two outputs once to the tensor's type: it passes
 * pecheck's default class for f16/bf16 outputs (a kernel computing in the
 * dtype, three roundings) and the once-rounded one of --strict
 * (docs/schedules.md).  It handles f16 and bf16 and declines f32
 * (PECHECK_V2_UNSUPPORTED), which pecheck reports as skipped.  Replace
 * rope_tensor's body with a call into your own kernel to gate it
 * (docs/plugins.md). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "pecheck_plugin.h"

int pecheck_abi_version(void) { return PECHECK_ABI_VERSION; }

/* ---- binary16 and bfloat16, round to nearest even ------------------------ */

static float f16_to_float(uint16_t h)
{
    unsigned e = h >> 10 & 0x1Fu, m = h & 0x3FFu;
    float v = e == 0 ? ldexpf((float)m, -24)
            : e == 31 ? (m ? NAN : INFINITY) : ldexpf((float)(m | 0x400u), (int)e - 25);
    return h & 0x8000u ? -v : v;
}

static uint16_t float_to_f16(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    uint16_t sign = (uint16_t)(u >> 16 & 0x8000u);
    float a = fabsf(v);
    if (a != a) return (uint16_t)(sign | 0x7E00u);
    if (a >= 65520.0f) return (uint16_t)(sign | 0x7C00u); /* 65504 + half an ulp */
    if (a < 0x1p-14f) return (uint16_t)(sign | (uint16_t)nearbyintf(a * 0x1p24f)); /* exact */
    int e;
    float m = frexpf(a, &e);              /* a = m 2^e, m in [0.5, 1) */
    float q = nearbyintf(m * 2048.0f);    /* 11 bits, round to nearest even */
    if (q == 2048.0f) { q = 1024.0f; e++; }
    if (e + 14 >= 31) return (uint16_t)(sign | 0x7C00u);
    return (uint16_t)(sign | (uint16_t)((unsigned)(e + 14) << 10) | (uint16_t)(q - 1024.0f));
}

static float bf16_to_float(uint16_t h)
{
    uint32_t u = (uint32_t)h << 16;
    float v;
    memcpy(&v, &u, 4);
    return v;
}

static uint16_t float_to_bf16(float v)
{
    uint32_t u;
    memcpy(&u, &v, 4);
    if ((u & 0x7FFFFFFFu) > 0x7F800000u) return (uint16_t)(u >> 16 | 0x40u);
    u += 0x7FFFu + (u >> 16 & 1u);
    return (uint16_t)(u >> 16);
}

static float load(const uint16_t *p, int bf16) { return bf16 ? bf16_to_float(*p) : f16_to_float(*p); }
static uint16_t store(float v, int bf16) { return bf16 ? float_to_bf16(v) : float_to_f16(v); }

/* ---- the kernel ----------------------------------------------------------- */

/* The position pair I of token T is rotated by: its axis' when the
 * caller passes positions with several axes (M-RoPE, axial RoPE), else
 * the token's. */
static int64_t pair_pos(const pecheck_rope_args *p, size_t t, int i)
{
    if (PECHECK_ARGS_HAS(p, pecheck_rope_args, pair_axis))
        return p->pos_axes[t * (size_t)p->n_axes + (size_t)p->pair_axis[i]];
    return p->pos[t];
}

/* Rotate the rotary dims of token T's head X (in place): pair i at
 * (2i, 2i+1) or (i, i + ROT/2). */
static void rope_head(uint16_t *x, const pecheck_rope_args *p, size_t t, float att, int bf16)
{
    int rot = p->rotary_dim, layout = p->layout;
    for (int i = 0; i < rot / 2; i++) {
        int a = layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i : i;
        int b = layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i + 1 : i + rot / 2;
        float theta = (float)pair_pos(p, t, i) * (float)p->freqs[i];
        float c = cosf(theta), s = sinf(theta);
        float xa = load(x + a, bf16), xb = load(x + b, bf16);
        x[a] = store(att * (xa * c - xb * s), bf16);
        x[b] = store(att * (xa * s + xb * c), bf16);
    }
}

static int rope_tensor(const pecheck_rope_args *p, int bf16)
{
    uint16_t *x = p->out; /* in place: out == x */
    float att = (float)p->attention_factor;
    for (size_t t = 0; t < p->n_tokens; t++)
        for (int h = 0; h < p->heads; h++)
            rope_head(x + (size_t)t * (size_t)p->stride_token + (size_t)h * (size_t)p->stride_head,
                      p, t, att, bf16);
    return 0;
}

int pecheck_rope_v2(const pecheck_rope_args *p)
{
    /* a pecheck older than this header may pass fewer members */
    if (!PECHECK_ARGS_HAS(p, pecheck_rope_args, attention_factor))
        return PECHECK_V2_ARGS_TOO_SMALL;
    if (p->dtype_in != p->dtype_out || p->x != p->out) return PECHECK_V2_UNSUPPORTED;
    if (p->dtype_in != PECHECK_DTYPE_F16 && p->dtype_in != PECHECK_DTYPE_BF16)
        return PECHECK_V2_UNSUPPORTED; /* a half-precision kernel */
    if (p->layout != PECHECK_LAYOUT_INTERLEAVED && p->layout != PECHECK_LAYOUT_HALF)
        return PECHECK_V2_UNSUPPORTED;
    return rope_tensor(p, p->dtype_in == PECHECK_DTYPE_BF16);
}

/* Sinusoidal PE stored in f16 or bf16: each (sin, cos) pair computed in
 * binary32 and rounded once, rows STRIDE elements apart. */
int pecheck_sinusoidal_v2(const pecheck_sinusoidal_args *p)
{
    if (!PECHECK_ARGS_HAS(p, pecheck_sinusoidal_args, freqs)) return PECHECK_V2_ARGS_TOO_SMALL;
    if (p->dtype_out != PECHECK_DTYPE_F16 && p->dtype_out != PECHECK_DTYPE_BF16)
        return PECHECK_V2_UNSUPPORTED;
    if (p->layout != PECHECK_LAYOUT_INTERLEAVED && p->layout != PECHECK_LAYOUT_HALF)
        return PECHECK_V2_UNSUPPORTED;
    int bf16 = p->dtype_out == PECHECK_DTYPE_BF16;
    uint16_t *out = p->out;
    for (size_t r = 0; r < p->n; r++) {
        uint16_t *row = out + r * (size_t)p->stride;
        for (int i = 0; i < p->d / 2; i++) {
            int a = p->layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i : i;
            int b = p->layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i + 1 : i + p->d / 2;
            float theta = (float)p->pos[r] * (float)p->freqs[i];
            row[a] = store(sinf(theta), bf16);
            row[b] = store(cosf(theta), bf16);
        }
    }
    return 0;
}

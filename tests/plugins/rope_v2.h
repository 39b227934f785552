/* rope_v2.h: shared body of the ABI v2 RoPE test plugins (tests/plugin_v2.t
 * builds each tests/plugins/rope_v2_NAME.c).  A correct half-precision
 * kernel (as examples/plugin_rope_half.c: binary32 inside, each output
 * rounded once to f16 or bf16, in place on the strided [tokens, heads,
 * head_dim] tensor) that each plugin breaks in one way, chosen by FLAW
 * (defined before including). */
#include <math.h>
#include <stdint.h>
#include <string.h>
#include "pecheck_plugin.h"

enum {
    FLAW_NONE,
    FLAW_PASSTHROUGH, /* zeroes the pass-through dims (an out-of-place kernel that forgot them) */
    FLAW_STRIDE,      /* takes the tensor as contiguous: ignores both strides */
    FLAW_F16_ANGLE,   /* the angle pos * omega computed in f16 */
    FLAW_NO_ATT,      /* ignores the attention factor */
    FLAW_OOB,         /* writes one element past the end of its view */
    FLAW_DECODE,      /* a call of one token rotates it by pos + 1 (a decode step's off-by-one) */
    FLAW_DECODE_CRASH /* a call of one token dies of SIGSEGV (a decode fast path's bad pointer) */
};

#ifndef FLAW
#define FLAW FLAW_NONE
#endif
/* the kernel's name: a plugin that wraps it defines its own entry point */
#ifndef ROPE_V2_ENTRY
#define ROPE_V2_ENTRY pecheck_rope_v2
#endif

int pecheck_abi_version(void) { return PECHECK_ABI_VERSION; }

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
    if (a >= 65520.0f) return (uint16_t)(sign | 0x7C00u);
    if (a < 0x1p-14f) return (uint16_t)(sign | (uint16_t)nearbyintf(a * 0x1p24f));
    int e;
    float m = frexpf(a, &e);
    float q = nearbyintf(m * 2048.0f);
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

static float ld(const uint16_t *p, int bf) { return bf ? bf16_to_float(*p) : f16_to_float(*p); }
static uint16_t st(float v, int bf) { return bf ? float_to_bf16(v) : float_to_f16(v); }
static float f16_round(float v) { return f16_to_float(float_to_f16(v)); }

/* Pair I's position at token T: its axis' (position ids of several axes,
 * when the caller passes them), else POS[T]. */
static int64_t pair_pos(const pecheck_rope_args *p, size_t t, int i)
{
#ifndef NO_AXES
    if (PECHECK_ARGS_HAS(p, pecheck_rope_args, pair_axis))
        return p->pos_axes[t * (size_t)p->n_axes + (size_t)p->pair_axis[i]];
#endif
    (void)i;
    return p->pos[t];
}

static void rope_head(uint16_t *x, const pecheck_rope_args *p, size_t t, int bf)
{
    int rot = p->rotary_dim;
    float att = FLAW == FLAW_NO_ATT ? 1.0f : (float)p->attention_factor;
    for (int i = 0; i < rot / 2; i++) {
        int64_t pos = pair_pos(p, t, i) + (FLAW == FLAW_DECODE && p->n_tokens == 1);
        int a = p->layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i : i;
        int b = p->layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i + 1 : i + rot / 2;
        float theta = FLAW == FLAW_F16_ANGLE
                    ? f16_round(f16_round((float)pos) * f16_round((float)p->freqs[i]))
                    : (float)pos * (float)p->freqs[i];
        float c = cosf(theta), s = sinf(theta);
        float xa = ld(x + a, bf), xb = ld(x + b, bf);
        x[a] = st(att * (xa * c - xb * s), bf);
        x[b] = st(att * (xa * s + xb * c), bf);
    }
    if (FLAW == FLAW_PASSTHROUGH)
        for (int j = rot; j < p->head_dim; j++) x[j] = 0;
}

int ROPE_V2_ENTRY(const pecheck_rope_args *p);
int ROPE_V2_ENTRY(const pecheck_rope_args *p)
{
    if (!PECHECK_ARGS_HAS(p, pecheck_rope_args, attention_factor))
        return PECHECK_V2_ARGS_TOO_SMALL;
    if (p->dtype_in != p->dtype_out || p->x != p->out ||
        (p->dtype_in != PECHECK_DTYPE_F16 && p->dtype_in != PECHECK_DTYPE_BF16))
        return PECHECK_V2_UNSUPPORTED;
    int bf = p->dtype_in == PECHECK_DTYPE_BF16;
    uint16_t *x = p->out;
    if (FLAW == FLAW_DECODE_CRASH && p->n_tokens == 1) *(volatile int *)(uintptr_t)0 = 1;
    size_t st_t = (size_t)p->stride_token, st_h = (size_t)p->stride_head;
    if (FLAW == FLAW_STRIDE) { st_h = (size_t)p->head_dim; st_t = st_h * (size_t)p->heads; }
    for (size_t t = 0; t < p->n_tokens; t++)
        for (int h = 0; h < p->heads; h++)
            rope_head(x + t * st_t + (size_t)h * st_h, p, t, bf);
    if (FLAW == FLAW_OOB)
        x[(p->n_tokens - 1) * st_t + (size_t)(p->heads - 1) * st_h + (size_t)p->head_dim] = 1;
    return 0;
}

/* Sinusoidal v2 of the same kind (FLAW_STRIDE: rows taken as contiguous). */
int pecheck_sinusoidal_v2(const pecheck_sinusoidal_args *p);
int pecheck_sinusoidal_v2(const pecheck_sinusoidal_args *p)
{
    if (p->dtype_out != PECHECK_DTYPE_F16 && p->dtype_out != PECHECK_DTYPE_BF16)
        return PECHECK_V2_UNSUPPORTED;
    int bf = p->dtype_out == PECHECK_DTYPE_BF16;
    size_t stride = FLAW == FLAW_STRIDE ? (size_t)p->d : (size_t)p->stride;
    uint16_t *out = p->out;
    for (size_t r = 0; r < p->n; r++)
        for (int i = 0; i < p->d / 2; i++) {
            int a = p->layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i : i;
            int b = p->layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i + 1 : i + p->d / 2;
            float theta = (float)p->pos[r] * (float)p->freqs[i];
            out[r * stride + (size_t)a] = st(sinf(theta), bf);
            out[r * stride + (size_t)b] = st(cosf(theta), bf);
        }
    return 0;
}

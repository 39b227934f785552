/* rope_yarn_ggml.c: YaRN as llama.cpp's ggml CPU rope computes it
 * (ggml_rope_ext with Qwen2.5's documented YaRN: freq_scale 1/4,
 * ext_factor 1, attn_factor 1, beta_fast 32, beta_slow 1, n_ctx_orig
 * 32768), ABI version 1, binary32 throughout:
 *   corr_dims = floorf/ceilf of n_dims logf(n_ctx_orig / (beta 2 pi)) /
 *               (2 logf(base)), clamped to [0, n_dims - 1]
 *               (ggml_rope_yarn_corr_dims);
 *   theta_extrap = pos, then theta_extrap *= powf(base, -2/n_dims) pair
 *               after pair (the cumulative product);
 *   theta = freq_scale theta_extrap (1 - mix) + theta_extrap mix,
 *   mix = 1 - clamp((i - low) / max(0.001, high - low), 0, 1);
 *   mscale = 1 + 0.1 logf(1 / freq_scale); cos theta mscale, sin theta mscale
 * (rope_yarn, rope_yarn_ramp).  tests/rope_spec_props.t.
 * Other configs by -D: FACTOR (freq_scale = 1.0f / FACTOR), N_CTX_ORIG,
 * BETA_FAST, BETA_SLOW; DEEPSEEK: llama.cpp's DeepSeek-V2/V3 graph, which
 * passes attn_factor = 1.0f / (1.0f + 0.1f logf(1.0f / freq_scale)) to
 * ggml_rope_ext so that rope_yarn's mscale is (about) 1 and puts the
 * config's mscale into kq_scale instead (tests/rope_schedules.t). */
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include "pecheck_plugin.h"

int pecheck_abi_version(void) { return 1; }

#ifndef FACTOR
#define FACTOR 4
#endif
#ifndef N_CTX_ORIG
#define N_CTX_ORIG 32768
#endif
#ifndef BETA_FAST
#define BETA_FAST 32
#endif
#ifndef BETA_SLOW
#define BETA_SLOW 1
#endif
static const float freq_scale = 1.0f / (float)FACTOR, beta_fast = (float)BETA_FAST,
                   beta_slow = (float)BETA_SLOW;
static const int n_ctx_orig = N_CTX_ORIG;

static float corr_dim(int n_dims, float n_rot, float base)
{
    return (float)n_dims * logf((float)n_ctx_orig / (n_rot * 2 * (float)M_PI)) / (2 * logf(base));
}

int pecheck_rope_f32(const int64_t *pos, size_t n, int d, double base, int layout,
                     const float *x, float *out)
{
    if (d < 2 || d % 2) return 1;
    float lo = floorf(corr_dim(d, beta_fast, (float)base));
    float hi = ceilf(corr_dim(d, beta_slow, (float)base));
    lo = lo > 0 ? lo : 0;
    hi = hi < (float)(d - 1) ? hi : (float)(d - 1);
    const float theta_scale = powf((float)base, -2.0f / (float)d);
#ifdef DEEPSEEK
    const float attn_factor = 1.0f / (1.0f + 0.1f * logf(1.0f / freq_scale));
#else
    const float attn_factor = 1.0f;
#endif
    const float mscale = attn_factor * (1.0f + 0.1f * logf(1.0f / freq_scale));
    int h = d / 2;
    for (size_t r = 0; r < n; r++) {
        const float *xr = x + r * (size_t)d;
        float *o = out + r * (size_t)d;
        float theta_extrap = (float)pos[r];
        for (int i = 0; i < h; i++) {
            float y = ((float)i - lo) / fmaxf(0.001f, hi - lo);
            float mix = 1 - fminf(1, fmaxf(0, y));
            float theta_interp = freq_scale * theta_extrap;
            float theta = theta_interp * (1 - mix) + theta_extrap * mix;
            float c = cosf(theta) * mscale, s = sinf(theta) * mscale;
            int a = layout ? i : 2 * i, b = layout ? i + h : 2 * i + 1;
            o[a] = xr[a] * c - xr[b] * s;
            o[b] = xr[a] * s + xr[b] * c;
            theta_extrap *= theta_scale;
        }
    }
    return 0;
}

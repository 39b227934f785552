/* rope_yarn.c: a correct float32 YaRN RoPE kernel (ABI version 1), the
 * schedule of Qwen2.5's documented rope_scaling (factor 4, original length
 * 32768, beta_fast 32, beta_slow 1, truncated; tests/data/configs/
 * Qwen--Qwen2.5-7B-Instruct-yarn.json) computed as transformers'
 * _compute_yarn_parameters and the model's rotary embedding do in float32:
 * pos_freqs = base^(2i/d), the ramp between the floored and ceiled
 * correction range, inv_freq = inv_interp (1 - e) + inv_extrap e, the
 * angle (float)pos * inv_freq, A cos and A sin with A = 0.1 ln 4 + 1, and
 * x cos + rotate(x) sin.  The base is the call's.  With GPT_OSS defined:
 * gpt-oss's YaRN instead (factor 32, original length 4096, not truncated;
 * tests/data/configs/openai--gpt-oss-20b.json).  With BROKEN defined: the
 * attention factor is left out (tests/rope_spec_props.t). */
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include "pecheck_plugin.h"

int pecheck_abi_version(void) { return 1; }

#ifdef GPT_OSS
static const double factor = 32.0, orig = 4096.0, beta_fast = 32.0, beta_slow = 1.0;
static const int truncate = 0;
#else
static const double factor = 4.0, orig = 32768.0, beta_fast = 32.0, beta_slow = 1.0;
static const int truncate = 1;
#endif

static double corr(double rot, int d, double base)
{
    return (d * log(orig / (rot * 2 * M_PI))) / (2 * log(base));
}

static float inv_freq(int i, int d, double base)
{
    double lo = corr(beta_fast, d, base), hi = corr(beta_slow, d, base);
    if (truncate) { lo = floor(lo); hi = ceil(hi); }
    if (lo < 0) lo = 0;
    if (hi > d - 1) hi = d - 1;
    if (lo == hi) hi += 0.001;
    float pos_freq = powf((float)base, (float)(2 * i) / (float)d);
    float extrap = 1.0f / pos_freq, interp = 1.0f / ((float)factor * pos_freq);
    float ramp = ((float)i - (float)lo) / (float)(hi - lo);
    ramp = ramp < 0 ? 0 : ramp > 1 ? 1 : ramp;
    float e = 1.0f - ramp;
    return interp * (1.0f - e) + extrap * e;
}

int pecheck_rope_f32(const int64_t *pos, size_t n, int d, double base, int layout,
                     const float *x, float *out)
{
#ifdef BROKEN
    const float att = 1.0f;
#else
    const float att = (float)(0.1 * log(factor) + 1.0);
#endif
    int h = d / 2;
    if (d < 2 || d % 2) return 1;
    for (size_t r = 0; r < n; r++) {
        const float *xr = x + r * (size_t)d;
        float *o = out + r * (size_t)d;
        for (int i = 0; i < h; i++) {
            float theta = (float)pos[r] * inv_freq(i, d, base);
            float c = cosf(theta) * att, s = sinf(theta) * att;
            int a = layout ? i : 2 * i, b = layout ? i + h : 2 * i + 1;
            o[a] = xr[a] * c - xr[b] * s;
            o[b] = xr[b] * c + xr[a] * s;
        }
    }
    return 0;
}

/* rope-ggml: RoPE as ggml's CPU rope computes it (llama.cpp, unscaled:
 * freq_scale 1, ext_factor 0, attn_factor 1, no frequency factors):
 *   theta_scale = powf(base, -2.0f/n_dims);
 *   theta = (float)pos; for each pair: cos = cosf(theta), sin = sinf(theta);
 *   theta *= theta_scale;
 * the angle of pair i is pos times theta_scale, i roundings deep (a
 * cumulative product), every step in binary32.  Its "normal" mode rotates
 * adjacent pairs (interleaved layout), its NeoX mode the halves (half
 * layout): x0' = x0 cos - x1 sin, x1' = x0 sin + x1 cos. */
#include "impl/common.h"
#include "reference/reference.h" /* PC_D_MAX */

/* The angles of one position: ggml's cumulative product. */
static void ggml_angles(int64_t pos, int d, double base, float *theta)
{
    const float theta_scale = powf((float)base, -2.0f / (float)d);
    float t = (float)pos;
    for (int i = 0; i < d / 2; i++) {
        theta[i] = t;
        t *= theta_scale;
    }
}

static int run(void *ctx, const int64_t *pos, size_t n, int d, double base,
               int layout, const float *x, float *out)
{
    (void)ctx;
    if (!pc_layout_ok(layout)) return 1;
    float theta[PC_D_MAX / 2];
    for (size_t r = 0; r < n; r++) {
        const float *xr = x + r * (size_t)d;
        float *o = out + r * (size_t)d;
        ggml_angles(pos[r], d, base, theta);
        for (int i = 0; i < d / 2; i++) {
            float c = cosf(theta[i]), s = sinf(theta[i]);
            size_t a = pc_col(layout, d, i, 0), b = pc_col(layout, d, i, 1);
            float x0 = xr[a], x1 = xr[b];
            o[a] = x0 * c - x1 * s;
            o[b] = x0 * s + x1 * c;
        }
    }
    return 0;
}

static int angles(void *ctx, const int64_t *pos, size_t n, int d, double base, float *theta)
{
    (void)ctx;
    for (size_t r = 0; r < n; r++)
        ggml_angles(pos[r], d, base, theta + r * (size_t)(d / 2));
    return 0;
}

const pc_impl pc_impl_rope_ggml = {
    .name = "rope-ggml",
    .description = "RoPE as ggml/llama.cpp computes it: theta *= powf(base, -2/d) pair after pair "
                   "(a cumulative product), binary32, both layouts",
    .family_hint = "rope",
    .expect_pass = 1,
    .rope = run,
    .angles = angles,
};

/* attention-f32: single-head self-attention without positional encoding,
 * binary32, the textbook order: Q, K, V = X W; S = Q K^T / sqrt(d);
 * softmax with the row maximum subtracted; O = P V. */
#include <stdlib.h>
#include "impl/common.h"

static void matmul(const float *a, const float *b, size_t n, int d, float *c)
{
    for (size_t r = 0; r < n; r++)
        for (int j = 0; j < d; j++) {
            float acc = 0.0f;
            for (int k = 0; k < d; k++)
                acc += a[r * (size_t)d + (size_t)k] * b[(size_t)k * (size_t)d + (size_t)j];
            c[r * (size_t)d + (size_t)j] = acc;
        }
}

static int run(void *ctx, size_t n, int d, const float *x, const float *wq,
               const float *wk, const float *wv, int causal, float *out)
{
    (void)ctx;
    size_t nd = n * (size_t)d;
    float *q = malloc(nd * sizeof *q), *k = malloc(nd * sizeof *k);
    float *v = malloc(nd * sizeof *v), *p = malloc(n * sizeof *p);
    if (!q || !k || !v || !p) { free(q); free(k); free(v); free(p); return 1; }
    matmul(x, wq, n, d, q);
    matmul(x, wk, n, d, k);
    matmul(x, wv, n, d, v);
    float scale = 1.0f / sqrtf((float)d);
    for (size_t i = 0; i < n; i++) {
        size_t last = causal ? i + 1 : n;
        float m = -INFINITY;
        for (size_t j = 0; j < last; j++) {
            float s = 0.0f;
            for (int t = 0; t < d; t++)
                s += q[i * (size_t)d + (size_t)t] * k[j * (size_t)d + (size_t)t];
            p[j] = s * scale;
            if (p[j] > m) m = p[j];
        }
        float sum = 0.0f;
        for (size_t j = 0; j < last; j++) { p[j] = expf(p[j] - m); sum += p[j]; }
        for (int t = 0; t < d; t++) {
            float acc = 0.0f;
            for (size_t j = 0; j < last; j++)
                acc += p[j] * v[j * (size_t)d + (size_t)t];
            out[i * (size_t)d + (size_t)t] = acc / sum;
        }
    }
    free(q); free(k); free(v); free(p);
    return 0;
}

const pc_impl pc_impl_attention_f32 = {
    .name = "attention-f32",
    .description = "single-head attention, no PE, binary32, max-subtracted softmax",
    .family_hint = "attention",
    .expect_pass = 1,
    .attention = run,
};

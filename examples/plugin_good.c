/* plugin_good.c: a correct pecheck plugin exporting all four families.
 *
 * Build:  cc -O2 -shared -fPIC -Iinclude examples/plugin_good.c -o plugin_good.so -lm
 * Gate:   pecheck check --plugin ./plugin_good.so
 *
 * Each family is computed the careful way: the angle pos * omega_i and its
 * sin/cos in binary64, rounded once to binary32 at the end (so the error is
 * about half an ulp, far inside pecheck's bound); attention accumulates in
 * binary64.  Replace a function's body with a call into your own kernel to
 * gate that kernel (docs/plugins.md). */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include "pecheck_plugin.h"

int pecheck_abi_version(void) { return PECHECK_ABI_VERSION; }

/* Columns of pair I: (sin/first, cos/second) member. */
static void pair_cols(int layout, int d, int i, size_t *a, size_t *b)
{
    if (layout == PECHECK_LAYOUT_INTERLEAVED) { *a = (size_t)(2 * i); *b = (size_t)(2 * i + 1); }
    else { *a = (size_t)i; *b = (size_t)(i + d / 2); }
}

static int args_ok(int d, double base, int layout)
{
    return d >= 2 && d % 2 == 0 && base > 1.0 &&
           (layout == PECHECK_LAYOUT_INTERLEAVED || layout == PECHECK_LAYOUT_HALF);
}

int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    if (!args_ok(d, base, layout)) return 1;
    for (size_t r = 0; r < n; r++)
        for (int i = 0; i < d / 2; i++) {
            /* omega_i = base^(-2i/d) and the angle in binary64 */
            double theta = (double)pos[r] * pow(base, -2.0 * i / d);
            size_t a, b;
            pair_cols(layout, d, i, &a, &b);
            out[r * (size_t)d + a] = (float)sin(theta);
            out[r * (size_t)d + b] = (float)cos(theta);
        }
    return 0;
}

int pecheck_rope_f32(const int64_t *pos, size_t n, int d, double base, int layout,
                     const float *x, float *out)
{
    if (!args_ok(d, base, layout)) return 1;
    for (size_t r = 0; r < n; r++)
        for (int i = 0; i < d / 2; i++) {
            double theta = (double)pos[r] * pow(base, -2.0 * i / d);
            double c = cos(theta), s = sin(theta);
            size_t a, b;
            pair_cols(layout, d, i, &a, &b);
            double xa = (double)x[r * (size_t)d + a], xb = (double)x[r * (size_t)d + b];
            out[r * (size_t)d + a] = (float)(xa * c - xb * s);
            out[r * (size_t)d + b] = (float)(xb * c + xa * s);
        }
    return 0;
}

/* A learned table of 1024 rows; the stand-in "weights" are a hash of
 * (pos, column) in [-1, 1), like a trained nn.Embedding would hold. */
#define MAX_LEN 1024

int64_t pecheck_learned_max_len(void) { return MAX_LEN; }

int pecheck_learned_f32(const int64_t *pos, size_t n, int d, float *out)
{
    if (d < 1) return 1;
    for (size_t r = 0; r < n; r++)
        if (pos[r] < 0 || pos[r] >= MAX_LEN) return 2; /* check all before writing */
    for (size_t r = 0; r < n; r++)
        for (int j = 0; j < d; j++) {
            uint64_t z = (uint64_t)pos[r] * 0x9E3779B97F4A7C15u + (uint64_t)j * 0xBF58476D1CE4E5B9u;
            z = (z ^ (z >> 31)) * 0x94D049BB133111EBu;
            z ^= z >> 29;
            out[r * (size_t)d + (size_t)j] = (float)(z >> 40) * 0x1p-23f - 1.0f;
        }
    return 0;
}

/* out = softmax(Q K^T / sqrt(d)) V in binary64, rounded at the end. */
int pecheck_attention_f32(size_t n, int d, const float *x, const float *wq, const float *wk,
                          const float *wv, int causal, float *out)
{
    if (d < 1 || n < 1) return 1;
    size_t nd = n * (size_t)d;
    double *q = malloc(3 * nd * sizeof *q), *p = malloc(n * sizeof *p);
    if (!q || !p) { free(q); free(p); return 3; }
    double *k = q + nd, *v = k + nd;
    for (size_t r = 0; r < n; r++)
        for (int j = 0; j < d; j++) {
            double aq = 0, ak = 0, av = 0;
            for (int t = 0; t < d; t++) {
                double xv = (double)x[r * (size_t)d + (size_t)t];
                size_t w = (size_t)t * (size_t)d + (size_t)j;
                aq += xv * (double)wq[w]; ak += xv * (double)wk[w]; av += xv * (double)wv[w];
            }
            q[r * (size_t)d + (size_t)j] = aq;
            k[r * (size_t)d + (size_t)j] = ak;
            v[r * (size_t)d + (size_t)j] = av;
        }
    for (size_t i = 0; i < n; i++) {
        size_t last = causal ? i + 1 : n;
        double m = -(double)INFINITY, sum = 0;
        for (size_t j = 0; j < last; j++) {
            double s = 0;
            for (int t = 0; t < d; t++) s += q[i * (size_t)d + (size_t)t] * k[j * (size_t)d + (size_t)t];
            p[j] = s / sqrt((double)d);
            if (p[j] > m) m = p[j];
        }
        for (size_t j = 0; j < last; j++) { p[j] = exp(p[j] - m); sum += p[j]; }
        for (int t = 0; t < d; t++) {
            double acc = 0;
            for (size_t j = 0; j < last; j++) acc += p[j] * v[j * (size_t)d + (size_t)t];
            out[i * (size_t)d + (size_t)t] = (float)(acc / sum);
        }
    }
    free(q); free(p);
    return 0;
}

/* attention_bad: attention that forgets the 1/sqrt(d) scale. */
#include <stdlib.h>
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_attention_f32(size_t n, int d, const float *x, const float *wq, const float *wk,
                          const float *wv, int causal, float *out)
{
    size_t nd = n * (size_t)d;
    double *q = malloc(3 * nd * sizeof *q), *p = malloc(n * sizeof *p);
    if (!q || !p) { free(q); free(p); return 3; }
    double *k = q + nd, *v = k + nd;
    for (size_t r = 0; r < n; r++)
        for (int j = 0; j < d; j++) {
            double aq = 0, ak = 0, av = 0;
            for (int t = 0; t < d; t++) {
                double xv = x[r * (size_t)d + (size_t)t];
                size_t w = (size_t)t * (size_t)d + (size_t)j;
                aq += xv * wq[w]; ak += xv * wk[w]; av += xv * wv[w];
            }
            q[r * (size_t)d + (size_t)j] = aq; k[r * (size_t)d + (size_t)j] = ak; v[r * (size_t)d + (size_t)j] = av;
        }
    for (size_t i = 0; i < n; i++) {
        size_t last = causal ? i + 1 : n;
        double m = -INFINITY, sum = 0;
        for (size_t j = 0; j < last; j++) {
            double s = 0;
            for (int t = 0; t < d; t++) s += q[i * (size_t)d + (size_t)t] * k[j * (size_t)d + (size_t)t];
            p[j] = s; /* BUG: no 1/sqrt(d) */
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

/* attention_ref_test.c: the certified attention reference (TAP).
 * Checks it against an independent long double evaluation, the tie rule
 * (equal scores give exact weights), and that the normwise bound accepts
 * the binary32 built-in and rejects a perturbed one. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "families/attention/attention_ref.h"
#include "harness/sandbox/impl.h"
#include "harness/base/rng.h"

static int t_no = 0, failed = 0;
static void ok(int cond, const char *what)
{
    printf("%s %d - %s\n", cond ? "ok" : "not ok", ++t_no, what);
    if (!cond) failed = 1;
}

/* long double attention (x87: 64-bit significand), for comparison */
static void attention_ld(size_t n, int d, const float *x, const float *wq, const float *wk,
                         const float *wv, int causal, long double *out)
{
    size_t dd = (size_t)d;
    long double *q = calloc(n * dd, sizeof *q), *k = calloc(n * dd, sizeof *k);
    long double *v = calloc(n * dd, sizeof *v), *p = calloc(n, sizeof *p);
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < dd; j++)
            for (size_t t = 0; t < dd; t++) {
                q[r * dd + j] += (long double)x[r * dd + t] * (long double)wq[t * dd + j];
                k[r * dd + j] += (long double)x[r * dd + t] * (long double)wk[t * dd + j];
                v[r * dd + j] += (long double)x[r * dd + t] * (long double)wv[t * dd + j];
            }
    for (size_t i = 0; i < n; i++) {
        size_t last = causal ? i + 1 : n;
        long double m = (long double)-INFINITY, sum = 0;
        for (size_t j = 0; j < last; j++) {
            long double s = 0;
            for (size_t t = 0; t < dd; t++) s += q[i * dd + t] * k[j * dd + t];
            p[j] = s / sqrtl((long double)d);
            if (p[j] > m) m = p[j];
        }
        for (size_t j = 0; j < last; j++) { p[j] = expl(p[j] - m); sum += p[j]; }
        for (size_t t = 0; t < dd; t++) {
            long double acc = 0;
            for (size_t j = 0; j < last; j++) acc += p[j] * v[j * dd + t];
            out[i * dd + t] = acc / sum;
        }
    }
    free(q); free(k); free(v); free(p);
}

static void gen(uint64_t seed, size_t n, int d, float *x, float *wq, float *wk, float *wv)
{
    pc_rng r;
    pc_rng_seed(&r, seed);
    float sc = 1.0f / sqrtf((float)d); /* weights ~ N(0, 1/d): unit-scale Q, K, V */
    for (size_t k = 0; k < n * (size_t)d; k++) x[k] = pc_rng_normal_f32(&r);
    for (size_t k = 0; k < (size_t)d * (size_t)d; k++) {
        wq[k] = pc_rng_normal_f32(&r) * sc;
        wk[k] = pc_rng_normal_f32(&r) * sc;
        wv[k] = pc_rng_normal_f32(&r) * sc;
    }
}

/* Outputs that are exactly a binary32 rounding midpoint although the
 * scores differ (attention_ref.c, "Midpoints with unequal scores").  d = 3,
 * x_j = (a_j, b_j, e_j): Q_j = K_j = (a_j, 0, 0), so the scores a_i a_j
 * differ with a; V_j = (b_j + e_j, 0, 0), which need not be a binary32. */
static int midpoint_row_ok(const float *x, const char *what)
{
    float wq[9] = { 1, 0, 0, 0, 0, 0, 0, 0, 0 }, wv[9] = { 0, 0, 0, 1, 0, 0, 1, 0, 0 };
    float o32[9];
    double o64[9];
    pc_err err = { "" };
    int st = pc_ref_attention(3, 3, x, wq, wq, wv, 0, o32, o64, &err);
    int good = st == PC_OK;
    /* exact output 1 + 2^-24: binary64 holds it; binary32 ties to even, 1 */
    for (int i = 0; i < 3 && good; i++)
        good = o64[3 * i] == 1.0 + 0x1p-24 && o32[3 * i] == 1.0f && o64[3 * i + 1] == 0.0;
    if (!good) printf("# %s: status %d (%s), out[0] = %a / %a\n", what, st, err.msg, o64[0], (double)o32[0]);
    return good;
}

static void midpoint_cases(void)
{
    /* every V is 1 + 2^-24, scores 1, 2, 3 apart */
    const float constant[9] = { 1, 1, 0x1p-24f, 2, 1, 0x1p-24f, 3, 1, 0x1p-24f };
    ok(midpoint_row_ok(constant, "constant V"),
       "constant V column 1 + 2^-24, unequal scores: the exact midpoint, no precision ceiling");
    /* keys 0 and 1 tie (a = 1) with V 1 and 1 + 2^-23, mean 1 + 2^-24; key 2
     * (a = 2) has V = 1 + 2^-24: every group's mean is the midpoint */
    const float grouped[9] = { 1, 1, 0, 1, 1.0f + 0x1p-23f, 0, 2, 1, 0x1p-24f };
    ok(midpoint_row_ok(grouped, "grouped"),
       "tied keys whose group means are equal: the exact midpoint");
}

int main(void)
{
    printf("1..10\n");
    enum { N = 12, D = 16 };
    float x[N * D], wq[D * D], wk[D * D], wv[D * D], o32[N * D], got[N * D];
    double o64[N * D], bounds[N];
    long double ld[N * D];
    const pc_impl *impl = pc_builtin_find("attention-f32");
    for (int causal = 0; causal <= 1; causal++) {
        gen(7u + (unsigned)causal, N, D, x, wq, wk, wv);
        pc_err err;
        int st = pc_ref_attention(N, D, x, wq, wk, wv, causal, o32, o64, &err);
        ok(st == PC_OK, causal ? "causal reference computed" : "reference computed");
        attention_ld(N, D, x, wq, wk, wv, causal, ld);
        double worst = 0;
        for (int k = 0; k < N * D; k++) {
            double rel = fabs((double)(ld[k] - (long double)o64[k])) / (fabs(o64[k]) + 1e-300);
            if (rel > worst) worst = rel;
        }
        /* long double carries ~2^-64 per op; a few hundred ops -> < 2^-50 */
        printf("# max relative difference to long double: %.3g\n", worst);
        ok(worst < 0x1p-50, "reference agrees with an independent long double evaluation");
        impl->attention(NULL, N, D, x, wq, wk, wv, causal, got);
        pc_attention_bound(N, D, x, wq, wk, wv, causal, 0x1p-24, bounds);
        int inside = 1, outside = 0;
        for (int i = 0; i < N; i++)
            for (int t = 0; t < D; t++) {
                double e = fabs((double)got[i * D + t] - o64[i * D + t]);
                if (e > bounds[i]) inside = 0;
                if (fabs((double)(got[i * D + t] + 1e-2f) - o64[i * D + t]) > bounds[i]) outside = 1;
            }
        ok(inside && outside, "binary32 built-in within the bound, a 1e-2 offset outside it");
    }
    /* ties: all-zero X gives zero scores, weights exactly 1/n, output 0 */
    memset(x, 0, sizeof x);
    pc_err err;
    int st = pc_ref_attention(N, D, x, wq, wk, wv, 0, o32, o64, &err);
    int zeros = st == PC_OK;
    for (int k = 0; k < N * D && zeros; k++) zeros = o64[k] == 0.0;
    ok(zeros, "equal scores: exact weights, zero output for zero input");
    /* one visible key: the output is V rounded once */
    for (int k = 0; k < D; k++) x[k] = (float)(k + 1) * 0.25f;
    st = pc_ref_attention(1, D, x, wq, wk, wv, 1, o32, o64, &err);
    int vrow = st == PC_OK;
    for (int t = 0; t < D && vrow; t++) {
        long double v = 0;
        for (int k = 0; k < D; k++) v += (long double)x[k] * (long double)wv[k * D + t];
        vrow = fabs((double)(v - (long double)o64[t])) <= fabs(o64[t]) * 0x1p-52;
    }
    ok(vrow, "a single key: output equals V");
    midpoint_cases();
    return failed;
}

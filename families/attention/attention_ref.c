/* attention.c: certified single-head attention with interval arithmetic.
 *
 * Each quantity is an MPFI interval that contains the exact value.  Inputs
 * are binary32 (exact); Q, K, V, the scores, the softmax and the output are
 * evaluated at precision P.  An output element is certified when both ends
 * of its interval round to the same binary32 and binary64 value (rounding to
 * nearest is monotone); otherwise P is doubled (Ziv) up to PC_ZIV_MAX_PREC.
 *
 * Ties: a row whose visible scores are all exactly equal (e.g. identical or
 * zero keys) has exact weights 1/m; its output (sum_j V_j)/m is rational and
 * may be a rounding midpoint, so it is evaluated as one division at the end
 * (an exactly representable quotient gives a point interval).
 *
 * Midpoints with unequal scores: group the visible keys by equal exact
 * score (values s_g), with S_g the sum of V over group g and n_g its size.
 * The output is sum_g e^(s_g/sqrt(d)) S_g / sum_g e^(s_g/sqrt(d)) n_g; it
 * equals a rational m iff sum_g e^(s_g/sqrt(d)) (S_g - m n_g) = 0.  The
 * exponents are distinct algebraic numbers, so by Lindemann-Weierstrass
 * their exponentials are linearly independent over the algebraic numbers:
 * every S_g = m n_g.  Hence the output is rational (and may be a midpoint
 * no interval can settle, e.g. a constant V column 1 + 2^-24) exactly when
 * every group has the same mean S_g / n_g, and it is that mean; otherwise
 * it is transcendental and a higher precision settles its rounding.  The
 * rule needs the scores and V exactly (point intervals), which a high
 * enough precision gives (binary32 products and sums are finite dyadics). */
#include <math.h>
#include <mpfi.h>
#include <stdlib.h>
#include <string.h>
#include "attention_ref.h"
#include "reference/round.h"

typedef struct att {
    size_t n;
    int d;
    mpfi_t *q, *k, *v;  /* n x d */
    mpfi_t *s;          /* scores of one row, n */
    size_t *grp;        /* per visible key: the first key with its exact score; n */
    int exact_scores;   /* every visible score of the row is a point interval */
    mpfi_t acc, t, sum, c;
} att;

static mpfi_t *alloc_iv(size_t count, mpfr_prec_t p)
{
    mpfi_t *a = malloc(count * sizeof *a);
    if (a)
        for (size_t k = 0; k < count; k++)
            mpfi_init2(a[k], p);
    return a;
}

static void free_iv(mpfi_t *a, size_t count)
{
    if (!a) return;
    for (size_t k = 0; k < count; k++)
        mpfi_clear(a[k]);
    free(a);
}

/* C = X W for row-major X (n x d) and W (d x d). */
static void matmul_iv(att *A, const float *x, const float *w, mpfi_t *c)
{
    size_t d = (size_t)A->d;
    for (size_t r = 0; r < A->n; r++)
        for (size_t j = 0; j < d; j++) {
            mpfi_set_ui(A->acc, 0);
            for (size_t k = 0; k < d; k++) {
                mpfi_set_d(A->t, (double)x[r * d + k]);   /* exact */
                mpfi_mul_d(A->t, A->t, (double)w[k * d + j]);
                mpfi_add(A->acc, A->acc, A->t);
            }
            mpfi_set(c[r * d + j], A->acc);
        }
}

static int same_point(mpfi_srcptr a, mpfi_srcptr b)
{
    return mpfr_equal_p(&a->left, &a->right) && mpfr_equal_p(&b->left, &b->right)
        && mpfr_equal_p(&a->left, &b->left);
}

/* Round interval Y: both ends must agree for binary32 and binary64.  Values
 * are compared with == so that an exact zero enclosed as [-0, +0] counts as
 * one value, reported as +0. */
static int round_iv(mpfi_srcptr y, float *o32, double *o64)
{
    float l32 = mpfr_get_flt(&y->left, MPFR_RNDN), r32 = mpfr_get_flt(&y->right, MPFR_RNDN);
    double l64 = mpfr_get_d(&y->left, MPFR_RNDN), r64 = mpfr_get_d(&y->right, MPFR_RNDN);
    if (!(l32 == r32) || !(l64 == r64))
        return 0;
    if (o32) *o32 = l32 == 0.0f ? 0.0f : l32;
    if (o64) *o64 = l64 == 0.0 ? 0.0 : l64;
    return 1;
}

/* Group the first LAST keys by exact score (A->grp); A->exact_scores = 0
 * when a score is not yet a point interval (the grouping is then unknown). */
static void group_scores(att *A, size_t last)
{
    A->exact_scores = 1;
    for (size_t j = 0; j < last && A->exact_scores; j++) {
        A->exact_scores = mpfr_equal_p(&A->s[j]->left, &A->s[j]->right);
        A->grp[j] = j;
        for (size_t h = 0; h < j; h++)
            if (A->grp[h] == h && same_point(A->s[h], A->s[j])) { A->grp[j] = h; break; }
    }
}

/* Sum of column T of V over group G (keys j < LAST with grp[j] == G) into
 * A->acc; returns the group's size, or 0 when a sum is not exact. */
static size_t group_sum(att *A, size_t last, size_t g, size_t t)
{
    size_t size = 0, d = (size_t)A->d;
    mpfi_set_ui(A->acc, 0);
    for (size_t j = 0; j < last; j++)
        if (A->grp[j] == g) {
            mpfi_add(A->acc, A->acc, A->v[j * d + t]);
            size++;
        }
    return mpfr_equal_p(&A->acc->left, &A->acc->right) ? size : 0;
}

/* The midpoint rule (see the top of this file) for column T of a row whose
 * interval did not round: when every score group has the same mean of V,
 * the exact output is that mean, rounded here; 0 when the rule does not
 * apply (or is not decided yet) and a higher precision must settle it. */
static int round_group_mean(att *A, size_t last, size_t t, float *o32, double *o64)
{
    if (!A->exact_scores) return 0;
    size_t n0 = group_sum(A, last, 0, t);
    if (n0 == 0) return 0;
    mpfi_set(A->sum, A->acc);                  /* S_0 */
    for (size_t g = 1; g < last; g++) {
        if (A->grp[g] != g) continue;
        size_t ng = group_sum(A, last, g, t);  /* S_g in acc */
        if (ng == 0) return 0;
        mpfi_mul_ui(A->acc, A->acc, (unsigned long)n0);
        mpfi_mul_ui(A->t, A->sum, (unsigned long)ng);
        if (!same_point(A->acc, A->t)) return 0; /* means differ: not rational */
    }
    mpfi_div_ui(A->sum, A->sum, (unsigned long)n0);
    return round_iv(A->sum, o32, o64);
}

/* One evaluation at precision P; returns 1 when every element is certified. */
static int attempt(att *A, const float *x, const float *wq, const float *wk, const float *wv,
                   int causal, float *out32, double *out64)
{
    size_t n = A->n, d = (size_t)A->d;
    matmul_iv(A, x, wq, A->q);
    matmul_iv(A, x, wk, A->k);
    matmul_iv(A, x, wv, A->v);
    mpfi_t sq;
    mpfi_init2(sq, mpfi_get_prec(A->acc));
    mpfi_set_ui(sq, (unsigned long)d);
    mpfi_sqrt(sq, sq);
    int ok = 1;
    for (size_t i = 0; i < n && ok; i++) {
        size_t last = causal ? i + 1 : n;
        int all_equal = 1;
        for (size_t j = 0; j < last; j++) {
            mpfi_set_ui(A->s[j], 0);
            for (size_t t = 0; t < d; t++) {
                mpfi_mul(A->t, A->q[i * d + t], A->k[j * d + t]);
                mpfi_add(A->s[j], A->s[j], A->t);
            }
            if (j > 0 && !same_point(A->s[j], A->s[0])) all_equal = 0;
        }
        group_scores(A, last);
        if (all_equal) {
            /* exact weights 1/m: out = (sum_j V_j) / m */
            for (size_t t = 0; t < d && ok; t++) {
                mpfi_set_ui(A->acc, 0);
                for (size_t j = 0; j < last; j++)
                    mpfi_add(A->acc, A->acc, A->v[j * d + t]);
                mpfi_div_ui(A->acc, A->acc, (unsigned long)last);
                ok = round_iv(A->acc, out32 ? out32 + i * d + t : NULL,
                              out64 ? out64 + i * d + t : NULL);
            }
            continue;
        }
        /* shift by c = the largest upper end (any constant is exact math) */
        mpfr_set(&A->c->left, &A->s[0]->right, MPFR_RNDN);
        for (size_t j = 1; j < last; j++)
            if (mpfr_greater_p(&A->s[j]->right, &A->c->left))
                mpfr_set(&A->c->left, &A->s[j]->right, MPFR_RNDN);
        mpfr_set(&A->c->right, &A->c->left, MPFR_RNDN);
        mpfi_set_ui(A->sum, 0);
        for (size_t j = 0; j < last; j++) {
            mpfi_sub(A->s[j], A->s[j], A->c);
            mpfi_div(A->s[j], A->s[j], sq);
            mpfi_exp(A->s[j], A->s[j]);
            mpfi_add(A->sum, A->sum, A->s[j]);
        }
        for (size_t t = 0; t < d && ok; t++) {
            mpfi_set_ui(A->acc, 0);
            for (size_t j = 0; j < last; j++) {
                mpfi_mul(A->t, A->s[j], A->v[j * d + t]);
                mpfi_add(A->acc, A->acc, A->t);
            }
            mpfi_div(A->acc, A->acc, A->sum);
            float *o32 = out32 ? out32 + i * d + t : NULL;
            double *o64 = out64 ? out64 + i * d + t : NULL;
            if (!round_iv(A->acc, o32, o64)) {
                mpfi_t keep; /* the row's sum of weights, needed by the next column */
                mpfi_init2(keep, mpfi_get_prec(A->sum));
                mpfi_set(keep, A->sum);
                ok = round_group_mean(A, last, t, o32, o64);
                mpfi_set(A->sum, keep);
                mpfi_clear(keep);
            }
        }
    }
    mpfi_clear(sq);
    return ok;
}

pc_status pc_ref_attention(size_t n, int d, const float *x, const float *wq,
                           const float *wk, const float *wv, int causal,
                           float *out32, double *out64, pc_err *err)
{
    if (n < 1 || n > PC_ATT_N_MAX)
        return pc_seterr(err, PC_EINPUT, "attention: n must be in [1, %d], got %zu", PC_ATT_N_MAX, n);
    if (d < 1 || d > PC_ATT_D_MAX)
        return pc_seterr(err, PC_EINPUT, "attention: d must be in [1, %d], got %d", PC_ATT_D_MAX, d);
    size_t nd = n * (size_t)d;
    for (size_t k = 0; k < nd; k++)
        if (!isfinite(x[k]))
            return pc_seterr(err, PC_EINPUT, "attention: x[%zu] is not finite", k);
    for (size_t k = 0; k < (size_t)d * (size_t)d; k++)
        if (!isfinite(wq[k]) || !isfinite(wk[k]) || !isfinite(wv[k]))
            return pc_seterr(err, PC_EINPUT, "attention: weight %zu is not finite", k);
    /* 128 bits: products of binary32 are exact at 48 bits; the rest is
     * margin for the sums, exp and the division. */
    for (mpfr_prec_t p = 128; p <= PC_ZIV_MAX_PREC; p *= 2) {
        att A;
        memset(&A, 0, sizeof A);
        A.n = n;
        A.d = d;
        A.q = alloc_iv(nd, p);
        A.k = alloc_iv(nd, p);
        A.v = alloc_iv(nd, p);
        A.s = alloc_iv(n, p);
        A.grp = malloc(n * sizeof *A.grp);
        if (!A.q || !A.k || !A.v || !A.s || !A.grp) {
            free_iv(A.q, A.q ? nd : 0); free_iv(A.k, A.k ? nd : 0);
            free_iv(A.v, A.v ? nd : 0); free_iv(A.s, A.s ? n : 0); free(A.grp);
            return pc_seterr(err, PC_ENOMEM, "attention: out of memory");
        }
        mpfi_init2(A.acc, p); mpfi_init2(A.t, p); mpfi_init2(A.sum, p); mpfi_init2(A.c, p);
        int ok = attempt(&A, x, wq, wk, wv, causal, out32, out64);
        mpfi_clear(A.acc); mpfi_clear(A.t); mpfi_clear(A.sum); mpfi_clear(A.c);
        free_iv(A.q, nd); free_iv(A.k, nd); free_iv(A.v, nd); free_iv(A.s, n); free(A.grp);
        if (ok) return PC_OK;
    }
    return pc_seterr(err, PC_EINTERNAL, "attention: precision ceiling reached");
}

/* Probabilistic inner-product error (Higham & Mary 2019): an inner product
 * of length K computed in precision u has |error| <= LAMBDA sqrt(K) u |a|.|b|
 * with probability >= 1 - 2K exp(-LAMBDA^2 (1-u)^2 / 2) (about 1 - 3e-8 K
 * for LAMBDA = 6), instead of the worst case K u |a|.|b|. */
#define PC_ATT_LAMBDA 6.0

static double gamma_p(double k, double u) { return PC_ATT_LAMBDA * sqrt(k) * u; }

void pc_attention_bound(size_t n, int d, const float *x, const float *wq,
                        const float *wk, const float *wv, int causal, double u,
                        double *bounds)
{
    size_t dd = (size_t)d;
    /* per row r: Q, K, V in binary64 and the absolute products |x||W| */
    double *q = calloc(n * dd, sizeof *q), *k = calloc(n * dd, sizeof *k);
    double *na = calloc(n, sizeof *na), *nb = calloc(n, sizeof *nb);
    double *nq = calloc(n, sizeof *nq), *nk = calloc(n, sizeof *nk);
    if (!q || !k || !na || !nb || !nq || !nk) {
        free(q); free(k); free(na); free(nb); free(nq); free(nk);
        for (size_t i = 0; i < n; i++) bounds[i] = (double)INFINITY; /* no memory: no claim */
        return;
    }
    double vmax = 0.0, cmax = 0.0;
    for (size_t r = 0; r < n; r++)
        for (size_t j = 0; j < dd; j++) {
            double sq = 0, sk = 0, sv = 0, aq = 0, ak = 0, av = 0;
            for (size_t t = 0; t < dd; t++) {
                double xv = (double)x[r * dd + t];
                sq += xv * (double)wq[t * dd + j];
                sk += xv * (double)wk[t * dd + j];
                sv += xv * (double)wv[t * dd + j];
                aq += fabs(xv) * fabs((double)wq[t * dd + j]);
                ak += fabs(xv) * fabs((double)wk[t * dd + j]);
                av += fabs(xv) * fabs((double)wv[t * dd + j]);
            }
            q[r * dd + j] = sq;
            k[r * dd + j] = sk;
            na[r] += aq * aq;
            nb[r] += ak * ak;
            nq[r] += sq * sq;
            nk[r] += sk * sk;
            if (fabs(sv) > vmax) vmax = fabs(sv);
            if (av > cmax) cmax = av;
        }
    for (size_t r = 0; r < n; r++) {
        na[r] = sqrt(na[r]); nb[r] = sqrt(nb[r]); nq[r] = sqrt(nq[r]); nk[r] = sqrt(nk[r]);
    }
    double gd = gamma_p((double)d, u), sd = sqrt((double)d);
    for (size_t i = 0; i < n; i++) {
        size_t last = causal ? i + 1 : n;
        /* score error: |dQ_i.K_j| <= gd ||a_i|| ||K_j|| (Cauchy-Schwarz on
         * |dQ_i| <= gd a_i), the same for dK, plus the rounding of the
         * product itself: gd |Q_i|.|K_j| <= gd ||Q_i|| ||K_j||; all / sqrt(d),
         * plus one u for the scaling */
        double ds = 0.0;
        for (size_t j = 0; j < last; j++) {
            double s = 0;
            for (size_t t = 0; t < dd; t++) s += q[i * dd + t] * k[j * dd + t];
            double e = gd * (na[i] * nk[j] + nq[i] * nb[j] + nq[i] * nk[j]) / sd + u * fabs(s) / sd;
            if (e > ds) ds = e;
        }
        /* weights w_j = exp(S_ij - max): relative error 2 ds + 2u (the max
         * carries ds too, exp one u); P = w / sum w: twice that plus the sum */
        double ep = 4.0 * ds + 4.0 * u + gamma_p((double)last, u);
        /* O = P V: dP |V| + P |dV| + the n-term sum + the division */
        bounds[i] = PC_ATT_C * ((ep + gamma_p((double)last, u) + u) * vmax + gd * cmax);
    }
    free(q); free(k); free(na); free(nb); free(nq); free(nk);
}

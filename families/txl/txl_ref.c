/* txl.c: exact Transformer-XL four-term score.
 *
 *   A = q.k + q.(WR R) + u.k + v.(WR R) = q.k + u.k + sum_a (q_a + v_a) w_a,
 *   w_a = sum_b WR_ab R_b,
 * from binary32 inputs taken as exact and R = the certified binary32 row of
 * the relative distance.  Every quantity is then a finite sum of products
 * of binary32 numbers, computed EXACTLY in MPFR and rounded once:
 *   - a product of two binary32 has at most 48 significant bits, a sum of
 *     two binary32 at most 24 + 277 bits (exponents -149 .. 127);
 *   - every term of A is a multiple of 2^-447 (three factors of at least
 *     2^-149) of magnitude < 2^385 (q_a + v_a < 2^129, WR_ab R_b < 2^128,
 *     ...), and there are at most 2 D^2 + 2 D < 2^22 of them (D <= 1024), so
 *     A and each w_a are multiples of 2^-447 below 2^407: 854 bits hold
 *     them exactly, and PC_TXL_PREC = 1024 leaves a margin;
 *   - mpfr_sum at that precision is therefore exact (ternary 0, asserted by
 *     the code below), and mpfr_get_flt / mpfr_get_d round the exact value
 *     once, subnormals included. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include "reference/relative.h"
#include "reference/round.h"
#include "harness/engine/model.h"

#define PC_TXL_PREC 1024        /* exact for every sum above (see header) */
#define PC_TXL_PREC_QV 320      /* q_a + v_a exact: 24 + 277 bits < 320 */
#define PC_TXL_PREC_PROD (PC_TXL_PREC + PC_TXL_PREC_QV) /* (q_a+v_a) w_a exact */

struct pc_txl_ref {
    int d, layout;
    double base;
    float *wr;        /* D x D copy */
    float *r;         /* scratch: R row */
    pc_freqs *f;
    mpfr_t *terms;    /* 2 D + max(D, ...) scratch terms */
    mpfr_ptr *ptrs;
    mpfr_t *w;        /* exact WR R */
    mpfr_t qv, acc;
};

pc_status pc_txl_ref_new(int d, double base, int layout, const float *wr,
                         pc_txl_ref **out, pc_err *err)
{
    *out = NULL;
    if (d < 2 || d > PC_TXL_D_MAX || d % 2)
        return pc_seterr(err, PC_EINPUT, "txl: d must be an even integer in [2, %d], got %d",
                         PC_TXL_D_MAX, d);
    pc_status st = pc_ref_check_params(d, base, err);
    if (st != PC_OK) return st;
    if (layout != 0 && layout != 1)
        return pc_seterr(err, PC_EINPUT, "txl: layout must be 0 or 1, got %d", layout);
    for (size_t i = 0; i < (size_t)d * (size_t)d; i++)
        if (!isfinite(wr[i]))
            return pc_seterr(err, PC_EINPUT, "txl: WR[%zu] is not finite", i);
    pc_txl_ref *t = calloc(1, sizeof *t);
    if (!t) return pc_seterr(err, PC_ENOMEM, "txl: out of memory");
    size_t nt = 3 * (size_t)d; /* the score's terms; D for each w_a sum */
    t->d = d; t->layout = layout; t->base = base;
    t->wr = malloc((size_t)d * (size_t)d * sizeof *t->wr);
    t->r = malloc((size_t)d * sizeof *t->r);
    t->terms = malloc(nt * sizeof *t->terms);
    t->ptrs = malloc(nt * sizeof *t->ptrs);
    t->w = malloc((size_t)d * sizeof *t->w);
    t->f = pc_freqs_new(d, pc_schedule_geometric(base));
    if (!t->wr || !t->r || !t->terms || !t->ptrs || !t->w || !t->f) {
        pc_freqs_free(t->f);
        free(t->wr); free(t->r); free(t->terms); free(t->ptrs); free(t->w); free(t);
        return pc_seterr(err, PC_ENOMEM, "txl: out of memory");
    }
    memcpy(t->wr, wr, (size_t)d * (size_t)d * sizeof *wr);
    for (size_t i = 0; i < nt; i++) {
        mpfr_init2(t->terms[i], PC_TXL_PREC_PROD);
        t->ptrs[i] = t->terms[i];
    }
    for (int a = 0; a < d; a++)
        mpfr_init2(t->w[a], PC_TXL_PREC);
    mpfr_init2(t->qv, PC_TXL_PREC_QV);
    mpfr_init2(t->acc, PC_TXL_PREC);
    *out = t;
    return PC_OK;
}

void pc_txl_ref_free(pc_txl_ref *t)
{
    if (!t) return;
    for (size_t i = 0; i < 3 * (size_t)t->d; i++) mpfr_clear(t->terms[i]);
    for (int a = 0; a < t->d; a++) mpfr_clear(t->w[a]);
    mpfr_clears(t->qv, t->acc, (mpfr_ptr)0);
    pc_freqs_free(t->f);
    free(t->wr); free(t->r); free(t->terms); free(t->ptrs); free(t->w);
    free(t);
}

pc_status pc_txl_ref_rrow(pc_txl_ref *t, int64_t rel, float *r32)
{
    if (rel > PC_POS_MAX || rel < -PC_POS_MAX)
        return PC_EINPUT;
    int64_t m = rel < 0 ? -rel : rel;
    pc_status st = pc_ref_sinusoidal_row(t->f, m, t->layout, r32, NULL);
    if (st != PC_OK) return st;
    if (rel < 0) /* sin(-x) = -sin(x), cos(-x) = cos(x): exact */
        for (int i = 0; i < t->d / 2; i++) {
            size_t js = t->layout == 0 ? (size_t)(2 * i) : (size_t)i;
            r32[js] = -r32[js];
        }
    return PC_OK;
}

/* product of two binary32, exact at any precision >= 48 */
static void mul_ff(mpfr_t r, float a, float b)
{
    mpfr_set_flt(r, a, MPFR_RNDN);
    mpfr_mul_d(r, r, (double)b, MPFR_RNDN);
}

pc_status pc_txl_ref_score(pc_txl_ref *t, const float *q, const float *k,
                           const float *u, const float *v, int64_t rel,
                           float *out32, double *out64, double *terms_abs,
                           double *wr_abs_q)
{
    int d = t->d;
    pc_status st = pc_txl_ref_rrow(t, rel, t->r);
    if (st != PC_OK) return st;
    for (int a = 0; a < d; a++)
        if (!isfinite(q[a]) || !isfinite(k[a]) || !isfinite(u[a]) || !isfinite(v[a]))
            return PC_EINPUT;
    double sabs = 0.0, wq = 0.0;
    /* w_a = sum_b WR_ab R_b exactly */
    for (int a = 0; a < d; a++) {
        double rowabs = 0.0, rowabsr = 0.0;
        for (int b = 0; b < d; b++) {
            float wab = t->wr[(size_t)a * (size_t)d + (size_t)b];
            mul_ff(t->terms[b], wab, t->r[b]);
            rowabs += fabs((double)wab);
            rowabsr += fabs((double)wab * (double)t->r[b]);
        }
        if (mpfr_sum(t->w[a], t->ptrs, (unsigned long)d, MPFR_RNDN) != 0)
            return PC_EINTERNAL; /* cannot happen: the sum is exact (header) */
        double qva = fabs((double)q[a]) + fabs((double)v[a]);
        sabs += qva * rowabsr;
        wq += qva * rowabs;
    }
    /* A = sum_a q_a k_a + u_a k_a + (q_a + v_a) w_a */
    for (int a = 0; a < d; a++) {
        mul_ff(t->terms[3 * a], q[a], k[a]);
        mul_ff(t->terms[3 * a + 1], u[a], k[a]);
        mpfr_set_flt(t->qv, q[a], MPFR_RNDN);
        if (mpfr_add_d(t->qv, t->qv, (double)v[a], MPFR_RNDN) != 0)
            return PC_EINTERNAL; /* exact by the precision choice */
        if (mpfr_mul(t->terms[3 * a + 2], t->qv, t->w[a], MPFR_RNDN) != 0)
            return PC_EINTERNAL; /* exact: 320 + 1024 bits */
        sabs += fabs((double)q[a] * (double)k[a]) + fabs((double)u[a] * (double)k[a]);
    }
    if (mpfr_sum(t->acc, t->ptrs, 3 * (unsigned long)d, MPFR_RNDN) != 0)
        return PC_EINTERNAL;
    if (out32) out32[0] = mpfr_get_flt(t->acc, MPFR_RNDN);
    if (out64) out64[0] = mpfr_get_d(t->acc, MPFR_RNDN);
    if (terms_abs) *terms_abs = sabs;
    if (wr_abs_q) *wr_abs_q = wq;
    return PC_OK;
}

double pc_txl_bound(int d, double base, int64_t rel, double terms_abs, double wr_abs_q)
{
    /* unit roundoff of binary32 */
    const double u = 0x1p-24;
    /* gamma_n (Higham, Accuracy and Stability, Lemma 3.1): a dot product of
     * length n in any order has error <= gamma_n sum |terms|; the deepest
     * chain is WR R (D products) then (q + v).w (D more, plus the q+v sum)
     * then the 4-term sum: n = 2 D + 4.  Doubled (C = 2) for the slack the
     * attention model also takes (families/attention/attention_ref.h). */
    double n = 2.0 * d + 4.0;
    double gam = n * u / (1.0 - n * u);
    /* R_b's own error: the sinusoidal precision model at the largest angle
     * |rel| * omega_0 = |rel| (omega_0 = 1), plus half an ulp of a value
     * below 1 (2^-25) because the reference holds R rounded to binary32. */
    double theta = fabs((double)rel);
    double er = pc_model_bound(pc_model_C(base), u, theta, 1.0, -1.0) + 0x1p-25;
    return 2.0 * gam * terms_abs + wr_abs_q * er;
}

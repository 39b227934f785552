/* fitmodel.c: the fitted model of an implementation's rows (fitmodel.h).
 * The derivation of every bound: docs/fitted-model.md.
 *
 * Per pair i and position p the implementation's pair z(p) = (c, s) (RoPE:
 * the rotation of (1, 0); sinusoidal: the row's cos and sin) is compared
 * with the exact rotation e^{i theta}, theta = p omega_i (binary64: its
 * error p omega 2^-53 is below 2^-20 rad for p <= 2^53 / 2^33, far below
 * every bound here):
 *   delta(p) = arg(z e^{-i theta}), unwrapped along consecutive positions
 *   (each step is the wrapped difference: a correct row moves delta by far
 *   less than pi from one position to the next),
 * then least squares delta = a + b (p - pbar): a the mean phase offset, b
 * the frequency error.  Sums are streamed per block of positions, so any
 * range fits in O(d) memory. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "accuracy.h"
#include "fitmodel.h"
#include "hook.h"
#include "model.h"
#include "../families/family.h"
#include "../reference/reference.h"

#define FITM_BLOCK 256  /* positions per call, as the accuracy engine's blocks */
#define FITM_MIN_N 16   /* fewer positions: no fit (as families/rope/fit.c) */

typedef struct sums {
    double sd, sxd;      /* sum delta, sum x delta (x = p - pbar) */
    double samp;         /* sum |z| / A */
    double zr, zi;       /* sum z / A */
    double er, ei;       /* sum e^{i theta} */
    double prev;         /* last unwrapped delta */
} sums;

typedef struct fitm_run {
    const pc_impl *impl;
    const pc_rows *rows;
    const pc_acc_cfg *cfg;
    int h;
    double pbar, sxx, s0, s1;  /* mean position; sum x^2, sum |x|, sum |x| p */
    double *omega;
    sums *acc;
    int64_t *pos;
    float *x, *y;
} fitm_run;

/* (c, s) of pair I in the row Y. */
static void pair_of(const fitm_run *r, const float *y, int i, double *c, double *s)
{
    int h = r->h, lay = r->cfg->layout;
    if (r->rows->input) { /* the rotation of (1, 0): (A cos, A sin) */
        int a = lay ? i : 2 * i, b = lay ? i + h : 2 * i + 1;
        *c = (double)y[a]; *s = (double)y[b];
    } else {              /* the encoding itself: (sin, cos) pairs or blocks */
        int js = lay ? i : 2 * i, jc = lay ? i + h : 2 * i + 1;
        *c = (double)y[jc]; *s = (double)y[js];
    }
}

static void accumulate(fitm_run *r, const float *y, int64_t p, int first, double att)
{
    double x = (double)p - r->pbar;
    for (int i = 0; i < r->h; i++) {
        sums *a = &r->acc[i];
        double c, s, ct, st;
        pair_of(r, y, i, &c, &s);
        c /= att; s /= att;
        sincos((double)p * r->omega[i], &st, &ct);
        double raw = atan2(s * ct - c * st, c * ct + s * st);
        double dl = first ? raw : a->prev + remainder(raw - a->prev, 2.0 * M_PI);
        a->prev = dl;
        a->sd += dl; a->sxd += x * dl;
        a->samp += hypot(c, s);
        a->zr += c; a->zi += s;
        a->er += ct; a->ei += st;
    }
}

static int read_rows(fitm_run *r, double att, char *note, size_t len)
{
    const pc_acc_cfg *cfg = r->cfg;
    size_t d = (size_t)cfg->d;
    for (int64_t p0 = cfg->pos_lo; p0 <= cfg->pos_hi; p0 += FITM_BLOCK) {
        size_t m = (size_t)(cfg->pos_hi - p0 + 1 < FITM_BLOCK ? cfg->pos_hi - p0 + 1 : FITM_BLOCK);
        for (size_t k = 0; k < m; k++) r->pos[k] = p0 + (int64_t)k;
        pc_fault fault = { 0, "" };
        int rc = r->rows->call(r->impl, &fault, r->pos, m, cfg->d, cfg->base, cfg->layout,
                               r->rows->input ? r->x : NULL, r->y);
        if (fault.faulted || rc != 0) {
            snprintf(note, len, "the implementation %s at positions %lld..%lld",
                     fault.faulted ? "faulted" : "declined the call", (long long)p0,
                     (long long)(p0 + (int64_t)m - 1));
            return -1;
        }
        for (size_t k = 0; k < m; k++)
            accumulate(r, r->y + k * d, p0 + (int64_t)k, p0 == cfg->pos_lo && k == 0, att);
    }
    return 0;
}

/* The position sums every pair's bounds use (closed forms would do; the
 * loop is exact enough, binary64 over at most 2^53 positions). */
static void position_sums(fitm_run *r)
{
    const pc_acc_cfg *cfg = r->cfg;
    double n = (double)(cfg->pos_hi - cfg->pos_lo + 1);
    r->pbar = 0.5 * ((double)cfg->pos_lo + (double)cfg->pos_hi);
    r->sxx = n * (n * n - 1.0) / 12.0;
    r->s0 = r->s1 = 0;
    for (int64_t p = cfg->pos_lo; p <= cfg->pos_hi; p++) {
        double ax = fabs((double)p - r->pbar);
        r->s0 += ax; r->s1 += ax * (double)p;
    }
}

/* kappa_i of pair I of frequency OMEGA, as the element-wise gate takes it
 * (harness/model.h, docs/precision-model.md): the relative error of the
 * angle pos * omega_i of a correct binary32 formulation in the tolerance
 * class (--strict or default), in units of u |theta|, frequency and angle
 * rounding together; 0 for omega exactly 1; a schedule's own constant. */
static double pair_kappa(const pc_acc_cfg *cfg, const pc_schedule *s, int i, double omega)
{
    if (omega == 1.0) return 0.0;
    if (cfg->strict) return pc_model_kappa(PC_CLASS_STRICT, cfg->base, cfg->d, i);
    if (cfg->sched) return pc_schedule_model_c(s, cfg->d, i);
    return pc_model_kappa(PC_CLASS_DEFAULT, cfg->base, cfg->d, i);
}

static void judge_pair(const fitm_run *r, const pc_schedule *s, pc_fitm *f, int i)
{
    const pc_acc_cfg *cfg = r->cfg;
    const sums *a = &r->acc[i];
    pc_fitm_pair *q = &f->p[i];
    double n = (double)(cfg->pos_hi - cfg->pos_lo + 1), w = r->omega[i], u = f->u;
    int big = cfg->pos_hi >= ((int64_t)1 << 24); /* binary32 positions round above 2^24 */
    double att1 = f->att != 1.0;
    /* e_0: evaluation (2 ulp on each of cos, sin <= 4u in angle), storage
     * u_s, the product by A; R: the same on the norm */
    double e0 = 4.0 * u + f->u_s + att1 * u, R = 4.0 * u + f->u_s + 2.0 * att1 * u;
    /* F: the frequency's share, K: the whole phase constant (the position's
     * rounding above 2^24 added); kappa bounds both */
    double F = pair_kappa(cfg, s, i, w), K = F + big;
    q->omega = w;
    q->offset = a->sd / n;
    q->offset_bound = K * u * w * r->pbar + e0;
    double b = a->sxd / r->sxx;
    q->freq_rel = b / w;
    q->freq_bound = F * u + (K * u * w * r->s1 + e0 * r->s0) / r->sxx / w;
    q->freq_ulp = b / pc_ulp32((float)w);
    q->amp = a->samp / n;
    q->amp_bound = R;
    /* DC: mean z minus the fitted rotation's mean (a geometric sum) */
    double om = w + b, ph = fmod((double)cfg->pos_lo * w, 2.0 * M_PI) + q->offset
                             - b * (r->pbar - (double)cfg->pos_lo);
    double g = fabs(sin(0.5 * om)) > 0 ? sin(0.5 * n * om) / (n * sin(0.5 * om)) : 1.0;
    double gph = ph + 0.5 * (n - 1.0) * om;
    double dr = a->zr / n - q->amp * g * cos(gph), di = a->zi / n - q->amp * g * sin(gph);
    q->dc = hypot(dr, di);
    q->dc_bound = 2.0 * q->offset_bound + q->freq_bound * w * r->s0 / n + 2.0 * R;
    q->dc_checked = hypot(a->er, a->ei) / n <= 0.5; /* at least about one turn */
    q->bad = (!(fabs(q->offset) <= q->offset_bound) ? PC_FITM_OFFSET : 0)
           | (!(fabs(q->freq_rel) <= q->freq_bound) ? PC_FITM_FREQ : 0)
           | (!(fabs(q->amp - 1.0) <= q->amp_bound) ? PC_FITM_AMP : 0)
           | (q->dc_checked && !(q->dc <= q->dc_bound) ? PC_FITM_DC : 0);
    double rs[4] = { fabs(q->offset) / q->offset_bound, fabs(q->freq_rel) / q->freq_bound,
                     fabs(q->amp - 1.0) / q->amp_bound, q->dc_checked ? q->dc / q->dc_bound : 0 };
    for (int k = 0; k < 4; k++)
        if (!(rs[k] <= f->worst)) f->worst = isnan(rs[k]) ? (double)INFINITY : rs[k];
    f->bad += q->bad != 0;
}

static void run_free(fitm_run *r)
{
    free(r->omega); free(r->acc); free(r->pos); free(r->x); free(r->y);
}

pc_status pc_fitm_run(const pc_impl *impl, const pc_rows *rows, const pc_acc_cfg *cfg,
                      pc_fitm *out, char *note, size_t len)
{
    memset(out, 0, sizeof *out);
    note[0] = '\0';
    if (cfg->positions || cfg->pos_hi - cfg->pos_lo + 1 < FITM_MIN_N) {
        snprintf(note, len, "fewer than %d consecutive positions", FITM_MIN_N);
        return PC_SKIP;
    }
    size_t d = (size_t)cfg->d;
    int h = cfg->d / 2;
    fitm_run r = { impl, rows, cfg, h, 0, 0, 0, 0, malloc((size_t)h * sizeof(double)),
                   calloc((size_t)h, sizeof(sums)), malloc(FITM_BLOCK * sizeof(int64_t)),
                   calloc(FITM_BLOCK * d, sizeof(float)), malloc(FITM_BLOCK * d * sizeof(float)) };
    pc_schedule s = cfg->sched ? *cfg->sched : pc_schedule_geometric(cfg->base);
    pc_freqs *fr = pc_freqs_new(cfg->d, s);
    out->p = calloc((size_t)h, sizeof *out->p);
    if (!fr || !r.omega || !r.acc || !r.pos || !r.x || !r.y || !out->p) {
        run_free(&r); pc_freqs_free(fr); pc_fitm_free(out);
        return PC_ENOMEM;
    }
    for (size_t k = 0; k < FITM_BLOCK; k++) /* 1 in the first member of every pair */
        for (int i = 0; i < h; i++) r.x[k * d + (size_t)(cfg->layout ? i : 2 * i)] = 1.0f;
    for (int i = 0; i < h; i++) r.omega[i] = pc_freqs_omega(fr, i);
    out->h = h; out->lo = cfg->pos_lo; out->hi = cfg->pos_hi;
    out->att = pc_freqs_attention(fr);
    out->u = cfg->storage ? 0x1p-24 : pc_model_u(cfg->dtype);
    out->u_s = cfg->storage ? pc_model_u(cfg->dtype) : 0.0;
    position_sums(&r);
    pc_status st = read_rows(&r, out->att, note, len) == 0 ? PC_OK : PC_SKIP;
    for (int i = 0; st == PC_OK && i < h; i++) judge_pair(&r, &s, out, i);
    run_free(&r);
    pc_freqs_free(fr);
    if (st != PC_OK) pc_fitm_free(out);
    return st;
}

void pc_fitm_free(pc_fitm *f)
{
    free(f->p);
    f->p = NULL;
}

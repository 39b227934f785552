/* fitmodel.c: the fitted model of an implementation's rows (fitmodel.h).
 * The derivation of every bound: docs/fitted-model.md.
 *
 * Per pair i and position p the implementation's pair z(p) = (c, s) (RoPE:
 * the rotation of (1, 0); sinusoidal: the row's cos and sin) is compared
 * with the exact rotation e^{i theta}, theta = p omega_i (sinusoidal: the
 * certified binary64 rows, sin and cos of the exact angle correctly
 * rounded; RoPE: binary64 sincos of p omega_i, whose error p omega 2^-53 is
 * below 2^-20 rad for p <= 2^53 / 2^33, far below every bound here, made
 * by products within a block: accuracy.c, fit_theta):
 *   delta(p) = arg(z e^{-i theta}), unwrapped along consecutive positions
 *   (a correct row moves delta by far less than pi from one position to
 *   the next),
 * then least squares delta = a + b (p - pbar): a the mean phase offset, b
 * the frequency error.  The accuracy engine makes the sums block by block
 * and adds them exactly (fitsums.h), so any range fits in O(d) memory and
 * threads and shards give the same bits; this file judges the totals. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "accuracy.h"
#include "fitmodel.h"
#include "fitsums.h"
#include "model.h"
#include "reference/reference.h"
#include "reference/schedule.h"

#define FITM_MIN_N 16   /* fewer positions: no fit (as families/rope/fit.c) */

/* The position sums every pair's bounds use (closed forms would do; the
 * loop is exact enough, binary64 over at most 2^40 positions). */
typedef struct psums { double pbar, sxx, s0, s1; } psums;

static psums position_sums(const pc_fitm *f)
{
    psums r;
    double n = (double)(f->hi - f->lo + 1);
    r.pbar = pc_fitm_pbar(f->lo, f->hi);
    r.sxx = n * (n * n - 1.0) / 12.0;
    r.s0 = r.s1 = 0;
    for (int64_t p = f->lo; p <= f->hi; p++) {
        double ax = fabs((double)p - r.pbar);
        r.s0 += ax; r.s1 += ax * (double)p;
    }
    return r;
}

/* kappa_i of pair I of frequency OMEGA, as the element-wise gate takes it
 * (harness/engine/model.h, docs/precision-model.md): the relative error of the
 * angle pos * omega_i of a correct binary32 formulation in the tolerance
 * class (--strict or default), in units of u |theta|, frequency and angle
 * rounding together; 0 for omega exactly 1; a schedule's own constant. */
static double pair_kappa(const pc_acc_cfg *cfg, const pc_schedule *s, int i, double omega)
{
    if (omega == 1.0) return 0.0;
    if (cfg->strict) return pc_acc_class_kappa(cfg, i);
    if (cfg->sched) return pc_schedule_model_c(s, cfg->d, i);
    return pc_model_kappa(PC_CLASS_DEFAULT, cfg->base, cfg->d, i);
}

/* Pair I of F judged from its totals T over the range (psums P). */
static void judge_pair(pc_fitm *f, const psums *P, const pc_fit_tot *a, int i)
{
    pc_fitm_pair *q = &f->p[i];
    double n = (double)(f->hi - f->lo + 1), w = q->omega, u = f->u;
    int big = f->hi >= ((int64_t)1 << 24); /* binary32 positions round above 2^24 */
    double att1 = f->att != 1.0;
    /* e_0: evaluation (2 ulp on each of cos, sin <= 4u in angle), storage
     * u_s, the product by A; R: the same on the norm */
    double e0 = 4.0 * u + f->u_s + att1 * u + f->r_scale * u;
    double R = 4.0 * u + f->u_s + 2.0 * att1 * u + f->r_scale * u;
    /* F: the frequency's share, K: the whole phase constant (the position's
     * rounding above 2^24 added); kappa bounds both */
    double F = q->kappa, K = F + big;
    q->offset = a->sd / n;
    q->offset_bound = K * u * w * P->pbar + e0;
    double b = a->sxd / P->sxx;
    q->freq_rel = b / w;
    q->freq_bound = F * u + (K * u * w * P->s1 + e0 * P->s0) / P->sxx / w;
    q->freq_ulp = b / pc_ulp32((float)w);
    q->amp = a->samp / n;
    q->amp_bound = R;
    /* DC: mean z minus the fitted rotation's mean (a geometric sum) */
    double om = w + b, ph = fmod((double)f->lo * w, 2.0 * M_PI) + q->offset
                             - b * (P->pbar - (double)f->lo);
    double g = fabs(sin(0.5 * om)) > 0 ? sin(0.5 * n * om) / (n * sin(0.5 * om)) : 1.0;
    double gph = ph + 0.5 * (n - 1.0) * om;
    double dr = a->zr / n - q->amp * g * cos(gph), di = a->zi / n - q->amp * g * sin(gph);
    q->dc = hypot(dr, di);
    q->dc_bound = 2.0 * q->offset_bound + q->freq_bound * w * P->s0 / n + 2.0 * R;
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

pc_status pc_fitm_setup(const pc_acc_cfg *cfg, pc_fitm *out, char *note, size_t len)
{
    memset(out, 0, sizeof *out);
    note[0] = '\0';
    if (cfg->positions || cfg->pos_hi - cfg->pos_lo + 1 < FITM_MIN_N) {
        snprintf(note, len, "fewer than %d consecutive positions", FITM_MIN_N);
        return PC_SKIP;
    }
    if (cfg->pos_hi - cfg->pos_lo >= PC_FIT_MAX_N) {
        snprintf(note, len, "more than 2^40 positions (the exact sums' range)");
        return PC_SKIP;
    }
    if (cfg->sched && cfg->sched->kind->position) {
        snprintf(note, len, "%s", PC_FITM_AXES_NOTE);
        return PC_SKIP;
    }
    int h = cfg->d / 2;
    pc_schedule s = cfg->sched ? *cfg->sched : pc_schedule_geometric(cfg->base);
    pc_freqs *fr = pc_freqs_new(cfg->d, s);
    out->p = calloc((size_t)h, sizeof *out->p);
    if (!fr || !out->p) { pc_freqs_free(fr); pc_fitm_free(out); return PC_ENOMEM; }
    for (int i = 0; i < h; i++) {
        out->p[i].omega = pc_freqs_omega(fr, i);
        out->p[i].kappa = pair_kappa(cfg, &s, i, out->p[i].omega);
    }
    out->h = h; out->lo = cfg->pos_lo; out->hi = cfg->pos_hi;
    out->att = pc_freqs_attention(fr);
    /* a factor per pair and position (xPos): its evaluation's radial part,
     * on the angle's e_0 and the norm's R (docs/schedules.md) */
    out->r_scale = pc_freqs_scaled(fr) ? pc_schedule_model_r(&s, cfg->d) : 0.0;
    out->u = cfg->storage ? 0x1p-24 : pc_model_u(cfg->dtype);
    out->u_s = cfg->storage ? pc_model_u(cfg->dtype) : 0.0;
    pc_freqs_free(fr);
    return PC_OK;
}

int pc_fitm_judge(pc_fitm *f, const pc_fitp *sums)
{
    if (sums->h != f->h || sums->start != f->lo || sums->n != f->hi - f->lo + 1) return -1;
    psums P = position_sums(f);
    f->bad = 0;
    f->worst = 0;
    for (int i = 0; i < f->h; i++) {
        pc_fit_tot t;
        pc_fitp_totals(sums, i, &t);
        judge_pair(f, &P, &t, i);
    }
    return 0;
}

void pc_fitm_free(pc_fitm *f)
{
    free(f->p);
    f->p = NULL;
}

/* strict_freq.c: a strict class's failure that the frequencies account
 * for (fit.h, pc_rope_strict_freq_cause; docs/diagnosis.md).
 *
 * The strict classes hold a source to one formulation's binary32
 * frequencies: hf to those transformers' float32 code can give
 * (formulation_hf.c, up to PC_ACC_FORM_CANDS a pair), cr to fl(omega_i).
 * A cache whose frequency formula differs (the exp form exp(-2i ln(B)/d)
 * for HF's pow form, 2 * 3.14159 for 2 pi, 1 / (pow * factor) for
 * 1 / pow / factor) fails them while the default class, which admits
 * every mainstream formulation, passes; the worst element then only says
 * that its angle is off.  Here that is checked instead of guessed:
 *   - each pair's frequency is fitted from the source's angles
 *     (pc_rope_fit_run's least-squares slope, the diagnosis's fit), then
 *     made exact: the frequencies w for which every row's phase
 *     phi_p = atan2(A sin, A cos) lies within ALLOW(p) = u |p w| + E of
 *     p w (mod 2 pi) form an interval, the intersection over the rows of
 *     [(phi_p + 2 pi k_p - ALLOW) / p, (phi_p + 2 pi k_p + ALLOW) / p], k_p
 *     the turns of the fitted frequency at p.  u |p w| is one rounding of
 *     a binary32 angle (twice from 2^24 on, the position rounded too);
 *     E = 8 u_s the phase of a stored pair whose cos and sin are each
 *     within a few units of their storage.  A binary32 cache
 *     cos(fl(fl(p) w)) of a binary32 w is inside its own interval;
 *   - a pair's interval is its frequency only when unambiguous: the
 *     interval one alias away (the fitted frequency moved by 2 pi / P,
 *     P the largest |position|) is empty;
 *   - a pair fails the class when some row's phase is off the exact
 *     omega_i's by more than the class allows, kappa_i u |p omega_i| + E;
 *   - the claim is made when every failing pair has an unambiguous
 *     interval lying at least one binary32 ulp from each of the class's
 *     frequencies, and the default class passes the same rows (a run of
 *     the gate under it).  Otherwise nothing is said here. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fit.h"
#include "formulation_hf.h"
#include "options.h"
#include "scaling.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"
#include "harness/sources/table.h"
#include "reference/reference.h"
#include "reference/schedule.h"

#define SF_BLOCK 256  /* rows per hook call */
#define SF_U 0x1p-24  /* binary32's unit roundoff: the angle's rounding */
#define SF_E_UNITS 8.0 /* E = 8 u_s: a stored pair's phase (see above) */
#define SF_POS_EXACT 0x1p24 /* from here binary32 rounds the position too */

/* The feasible interval of one pair about one anchor frequency. */
typedef struct sf_iv {
    double anchor, lo, hi;
} sf_iv;

/* Per pair: the interval about the fitted frequency and its two aliases,
 * and whether its rows leave what the class allows. */
typedef struct sf_pair {
    sf_iv iv[3];
    double omega, kappa;   /* the exact frequency; the class's kappa_i */
    int fails;
} sf_pair;

static double allow(double p, double w, double e)
{
    double kap0 = fabs(p) >= SF_POS_EXACT ? 2.0 : 1.0;
    return kap0 * SF_U * fabs(p * w) * (1.0 + 0x1p-10) + e; /* 2^-10: the anchor vs the interval */
}

/* Row P's phase PH narrows IV. */
static void narrow(sf_iv *iv, double p, double ph, double e)
{
    double t = 2.0 * M_PI;
    if (p == 0.0) {
        if (fabs(remainder(ph, t)) > e) iv->lo = (double)INFINITY; /* no frequency turns position 0 */
        return;
    }
    double k = nearbyint((p * iv->anchor - ph) / t), a = allow(p, iv->anchor, e);
    double b1 = (ph + t * k - a) / p, b2 = (ph + t * k + a) / p;
    iv->lo = fmax(iv->lo, fmin(b1, b2));
    iv->hi = fmin(iv->hi, fmax(b1, b2));
}

/* Binary32 steps between two positive finite floats. */
static double steps(float a, float b)
{
    uint32_t x, y;
    memcpy(&x, &a, sizeof x);
    memcpy(&y, &b, sizeof y);
    return fabs((double)x - (double)y);
}

/* The distance in binary32 ulps from C to the interval [LO, HI]: the
 * steps to its nearest binary32 value, or, holding none, the distance
 * over C's ulp; 0 when C lies in it. */
static double ulps_from(float c, double lo, double hi)
{
    if ((double)c >= lo && (double)c <= hi) return 0.0;
    float a = (float)lo, b = (float)hi;
    if ((double)a < lo) a = nextafterf(a, INFINITY);
    if ((double)b > hi) b = nextafterf(b, 0.0f);
    if (a <= b) return (double)c < lo ? steps(c, a) : steps(b, c);
    double ulp = (double)nextafterf(c, INFINITY) - (double)c;
    return ((double)c < lo ? lo - (double)c : (double)c - hi) / ulp;
}

/* The class's binary32 frequencies of pair I: hf's candidates, cr's
 * fl(omega_i); their count. */
static int class_freqs(const pc_acc_cfg *cfg, int i, double omega, float out[PC_ACC_FORM_CANDS])
{
    if (!cfg->form || !cfg->form->cand) {
        out[0] = (float)omega;
        return 1;
    }
    for (int j = 0; j < PC_ACC_FORM_CANDS; j++) out[j] = cfg->form->cand[PC_ACC_FORM_CANDS * i + j];
    return PC_ACC_FORM_CANDS;
}

/* Every row of CFG's range through the pairs P: their intervals and
 * whether they fail the class.  0, or -1 when the source's rows fail. */
static int scan_rows(const pc_impl *impl, const pc_acc_cfg *cfg, sf_pair *pr, double e)
{
    int h = cfg->d / 2;
    double *c = malloc(SF_BLOCK * (size_t)h * sizeof *c), *s = malloc(SF_BLOCK * (size_t)h * sizeof *s);
    int rc = c && s ? 0 : -1;
    for (int64_t lo = cfg->pos_lo; rc == 0 && lo <= cfg->pos_hi; lo += SF_BLOCK) {
        size_t m = (size_t)(cfg->pos_hi - lo + 1 < SF_BLOCK ? cfg->pos_hi - lo + 1 : SF_BLOCK);
        rc = pc_rope_unit_rows(impl, cfg->d, cfg->base, cfg->layout, lo, m, c, s);
        for (size_t r = 0; rc == 0 && r < m; r++)
            for (int i = 0; i < h; i++) {
                double p = (double)(lo + (int64_t)r), ph = atan2(s[r * (size_t)h + (size_t)i],
                                                                 c[r * (size_t)h + (size_t)i]);
                for (int k = 0; k < 3; k++) narrow(&pr[i].iv[k], p, ph, e);
                double off = ph - p * pr[i].omega; /* to (-pi, pi]: nearbyint, cheaper than remainder */
                off = fabs(off - 2.0 * M_PI * nearbyint(off / (2.0 * M_PI)));
                pr[i].fails |= off > pr[i].kappa * SF_U * fabs(p * pr[i].omega) + e;
            }
    }
    free(c);
    free(s);
    return rc;
}

/* Whether the default class passes IMPL's rows of CFG; its err/bound into *RATIO. */
static int default_passes(const pc_impl *impl, const pc_acc_cfg *cfg, double *ratio)
{
    pc_acc_cfg c = *cfg;
    c.strict = 0;
    c.formulation = 0;
    c.form = NULL;
    c.half_arith = c.storage && !pc_table_info_of(impl); /* a kernel's default: its dtype's arithmetic */
    c.quiet = 1;
    c.observe = NULL;
    c.fit = NULL;
    c.digest = NULL;
    pc_acc_result res;
    pc_err e;
    if (pc_accuracy_run(impl, &c, &res, &e) != PC_OK || res.status != PC_OK) return 0;
    *ratio = res.m.max_ratio;
    return 1;
}

/* The pairs flagged in F as "29..34" or "3, 7, 12..15", cut with ", ..."
 * past LEN. */
static void pair_list(const int *f, int h, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = '\0';
    for (int i = 0; i < h && u < len; i++) {
        if (!f[i] || (i > 0 && f[i - 1])) continue;
        int j = i;
        while (j + 1 < h && f[j + 1]) j++;
        char one[32];
        if (j == i) snprintf(one, sizeof one, "%s%d", u ? ", " : "", i);
        else snprintf(one, sizeof one, "%s%d..%d", u ? ", " : "", i, j);
        if (u + strlen(one) + 6 >= len) {
            snprintf(buf + u, len - u, ", ...");
            return;
        }
        u += (size_t)snprintf(buf + u, len - u, "%s", one);
    }
}

/* Under cr, whether each flagged pair's interval holds one of the
 * frequencies transformers' float32 code gives (the hf class's). */
static int hf_holds(const pc_acc_cfg *cfg, const sf_pair *pr, const int *flag, int h)
{
    const pc_rope_params *p = cfg->sched ? cfg->sched->params : NULL;
    pc_rope_hf_pair *hp = malloc((size_t)h * sizeof *hp);
    char why[160];
    int all = hp && (!p || p->dim == cfg->d)
              && pc_rope_hf_pairs(p, cfg->base, cfg->d, hp, why, sizeof why) == 0;
    for (int i = 0; all && i < h; i++) {
        if (!flag[i]) continue;
        int in = 0;
        for (int j = 0; j < PC_ACC_FORM_CANDS; j++)
            in |= ulps_from(hp[i].cand[j], pr[i].iv[0].lo, pr[i].iv[0].hi) == 0.0;
        all = in;
    }
    free(hp);
    return all;
}

/* The frequencies' account of the pairs PR (their class frequencies,
 * failing and unambiguous ones measured): 1 with the claim when every
 * failing pair is off the class by at least an ulp. */
static int judge(const pc_acc_cfg *cfg, sf_pair *pr, int h, int *flag, double *kmin,
                 double *kmax, int *nfail)
{
    *kmin = (double)INFINITY;
    *kmax = 0.0;
    *nfail = 0;
    for (int i = 0; i < h; i++) {
        flag[i] = 0;
        if (!pr[i].fails) continue;
        ++*nfail;
        const sf_iv *v = &pr[i].iv[0];
        int alias = pr[i].iv[1].lo <= pr[i].iv[1].hi || pr[i].iv[2].lo <= pr[i].iv[2].hi;
        if (!(v->lo <= v->hi) || alias) return 0; /* no one frequency, or not only one */
        float cand[PC_ACC_FORM_CANDS];
        int nc = class_freqs(cfg, i, pr[i].omega, cand);
        double k = (double)INFINITY;
        for (int j = 0; j < nc; j++) k = fmin(k, ulps_from(cand[j], v->lo, v->hi));
        if (!(k >= 1.0)) return 0; /* within an ulp of the class: not the frequency's doing */
        flag[i] = 1;
        *kmin = fmin(*kmin, k);
        *kmax = fmax(*kmax, k);
    }
    return *nfail > 0;
}

/* The pairs' exact frequencies, class constants and fitted anchors; -1
 * when the fit cannot be made. */
static int setup(const pc_impl *impl, const pc_acc_cfg *cfg, sf_pair *pr, double u_s)
{
    int h = cfg->d / 2;
    pc_schedule sch = cfg->sched ? *cfg->sched : pc_schedule_geometric(cfg->base);
    pc_freqs *fr = pc_freqs_new(cfg->d, sch);
    pc_rope_fit f;
    if (!fr) return -1;
    if (pc_rope_fit_run(impl, cfg->d, cfg->base, cfg->layout, cfg->pos_lo, cfg->pos_hi, u_s, &f)
        != PC_OK) {
        pc_freqs_free(fr);
        return -1;
    }
    /* an alias: the frequency 2 pi / P away turns the row of largest |position| P alike */
    double pmax = fmax(fabs((double)cfg->pos_lo), fabs((double)cfg->pos_hi));
    double alias = pmax > 0 ? 2.0 * M_PI / pmax : 0.0;
    int ok = alias > 0;
    for (int i = 0; ok && i < h; i++) {
        pr[i].omega = pc_freqs_omega(fr, i);
        pr[i].kappa = pr[i].omega == 1.0 ? 0.0 : pc_acc_class_kappa(cfg, i);
        double w = f.omega_ls ? f.omega_ls[i] : f.omega[i];
        ok = isfinite(w) && pr[i].kappa >= 0;
        for (int k = 0; k < 3; k++)
            pr[i].iv[k] = (sf_iv){ w + (k == 0 ? 0.0 : k == 1 ? alias : -alias), -(double)INFINITY,
                                   (double)INFINITY };
        pr[i].fails = 0;
    }
    pc_rope_fit_free(&f);
    pc_freqs_free(fr);
    return ok ? 0 : -1;
}

/* The frequencies' claim about the strict class of CFG on IMPL's rows (the
 * checks above), its texts without what the default class says. */
typedef struct sf_claim {
    char pairs[120], ulps[40];
    int nfail, hf, by_hf;
} sf_claim;

/* 1 with C when every pair that fails CFG's strict class is off it by its
 * own frequency; the default class's pass is not checked here. */
static int freq_claim(const pc_impl *impl, const pc_acc_cfg *cfg, sf_claim *c)
{
    const pc_rope_params *sp = cfg->sched ? cfg->sched->params : NULL;
    int mapped = cfg->sched && cfg->sched->kind && cfg->sched->kind->position; /* position ids */
    if (!cfg->strict || cfg->tol_abs >= 0 || (sp && sp->axes) || mapped || cfg->positions
        || cfg->pos_hi - cfg->pos_lo < 15)
        return 0; /* not a strict class, or not one position a row */
    if (cfg->strict == PC_CLASS_GGML) return 0; /* no binary32 frequency a pair: ggml's is a product */
    int h = cfg->d / 2, made = 0;
    double u_s = cfg->storage ? pc_model_u(cfg->dtype) : SF_U, e = SF_E_UNITS * u_s;
    double kmin, kmax;
    sf_pair *pr = malloc((size_t)h * sizeof *pr);
    int *flag = malloc((size_t)h * sizeof *flag);
    if (pr && flag && setup(impl, cfg, pr, u_s) == 0 && scan_rows(impl, cfg, pr, e) == 0
        && judge(cfg, pr, h, flag, &kmin, &kmax, &c->nfail)) {
        c->hf = cfg->form != NULL;
        c->by_hf = !c->hf && hf_holds(cfg, pr, flag, h);
        pair_list(flag, h, c->pairs, sizeof c->pairs);
        if (kmin == kmax) snprintf(c->ulps, sizeof c->ulps, "%.3g ulp%s", kmin, kmin == 1.0 ? "" : "s");
        else snprintf(c->ulps, sizeof c->ulps, "%.3g to %.3g ulps", kmin, kmax);
        made = 1;
    }
    free(pr);
    free(flag);
    return made;
}

/* "pairs 29..34 are 7 to 16 ulps from ... (...)" of C into BUF. */
static void claim_text(const sf_claim *c, char *buf, size_t len)
{
    snprintf(buf, len, "pair%s %s %s %s from %s (%s)", c->nfail > 1 ? "s" : "", c->pairs,
             c->nfail > 1 ? "are" : "is", c->ulps,
             c->hf ? "the nearest frequency transformers' code gives" : "fl(omega_i)",
             c->by_hf ? "they are transformers' float32 frequencies: --formulation hf, or a bare "
                        "--strict, holds them"
                      : "a frequency computed another way: another formula or constant, e.g. an "
                        "exp form or 3.14159 for pi");
}

int pc_rope_strict_freq_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *text, size_t tlen,
                              char *ev, size_t elen)
{
    sf_claim c;
    double ratio;
    if (!freq_claim(impl, cfg, &c) || !default_passes(impl, cfg, &ratio)) return 0;
    char claim[400];
    claim_text(&c, claim, sizeof claim);
    snprintf(text, tlen, "the frequencies are not %s: %s; the default class, which admits other "
             "formulations, passes (its worst err/bound %.3g)",
             c.hf ? "transformers' float32 ones" : "the correctly rounded fl(omega_i)", claim, ratio);
    snprintf(ev, elen, "for each of the %d pairs whose angles exceed what the %s class allows, "
             "the binary32 frequencies that keep every row's phase within u|theta| + %g u_s "
             "of pos*w (%lld rows) exclude %s", c.nfail, c.hf ? "hf" : "cr", SF_E_UNITS,
             (long long)(cfg->pos_hi - cfg->pos_lo + 1),
             c.hf ? "every frequency transformers' code can give" : "fl(omega_i)");
    return 1;
}

void pc_rope_strict_pass_note(const pc_impl *impl, const struct pc_spec *spec,
                              const pc_acc_cfg *cfg, char *buf, size_t len)
{
    buf[0] = '\0';
    const pc_rope_spec *s = pc_rope_spec_of(spec);
    const pc_table_info *t = pc_table_info_of(impl);
    /* a float32 table checked against a config under the default class */
    if (!s || !s->given.config || !t || cfg->strict || cfg->tol_abs >= 0 || cfg->storage
        || cfg->dtype != PC_DT_F32 || cfg->max_abs_err > 0 || !cfg->sched || !cfg->sched->params)
        return;
    pc_acc_cfg sc = *cfg;
    sc.strict = PC_CLASS_STRICT; /* a bare --strict: hf where transformers' code is known */
    sc.formulation = 0;
    sc.quiet = 1;
    sc.observe = NULL;
    sc.fit = NULL;
    sc.digest = NULL;
    void *own = NULL;
    pc_err e;
    pc_acc_result res;
    sf_claim c;
    if (pc_rope_form_apply(cfg->sched->params, &sc, &own, &e) == PC_OK && sc.form
        && pc_accuracy_run(impl, &sc, &res, &e) == PC_OK && res.status == PC_FAIL && !res.faulted
        && freq_claim(impl, &sc, &c)) {
        char claim[400];
        claim_text(&c, claim, sizeof claim);
        snprintf(buf, len, "--strict (the hf class: transformers' float32 frequency code) fails "
                 "these rows (its worst err/bound %.3g): %s", res.m.max_ratio, claim);
    }
    free(own);
}

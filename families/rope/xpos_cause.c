/* xpos_cause.c: the likely cause of a failed accuracy gate under xPos
 * (--rope-xpos, schedule_xpos.c), named first: the source's own scale and
 * angle, fitted from its pairs, against the check's.
 *
 * The source rotates (1, 0) on every pair at K positions spread over the
 * checked range.  Pair i's norm n_i(p) = G_i(p) = zeta_i^(sign (p + q0)/B)
 * for an xPos of some (B, q0, sign, zeta), so ln n_i(p) is a line in p of
 * slope sign ln(zeta_i) / B and intercept over slope q0.  A least-squares
 * line per pair gives the slopes; their ratios to pair 0's give zeta's
 * form (torchscale's (2i + c d) / ((1 + c) d), c = 0.4: another c changes
 * every ratio, another B none), then pair 0 gives B, q0 and the sign.  The
 * angle, atan2 of the pair (free of the norm), gives the rows' position
 * offset (pc_rope_fit_offset): rows of p + k.  When the norms are not lines
 * (the scale multiplied into cos or sin only), that scale is tried.  Every
 * cause is re-checked before it is named: the values the fitted xPos
 * predicts, A G (cos, sin), match the source's at every sampled pair and
 * row.  Otherwise no xPos cause: the other causes follow (likely.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fit.h"
#include "scaling.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/engine/accuracy.h"
#include "reference/reference.h"

#define XPOS_K 64 /* positions sampled: enough for a line, one call */
/* a pair's line fits when its residuals stay below this, in units of ln n
 * (a float32 norm's error is some 2^-22 relative) */
#define XPOS_FIT_TOL 1e-4
/* the slopes of the pairs agree with a zeta form when within this share
 * of pair 0's slope (float32 norms over >= 2 positions: some 1e-7) */
#define XPOS_SLOPE_TOL 1e-3
/* the re-check: the predicted value within this share of A max(G, 1) (a
 * float32 angle p omega at p < 2^16 is off by some 2^-24 p < 4e-3 rad;
 * a row one position off moves pair 0 by a radian) */
#define XPOS_RECHECK_TOL 1e-2
/* torchscale's zeta_i = (2i + 0.4 d) / (1.4 d) */
#define XPOS_C 0.4

typedef struct {
    int h;                    /* pairs */
    size_t n;                 /* rows */
    int64_t pos[XPOS_K];
    double *c, *s;            /* pair i of row r at [r h + i] */
} xrows;

/* A fitted xPos: G_i(p) = zeta_i(cz)^(sign (p + q0) / B) on cos (SCALED &
 * 1) and sin (SCALED & 2), the angle that of row p + KA. */
typedef struct {
    double b, q0, cz;
    int down, scaled;
    double ka;
} xmodel;

static double log_zeta(int d, int i, double cz)
{
    return log((2.0 * i + cz * d) / ((1.0 + cz) * d));
}

/* The source's rotation of (1, 0) on every pair at R's positions; 0 when
 * it answered. */
static int read_rows(const pc_impl *impl, const pc_acc_cfg *cfg, xrows *r)
{
    size_t dd = (size_t)cfg->d, n = r->n, h = (size_t)r->h;
    float *x = calloc(n * dd, sizeof *x), *out = malloc(n * dd * sizeof *out);
    int rc = !x || !out ? -1 : 0;
    for (size_t k = 0; rc == 0 && k < n; k++)
        for (size_t i = 0; i < h; i++) x[k * dd + (cfg->layout ? i : 2 * i)] = 1.0f;
    pc_fault fault = { 0, "" };
    if (rc == 0) rc = pc_call_rope(impl, &fault, r->pos, n, cfg->d, cfg->base, cfg->layout, x, out);
    if (fault.faulted) rc = -1;
    for (size_t k = 0; rc == 0 && k < n; k++)
        for (size_t i = 0; i < h; i++) {
            double a = (double)out[k * dd + (cfg->layout ? i : 2 * i)];
            double b = (double)out[k * dd + (cfg->layout ? i + h : 2 * i + 1)];
            if (!isfinite(a) || !isfinite(b) || !(hypot(a, b) > 0)) rc = -1;
            r->c[k * h + i] = a;
            r->s[k * h + i] = b;
        }
    free(x);
    free(out);
    return rc;
}

/* The line through pair I's ln n(p): slope *A, intercept *B; its worst
 * residual returned. */
static double norm_line(const xrows *r, int i, double *a, double *b)
{
    double sp = 0, sy = 0, spp = 0, spy = 0, dn = (double)r->n, worst = 0;
    size_t h = (size_t)r->h;
    for (size_t k = 0; k < r->n; k++) {
        double t = (double)r->pos[k], y = log(hypot(r->c[k * h + (size_t)i], r->s[k * h + (size_t)i]));
        sp += t; sy += y; spp += t * t; spy += t * y;
    }
    double var = spp - sp * sp / dn;
    *a = (spy - sp * sy / dn) / var;
    *b = (sy - *a * sp) / dn;
    for (size_t k = 0; k < r->n; k++) {
        double y = log(hypot(r->c[k * h + (size_t)i], r->s[k * h + (size_t)i]));
        worst = fmax(worst, fabs(y - (*a * (double)r->pos[k] + *b)));
    }
    return var > 0 ? worst : (double)INFINITY;
}

/* The worst relative mismatch of the slopes SL (d/2) with zeta's form CZ. */
static double form_miss(const double *sl, int d, double cz)
{
    double l0 = log_zeta(d, 0, cz), worst = 0;
    for (int i = 1; i < d / 2; i++)
        worst = fmax(worst, fabs(sl[i] - sl[0] * log_zeta(d, i, cz) / l0) / fabs(sl[0]));
    return worst;
}

/* zeta's form c that the slopes SL follow (torchscale's 0.4 first, then a
 * scan of c over [0.01, 4] refined to 1e-4, rounded to two decimals when
 * that fits as well); NaN when none does. */
static double fit_form(const double *sl, int d)
{
    if (d < 4 || form_miss(sl, d, XPOS_C) < XPOS_SLOPE_TOL) return XPOS_C;
    double best = (double)NAN, bm = (double)INFINITY;
    for (double c = 0.01; c <= 4.0; c += 0.01) {
        double m = form_miss(sl, d, c);
        if (m < bm) { bm = m; best = c; }
    }
    for (double c = best - 0.01; c <= best + 0.01; c += 1e-4) {
        double m = form_miss(sl, d, c);
        if (m < bm) { bm = m; best = c; }
    }
    double c2 = nearbyint(best * 100.0) / 100.0;
    if (form_miss(sl, d, c2) < XPOS_SLOPE_TOL) best = c2;
    return bm < XPOS_SLOPE_TOL || form_miss(sl, d, best) < XPOS_SLOPE_TOL ? best : (double)NAN;
}

/* The rows' angle offset k (rows of p + k) against OMEGA, the same whole
 * number at every row; NaN when the rows disagree. */
static double angle_offset(const xrows *r, const double *omega)
{
    size_t h = (size_t)r->h;
    double q = (double)NAN, eps = 0x1p-14; /* a float32 angle's error, past 2^10 rad */
    for (size_t k = 0; k < r->n; k++) {
        double qk = pc_rope_fit_offset(r->c + k * h, r->s + k * h, omega, r->h, (double)r->pos[k], eps);
        if (!isfinite(qk) || qk != nearbyint(qk) || (k > 0 && qk != q)) return (double)NAN;
        q = qk;
    }
    return q;
}

/* The re-check: M's values A G (cos, sin) at R's rows against the source's. */
static int reproduces(const xrows *r, const xmodel *m, int d, const double *omega, double att)
{
    size_t h = (size_t)r->h;
    for (size_t k = 0; k < r->n; k++)
        for (size_t i = 0; i < h; i++) {
            double p = (double)r->pos[k], e = (p + m->q0) / m->b;
            double g = exp((m->down ? -e : e) * log_zeta(d, (int)i, m->cz));
            double th = omega[i] * (p + m->ka);
            double wc = att * (m->scaled & 1 ? g : 1.0) * cos(th);
            double ws = att * (m->scaled & 2 ? g : 1.0) * sin(th);
            double tol = XPOS_RECHECK_TOL * att * fmax(g, 1.0);
            if (!(fabs(r->c[k * h + i] - wc) <= tol) || !(fabs(r->s[k * h + i] - ws) <= tol))
                return 0;
        }
    return 1;
}

/* What differs between the source's xPos M and the check's P. */
static void differences(const pc_rope_params *p, const xmodel *m, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = '\0';
    if (fabs(m->cz - XPOS_C) > 1e-3 && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%szeta_i = (2i + %.4g d) / (%.4g d), not (2i + 0.4 d) "
                              "/ (1.4 d): the scale buffer (arange(0, d, 2) + 0.4 d) / (1.4 d) "
                              "computed with %.4g in place of 0.4", u ? "; " : "", m->cz,
                              1.0 + m->cz, m->cz);
    if (fabs(m->b - p->xpos_base) > 1e-3 * p->xpos_base && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%sscale base %.6g, not %g (--rope-xpos)",
                              u ? "; " : "", m->b, p->xpos_base);
    if (fabs(m->q0 - (double)p->xpos_q0) > 0.5 && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%soffset q0 %.6g, not %lld%s", u ? "; " : "",
                              m->q0, (long long)p->xpos_q0, fabs(m->q0) < 0.5 ?
                              ": positions not centred (q = p; torchscale centres by "
                              "-(length + offset) // 2)" : " (--rope-xpos-offset)");
    if (m->down != p->xpos_down && u < len)
        snprintf(buf + u, len - u, "%s%s", u ? "; " : "", m->down ?
                 "the reciprocal scale, the keys' (downscale=True): pass --rope-xpos-downscale "
                 "for a key cache" : "the queries' scale, not the keys' reciprocal "
                 "(--rope-xpos-downscale given)");
}

/* The norms' account: M fitted from every pair's line; 1 when the lines
 * fit, 2 when the norm is constant (pair 0's into *CONST0), 0 otherwise. */
static int fit_norms(const xrows *r, int d, xmodel *m, double *const0)
{
    double *sl = malloc((size_t)r->h * sizeof *sl), b0 = 0;
    int ok = sl != NULL;
    for (int i = 0; ok && i < r->h; i++) {
        double a, b;
        if (norm_line(r, i, &a, &b) > XPOS_FIT_TOL) ok = 0;
        sl[i] = a;
        if (i == 0) b0 = b;
    }
    int rc = 0;
    if (ok && fabs(sl[0]) < 1e-9) { /* no slope: a constant norm */
        *const0 = exp(b0);
        rc = 2;
    } else if (ok && isfinite(m->cz = fit_form(sl, d))) {
        double l0 = log_zeta(d, 0, m->cz); /* < 0 */
        m->down = sl[0] / l0 < 0;
        m->b = fabs(l0 / sl[0]);
        m->q0 = b0 / sl[0];
        /* integers where the fit is that close to one (+ 0.0: no "-0") */
        if (fabs(m->q0 - nearbyint(m->q0)) < 0.05) m->q0 = nearbyint(m->q0) + 0.0;
        if (fabs(m->b - nearbyint(m->b)) < 1e-3 * m->b) m->b = nearbyint(m->b);
        m->scaled = 3;
        rc = 1;
    }
    free(sl);
    return rc;
}

/* The scale on one of cos, sin only, the check's xPos otherwise: M when
 * it reproduces R. */
static int one_sided(const xrows *r, const pc_rope_params *p, int d, const double *omega,
                     double att, xmodel *m)
{
    for (int sc = 1; sc <= 2; sc++) {
        xmodel t = { p->xpos_base, (double)p->xpos_q0, XPOS_C, p->xpos_down, sc, 0 };
        if (reproduces(r, &t, d, omega, att)) { *m = t; return 1; }
    }
    return 0;
}

static void name_cause(const pc_rope_params *p, const xmodel *m, size_t n, char *buf, size_t len)
{
    double k = m->ka;
    char diff[600];
    if (m->scaled != 3) {
        snprintf(buf, len, "the cache's xPos scale multiplies the %s only (the %s unscaled): "
                 "torchscale's apply_rotary_pos_emb scales both, x cos G + rotate_every_two(x) "
                 "sin G (re-checked at %zu positions, every pair)", m->scaled == 1 ? "cos" : "sin",
                 m->scaled == 1 ? "sin" : "cos", n);
        return;
    }
    xmodel late = *m;
    late.q0 -= k;
    differences(p, &late, diff, sizeof diff);
    if (k != 0 && !diff[0]) { /* scale and angle of the same row p + k */
        snprintf(buf, len, "the cache's rows are those of position p%+.0f: the angle and the xPos "
                 "scale both %.0f position%s %s, zeta_i^(%s(p%+.0f %+lld)/%g) (an off-by-one in "
                 "the positions; re-checked at %zu positions, every pair)", k, fabs(k),
                 fabs(k) == 1 ? "" : "s", k > 0 ? "late" : "early", p->xpos_down ? "-" : "", k,
                 (long long)p->xpos_q0, p->xpos_base, n);
        return;
    }
    differences(p, m, diff, sizeof diff);
    size_t u = 0;
    buf[0] = '\0';
    if (k != 0)
        u = (size_t)snprintf(buf, len, "the cache's angles are those of position p%+.0f while its "
                             "xPos scale is %s: the angle's positions are off by %+.0f%s", k,
                             diff[0] ? "another" : "that of p (the check's)", k,
                             diff[0] ? "; and " : " (re-checked at every pair)");
    if (diff[0] && u < len)
        snprintf(buf + u, len - u, "the cache's pairs have xPos norms zeta_i^(%s(p %+.6g)/%.6g) "
                 "(fitted on its %d pairs at %zu positions, re-checked), the check's are "
                 "zeta_i^(%s(p %+lld)/%g): %s", m->down ? "-" : "", m->q0, m->b, p->dim / 2, n,
                 p->xpos_down ? "-" : "", (long long)p->xpos_q0, p->xpos_base, diff);
}

int pc_rope_xpos_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len)
{
    const pc_rope_params *p = cfg->sched ? cfg->sched->params : NULL;
    if (!p || !(p->xpos_base > 0) || cfg->pos_hi <= cfg->pos_lo || cfg->d < 2) return 0;
    int64_t span = cfg->pos_hi - cfg->pos_lo;
    xrows r;
    r.h = cfg->d / 2;
    r.n = span + 1 < XPOS_K ? (size_t)span + 1 : XPOS_K;
    for (size_t k = 0; k < r.n; k++) r.pos[k] = cfg->pos_lo + span * (int64_t)k / (int64_t)(r.n - 1);
    r.c = malloc(r.n * (size_t)r.h * sizeof *r.c);
    r.s = malloc(r.n * (size_t)r.h * sizeof *r.s);
    double *omega = malloc((size_t)r.h * sizeof *omega);
    pc_freqs *fr = pc_freqs_new(cfg->d, *cfg->sched);
    int named = 0;
    if (r.c && r.s && omega && fr && read_rows(impl, cfg, &r) == 0) {
        for (int i = 0; i < r.h; i++) omega[i] = pc_freqs_omega(fr, i);
        double att = pc_freqs_attention(fr), c0;
        xmodel m;
        int f = fit_norms(&r, cfg->d, &m, &c0);
        if (f == 2) {
            snprintf(buf, len, "the cache's pairs have a norm constant in the position (pair 0: "
                     "%.6g): no xPos scale, or not torchscale's per-position zeta_i^((p + q0)/B)",
                     c0);
            named = 1;
        } else if (f == 1) {
            m.ka = angle_offset(&r, omega);
            if (isfinite(m.ka) && reproduces(&r, &m, cfg->d, omega, att)) {
                name_cause(p, &m, r.n, buf, len);
                named = buf[0] != '\0'; /* empty: the check's own xPos */
            }
        } else if (one_sided(&r, p, cfg->d, omega, att, &m)) {
            name_cause(p, &m, r.n, buf, len);
            named = 1;
        }
    }
    pc_freqs_free(fr);
    free(omega);
    free(r.c);
    free(r.s);
    return named;
}

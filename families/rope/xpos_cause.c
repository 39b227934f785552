/* xpos_cause.c: the likely cause of a failed accuracy gate under xPos
 * (--rope-xpos, schedule_xpos.c), named first: the source's own scale,
 * fitted from its pairs' norms, against the check's.
 *
 * The source rotates (1, 0) on pair 0 at K positions spread over the
 * checked range; its norm n(p) = G_0(p) = zeta_0^(sign (p + q0)/B) for an
 * xPos of some (B, q0, sign), so y(p) = ln n(p) / ln zeta_0 is a line in p:
 * slope sign / B, intercept sign q0 / B.  A least-squares line through the
 * K points gives the source's B', q0' and sign, compared with the
 * check's.  Pair 0 has the largest |ln zeta_i| (zeta_0 = 2/7), so its norm
 * moves most per position.  A line that does not fit (the norm is not a
 * power of zeta_0 linear in p) gives no xPos cause: the other causes
 * follow (likely.c). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fit.h"
#include "scaling.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/engine/accuracy.h"

#define XPOS_K 64 /* positions sampled: enough for a line, one call */
/* the line fits when its residuals stay below this, in units of y (a
 * float32 norm's error, some 2^-22 relative, is 2^-22 / ln 3.5 in y) */
#define XPOS_FIT_TOL 1e-4

/* y(p) of pair 0 at the K positions POS (N of them) into Y; 0 when the
 * source answered. */
static int norms(const pc_impl *impl, const pc_acc_cfg *cfg, const int64_t *pos, size_t n,
                 double *y)
{
    size_t dd = (size_t)cfg->d;
    float *x = calloc(n * dd, sizeof *x), *out = malloc(n * dd * sizeof *out);
    int ia = 0, ib = cfg->layout ? cfg->d / 2 : 1;
    int rc = !x || !out ? -1 : 0;
    for (size_t r = 0; rc == 0 && r < n; r++) x[r * dd + (size_t)ia] = 1.0f;
    pc_fault fault = { 0, "" };
    if (rc == 0) rc = pc_call_rope(impl, &fault, pos, n, cfg->d, cfg->base, cfg->layout, x, out);
    if (fault.faulted) rc = -1;
    double lz = pc_rope_xpos_log_zeta(cfg->d, 0);
    for (size_t r = 0; rc == 0 && r < n; r++) {
        double nr = hypot((double)out[r * dd + (size_t)ia], (double)out[r * dd + (size_t)ib]);
        if (!(nr > 0) || !isfinite(nr)) rc = -1;
        else y[r] = log(nr) / lz;
    }
    free(x);
    free(out);
    return rc;
}

/* What differs between the source's (B2, Q2, DOWN2) and the check's P. */
static void differences(const pc_rope_params *p, double b2, double q2, int down2, char *buf,
                        size_t len)
{
    size_t u = 0;
    buf[0] = '\0';
    if (fabs(b2 - p->xpos_base) > 1e-3 * p->xpos_base && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%sscale base %.6g, not %g (--rope-xpos)",
                              u ? "; " : "", b2, p->xpos_base);
    if (fabs(q2 - (double)p->xpos_q0) > 0.5 && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%soffset q0 %.6g, not %lld%s", u ? "; " : "",
                              q2, (long long)p->xpos_q0, fabs(q2) < 0.5 ?
                              ": positions not centred (q = p; torchscale centres by "
                              "-(length + offset) // 2)" : " (--rope-xpos-offset)");
    if (down2 != p->xpos_down && u < len)
        snprintf(buf + u, len - u, "%s%s", u ? "; " : "", down2 ?
                 "the reciprocal scale, the keys' (downscale=True): pass --rope-xpos-downscale "
                 "for a key cache" : "the queries' scale, not the keys' reciprocal "
                 "(--rope-xpos-downscale given)");
}

int pc_rope_xpos_cause(const pc_impl *impl, const pc_acc_cfg *cfg, char *buf, size_t len)
{
    const pc_rope_params *p = cfg->sched ? cfg->sched->params : NULL;
    if (!p || !(p->xpos_base > 0) || cfg->pos_hi <= cfg->pos_lo) return 0;
    int64_t span = cfg->pos_hi - cfg->pos_lo;
    size_t n = span + 1 < XPOS_K ? (size_t)span + 1 : XPOS_K;
    int64_t pos[XPOS_K];
    double y[XPOS_K];
    for (size_t k = 0; k < n; k++) pos[k] = cfg->pos_lo + span * (int64_t)k / (int64_t)(n - 1);
    if (norms(impl, cfg, pos, n, y) != 0) return 0;
    double sp = 0, sy = 0, spp = 0, spy = 0;
    for (size_t k = 0; k < n; k++) {
        double t = (double)pos[k];
        sp += t; sy += y[k]; spp += t * t; spy += t * y[k];
    }
    double dn = (double)n, var = spp - sp * sp / dn;
    double a = (spy - sp * sy / dn) / var, b = (sy - a * sp) / dn, worst = 0;
    for (size_t k = 0; k < n; k++) worst = fmax(worst, fabs(y[k] - (a * (double)pos[k] + b)));
    if (!(var > 0) || worst > XPOS_FIT_TOL) return 0;
    if (fabs(a) < 1e-9) { /* no slope: a constant norm */
        snprintf(buf, len, "the cache's pairs have a norm constant in the position (pair 0: "
                 "%.6g): no xPos scale, or not torchscale's per-position zeta_i^((p + q0)/B)",
                 exp(b * pc_rope_xpos_log_zeta(cfg->d, 0)));
        return 1;
    }
    int down2 = a < 0;
    double b2 = 1.0 / fabs(a), q2 = b / a;
    /* integers where the fit is that close to one (+ 0.0: no "-0") */
    if (fabs(q2 - nearbyint(q2)) < 0.05) q2 = nearbyint(q2) + 0.0;
    if (fabs(b2 - nearbyint(b2)) < 1e-3 * b2) b2 = nearbyint(b2);
    char diff[400];
    differences(p, b2, q2, down2, diff, sizeof diff);
    if (!diff[0]) return 0; /* the norms are the check's: the angles differ */
    snprintf(buf, len, "the cache's pairs have xPos norms zeta_i^(%s(p %+.6g)/%.6g) (fitted on "
             "pair 0 at %zu positions), the check's are zeta_i^(%s(p %+lld)/%g): %s",
             down2 ? "-" : "", q2, b2, n, p->xpos_down ? "-" : "", (long long)p->xpos_q0,
             p->xpos_base, diff);
    return 1;
}

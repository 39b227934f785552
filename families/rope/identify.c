/* identify.c: the schedule behind fitted RoPE frequencies (identify.h).
 *
 * Per pair the fit (fit.c) gives w~_i, good to 2 e / ((n - 1) w_i)
 * relatively; a formulation in binary32 adds at most 5e-5 (the largest
 * per-pair constant of docs/schedules.md, 339 u for llama3's band, is
 * 2.0e-5; 5e-5 leaves room).  Steps (docs/identify.md):
 *   1. the head (first quarter of the pairs, which no scaling but linear
 *      changes) fits ln w_i = c - (2i/d) ln B: the base, and for linear
 *      the factor e^-c;
 *   2. every pair on that line: default (or, when the base is not a round
 *      number, dynamic NTK: a round base raised by kappa^(d/(d-2)));
 *   3. otherwise the tail's ratio w_i / g_i = 1/factor and the pairs in
 *      between: YaRN when their mixing weight is linear in i, llama3 when
 *      it is linear in g_i;
 *   4. otherwise (the tail not resolved: a short or bfloat16 cache) the
 *      llama3 settings of released configs whose band fits;
 *   5. otherwise LongRoPE: a factor per pair, over the largest common base
 *      whose factors are >= 1 and non-decreasing.
 * The result is evaluated by pecheck's certified schedules and kept only
 * when it explains every resolved pair. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "identify.h"

#define ID_FORM_TOL 5e-5   /* binary32 formulations' frequency error (above) */
#define ID_MID 0.002       /* a mixing weight this far from 0 and 1 is inside a ramp or band */

/* Bases of released models, largest first (LongRoPE and dynamic NTK
 * candidates). */
static const double common_bases[] = { 1e7, 5e6, 1e6, 5e5, 1e5, 5e4, 1e4 };
#define N_COMMON (sizeof common_bases / sizeof common_bases[0])

static double geo(double b, int d, int i) { return exp(-2.0 * i / d * log(b)); }

/* The relative error of a fitted frequency W: the two end phases' error
 * over the span, each phase good to eps plus the binary32 angle's 2^-22 p w
 * at the rows' largest position (fit_ids.c's e(p); rows at position 520192
 * of a binary32 cache are off by up to 0.12 rad at w = 1, which eps alone
 * took as a schedule that is not geometric). */
static double fit_err(const pc_rope_fit *f, int i, double w)
{
    /* anchored at the rows' own positions (anchor.c): that line's error */
    if (f->omega_err && isfinite(f->omega_err[i])) return f->omega_err[i] / w;
    return 2.0 * (f->eps + 0x1p-22 * f->pos_max * w) / ((double)(f->n - 1) * w);
}

static int usable(const pc_rope_fit *f, int i) { return f->resolved[i] && f->omega[i] > 0; }

/* Least squares ln w_i = c - x_i ln B over the usable pairs in [I0, I1). */
static int line_fit(const pc_rope_fit *f, int d, int i0, int i1, double *c, double *lnb)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = i0; i < i1; i++) {
        if (!usable(f, i)) continue;
        double x = 2.0 * i / d, y = log(f->omega[i]);
        sx += x; sy += y; sxx += x * x; sxy += x * y; m++;
    }
    double den = m * sxx - sx * sx;
    if (m < 3 || !(fabs(den) > 0)) return 0;
    *lnb = -(m * sxy - sx * sy) / den;
    *c = (sy + *lnb * sx) / m;
    return 1;
}

/* Largest |w~_i / W_i - 1| less the fit's own error, over every pair: a
 * pair that turns too little to be resolved (its frequency not good to 1%)
 * still has |w~_i - W_i| within the same absolute error 2 e / (n - 1), which
 * W_i fit_err(W_i) is (a bfloat16 Llama 4 cache at 4096 positions: pairs
 * 36.. at 3.9e-5, known to 3.8e-6, rule out the unscaled 6.2e-4 that the
 * resolved pairs alone took). */
static double residual(const pc_rope_fit *f, const double *w)
{
    double r = 0;
    for (int i = 0; i < f->h; i++)
        if (isfinite(f->omega[i]) && w[i] > 0)
            r = fmax(r, fabs(f->omega[i] / w[i] - 1.0) - fit_err(f, i, w[i]));
    return r;
}

/* V rounded to 3 significant digits when within REL of it, else V. */
static double nice(double v, double rel)
{
    if (!(v > 0) || !isfinite(v)) return v;
    double p = pow(10.0, floor(log10(v)) - 2.0), r = round(v / p) * p;
    return fabs(r / v - 1.0) <= rel ? r : v;
}

/* B rounded to 2 significant digits (10000, 500000, 1e6, 5e6, 75000 ...)
 * when within 10^-4 of it, else NaN: a base of a released model.  10^-4 is
 * above the fit's error on the base (binary32 head pairs: below 10^-6) and
 * below the change of dynamic NTK at any factor and length (kappa >= 1 +
 * 1/L). */
static double round_base(double b)
{
    if (!(b > 1) || !isfinite(b)) return (double)NAN;
    double p = pow(10.0, floor(log10(b)) - 1.0), r = round(b / p) * p;
    return fabs(r / b - 1.0) <= 1e-4 ? r : (double)NAN;
}

/* The base B rounded to 2 significant digits when its geometric schedule,
 * times SCALE, explains every pair of F within the fit's error (rows far from
 * position 0 fit the base less closely than round_base's 10^-4: at
 * positions 520192.. of binary32, 1.4e-4), else NaN. */
static double round_base_fits(const pc_rope_fit *f, int d, double b, double scale)
{
    if (!(b > 1) || !isfinite(b)) return (double)NAN;
    double p = pow(10.0, floor(log10(b)) - 1.0), r = round(b / p) * p;
    double *w = malloc((size_t)f->h * sizeof *w);
    if (!w) return (double)NAN;
    for (int i = 0; i < f->h; i++) w[i] = scale * geo(r, d, i);
    int fits = residual(f, w) <= ID_FORM_TOL;
    free(w);
    return fits ? r : (double)NAN;
}

/* ---- dynamic NTK: base' = B kappa^(d/(d-2)), kappa = f s/L - (f - 1) ---- */

static void verify(pc_rope_ident *id, const pc_rope_fit *f);

/* A dynamic NTK reading of the geometric fit BFIT (BASE_HINT > 1: over
 * that base only): each (base, L, whole factor) candidate is kept only when
 * pecheck's schedule of it explains every resolved pair of F, the next one
 * tried otherwise (a whole factor over one base can be off by more than the
 * fit's error while another base's is exact); 0, ID as it was, when none. */
static int dynamic_of(pc_rope_ident *id, const pc_rope_fit *f, double bfit, double hint)
{
    double s = id->seq_len;
    pc_rope_ident keep = *id;
    for (size_t k = 0; k < N_COMMON; k++) {
        double b = hint > 1 ? hint : common_bases[k];
        double kappa = pow(bfit / b, (id->d - 2.0) / id->d);
        for (double L = 1024; kappa > 1.0 + 1e-6 && L < s; L *= 2) {
            double fac = (kappa - 1.0) / (s / L - 1.0);
            /* a whole factor >= 2 (released configs), the smallest L first */
            if (!(fac >= 1.999 && fabs(fac - round(fac)) < 1e-3 * fac)) continue;
            id->type = PC_ROPE_DYNAMIC;
            id->base = b; id->factor = round(fac); id->max_pos = L;
            verify(id, f);
            if (id->found) {
                snprintf(id->note, sizeof id->note, "dynamic NTK gives base' = base "
                         "kappa^(d/(d-2)) with kappa = %.6g: assumed the cache's length %.0f as the "
                         "sequence length and the first power-of-two max_position_embeddings giving "
                         "a whole factor", kappa, s);
                return 1;
            }
            *id = keep;
        }
        if (hint > 1) break;
    }
    return 0;
}

/* ---- yarn and llama3: between a head of ratio 1 and a tail of 1/factor ---- */

/* Least squares y = a + b x; returns the largest residual. */
static double lin2(const double *x, const double *y, int m, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, r = 0;
    for (int k = 0; k < m; k++) { sx += x[k]; sy += y[k]; sxx += x[k] * x[k]; sxy += x[k] * y[k]; }
    double den = m * sxx - sx * sx;
    *b = fabs(den) > 0 ? (m * sxy - sx * sy) / den : 0;
    *a = (sy - *b * sx) / m;
    for (int k = 0; k < m; k++) r = fmax(r, fabs(y[k] - *a - *b * x[k]));
    return r;
}

/* The betas tried for a YaRN ramp over pairs low..high, in order: HF's
 * defaults (32, 1: Qwen, DeepSeek, gpt-oss), equal betas (1, 1: Kimi-K2,
 * a ramp one pair wide), then the other powers of two up to 32, HF's
 * beta_slow 1 first (the ramp's ends fix only L0 / beta_fast and
 * L0 / beta_slow: betas and L0 all doubled compute the same cache). */
static const double yarn_betas[][2] = {
    { 32, 1 }, { 1, 1 }, { 16, 1 }, { 8, 1 }, { 4, 1 }, { 2, 1 }, { 32, 2 }, { 16, 2 }, { 8, 2 },
    { 4, 2 }, { 2, 2 }, { 4, 4 }, { 8, 8 }, { 16, 16 }, { 32, 32 }
};
#define N_YARN_BETAS (sizeof yarn_betas / sizeof yarn_betas[0])

/* The original lengths L0 in (*LO, *HI) that put the ramp's ends at LOW =
 * floor(corr(BF)) (clamped at 0) and HIGH = ceil(corr(BS)), corr(r) =
 * d ln(L0 / (2 pi r)) / (2 ln B); the power of two there, or 0. */
static double yarn_l0(const pc_rope_ident *id, double bf, double bs, double *lo, double *hi)
{
    double k = 2.0 * log(id->base) / id->d;
    *lo = fmax(id->yarn_low > 0 ? 2 * M_PI * bf * exp(k * id->yarn_low) : 0.0,
               2 * M_PI * bs * exp(k * (id->yarn_high - 1)));
    *hi = fmin(2 * M_PI * bf * exp(k * (id->yarn_low + 1)), 2 * M_PI * bs * exp(k * id->yarn_high));
    double L = 1024;
    while (L <= *lo && L < 1e9) L *= 2;
    return L > *lo && L < *hi ? L : 0.0;
}

/* YaRN whose ramp runs over pairs LO..HI: the first betas of yarn_betas
 * with a power-of-two original length. */
static void yarn_ends(pc_rope_ident *id, int lo, int hi)
{
    double l0lo = 0, l0hi = 0, L = 0;
    id->type = PC_ROPE_YARN;
    id->yarn_low = lo; id->yarn_high = hi;
    size_t k = 0;
    for (; k < N_YARN_BETAS && !(L > 0); k++) L = yarn_l0(id, yarn_betas[k][0], yarn_betas[k][1], &l0lo, &l0hi);
    if (!(L > 0)) { k = 1; (void)yarn_l0(id, 32, 1, &l0lo, &l0hi); }
    id->beta_fast = yarn_betas[k - 1][0]; id->beta_slow = yarn_betas[k - 1][1];
    id->orig_max = L > 0 ? L : round(0.5 * (l0lo + l0hi));
    snprintf(id->note, sizeof id->note, "ramp over pairs %d..%d; assumed beta_fast %g and beta_slow "
             "%g, which put original_max_position_embeddings in (%.0f, %.0f)%s", lo, hi,
             id->beta_fast, id->beta_slow, l0lo, l0hi, L > 0 ? ": the power of two there"
             : " (no power of two there for any betas tried)");
}

static void yarn_of(pc_rope_ident *id, double a, double b)
{
    /* weight of the unscaled frequency 1 - ramp = (high - i)/(high - low) */
    yarn_ends(id, (int)lround((1.0 - a) / b), (int)lround(-a / b));
}

/* A ramp at most one pair wide (pairs LAST1 and before at ratio 1, FIRST0
 * and after at the tail's, at most one between): YaRN with a ramp from
 * LAST1 to FIRST0 (equal betas give one pair; a llama3 band between two
 * pairs computes the same cache). */
static int step_of(pc_rope_ident *id, int last1, int first0)
{
    if (last1 < 0 || first0 - last1 < 1 || first0 - last1 > 2) return 0;
    yarn_ends(id, last1, first0);
    size_t u = strlen(id->note);
    snprintf(id->note + u, sizeof id->note - u, "; a step between two geometric parts (a llama3 "
             "band falling between two pairs gives the same cache)");
    return 1;
}

static void llama3_of(pc_rope_ident *id, double a, double b)
{
    /* s_i = (L g_i / (2 pi) - lf)/(hf - lf) = a g_i + b: L = 2 pi a D, lf = -b D, hf = lf + D */
    double bestL = 0, bestD = 0, bestScore = 1e9;
    for (double L = 1024; L <= 1048576; L *= 2) {
        double D = L / (2 * M_PI * a), lf = -b * D, hf = lf + D;
        double score = fabs(lf - round(2 * lf) / 2) + fabs(hf - round(2 * hf) / 2) + (fabs(lf - 1) > 1e-3);
        if (score < bestScore) { bestScore = score; bestL = L; bestD = D; }
    }
    id->type = PC_ROPE_LLAMA3;
    id->orig_max = bestL;
    id->lf = round(2 * -b * bestD) / 2;
    id->hf = round(2 * (-b * bestD + bestD)) / 2;
    snprintf(id->note, sizeof id->note, "the band fixes L/(hf - lf) = %.6g and lf/(hf - lf) = %.6g; "
             "assumed a power-of-two original length with low_freq_factor 1 where one fits",
             2 * M_PI * a, -b);
}

static int scaled_of(pc_rope_ident *id, const pc_rope_fit *f)
{
    int h = f->h, last = h - 1, m = 0;
    while (last > 0 && !usable(f, last)) last--;
    double rho = f->omega[last] / geo(id->base, id->d, last);
    if (!(rho < 1.0 - 1e-3)) return 0;
    /* the tail: at least two resolved pairs divided by the same factor (a
     * band or ramp seen only in part, e.g. in bfloat16, is not fitted) */
    int tail = 0;
    for (int i = last; i >= 0 && tail < 2; i--)
        if (usable(f, i)) {
            double t = fit_err(f, i, f->omega[i]) + ID_FORM_TOL;
            if (fabs(f->omega[i] / geo(id->base, id->d, i) / rho - 1.0) > t) break;
            tail++;
        }
    if (tail < 2) return 0;
    double *x = malloc((size_t)h * sizeof *x), *g = malloc((size_t)h * sizeof *g),
           *y = malloc((size_t)h * sizeof *y);
    if (!x || !g || !y) { free(x); free(g); free(y); return 0; }
    int last1 = -1, first0 = -1;
    for (int i = 0; i < h; i++) {
        if (!usable(f, i)) continue;
        double gi = geo(id->base, id->d, i), s = (f->omega[i] / gi - rho) / (1.0 - rho);
        if (s > ID_MID && s < 1.0 - ID_MID) { x[m] = i; g[m] = gi; y[m] = s; m++; }
        if (s >= 1.0 - ID_MID && first0 < 0) last1 = i;
        if (s <= ID_MID && first0 < 0) first0 = i;
    }
    double ay, by, al, bl;
    double ry = m >= 2 ? lin2(x, y, m, &ay, &by) : 1, rl = m >= 2 ? lin2(g, y, m, &al, &bl) : 1;
    free(x); free(g); free(y);
    id->factor = nice(1.0 / rho, 1e-3);
    if (m < 2) return step_of(id, last1, first0);
    /* three or more pairs tell the shapes apart; two fit both: the norm decides */
    if (m >= 3 ? ry < rl : fabs(id->att - 1.0) > 1e-4) yarn_of(id, ay, by);
    else llama3_of(id, bl, al);
    return 1;
}

/* ---- longrope: a factor per pair ------------------------------------------ */

/* Pair I's frequency for a factor of its own: the least-squares slope
 * when the fit made one (a float16 cache's end phases leave a resolved
 * pair's frequency 7e-4 off at 8192 rows, enough for check to fail the
 * factor; the slope averages the rows' rounding errors), else the fit's. */
static double own_omega(const pc_rope_fit *f, int i)
{
    return f->omega_ls && isfinite(f->omega_ls[i]) ? f->omega_ls[i] : f->omega[i];
}

static int longrope_of(pc_rope_ident *id, const pc_rope_fit *f, double hint)
{
    id->ext = malloc((size_t)f->h * sizeof *id->ext);
    if (!id->ext) return 0;
    for (size_t k = 0; k < N_COMMON; k++) {
        double b = hint > 1 ? hint : common_bases[k];
        int ok = 1;
        double prev = 0;
        for (int i = 0; i < f->h && ok; i++) {
            /* a pair too slow to be resolved: its measured frequency where
             * it keeps the factors non-decreasing, else the last factor */
            double w = own_omega(f, i);
            double e = usable(f, i) ? geo(b, id->d, i) / w
                     : w > 0 ? fmax(prev, geo(b, id->d, i) / w) : prev;
            double t = usable(f, i) ? fit_err(f, i, f->omega[i]) + ID_FORM_TOL : 0;
            ok = e >= 1.0 - t && e >= prev * (1.0 - t);
            /* HF keeps the factors as binary32; one within the fit's error
             * below 1 is 1 (check takes factors >= 1 only) */
            id->ext[i] = fmax(1.0, (double)(float)e);
            prev = fmax(prev, e);
        }
        if (ok) {
            id->type = PC_ROPE_LONGROPE;
            id->base = b;
            id->orig_max = id->seq_len;
            int n = snprintf(id->note, sizeof id->note, "a factor per pair: base %g is the largest "
                             "common base whose factors are >= 1 and non-decreasing; one cache shows "
                             "one factor set (given as both short and long) and the attention factor, "
                             "not factor or the original length", b);
            if (id->resolved < f->h && n > 0 && (size_t)n < sizeof id->note)
                snprintf(id->note + n, sizeof id->note - (size_t)n, "; %d pairs unresolved: "
                         "factors of their measured frequencies", f->h - id->resolved);
            return 1;
        }
        if (hint > 1) break;
    }
    return 0;
}

/* ---- the certified check of the result ------------------------------------ */

static void verify(pc_rope_ident *id, const pc_rope_fit *f)
{
    pc_rope_params p;
    pc_err err = { "" };
    id->found = 0;
    id->refused = 0;
    if (pc_rope_ident_params(id, &p, &err) != PC_OK) { id->refused = 1; return; }
    pc_freqs *fr = pc_freqs_new(id->d, pc_rope_schedule(&p));
    double *w = malloc((size_t)f->h * sizeof *w);
    if (fr && w) {
        for (int i = 0; i < f->h; i++) w[i] = pc_freqs_omega(fr, i);
        id->resid = residual(f, w);
        double a = pc_freqs_attention(fr);
        /* the schedule's own attention factor within a few storage units */
        if (!id->att_given && fabs(id->att / a - 1.0) > 4 * f->eps) {
            id->att_given = 1;
        }
        id->found = id->resid <= ID_FORM_TOL;
    }
    free(w);
    pc_freqs_free(fr);
    pc_rope_params_free(&p);
}

/* The llama3 settings of released configs (rope_scaling of
 * meta-llama/Llama-3.1-8B, -70B, -405B and Llama-3.3-70B: factor 8;
 * Llama-3.2-1B and -3B: factor 32; low_freq_factor 1, high_freq_factor 4,
 * original_max_position_embeddings 8192 in each; Llama-4-Scout and
 * -Maverick's text_config: factor 16, low and high 1, a step at 8192).  Over positions too
 * few for the pairs divided by the whole factor to turn (a bfloat16
 * cache, a short one), the band alone is seen: the factor the band's
 * resolved pairs fit among these is named, saying it was assumed. */
static const double released_llama3[][4] = { { 8, 1, 4, 8192 }, { 32, 1, 4, 8192 },
                                              { 16, 1, 1, 8192 } };
static const char *const released_llama3_names[] = { "3.1, 3.3", "3.2", "4" };

static int released_llama3_of(pc_rope_ident *id, const pc_rope_fit *f)
{
    pc_rope_ident keep = *id;
    for (size_t k = 0; k < sizeof released_llama3 / sizeof released_llama3[0]; k++) {
        id->type = PC_ROPE_LLAMA3;
        id->factor = released_llama3[k][0];
        id->lf = released_llama3[k][1];
        id->hf = released_llama3[k][2];
        id->orig_max = released_llama3[k][3];
        verify(id, f);
        if (id->found) {
            snprintf(id->note, sizeof id->note, "the pairs past the band turn too little over "
                     "these positions to be resolved (%d of %d resolved): llama3 with the scaling "
                     "of a released config whose band fits (factor %g, low_freq_factor %g, "
                     "high_freq_factor %g, original length %g: Llama %s)", id->resolved, f->h,
                     id->factor, id->lf, id->hf, id->orig_max, released_llama3_names[k]);
            return 1;
        }
        *id = keep;
    }
    return 0;
}

static pc_status identify_body(const pc_rope_fit *f, int d, double seq_len, double base_hint,
                               pc_rope_ident *id)
{
    memset(id, 0, sizeof *id);
    id->d = d; id->seq_len = seq_len; id->factor = 1.0;
    id->att = pc_rope_fit_amp(f);
    for (int i = 0; i < f->h; i++) id->resolved += usable(f, i);
    double c = 0, lnb = 0;
    if (!line_fit(f, d, 0, f->h / 4 > 3 ? f->h / 4 : f->h, &c, &lnb)) {
        snprintf(id->note, sizeof id->note, "too few pairs turn enough over the positions to fit a base");
        return PC_OK;
    }
    id->base_fit = exp(lnb);
    double rb = round_base(id->base_fit);
    /* the head's scale e^c as linear scaling's round factor (1: none) */
    if (!isfinite(rb)) rb = round_base_fits(f, d, id->base_fit, 1.0 / nice(exp(-c), 1e-3));
    id->base = base_hint > 1 ? base_hint : isfinite(rb) ? rb : id->base_fit;
    double *w = malloc((size_t)f->h * sizeof *w);
    if (!w) return PC_ENOMEM;
    for (int i = 0; i < f->h; i++) w[i] = exp(c) * geo(id->base_fit, d, i);
    int geometric = residual(f, w) <= ID_FORM_TOL;
    free(w);
    if (geometric && fabs(exp(-c) - 1.0) > 1e-4) {
        id->type = PC_ROPE_LINEAR;
        id->factor = nice(exp(-c), 1e-3);
    } else if (geometric) {
        id->type = PC_ROPE_DEFAULT;
        int given = base_hint > 1 && fabs(base_hint / id->base_fit - 1.0) <= 1e-4;
        if (!(isfinite(rb) && base_hint <= 1) && !given && !dynamic_of(id, f, id->base_fit, base_hint)) {
            /* no dynamic NTK reading explains it: the geometric schedule of
             * the fitted base itself (HunYuan's NTK alpha, base 10000
             * alpha^(d/(d-2)), is one) */
            id->base = id->base_fit;
            if (!(base_hint > 1))
                snprintf(id->note, sizeof id->note, "the base %.9g is not a round one and no "
                         "dynamic NTK factor over a common base explains the pairs: the fitted base "
                         "is given as it is", id->base_fit);
        }
    } else {
        /* a band or ramp between two geometric parts, else a factor per pair */
        if (scaled_of(id, f)) verify(id, f);
        if (id->found) return PC_OK;
        if (released_llama3_of(id, f)) return PC_OK;
        pc_rope_ident keep = *id;
        if (longrope_of(id, f, base_hint)) verify(id, f);
        if (!id->found && keep.type != PC_ROPE_DEFAULT) { pc_rope_ident_free(id); *id = keep; }
        return PC_OK;
    }
    verify(id, f);
    return PC_OK;
}

/* A closest schedule that pecheck's schedules refuse (check would exit 2
 * on it) is not proposed: the geometric fit of the head is, said in the
 * note. */
pc_status pc_rope_identify(const pc_rope_fit *f, int d, double seq_len, double base_hint,
                           pc_rope_ident *id)
{
    pc_status st = identify_body(f, d, seq_len, base_hint, id);
    if (st != PC_OK || !id->refused) return st;
    char was[200];
    pc_rope_ident_describe(id, was, sizeof was);
    pc_rope_ident_free(id);
    id->type = PC_ROPE_DEFAULT;
    id->base = id->base_fit;
    id->factor = 1.0;
    id->att_given = 0;
    snprintf(id->note, sizeof id->note, "the closest schedule found (%.150s) is not one pecheck's "
             "schedules take: the geometric fit of the high-frequency pairs is given instead", was);
    verify(id, f);
    return PC_OK;
}

void pc_rope_ident_free(pc_rope_ident *id)
{
    free(id->ext);
    id->ext = NULL;
}

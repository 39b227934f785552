/* polish.c: the identified schedule's continuous parameters refitted to
 * frequencies anchored at the rows' own positions (pc_rope_ident_polish,
 * identify.h).
 *
 * identify.c names a schedule whose frequencies agree with the fit's to
 * 5e-5 (binary32 formulations' room), rounding what it can (a base to 2
 * digits, a factor to 3, an original length to a power of two).  Rows far
 * from position 0 hold the angle p w, so check holds the frequencies to
 * a few binary32 units there: 64 rows at 520000 of base 123456.7 fail the
 * gate under the fit's 123472.  Anchored frequencies (anchor.c) are good
 * to e(p)/p: the base, factor, ramp or band are fitted to them by weighted
 * least squares (weights their errors), and the candidate is kept when it
 * is closer to them, in units of their errors, than what identify named. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "identify.h"

/* Largest |w_i - W_i| / err_i over the anchored pairs: how far ID's
 * schedule is from the anchored frequencies, in their errors (INFINITY:
 * the schedule is refused). */
static double score(const pc_rope_fit *f, const pc_rope_ident *id)
{
    pc_rope_params p;
    pc_err e = { "" };
    if (pc_rope_ident_params(id, &p, &e) != PC_OK) return (double)INFINITY;
    pc_freqs *fr = pc_freqs_new(id->d, pc_rope_schedule(&p));
    double worst = fr ? 0 : (double)INFINITY;
    for (int i = 0; fr && i < f->h; i++) {
        /* an unanchored pair: the fit's own error (identify.c's fit_err) */
        double ei = isfinite(f->omega_err[i]) ? f->omega_err[i]
                 : 2.0 * (f->eps + 0x1p-22 * f->pos_max * f->omega[i]) / (double)(f->n - 1);
        if (f->omega[i] > 0 && isfinite(f->omega[i]))
            worst = fmax(worst, fabs(pc_freqs_omega(fr, i) - f->omega[i]) / fmax(ei, 1e-300));
    }
    pc_freqs_free(fr);
    pc_rope_params_free(&p);
    return worst;
}

static double geo(double b, int d, int i) { return exp(-2.0 * i / d * log(b)); }

/* Weighted least squares of -ln w_i = x_i lnB + t_i lnF over the anchored
 * pairs of class CLS[i] (0 head: t 0; 1 tail: t 1; else left out); TWO:
 * fit lnF too (else lnF 0).  0 when too few pairs. */
static int fit_base_factor(const pc_rope_fit *f, int d, const int *cls, int two, double *lnb,
                           double *lnf)
{
    double a11 = 0, a12 = 0, a22 = 0, b1 = 0, b2 = 0;
    int m = 0;
    for (int i = 1; i < f->h; i++) {
        if (!isfinite(f->omega_err[i]) || (cls && cls[i] != 0 && cls[i] != 1)) continue;
        double x = 2.0 * i / d, t = cls ? cls[i] : 0, y = -log(f->omega[i]);
        double sg = f->omega_err[i] / f->omega[i], wt = 1.0 / fmax(sg * sg, 1e-300);
        a11 += wt * x * x; a12 += wt * x * t; a22 += wt * t * t;
        b1 += wt * x * y; b2 += wt * t * y;
        m++;
    }
    if (m < (two ? 2 : 1)) return 0;
    if (!two) { *lnb = b1 / a11; *lnf = 0; return a11 > 0; }
    double det = a11 * a22 - a12 * a12;
    if (!(fabs(det) > 0)) return 0;
    *lnb = (b1 * a22 - b2 * a12) / det;
    *lnf = (a11 * b2 - a12 * b1) / det;
    return 1;
}

/* Each pair's class under ID's base and factor: 0 at ratio 1 (head), 1 at
 * 1/factor (tail), 2 between (ramp or band), -1 not anchored. */
static void classes(const pc_rope_fit *f, const pc_rope_ident *id, double tol, int *cls)
{
    for (int i = 0; i < f->h; i++) {
        double r = f->omega[i] / geo(id->base, id->d, i);
        cls[i] = !isfinite(f->omega_err[i]) ? -1 : fabs(r - 1.0) < tol ? 0
               : fabs(r * id->factor - 1.0) < tol ? 1 : 2;
    }
}

/* The classes' tolerances, pass by pass: a start off by 2e-4 in its base
 * (the fit's head line) puts its head and tail within 2e-3; once refitted,
 * 1e-4; the last, 2e-5, above binary32 formulations' error at the ends
 * (a few units) and below the first step into a ramp or band. */
static const double class_tol[] = { 2e-3, 1e-4, 2e-5 };

/* The line s_i = a + b x_i (x_i: i, or g_i with G) over the class-2 pairs
 * of mixing weight s_i = (w_i/g_i - 1/F)/(1 - 1/F); 0 under two pairs. */
static int mix_line_of(const pc_rope_fit *f, const pc_rope_ident *id, const int *cls, int g,
                       int coarse, double *a, double *b)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    int m = 0;
    for (int i = 0; i < f->h; i++) {
        double gi = geo(id->base, id->d, i), s = (f->omega[i] / gi - 1.0 / id->factor)
                                                / (1.0 - 1.0 / id->factor);
        /* COARSE: the unanchored pairs inside the ramp or band too (the
         * fit's frequencies: a start for anchoring them at the model's) */
        if (cls[i] != 2 && !(coarse && cls[i] < 0 && s > 0.002 && s < 0.998)) continue;
        double x = g ? gi : (double)i;
        sx += x; sy += s; sxx += x * x; sxy += x * s; m++;
    }
    double den = m * sxx - sx * sx;
    if (m < 2 || !(fabs(den) > 0)) return 0;
    *b = (m * sxy - sx * sy) / den;
    *a = (sy - *b * sx) / m;
    return 1;
}

static int mix_line(const pc_rope_fit *f, const pc_rope_ident *id, const int *cls, int g,
                    double *a, double *b)
{
    return mix_line_of(f, id, cls, g, 0, a, b) || mix_line_of(f, id, cls, g, 1, a, b);
}

/* YaRN's ramp from LOW to HIGH (weight 1 - ramp = (high - i)/(high - low)):
 * integers (HF's truncate) when the line puts both within 0.01 of one, else
 * as they are (truncate false); the betas that put them there under the
 * original length kept (HF's corr(beta) = d ln(L0 / (2 pi beta)) / (2 ln B):
 * a truncated end mid-way in its unit). */
/* Betas of released and tested configs, HF's defaults (32, 1) first. */
static const double round_betas[][2] = {
    { 32, 1 }, { 16, 1 }, { 24, 1 }, { 8, 1 }, { 32, 2 }, { 16, 2 }, { 24, 2 }, { 32, 0.5 },
    { 16, 0.5 }, { 24, 0.5 }, { 1, 1 }
};

/* A truncated ramp's ends LOW, HIGH (HF: max(floor(corr(beta_fast)), 0) and
 * min(ceil(corr(beta_slow)), d - 1)) from round betas and a power-of-two
 * original length, when some give them: they compute the same cache as
 * the fitted ones; 1 when found. */
static int yarn_round(pc_rope_ident *id, long low, long high)
{
    double k = 2.0 * log(id->base) / id->d;
    for (size_t j = 0; j < sizeof round_betas / sizeof round_betas[0]; j++)
        for (double L0 = 1024; L0 <= 1048576; L0 *= 2) {
            double cf = log(L0 / (2 * M_PI * round_betas[j][0])) / k;
            double cs = log(L0 / (2 * M_PI * round_betas[j][1])) / k;
            if (fmax(floor(cf), 0) != (double)low || fmin(ceil(cs), id->d - 1) != (double)high)
                continue;
            id->orig_max = L0;
            id->beta_fast = round_betas[j][0];
            id->beta_slow = round_betas[j][1];
            return 1;
        }
    return 0;
}

static void yarn_ramp(pc_rope_ident *id, double a, double b)
{
    double low = (1.0 - a) / b, high = -a / b;
    int whole = fabs(low - round(low)) < 0.01 && fabs(high - round(high)) < 0.01;
    double L0 = id->orig_max > 0 ? id->orig_max : 4096, k = 2.0 * log(id->base) / id->d;
    double cl = whole ? round(low) + 0.5 : low, ch = whole ? round(high) - 0.5 : high;
    id->no_truncate = !whole;
    id->yarn_low = (int)lround(low); id->yarn_high = (int)lround(high);
    id->orig_max = L0;
    id->beta_fast = L0 / (2 * M_PI) * exp(-k * cl);
    id->beta_slow = L0 / (2 * M_PI) * exp(-k * ch);
    if (whole) (void)yarn_round(id, lround(low), lround(high));
}

/* llama3's band s = (L g / (2 pi) - lf)/(hf - lf) = a + b g: a power-of-two
 * L giving lf and hf in halves (every released and tested config), else
 * the original length kept and lf, hf as the line gives them. */
static void llama3_band(pc_rope_ident *id, double a, double b)
{
    double L0 = id->orig_max > 0 ? id->orig_max : 8192;
    for (double L = 1024; L <= 1048576; L *= 2) {
        double D = L / (2 * M_PI * b), lf = -a * D, hf = lf + D;
        if (fabs(lf - round(2 * lf) / 2) < 1e-4 && fabs(hf - round(2 * hf) / 2) < 1e-4 && lf > 0) {
            id->orig_max = L; id->lf = round(2 * lf) / 2; id->hf = round(2 * hf) / 2;
            return;
        }
    }
    double D = L0 / (2 * M_PI * b);
    id->orig_max = L0; id->lf = -a * D; id->hf = id->lf + D;
}

/* A factor per pair over the largest common base whose factors are all
 * >= 1 (a cache of random factors has no non-decreasing set). */
static int longrope_any(const pc_rope_fit *f, pc_rope_ident *id)
{
    static const double bases[] = { 1e7, 5e6, 1e6, 5e5, 1e5, 5e4, 1e4, 1e3, 100 };
    double *ext = malloc((size_t)f->h * sizeof *ext);
    if (!ext) return 0;
    for (size_t k = 0; k < sizeof bases / sizeof bases[0]; k++) {
        int ok = 1;
        for (int i = 0; i < f->h && ok; i++) {
            ext[i] = f->omega[i] > 0 ? geo(bases[k], id->d, i) / f->omega[i] : (double)NAN;
            double t = isfinite(f->omega_err[i]) ? f->omega_err[i] / f->omega[i] : 5e-5;
            ok = ext[i] >= 1.0 - t;
            ext[i] = fmax(1.0, ext[i]);
        }
        if (ok) {
            free(id->ext);
            id->ext = ext;
            id->type = PC_ROPE_LONGROPE;
            id->base = bases[k];
            id->factor = 1.0;
            id->orig_max = id->seq_len;
            id->att_given = 1; /* the norm: factor 1 has no attention factor of its own */
            return 1;
        }
    }
    free(ext);
    return 0;
}

/* ID's base and factor refitted: head pairs (and tail ones, CLS) */
static int refit_base(const pc_rope_fit *f, pc_rope_ident *c, const int *cls, int two)
{
    double lnb, lnf;
    if (!fit_base_factor(f, c->d, cls, two, &lnb, &lnf)) return 0;
    c->base = exp(lnb);
    if (two) c->factor = exp(lnf);
    return 1;
}

/* Base and factor to start a scaled reading from when ID is another type:
 * the base of the fastest anchored pairs, the slowest anchored pair's
 * ratio to it as 1/factor. */
static int scaled_start(const pc_rope_fit *f, pc_rope_ident *c)
{
    int last = f->h - 1;
    while (last > 0 && !isfinite(f->omega_err[last])) last--;
    if (last < 2) return 0;
    /* the fastest anchored pairs (unscaled in YaRN and llama3) give the
     * base best; else the fit's head line */
    double sum = 0, b;
    int m = 0;
    for (int i = 1; i <= (f->h / 8 > 2 ? f->h / 8 : 2) && i < f->h; i++)
        if (isfinite(f->omega_err[i]) && f->omega[i] > 0) {
            sum += -log(f->omega[i]) * c->d / (2.0 * i);
            m++;
        }
    b = m ? exp(sum / m) : c->base_fit > 1 ? c->base_fit : c->base;
    c->base = b;
    c->factor = geo(b, c->d, last) / f->omega[last];
    return c->factor > 1.0 + 1e-4;
}

/* A candidate of type TYPE with its continuous parameters refitted to the
 * anchored frequencies, starting from ID's; 0 when none is made. */
static int candidate(const pc_rope_fit *f, const pc_rope_ident *id, int type, pc_rope_ident *c,
                     int *cls)
{
    *c = *id;
    c->ext = NULL;
    c->type = type;
    switch (type) {
    case PC_ROPE_DEFAULT:
        c->factor = 1.0;
        return refit_base(f, c, NULL, 0);
    case PC_ROPE_LINEAR:
        for (int i = 0; i < f->h; i++) cls[i] = isfinite(f->omega_err[i]) ? 1 : -1;
        return refit_base(f, c, cls, 1);
    case PC_ROPE_YARN: case PC_ROPE_LLAMA3: {
        double a, b;
        if (id->type != type) {
            c->yarn_low = c->yarn_high = 0;
            c->orig_max = 0;
            c->beta_fast = c->beta_slow = 0;
            c->no_truncate = 0;
            if (!scaled_start(f, c)) return 0;
        }
        for (int pass = 0; pass < 2; pass++) { /* classes from the refitted base again */
            classes(f, c, class_tol[pass], cls);
            if (!refit_base(f, c, cls, 1)) return 0;
        }
        classes(f, c, class_tol[2], cls);
        if (!mix_line(f, c, cls, type == PC_ROPE_LLAMA3, &a, &b)) return id->type == type;
        if (type == PC_ROPE_YARN) yarn_ramp(c, a, b);
        else llama3_band(c, a, b);
        /* YaRN's own attention factor, 0.1 ln factor + 1, unless the norm
         * is another (given) */
        c->att_given = type == PC_ROPE_YARN
                       && fabs(c->att / (0.1 * log(c->factor) + 1.0) - 1.0) > 4 * f->eps;
        return 1;
    }
    default:
        return 0;
    }
}

int pc_rope_ident_candidates(const pc_rope_fit *f, const pc_rope_ident *id, pc_rope_ident *out,
                             int max)
{
    if (!f->omega_err || max < 1) return 0;
    int *cls = malloc((size_t)f->h * sizeof *cls);
    if (!cls) return 0;
    /* ID's own type first (its reading, refitted), then the others, the
     * simpler first; a factor per pair last (it explains any cache whose
     * first pair is not faster than 1) */
    const int types[] = { id->type, PC_ROPE_DEFAULT, PC_ROPE_LINEAR, PC_ROPE_YARN, PC_ROPE_LLAMA3 };
    int n = 0;
    for (size_t k = 0; k < sizeof types / sizeof types[0] && n < max; k++) {
        if (types[k] == PC_ROPE_LONGROPE || types[k] == PC_ROPE_DYNAMIC || (k > 0 && types[k] == id->type))
            continue;
        int made = candidate(f, id, types[k], &out[n], cls);
        if (made && isfinite(score(f, &out[n]))) n++;
    }
    if (n < max) {
        out[n] = *id;
        out[n].ext = NULL;
        if (longrope_any(f, &out[n])) n++;
    }
    free(cls);
    return n;
}

/* rank_checked.c: causes of a failed RoPE gate that are said only once
 * their prediction reproduces the source's rows (rank_internal.h's rows,
 * docs/diagnosis.md "Checked causes").
 *
 * Each names a map of the positions or of the frequencies, or a way of
 * computing cos or the stored value, that a library's code has been seen
 * to get wrong: positions floor(p / g) (a linear factor applied as integer
 * division), positions clamped to a table's last row, each frequency's
 * reciprocal (inv_freq passed where periods are expected), LongRoPE's
 * factors multiplied in instead of divided out, llama3's band edges mixed
 * up, cos as sin(theta + pi/2) in binary32, and a bfloat16 cache scaled
 * after its rounding.  Each predicts every value held; it is named when
 * that prediction reproduces RC_SHARE of them (and beats the checked
 * schedule), or, for the two whose differences lie below rank.c's
 * tolerance, when it reproduces RC_SHARE of the values the schedule
 * misses and as many of the others.
 * A claim made elsewhere is checked here too: a single scaling factor of
 * the schedule's account (fit.c), and float16's or bfloat16's grid of
 * positions (rank.c). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rank_checked.h"
#include "fit.h"
#include "scaling.h"
#include "harness/engine/accuracy.h"
#include "harness/sources/table.h"

/* The share of the values a checked cause must reproduce: the rest may be
 * values a binary32 kernel's own roundings put just outside the tolerance
 * (the same 0.9 as rank.c's constant phase and the period). */
#define RC_SHARE 0.9
/* Trailing rows that must repeat the last one, bit for bit, before a clamp
 * is looked for: no rotation repeats a row (pair 0 turns w_0 a position),
 * so 16 rows are no accident. */
#define RC_CLAMP_MIN 16
/* Values the schedule misses that a fine-grained cause must reproduce
 * (cos from a shifted sin, two bfloat16 roundings): fewer say nothing. */
#define RC_FINE_MIN 100

/* X rounded to binary32 */
static double f32(double x) { return (double)(float)x; }

/* X rounded to nearest even with BITS significant bits (binary32's
 * exponent range): bfloat16 8, float16 11 (its subnormals below 2^-14:
 * positions never reach them). */
static double rn_bits(double x, int bits)
{
    if (x == 0 || !isfinite(x)) return x;
    int e;
    frexp(x, &e);
    double q = ldexp(1.0, e - bits);
    return nearbyint(x / q) * q;
}

/* The share of the informative values (rank.c's: the tolerance of the
 * checked angle, and here of the predicted one too, below A / 10; -1 when
 * fewer than RC_FINE_MIN are) within the tolerance of the larger of the
 * checked and the predicted angle, plus the gate's phase budget there
 * (rank_rows.c's support_own: a source's roundings grow with the angle it
 * computes).  PRED gives the predicted angle of position P, pair I. */
typedef double (*angle_fn)(const rk *k, const void *arg, int64_t p, int i);

/* What a prediction reproduces: the share of the informative values, and
 * of the decisive ones (those where it and the checked schedule differ
 * beyond the tolerance) how many there are and how many it reproduces. */
typedef struct repro { double share; size_t dec, dhit; int pairs; } repro;

static repro share_angles(const rk *k, angle_fn ang, const void *arg)
{
    size_t ok = 0, used = 0;
    repro o = { 0.0, 0, 0, 0 };
    for (int i = 0; i < k->h; i++) {
        size_t before = used;
        for (size_t r = 0; r < k->n; r++) {
            double t = (double)k->pos[r] * k->w[i];
            if (!pc_rk_informative(k, pc_rk_tol(k, t))) continue;
            double tp = ang(k, arg, k->pos[r], i), big = fmax(fabs(t), fabs(tp));
            if (isnan(tp)) continue; /* a pair the prediction says nothing of */
            if (!pc_rk_informative(k, pc_rk_tol(k, big))) continue; /* says nothing either */
            double tol = pc_rk_tol(k, big) + k->att * pc_rk_gate_kappa(k, i) * 0x1p-24 * big;
            size_t a = r * (size_t)k->h + (size_t)i;
            int hit = hypot(k->c[a] - k->att * cos(tp), k->s[a] - k->att * sin(tp)) <= tol;
            used++;
            ok += (size_t)hit;
            if (hypot(cos(t) - cos(tp), sin(t) - sin(tp)) * k->att > tol) {
                o.dec++;
                o.dhit += (size_t)hit;
            }
        }
        o.pairs += used > before;
    }
    o.share = used >= RC_FINE_MIN ? (double)ok / (double)used : -1.0; /* -1: says nothing */
    return o;
}

/* Named only when it is informative in an eighth of the pairs (4 at
 * least) and reproduces RC_SHARE of the values and either 0.1
 * more than the checked schedule or, where the two differ in a few pairs
 * only, RC_SHARE of at least RC_FINE_MIN decisive values: the support,
 * else 0. */
static double checked_support(const rk *k, repro o)
{
    /* a prediction informative in a few pairs only says little: pair 0
     * (omega 1) turning 2 pi a position holds still, as any row does */
    if (o.pairs < (k->h / 8 > 4 ? k->h / 8 : 4)) return 0.0;
    if (!(o.share >= RC_SHARE && o.share > k->share0)) return 0.0;
    if (o.share >= k->share0 + PC_RK_MARGIN) return o.share;
    return o.dec >= RC_FINE_MIN && (double)o.dhit >= RC_SHARE * (double)o.dec ? o.share : 0.0;
}

/* ---- positions floor(p / g) ------------------------------------------------ */

/* The group size G when the first rows held repeat in groups of G
 * aligned on multiples of G (row p equal to row p + 1, bit for bit,
 * exactly when floor(p / G) = floor((p + 1) / G)); 0 otherwise. */
static int row_groups(const rk *k)
{
    size_t m = k->n < 1024 ? k->n : 1024, hb = (size_t)k->h * sizeof(double);
    for (int g = 2; g <= 64; g++) {
        int ok = 1, seen = 0;
        for (size_t r = 0; r + 1 < m && ok; r++) {
            if (k->pos[r + 1] != k->pos[r] + 1) break; /* the first block only */
            int same = !memcmp(k->c + r * (size_t)k->h, k->c + (r + 1) * (size_t)k->h, hb)
                       && !memcmp(k->s + r * (size_t)k->h, k->s + (r + 1) * (size_t)k->h, hb);
            int grouped = (k->pos[r] + 1) % g != 0;
            ok = same == grouped;
            seen += !grouped;
        }
        if (ok && seen >= 4) return g; /* four group edges at least */
    }
    return 0;
}

static double a_floor(const rk *k, const void *arg, int64_t p, int i)
{
    int64_t g = *(const int *)arg;
    int64_t q = (p >= 0 ? p : p - g + 1) / g * g;
    return f32(f32((double)q) * (double)k->w32[i]);
}

static void c_floor(const rk *k, pc_rope_causes *out)
{
    int g = row_groups(k);
    if (!g) return;
    double sup = checked_support(k, share_angles(k, a_floor, &g));
    if (!(sup > 0)) return;
    const pc_rope_params *p = k->cfg->sched ? k->cfg->sched->params : NULL;
    int lin = p && p->type == PC_ROPE_LINEAR && p->factor == (double)g;
    char t[520], e[260], what[160];
    snprintf(what, sizeof what, "the rows of positions %d*floor(p/%d)", g, g);
    pc_rk_evidence(e, sizeof e, k, sup, what);
    if (lin)
        snprintf(t, sizeof t, "the positions are floor(p/%d): the rows repeat in groups of %d from "
                 "position 0 (a staircase), row p holding position p // %d of the unscaled "
                 "schedule: the linear factor %d applied as integer division (p // %d, C's p / %d on "
                 "integers) instead of p / %d in floating point", g, g, g, g, g, g, g);
    else
        snprintf(t, sizeof t, "the rows repeat in groups of %d from a multiple of %d (a staircase): "
                 "row p holds position %d*floor(p/%d) of the schedule (positions quantized by "
                 "integer division, p // %d)", g, g, g, g, g);
    pc_rope_cause_add(out, sup, 1, t, e);
}

/* ---- positions clamped to a last row ------------------------------------------ */

/* Whether the row at position P of the source equals C, S (h pairs) bit
 * for bit; -1 when it cannot be read. */
static int row_is(const rk *k, int64_t p, const double *c, const double *s, double *bc, double *bs)
{
    if (pc_rope_unit_rows(k->impl, k->d, k->cfg->base, k->cfg->layout, p, 1, bc, bs)) return -1;
    size_t hb = (size_t)k->h * sizeof(double);
    return !memcmp(bc, c, hb) && !memcmp(bs, s, hb);
}

/* The first position from which every row equals the last one (read row
 * by row: a binary search, then every row after it checked): -1 when the
 * trailing rows do not repeat or the rows cannot be read. */
static int64_t clamp_start(const rk *k)
{
    size_t last = k->n - 1, hb = (size_t)k->h * sizeof(double);
    const double *lc = k->c + last * (size_t)k->h, *ls = k->s + last * (size_t)k->h;
    for (size_t r = last; r > last - RC_CLAMP_MIN; r--)
        if (k->pos[r - 1] != k->pos[r] - 1 || memcmp(k->c + (r - 1) * (size_t)k->h, lc, hb)
            || memcmp(k->s + (r - 1) * (size_t)k->h, ls, hb))
            return -1;
    double *bc = malloc(hb), *bs = malloc(hb);
    int64_t lo = k->cfg->pos_lo, hi = k->pos[last] - RC_CLAMP_MIN, at = -1;
    if (!bc || !bs) goto done;
    /* the first equal row in lo..hi (the rows equal from it on) */
    int e = row_is(k, lo, lc, ls, bc, bs);
    if (e < 0 || e == 1) goto done; /* every row the same: no rotation, rank.c's */
    while (hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if ((e = row_is(k, mid, lc, ls, bc, bs)) < 0) goto done;
        if (e) hi = mid; else lo = mid;
    }
    for (int64_t p = hi; p <= k->pos[last]; p++)
        if (row_is(k, p, lc, ls, bc, bs) != 1) goto done;
    at = hi;
done:
    free(bc); free(bs);
    return at;
}

static double a_clamp(const rk *k, const void *arg, int64_t p, int i)
{
    int64_t c = *(const int64_t *)arg;
    return f32(f32((double)(p < c ? p : c)) * (double)k->w32[i]);
}

static void c_clamp(const rk *k, pc_rope_causes *out)
{
    if (k->n < 2 * RC_CLAMP_MIN) return;
    int64_t at = clamp_start(k);
    if (at <= k->cfg->pos_lo) return;
    int64_t held = at; /* the last position the rows hold: every later row is its */
    double sup = checked_support(k, share_angles(k, a_clamp, &held));
    if (!(sup > 0)) return;
    char t[520], e[260], what[160];
    snprintf(what, sizeof what, "the rows of positions min(p, %lld)", (long long)held);
    pc_rk_evidence(e, sizeof e, k, sup, what);
    snprintf(t, sizeof t, "the positions are clamped to %lld: every row from position %lld to the "
             "last, %lld, is the row of %lld, bit for bit (the same row %lld times more; the rows "
             "before are the schedule's): a table of %lld rows (positions 0..%lld) read past its "
             "end by a gather that clamps the index (JAX's jnp.take/indexing, torch.clamp or "
             "mode=\"clip\"); build the cache for every position served", (long long)held,
             (long long)held + 1, (long long)k->cfg->pos_hi, (long long)held,
             (long long)(k->cfg->pos_hi - held), (long long)(held + 1), (long long)held);
    pc_rope_cause_add(out, sup, 1, t, e);
}

/* ---- each frequency's reciprocal ------------------------------------------------ */

/* pair I turns ARG / omega_i a position (1: inv_freq used as periods, an
 * API taking periods given frequencies; 2 pi: periods used as
 * frequencies), in binary32 as such a kernel computes it */
static double a_recip(const rk *k, const void *arg, int64_t p, int i)
{
    double num = *(const double *)arg;
    return f32(f32((double)p) * f32(f32(num) / (double)k->w32[i]));
}

static void c_recip(const rk *k, pc_rope_causes *out)
{
    static const double nums[2] = { 1.0, 2.0 * M_PI };
    for (int m = 0; m < 2; m++) {
        double sup = checked_support(k, share_angles(k, a_recip, &nums[m]));
        if (!(sup > 0)) continue;
        char t[520], e[260], what[160];
        snprintf(what, sizeof what, "pair i turning %s/omega_i a position", m ? "2 pi" : "1");
        pc_rk_evidence(e, sizeof e, k, sup, what);
        snprintf(t, sizeof t, "the frequencies are inverted: pair i turns %s/omega_i rad a position, "
                 "not the schedule's omega_i (pair 1: %.4g instead of %.4g; pair %d: %.4g instead of "
                 "%.4g), %s", m ? "2 pi" : "1", nums[m] / k->w[1], k->w[1], k->h - 1,
                 nums[m] / k->w[k->h - 1], k->w[k->h - 1], m
                 ? "the periods 2 pi/omega_i used as frequencies (wavelengths in place of inv_freq)"
                 : "the reciprocal of inv_freq: inv_freq passed where periods are expected (mlx's "
                   "mx.fast.rope takes freqs = periods base^(2i/d)), or 1/inv_freq computed twice");
        pc_rope_cause_add(out, sup, 1, t, e);
        return;
    }
}

/* ---- LongRoPE's factors multiplied in ---------------------------------------------- */

static double a_freqs(const rk *k, const void *arg, int64_t p, int i)
{
    const double *w = arg;
    (void)k;
    return f32(f32((double)p) * f32(w[i]));
}

static void c_longrope_mult(const rk *k, pc_rope_causes *out)
{
    const pc_rope_params *p = k->cfg->sched ? k->cfg->sched->params : NULL;
    if (!p || p->type != PC_ROPE_LONGROPE || !p->ext || p->dim != k->d) return;
    double *w = malloc((size_t)k->h * sizeof *w);
    if (!w) return;
    /* inv_freq / ext_i -> inv_freq * ext_i: the checked frequency times ext_i^2 */
    for (int i = 0; i < k->h; i++) w[i] = k->w[i] * p->ext[i] * p->ext[i];
    double sup = checked_support(k, share_angles(k, a_freqs, w));
    free(w);
    if (!(sup > 0)) return;
    char t[520], e[260];
    pc_rk_evidence(e, sizeof e, k, sup, "the frequencies times each pair's factor squared");
    snprintf(t, sizeof t, "the LongRoPE factors are inverted: the %s factors multiply the "
             "frequencies instead of dividing them (inv_freq * ext_factors, not inv_freq / "
             "ext_factors: 1/(ext * base^(2i/d)) written with the factor multiplied in): each "
             "pair's frequency is the schedule's times its factor squared (pair %d: x %.4g)",
             p->use_long ? "long" : "short", k->h - 1, p->ext[k->h - 1] * p->ext[k->h - 1]);
    pc_rope_cause_add(out, sup, 1, t, e);
}

/* ---- llama3's band edges ---------------------------------------------------------------- */

/* transformers' _compute_llama3_parameters with its first torch.where
 * against high_freq_wavelen (not low_freq_wavelen): the pairs of the
 * smooth band are divided by the factor before the smoothing, which
 * divides them again.  1 with W (h frequencies) when some pair moves. */
static int llama3_edge_high(const rk *k, const pc_rope_params *p, double *w)
{
    double f = p->factor, L = p->orig_max, lw = L / p->low_freq_factor, hw = L / p->high_freq_factor;
    int moved = 0;
    for (int i = 0; i < k->h; i++) {
        double inv = 1.0 / pow(p->base, 2.0 * i / k->d), wl = 2.0 * M_PI / inv;
        double first = wl > hw ? inv / f : inv;
        double sm = (L / wl - p->low_freq_factor) / (p->high_freq_factor - p->low_freq_factor);
        int medium = !(wl < hw) && !(wl > lw);
        w[i] = medium ? (1.0 - sm) * first / f + sm * first : first;
        moved += medium;
    }
    return moved > 0;
}

static void c_llama3_edge(const rk *k, pc_rope_causes *out)
{
    const pc_rope_params *p = k->cfg->sched ? k->cfg->sched->params : NULL;
    if (!p || p->type != PC_ROPE_LLAMA3 || p->dim != k->d || !(p->factor > 1)
        || !(p->high_freq_factor > p->low_freq_factor))
        return;
    double *w = malloc((size_t)k->h * sizeof *w);
    if (!w) return;
    double sup = llama3_edge_high(k, p, w) ? checked_support(k, share_angles(k, a_freqs, w)) : 0;
    int i0 = -1, i1 = -1;
    /* the pairs the swapped edges move: both frequencies are binary64
     * values of one formula (agreeing to ~1e-16 where the edge does not
     * touch them), and a moved pair is divided by the factor once more
     * (llama3_edge_high: a band pair's whole frequency over f; f is 8 in
     * Llama 3.1's config, 32 in Llama 3.2's; with f = 1 no pair moves):
     * 1e-6 tells the two apart with room on both sides */
    for (int i = 0; i < k->h; i++)
        if (fabs(w[i] / k->w[i] - 1.0) > 1e-6) { if (i0 < 0) i0 = i; i1 = i; }
    free(w);
    if (!(sup > 0) || i0 < 0) return;
    char t[520], e[260];
    pc_rk_evidence(e, sizeof e, k, sup, "llama3 with its first torch.where against "
                   "high_freq_wavelen");
    snprintf(t, sizeof t, "llama3's band edges are mixed up: the smooth band's pairs %d..%d "
             "(wavelength between original/high_freq_factor %g and original/low_freq_factor %g) "
             "are divided by the factor %g before the smoothing, as torch.where(wavelen > "
             "high_freq_wavelen, inv_freq / factor, inv_freq) does where low_freq_wavelen "
             "belongs: their frequencies are the smooth ones / %g", i0, i1,
             p->orig_max / p->high_freq_factor, p->orig_max / p->low_freq_factor, p->factor,
             p->factor);
    pc_rope_cause_add(out, sup, 1, t, e);
}

/* ---- cos from a shifted sin ------------------------------------------------------------- */

/* The values of pairs whose sin is the schedule's binary32 sin
 * sin(fl(p fl(omega_i))), within EPS, split by whether their cos is too:
 * the cos of those that are not, A sin(fl(theta + fl(pi/2))) (one
 * transcendental kernel for both, the sum rounding the angle to
 * binary32's grid at theta), counted in *HIT.  The return: how many cos
 * the schedule misses (*ALL: how many values the sin holds). */
static size_t shifted_cos(const rk *k, double eps, size_t *hit, size_t *all, size_t *agree)
{
    size_t miss = 0;
    *hit = *all = *agree = 0;
    double half_pi = f32(M_PI / 2.0);
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = f32(f32((double)k->pos[r]) * (double)k->w32[i]);
            if (!pc_rk_informative(k, pc_rk_tol(k, t))) continue;
            size_t a = r * (size_t)k->h + (size_t)i;
            if (!(fabs(k->s[a] - k->att * sin(t)) <= eps)) continue;
            double pc = k->att * sin(f32(t + half_pi));
            int ok = fabs(k->c[a] - pc) <= eps;
            (*all)++;
            *agree += (size_t)ok;
            if (fabs(k->c[a] - k->att * cos(t)) <= eps) continue;
            miss++;
            *hit += (size_t)ok;
        }
    return miss;
}

static void c_cos_shift(const rk *k, pc_rope_causes *out)
{
    if (k->cfg->storage) return; /* a stored type's rounding hides the shift's */
    /* binary32's cos and sin within 2 ulps, and the value's own rounding */
    double eps = k->att * (8.0 * k->u + 0x1p-23);
    size_t hit, all, agree, miss = shifted_cos(k, eps, &hit, &all, &agree);
    if (miss < RC_FINE_MIN || (double)hit < RC_SHARE * (double)miss
        || (double)agree < RC_SHARE * (double)all)
        return;
    char t[520], e[260];
    snprintf(e, sizeof e, "where sin is the schedule's binary32 sin, cos misses %zu values; "
             "A sin(fl(theta + fl(pi/2))) reproduces %zu of them, and %.1f%% of all %zu", miss,
             hit, 100.0 * (double)agree / (double)all, all);
    snprintf(t, sizeof t, "cos is evaluated inexactly: cos = sin(theta + pi/2) computed in float32 "
             "(the sum rounds the angle to float32's grid at theta, up to %.3g rad off at the "
             "largest angle), while sin is right: compute cos(theta) itself",
             0.5 * ldexp(1.0, (int)floor(log2((double)k->pos[k->n - 1] * k->w[0] + 2.0)) - 23));
    pc_rope_cause_add(out, (double)hit / (double)miss, 1, t, e);
}

/* ---- a bfloat16 cache scaled after its rounding ---------------------------------------------- */

static double rn_bf16(double x) { return rn_bits(f32(x), 8); }

/* Of the values where one rounding and two differ (the scale A32, then
 * bfloat16), how many the two reproduce (*DHIT), and of all how many
 * (*HIT, *ALL); the return: how many differ. */
static size_t bf16_twice(const rk *k, double a32, size_t *dhit, size_t *hit, size_t *all)
{
    size_t dec = 0;
    *dhit = *hit = *all = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = f32(f32((double)k->pos[r]) * (double)k->w32[i]);
            if (!pc_rk_informative(k, pc_rk_tol(k, t))) continue;
            double c = f32(cos(t)), s = f32(sin(t));
            double c1 = rn_bf16(c * f32(k->att)), s1 = rn_bf16(s * f32(k->att));
            double c2 = rn_bf16(rn_bf16(c) * a32), s2 = rn_bf16(rn_bf16(s) * a32);
            size_t a = r * (size_t)k->h + (size_t)i;
            int ok = k->c[a] == c2 && k->s[a] == s2;
            (*all)++;
            *hit += (size_t)ok;
            if (c1 == c2 && s1 == s2) continue;
            dec++;
            *dhit += (size_t)ok;
        }
    return dec;
}

static void c_bf16_twice(const rk *k, pc_rope_causes *out)
{
    if (!k->cfg->storage || k->u != 0x1p-8 || k->att == 1.0) return; /* bfloat16, scaled */
    /* the scale as a float32, or rounded to bfloat16 first: PyTorch's
     * bfloat16 tensor times a Python float rounds the float to bfloat16 */
    for (int m = 0; m < 2; m++) {
        double a32 = m ? rn_bf16(k->att) : f32(k->att);
        size_t dhit, hit, all, dec = bf16_twice(k, a32, &dhit, &hit, &all);
        if (dec < RC_FINE_MIN || (double)dhit < RC_SHARE * (double)dec
            || (double)hit < RC_SHARE * (double)all)
            continue;
        char t[520], e[260], rnd[80] = "";
        if (m) snprintf(rnd, sizeof rnd, " (itself rounded to bfloat16: %.9g)", a32);
        snprintf(e, sizeof e, "of %zu values where one bfloat16 rounding and two differ, two "
                 "reproduce %zu, and %.1f%% of all %zu values", dec, dhit,
                 100.0 * (double)hit / (double)all, all);
        snprintf(t, sizeof t, "the values are rounded to bfloat16 twice: cos and sin rounded to "
                 "bfloat16, then multiplied by the attention factor %.6g%s and rounded again "
                 "(cos.to(bfloat16) * attention_scaling), where the schedule's cache is scaled in "
                 "float32 and rounded once: double rounding; scale before the cast", k->att, rnd);
        pc_rope_cause_add(out, (double)dhit / (double)dec, 1, t, e);
        return;
    }
}

/* ---- claims made elsewhere, checked ------------------------------------------------------ */

int pc_rk_pos_grid_holds(const rk *k, int bits)
{
    size_t ok = 0, used = 0;
    for (size_t r = 0; r < k->n; r++) {
        double p = (double)k->pos[r];
        if (rn_bits(p, bits) != p) continue; /* the claim predicts the schedule's rows there */
        for (int i = 0; i < k->h; i++) {
            double t = p * k->w[i], tol = pc_rk_tol(k, t);
            if (!pc_rk_informative(k, tol)) continue;
            size_t a = r * (size_t)k->h + (size_t)i;
            used++;
            ok += hypot(k->c[a] - k->att * cos(t), k->s[a] - k->att * sin(t)) <= tol;
        }
    }
    return used < RC_FINE_MIN || (double)ok >= RC_SHARE * (double)used;
}

/* pairs I0..I1 at R times the schedule's frequencies */
typedef struct scaled { int i0, i1; double r; } scaled;

static double a_scaled(const rk *k, const void *arg, int64_t p, int i)
{
    const scaled *sc = arg;
    if (i < sc->i0 || i > sc->i1) return (double)NAN; /* the claim is about these pairs */
    return f32(f32((double)p) * f32(sc->r * k->w[i]));
}

/* The share R reproduces on the claimed pairs, R as printed (4 digits)
 * or the whole number or reciprocal of one within those digits (7.999
 * printed for 8): the best; -1 when the rows cannot tell. */
static double claim_share(const rk *k, scaled sc)
{
    double best = share_angles(k, a_scaled, &sc).share, r = sc.r;
    double near[2] = { round(r), r > 0 && r < 1 ? 1.0 / round(1.0 / r) : (double)NAN };
    for (int m = 0; m < 2; m++) {
        if (!(near[m] > 0) || fabs(near[m] / r - 1.0) > 5e-4 || near[m] == r) continue;
        sc.r = near[m];
        best = fmax(best, share_angles(k, a_scaled, &sc).share);
    }
    return best;
}

/* fit.c's "pairs I0..I1 have frequencies R times the schedule's: a wrong
 * scaling factor?" in a cause's text, re-checked on the rows: said as it
 * is when R on those pairs reproduces RC_SHARE of their values, rewritten
 * to what was observed otherwise (a fitted frequency is known modulo 2 pi
 * a position: rows that do not turn with the position, or turn faster
 * than pi a position, fit ratios no factor gives). */
static void check_factor_claim(const rk *k, pc_rope_cause *c)
{
    static const char tail[] = " times the schedule's: a wrong scaling factor?";
    char *end = strstr(c->text, tail), *at = NULL;
    if (!end) return;
    for (char *q = strstr(c->text, "pairs "); q && q < end; q = strstr(q + 1, "pairs ")) at = q;
    scaled sc;
    if (!at || sscanf(at, "pairs %d..%d have frequencies %lg", &sc.i0, &sc.i1, &sc.r) != 3) return;
    double sh = claim_share(k, sc);
    if (sh >= RC_SHARE || sh < 0) return; /* holds, or the rows cannot tell */
    char rest[520], now[1100];
    snprintf(rest, sizeof rest, "%s", end + strlen(tail));
    *at = '\0';
    int n = snprintf(now, sizeof now, "%spairs %d..%d fit frequencies %.4g times the schedule's, but that "
             "factor reproduces %.1f%% of the values: no single scaling factor explains the rows "
             "(a fit that aliases: rows that do not turn with the position, or frequencies above "
             "pi a position)%s", c->text, sc.i0, sc.i1, sc.r, 100.0 * sh, rest);
    if (n < 0) return;
    /* cut to the cause's room, as every cause's text is */
    size_t keep = strlen(now) < sizeof c->text ? strlen(now) : sizeof c->text - 1;
    memcpy(c->text, now, keep);
    c->text[keep] = '\0';
    /* the schedule's account without a schedule that reproduces the rows
     * (0.6) now says less; an identified schedule keeps its own support */
    if (c->support <= 0.6) c->support = 0.3;
}

void pc_rk_checked(const rk *k, pc_rope_causes *out)
{
    for (int j = 0; j < out->n; j++) check_factor_claim(k, &out->c[j]);
    c_floor(k, out);
    c_clamp(k, out);
    c_recip(k, out);
    c_longrope_mult(k, out);
    c_llama3_edge(k, out);
    c_cos_shift(k, out);
    c_bf16_twice(k, out);
}

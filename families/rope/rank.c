/* rank.c: hypotheses about a failed RoPE source, each held against the
 * source's own rotations (rank.h, docs/diagnosis.md).
 *
 * The rows: the source's rotation of (1, 0) in every pair, (A cos, A sin),
 * at up to RK_VALUES values of the checked range (its first rows, and its
 * last ones when the range is longer).  A hypothesis predicts each value;
 * it explains a value when the prediction is within a binary32 kernel's
 * error of it, TOL(theta) = A (8 u + 2^-21 + 8 2^-24 |theta|) (u: the
 * values' unit roundoff; the last term is the angle's roundings, |theta|
 * 2^-24 each: the frequency's, the product's, an addition's, with room
 * to spare).  A threshold for ranking explanations, never a verdict's
 * bound.
 * Values whose tolerance exceeds A / 10 (long context: the angle's own
 * rounding is that large) say nothing and are left out.  The support of a
 * hypothesis is the share of the informative values it explains, when
 * that beats the checked schedule's own share by 0.1 (else 0). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rank.h"
#include "fit.h"
#include "options.h"
#include "scaling.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"
#include "harness/sandbox/call.h"
#include "harness/sources/table.h"
#include "reference/reference.h"

#define RK_VALUES (1 << 18)  /* values held: 2 MiB of doubles, a few ms a hypothesis */
#define RK_BINS 128          /* angle bins of the evaluation test */
/* A constant added to every angle predicts every value: it is named only
 * when, fitted (mean_turn) and put back into every angle, it reproduces at
 * least this share of the informative values within the gate's own phase
 * budget (re_share), and 0.1 more than the checked schedule does there.
 * An angle error that grows with the angle (a frequency's rounding
 * repeated pair after pair, as in a cumulative product) has a mean turn
 * too, which reproduces only the values near it. */
#define RK_PHASE_SHARE 0.9

enum { FMT_F32 = 0, FMT_BF16, FMT_F16 };
static const char *const fmt_name[] = { "float32", "bfloat16", "float16" };
static const char *const fmt_opt[] = { "f32", "bf16", "f16" };

typedef struct rk {
    const pc_impl *impl;
    const pc_acc_cfg *cfg;
    int h, d, table;
    size_t n;                 /* rows held */
    int64_t *pos;             /* their positions */
    double *c, *s;            /* the source's A cos, A sin (n x h) */
    double *w;                /* the checked schedule's frequencies */
    float *w32;               /* the same rounded to binary32 */
    double att, u;            /* its attention factor; the values' unit roundoff */
    double share0;            /* the checked schedule's own share */
} rk;

typedef void (*pred_fn)(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs);

/* ---- numbers ------------------------------------------------------------ */

/* X rounded to FMT (nearest even): binary32, bfloat16 (8 bits) or float16
 * (11 bits, subnormals below 2^-14, overflow past 65504). */
static double rn(double x, int fmt)
{
    double x32 = (double)(float)x;
    if (fmt == FMT_F32 || x32 == 0 || !isfinite(x32)) return x32;
    int bits = fmt == FMT_BF16 ? 8 : 11, e;
    frexp(x32, &e);
    if (fmt == FMT_F16 && e - 1 < -14) e = -13; /* subnormal spacing 2^-24 */
    double q = ldexp(1.0, e - bits);
    double r = nearbyint(x32 / q) * q;
    return fmt == FMT_F16 && fabs(r) > 65504.0 ? copysign((double)INFINITY, r) : r;
}

/* X rounded to TensorFloat-32: binary32's exponent, 11 significant bits
 * (10 stored), to nearest even (RZ 0) or toward zero (RZ 1): the tensor
 * cores' input conversion is truncation in some kernels and rounding in
 * others (CUTLASS's tfloat32_t rounds, its "fast" conversion truncates),
 * so both are tried. */
static double rn_tf32(double x, int rz)
{
    double x32 = (double)(float)x;
    if (x32 == 0 || !isfinite(x32)) return x32;
    int e;
    frexp(x32, &e);
    double q = ldexp(1.0, e - 11);
    return (rz ? trunc(x32 / q) : nearbyint(x32 / q)) * q;
}

static double tol_at(const rk *k, double theta)
{
    return k->att * (8.0 * k->u + 0x1p-21 + 8.0 * 0x1p-24 * fabs(theta));
}

static double gate_kappa(const rk *k, int i);

/* The share of the informative values that PRED reproduces, within their
 * tolerance, plus (BUDGET) the gate's phase budget A kappa_i 2^-24 |theta|
 * of their pair: the re-check of a fitted hypothesis, what the gate would
 * pass once it is put back. */
static double share_within(const rk *k, pred_fn pred, const void *arg, int budget)
{
    size_t ok = 0, used = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i], tol = tol_at(k, t);
            if (!(tol < 0.1 * k->att)) continue;
            if (budget) tol += k->att * gate_kappa(k, i) * 0x1p-24 * fabs(t);
            double zc, zs;
            pred(k, arg, k->pos[r], i, &zc, &zs);
            size_t at = r * (size_t)k->h + (size_t)i;
            used++;
            ok += hypot(k->c[at] - zc, k->s[at] - zs) <= tol;
        }
    return used ? (double)ok / (double)used : 0.0;
}

/* The share of the informative values that a rotation whose pairing and
 * cos/sin layout differ gives the fit's probe (1 in every pair's first
 * member, fit.c): each pair's first member is A (cos + sin) or A (cos -
 * sin) of its own angle (its neighbour's sin term, with the sign of where
 * it falls), its second member 0; the support as support()'s. */
static double mixed_support(const rk *k)
{
    size_t ok = 0, used = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i], tol = tol_at(k, t);
            if (!(tol < 0.1 * k->att)) continue;
            size_t at = r * (size_t)k->h + (size_t)i;
            double c = k->att * cos(t), sn = k->att * sin(t);
            used++;
            ok += fabs(k->s[at]) <= tol && fmin(fabs(k->c[at] - (c + sn)),
                                                fabs(k->c[at] - (c - sn))) <= tol;
        }
    double sh = used ? (double)ok / (double)used : 0.0;
    return sh >= k->share0 + 0.1 ? sh : 0.0;
}

/* The share of the informative values that PRED reproduces. */
static double share(const rk *k, pred_fn pred, const void *arg)
{
    return share_within(k, pred, arg, 0);
}

static double support(const rk *k, pred_fn pred, const void *arg)
{
    double sh = share(k, pred, arg);
    return sh >= k->share0 + 0.1 ? sh : 0.0;
}

static void put_rot(const rk *k, double theta, double *zc, double *zs)
{
    *zc = k->att * cos(theta);
    *zs = k->att * sin(theta);
}

/* ---- predictions ---------------------------------------------------------- */

/* the checked schedule */
static void p_exact(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    (void)arg;
    put_rot(k, (double)p * k->w[i], zc, zs);
}

/* the angle rounded to FMT after a binary32 product */
static void p_angle(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    double t32 = (double)(float)((double)(float)p * (double)k->w32[i]);
    put_rot(k, rn(t32, *(const int *)arg), zc, zs);
}

/* the position held in FMT */
static void p_pos(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    put_rot(k, (double)(float)(rn((double)p, *(const int *)arg) * (double)k->w32[i]), zc, zs);
}

/* the frequency held in FMT */
static void p_freq(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    put_rot(k, (double)p * rn(k->w[i], *(const int *)arg), zc, zs);
}

/* a TF32 matmul inv_freq @ position_ids: both factors rounded to TF32
 * (ARG: 1 toward zero, 0 to nearest), their product (22 bits) exact in
 * the binary32 accumulator */
static void p_tf32(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    int rz = *(const int *)arg;
    put_rot(k, rn_tf32((double)p, rz) * rn_tf32((double)k->w32[i], rz), zc, zs);
}

/* the values stored in FMT */
static void p_store(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    int fmt = *(const int *)arg;
    put_rot(k, (double)p * k->w[i], zc, zs);
    *zc = rn(*zc, fmt);
    *zs = rn(*zs, fmt);
}

/* the rows of position p + K */
static void p_offset(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    put_rot(k, ((double)p + *(const double *)arg) * k->w[i], zc, zs);
}

/* every angle plus C */
static void p_phase(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    put_rot(k, (double)p * k->w[i] + *(const double *)arg, zc, zs);
}

/* cos and sin swapped */
static void p_swap(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    put_rot(k, (double)p * k->w[i], zs, zc);
    (void)arg;
}

/* the rotation the other way */
static void p_sign(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    put_rot(k, -(double)p * k->w[i], zc, zs);
    (void)arg;
}

/* no rotation: every angle 0 */
static void p_still(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    (void)arg; (void)p; (void)i;
    put_rot(k, 0.0, zc, zs);
}

/* other frequencies (ARG: h of them) and attention factor (ARG[h]) */
static void p_freqs(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    const double *w = arg;
    double t = (double)p * w[i];
    *zc = w[k->h] * cos(t);
    *zs = w[k->h] * sin(t);
}

/* ---- the rows ------------------------------------------------------------- */

static void rk_free(rk *k)
{
    free(k->pos); free(k->c); free(k->s); free(k->w); free(k->w32);
    memset(k, 0, sizeof *k);
}

/* Rows LO.. (M of them) into row R0 of K. */
static int rk_block(rk *k, int64_t lo, size_t m, size_t r0)
{
    size_t at = r0 * (size_t)k->h;
    for (size_t r = 0; r < m; r++) k->pos[r0 + r] = lo + (int64_t)r;
    return pc_rope_unit_rows(k->impl, k->d, k->cfg->base, k->cfg->layout, lo, m, k->c + at,
                             k->s + at);
}

static int rk_load(rk *k, const pc_impl *impl, const pc_acc_cfg *cfg)
{
    memset(k, 0, sizeof *k);
    k->impl = impl;
    k->cfg = cfg;
    k->d = cfg->d;
    k->h = cfg->d / 2;
    k->table = pc_table_info_of(impl) != NULL;
    size_t total = (size_t)(cfg->pos_hi - cfg->pos_lo + 1), cap = RK_VALUES / (size_t)k->h;
    if (cap < 32) cap = 32;
    k->n = total < cap ? total : cap;
    k->pos = malloc(k->n * sizeof *k->pos);
    k->c = malloc(k->n * (size_t)k->h * sizeof *k->c);
    k->s = malloc(k->n * (size_t)k->h * sizeof *k->s);
    k->w = malloc((size_t)k->h * sizeof *k->w);
    k->w32 = malloc((size_t)k->h * sizeof *k->w32);
    if (!k->pos || !k->c || !k->s || !k->w || !k->w32) return -1;
    size_t half = total <= cap ? k->n : k->n / 2;
    if (rk_block(k, cfg->pos_lo, half, 0)) return -1;
    if (half < k->n && rk_block(k, cfg->pos_hi - (int64_t)(k->n - half) + 1, k->n - half, half))
        return -1;
    pc_schedule s = cfg->sched ? *cfg->sched : pc_schedule_geometric(cfg->base);
    pc_freqs *fr = pc_freqs_new(k->d, s);
    if (!fr) return -1;
    for (int i = 0; i < k->h; i++) {
        k->w[i] = pc_freqs_omega(fr, i);
        k->w32[i] = (float)k->w[i];
    }
    k->att = pc_freqs_attention(fr);
    pc_freqs_free(fr);
    k->u = cfg->storage ? pc_model_u(cfg->dtype) : 0x1p-24;
    k->share0 = share(k, p_exact, NULL);
    return 0;
}

/* ---- the hypotheses ---------------------------------------------------------- */

static void add(pc_rope_causes *out, double sup, int order, const char *text, const char *ev)
{
    pc_rope_cause_add(out, sup, order, text, ev);
}

static void evidence(char *buf, size_t len, const rk *k, double sup, const char *what)
{
    snprintf(buf, len, "%s reproduces %.1f%% of the source's values (the checked schedule: "
             "%.1f%%)", what, 100.0 * sup, 100.0 * k->share0);
}

/* The first value that is NaN or Inf: 1 with its row and pair. */
static int nonfinite(const rk *k, size_t *row, int *pair)
{
    for (size_t at = 0; at < k->n * (size_t)k->h; at++)
        if (!isfinite(k->c[at]) || !isfinite(k->s[at])) {
            *row = at / (size_t)k->h;
            *pair = (int)(at % (size_t)k->h);
            return 1;
        }
    return 0;
}

static void h_nonfinite(const rk *k, pc_rope_causes *out)
{
    size_t r;
    int i;
    if (!nonfinite(k, &r, &i)) return;
    char t[200], e[200];
    snprintf(t, sizeof t, "the source holds NaN or Inf: its %s of position %lld, pair %d is not a "
             "number", k->table ? "cache row" : "rotation", (long long)k->pos[r], i);
    snprintf(e, sizeof e, "the rotation of (1, 0) at position %lld, pair %d is (%g, %g)",
             (long long)k->pos[r], i, k->c[r * (size_t)k->h + (size_t)i],
             k->s[r * (size_t)k->h + (size_t)i]);
    add(out, 1.0, 0, t, e);
}

/* Whether every value is a FMT number (and enough of them are not trivially so). */
static int all_in(const rk *k, int fmt)
{
    size_t nv = k->n * (size_t)k->h, nontrivial = 0;
    for (size_t at = 0; at < 2 * nv; at++) {
        double v = at < nv ? k->c[at] : k->s[at - nv];
        if (rn(v, fmt) != v) return 0;
        nontrivial += v != 0 && fabs(v) != 1.0 && fabs(v) != 0.5;
    }
    return nontrivial >= nv;
}

static void h_storage(const rk *k, pc_rope_causes *out)
{
    if (k->cfg->storage) return; /* already judged as stored in a half type */
    for (int fmt = FMT_BF16; fmt <= FMT_F16; fmt++) {
        if (!all_in(k, fmt)) continue;
        double sup = share(k, p_store, &fmt);
        char t[520], e[260];
        if (k->table)
            snprintf(t, sizeof t, "every value of the cache is a %s number: a %s cache widened to "
                     "float32 and checked as float32; rerun with --dtype %s", fmt_name[fmt],
                     fmt_name[fmt], fmt_opt[fmt]);
        else
            snprintf(t, sizeof t, "the rotations' cos and sin are all %s numbers: the source rounds "
                     "cos/sin to %s (a %s cos/sin cache); --dtype %s judges it as a %s kernel",
                     fmt_name[fmt], fmt_name[fmt], fmt_name[fmt], fmt_opt[fmt], fmt_name[fmt]);
        snprintf(e, sizeof e, "all %zu values of %zu rows are %s numbers, and %s rounding of the "
                 "exact values reproduces %.1f%% of them", 2 * k->n * (size_t)k->h, k->n,
                 fmt_name[fmt], fmt_name[fmt], 100.0 * sup);
        /* representability alone is near proof; the share says whether it is all */
        add(out, sup > 0.9 ? 1.0 : 0.5 + 0.5 * sup, 1, t, e);
        return;
    }
}

static void h_rounding(const rk *k, pc_rope_causes *out)
{
    for (int fmt = FMT_BF16; fmt <= FMT_F16; fmt++) {
        char t[520], e[260], what[120];
        double sa = support(k, p_angle, &fmt), sf = support(k, p_freq, &fmt);
        snprintf(what, sizeof what, "the angle p*w rounded to %s", fmt_name[fmt]);
        evidence(e, sizeof e, k, sa, what);
        snprintf(t, sizeof t, "the angle pos*omega is held in %s (a %s matmul or cast before "
                 "cos/sin): it loses %s bits as the position grows", fmt_name[fmt], fmt_name[fmt],
                 fmt == FMT_BF16 ? "all but 8 significant" : "all but 11 significant");
        add(out, sa, 3, t, e);
        snprintf(what, sizeof what, "each frequency rounded to %s", fmt_name[fmt]);
        evidence(e, sizeof e, k, sf, what);
        snprintf(t, sizeof t, "the frequencies (inv_freq) are held in %s: each omega_i is off by up "
                 "to half a %s ulp, so the angles drift with the position%s", fmt_name[fmt],
                 fmt_name[fmt], fmt == FMT_F16 ? " (a TF32 matmul on a GPU, allow_tf32, rounds "
                 "them the same way)" : "");
        add(out, sf, 4, t, e);
    }
    for (int fmt = FMT_F32; fmt <= FMT_F16; fmt++) {
        double hi = (double)k->pos[k->n - 1];
        if (fmt == FMT_F32 && hi < 0x1p24) continue; /* exact below 2^24 */
        char t[520], e[260], what[120];
        double sp = support(k, p_pos, &fmt);
        snprintf(what, sizeof what, "the positions rounded to %s", fmt_name[fmt]);
        evidence(e, sizeof e, k, sp, what);
        snprintf(t, sizeof t, "the positions are held in %s (position_ids.to(%s) or a model cast "
                 "before its buffers are built): above %s neighbouring positions share one "
                 "value, so they get one rotation", fmt_name[fmt], fmt_name[fmt],
                 fmt == FMT_BF16 ? "256" : fmt == FMT_F16 ? "2048" : "2^24");
        add(out, sp, 2, t, e);
    }
}

/* The angles of a matmul on TF32 tensor cores (PyTorch's
 * allow_tf32 / set_float32_matmul_precision("high") on an Ampere or later
 * GPU): positions past 2048 and every frequency keep 11 significant bits. */
static void h_tf32(const rk *k, pc_rope_causes *out)
{
    /* positions up to 2048 are exact in TF32: its angles are then those
     * of the frequencies held in float16 (h_rounding), which says so */
    if (k->pos[k->n - 1] <= 2048) return;
    int modes[2] = { 0, 1 }, best = 0;
    double sup[2];
    for (int m = 0; m < 2; m++) sup[m] = support(k, p_tf32, &modes[m]);
    if (sup[1] > sup[0]) best = 1;
    char t[520], e[260], what[160];
    snprintf(what, sizeof what, "the positions and frequencies rounded to TF32 (11 significant bits, "
             "%s)", best ? "toward zero" : "to nearest");
    evidence(e, sizeof e, k, sup[best], what);
    snprintf(t, sizeof t, "the angles come from a TF32 matmul (inv_freq @ position_ids on tensor "
             "cores: torch.backends.cuda.matmul.allow_tf32 or set_float32_matmul_precision(\"high\")"
             "): the frequencies, and the positions past 2048, keep 11 significant bits; compute "
             "the angles in full float32 (precision \"highest\", or an outer product)");
    add(out, sup[best], 5, t, e); /* after the frequencies in float16, its equal below 2048 */
}

static void h_offset(const rk *k, pc_rope_causes *out)
{
    double eps = 4.0 * k->u + 0x1p-20;
    double q = pc_rope_fit_offset(k->c, k->s, k->w, k->h, (double)k->pos[0], eps);
    if (!isfinite(q) || q == 0 || q != round(q)) return;
    double sup = support(k, p_offset, &q);
    char t[520], e[260], what[120];
    snprintf(what, sizeof what, "the rows of position p%+.0f", q);
    evidence(e, sizeof e, k, sup, what);
    if (k->table && q > 0)
        snprintf(t, sizeof t, "the rows are those of positions p%+.0f: the cache starts at position "
                 "%.0f (sliced from a longer one?); pass --pos-start %.0f", q,
                 (double)k->cfg->pos_lo + q, (double)k->cfg->pos_lo + q);
    else
        snprintf(t, sizeof t, "the rows are those of positions p%+.0f: the %s off by %+.0f (an "
                 "off-by-one in the positions, or a cache indexed from %s)", q,
                 k->table ? "cache's positions are" : "source's positions are", q,
                 q > 0 ? "a later start" : "an earlier start");
    add(out, sup, 2, t, e);
}

static void h_turns(const rk *k, pc_rope_causes *out)
{
    char t[520], e[260];
    double sw = support(k, p_swap, NULL), sg = support(k, p_sign, NULL);
    evidence(e, sizeof e, k, sw, "sin in place of cos and cos in place of sin");
    snprintf(t, sizeof t, "sin and cos are swapped: the %s", k->table
             ? "cos cache holds sin and the sin cache cos (--table and --table-sin crossed?)"
             : "source puts sin where cos belongs and cos where sin does");
    add(out, sw, 2, t, e);
    evidence(e, sizeof e, k, sg, "the rotation by -p*w");
    snprintf(t, sizeof t, "the rotation turns the wrong way: sin has the wrong sign (rotate_half "
             "as cat(x2, -x1) instead of cat(-x2, x1), or sin negated)");
    add(out, sg, 2, t, e);
    double st = support(k, p_still, NULL);
    evidence(e, sizeof e, k, st, "no rotation (cos 1, sin 0 at every position)");
    snprintf(t, sizeof t, "%s", k->table ? "the cache does not rotate: cos 1 and sin 0 at every "
             "position and pair" : "the source does not rotate these dims: they come back as "
             "they went in (k left unrotated, or the rotation applied to other dims of the head "
             "than the rotary ones: partial rotary on the wrong slice)");
    add(out, st, 2, t, e);
    double mx = mixed_support(k);
    evidence(e, sizeof e, k, mx, "the probe's pairs read back as A (cos + sin) or A (cos - sin) "
             "with nothing in their other member (a rotation pairing its neighbour's dim)");
    snprintf(t, sizeof t, "the rotation pairs the dims one way and its cos/sin are laid out the "
             "other: rotate_every_two (pairs (2i, 2i + 1)) with a cos/sin of cat(freqs, freqs) "
             "(pairs (i, i + d/2)), or rotate_half with a repeat_interleave'd cos/sin: each "
             "output mixes a dim with its neighbour's instead of its pair's");
    add(out, mx, 2, t, e);
}

/* The mean of z e^{-i theta} over the values (its argument: a constant
 * phase; its modulus: a constant norm), each weighted by 1 / TOL^2 (the
 * values of small angles, whose own roundings are smallest, count most). */
static void mean_turn(const rk *k, double *phase, double *norm)
{
    double sc = 0, ss = 0, sw = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            size_t at = r * (size_t)k->h + (size_t)i;
            double t = (double)k->pos[r] * k->w[i], tol = tol_at(k, t), g = 1.0 / (tol * tol);
            if (!(tol < 0.1 * k->att)) continue;
            sc += g * (k->c[at] * cos(t) + k->s[at] * sin(t));
            ss += g * (k->s[at] * cos(t) - k->c[at] * sin(t));
            sw += g;
        }
    *phase = atan2(ss, sc);
    *norm = sw > 0 ? hypot(sc, ss) / sw : (double)NAN;
}

/* The gate's kappa_i of pair I (harness/engine/acc_block.c, pair_kappa). */
static double gate_kappa(const rk *k, int i)
{
    const pc_acc_cfg *cfg = k->cfg;
    if (k->w[i] == 1.0) return 0.0;
    if (cfg->strict) return pc_acc_class_kappa(cfg, i);
    if (cfg->sched) return pc_schedule_model_c(cfg->sched, cfg->d, i);
    return pc_model_kappa(PC_CLASS_DEFAULT, cfg->base, cfg->d, i);
}


/* A constant added to every angle: fitted, then re-checked (RK_PHASE_SHARE). */
static void h_phase(const rk *k, pc_rope_causes *out)
{
    double c, a;
    mean_turn(k, &c, &a);
    if (!isfinite(c) || fabs(c) < 1e-6) return;
    double sup = support(k, p_phase, &c);
    if (!(sup > 0)) return;
    double with = share_within(k, p_phase, &c, 1), without = share_within(k, p_exact, NULL, 1);
    if (with < RK_PHASE_SHARE || with < without + 0.1) return; /* refuted by the re-check */
    char t[520], e[260];
    snprintf(e, sizeof e, "every angle plus %+.4g rad reproduces %.1f%% of the source's values "
             "within the gate's phase budget (the checked schedule: %.1f%%)", c, 100.0 * with,
             100.0 * without);
    snprintf(t, sizeof t, "every angle is off by %+.4g rad, the same at every position and pair: a "
             "constant added to the angle (not to the position, which would scale with the "
             "frequency)", c);
    add(out, sup, 3, t, e);
}

/* Every pair's norm A' instead of the schedule's attention factor A. */
static void h_norm(const rk *k, pc_rope_causes *out)
{
    double c, a;
    mean_turn(k, &c, &a);
    if (!isfinite(a) || fabs(a / k->att - 1.0) < 16.0 * k->u + 0x1p-18) return;
    double *w = malloc(((size_t)k->h + 1) * sizeof *w);
    if (!w) return;
    memcpy(w, k->w, (size_t)k->h * sizeof *w);
    w[k->h] = a;
    double sup = support(k, p_freqs, w);
    free(w);
    const pc_rope_params *p = k->cfg->sched ? k->cfg->sched->params : NULL;
    char t[520], e[260], what[120];
    snprintf(what, sizeof what, "the schedule's rotations with norm %.6g", a);
    evidence(e, sizeof e, k, sup, what);
    if (p && p->type != PC_ROPE_DEFAULT)
        snprintf(t, sizeof t, "the cache's (cos, sin) have norm %.6g but the schedule's attention "
                 "factor is %.6g: %s", a, k->att, fabs(a - 1.0) < 16.0 * k->u + 0x1p-18
                 ? "the attention factor is missing"
                 : "a different attention factor (a wrong factor or original length, or the "
                   "factor applied twice?)");
    else
        snprintf(t, sizeof t, "the cache's (cos, sin) have norm %.6g where the schedule's is %.6g: "
                 "the values are scaled (an attention factor or mscale where the schedule has "
                 "none?)", a, k->att);
    add(out, sup, 3, t, e);
}

/* The pairs' frequencies in reverse order (torch.flip, a reversed arange). */
static void h_reversed(const rk *k, pc_rope_causes *out)
{
    double *w = malloc(((size_t)k->h + 1) * sizeof *w);
    if (!w) return;
    for (int i = 0; i < k->h; i++) w[i] = k->w[k->h - 1 - i];
    w[k->h] = k->att;
    double sup = support(k, p_freqs, w);
    free(w);
    char t[520], e[260];
    evidence(e, sizeof e, k, sup, "the frequencies in reverse pair order");
    snprintf(t, sizeof t, "the pairs' frequencies are in reverse order: pair 0 turns slowest and pair "
             "%d fastest (a flipped inv_freq, or arange counting down)", k->h - 1);
    add(out, sup, 2, t, e);
}

/* ---- rows, amplitudes and factors (docs/diagnosis.md) ------------------------ */

/* Rows sampled across the whole checked range, one at a time, beyond the
 * held ones: a hypothesis about which position a row holds is checked on
 * rows between the held blocks too. */
#define RK_SPREAD 256

/* The position each row of the sample holds (pc_rope_fit_offset against
 * the checked frequencies; NAN when not a whole number): into E, the
 * sampled positions into P; the count read, 0 on failure. */
static size_t spread_rows(const rk *k, int64_t *p, double *e)
{
    int64_t total = k->cfg->pos_hi - k->cfg->pos_lo + 1;
    double *c = malloc((size_t)k->h * sizeof *c), *s = malloc((size_t)k->h * sizeof *s);
    double eps = 4.0 * k->u + 0x1p-20;
    size_t m = 0;
    for (int j = 0; c && s && j < RK_SPREAD; j++) {
        int64_t at = k->cfg->pos_lo + (int64_t)((double)total * j / RK_SPREAD);
        if (pc_rope_unit_rows(k->impl, k->d, k->cfg->base, k->cfg->layout, at, 1, c, s)) break;
        double q = pc_rope_fit_offset(c, s, k->w, k->h, (double)at, eps);
        p[m] = at;
        e[m++] = isfinite(q) && q == round(q) ? (double)at + q : (double)NAN;
    }
    free(c); free(s);
    return m;
}

/* position p taken modulo ARG (an int64_t) */
static void p_mod(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    int64_t per = *(const int64_t *)arg, r = p % per;
    put_rot(k, (double)(r < 0 ? r + per : r) * k->w[i], zc, zs);
}

/* Rows that repeat with a period P: row p holds position p mod P (chunked
 * prefill whose position_ids restart at 0 each chunk, a rolling buffer's
 * slot used as the position).  P is the smallest drop from a sampled row's
 * position to the position it holds; the claim is checked twice: every
 * sampled row across the range holds p mod P (90%), and p mod P
 * reproduces the held rows' values. */
static void h_period(const rk *k, pc_rope_causes *out)
{
    int64_t total = k->cfg->pos_hi - k->cfg->pos_lo + 1, p[RK_SPREAD];
    double e[RK_SPREAD];
    if (total < 2 * RK_SPREAD) return;
    size_t m = spread_rows(k, p, e), agree = 0;
    double per = 0;
    for (size_t j = 0; j < m; j++)
        if (isfinite(e[j]) && e[j] >= 0 && e[j] < (double)p[j] && (per == 0 || (double)p[j] - e[j] < per))
            per = (double)p[j] - e[j];
    if (!(per >= 2)) return;
    int64_t P = (int64_t)per;
    for (size_t j = 0; j < m; j++) agree += e[j] == (double)(p[j] % P);
    if ((double)agree < 0.9 * (double)m) return;
    double sup = support(k, p_mod, &P);
    if (!(sup > 0)) return;
    char t[520], e2[260];
    snprintf(e2, sizeof e2, "positions taken modulo %lld reproduce %.1f%% of the source's values "
             "(the checked schedule: %.1f%%), and %zu of %zu rows sampled across %lld..%lld hold "
             "position p mod %lld", (long long)P, 100.0 * sup, 100.0 * k->share0, agree, m,
             (long long)k->cfg->pos_lo, (long long)k->cfg->pos_hi, (long long)P);
    snprintf(t, sizeof t, "the rows repeat with period %lld: row p holds position p mod %lld (the "
             "positions restart at 0 every %lld rows: chunked prefill with position_ids = "
             "arange(chunk) in every chunk, or a position wrapped modulo %lld); each row must hold "
             "its own position", (long long)P, (long long)P, (long long)P, (long long)P);
    add(out, sup, 2, t, e2);
}

/* The frequencies (h of them and the attention factor) a prediction by
 * other frequencies uses at position P: ARG itself (p_freqs), or the
 * split's list in force there (p_split). */
typedef const double *(*freqs_at_fn)(const void *arg, int64_t p);

static const double *freqs_self(const void *arg, int64_t p)
{
    (void)p;
    return arg;
}

/* The share of the informative values (those of share()) that other
 * frequencies reproduce, each within the tolerance plus the gate's phase
 * budget (share_within) of the larger of its checked and its predicted
 * angle: a binary32 source's roundings grow with the angle it computes,
 * which may be many times the checked one (a factor inverted), and the
 * gate's budget is what it would allow them (llama.cpp's cumulative
 * product of theta_scale included).  Its support as support()'s. */
static double support_own(const rk *k, freqs_at_fn at_p, const void *arg)
{
    size_t ok = 0, used = 0;
    for (size_t r = 0; r < k->n; r++) {
        const double *w = at_p(arg, k->pos[r]);
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i], tw = (double)k->pos[r] * w[i];
            if (!(tol_at(k, t) < 0.1 * k->att)) continue;
            double big = fmax(fabs(t), fabs(tw));
            double tol = tol_at(k, big) + k->att * gate_kappa(k, i) * 0x1p-24 * big;
            size_t a = r * (size_t)k->h + (size_t)i;
            used++;
            ok += hypot(k->c[a] - w[k->h] * cos(tw), k->s[a] - w[k->h] * sin(tw)) <= tol;
        }
    }
    double sh = used ? (double)ok / (double)used : 0.0;
    return sh >= k->share0 + 0.1 ? sh : 0.0;
}

/* cos times ARG[0], sin times ARG[1] */
static void p_amps(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    const double *a = arg;
    double t = (double)p * k->w[i];
    *zc = a[0] * cos(t);
    *zs = a[1] * sin(t);
}

/* cos and sin scaled by different amplitudes: each fitted by least
 * squares over the informative values, named when they differ beyond the
 * values' roundoff and reproduce the values. */
static void h_amplitudes(const rk *k, pc_rope_causes *out)
{
    double cc = 0, ct = 0, ss = 0, st = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i];
            if (!(tol_at(k, t) < 0.1 * k->att)) continue;
            size_t at = r * (size_t)k->h + (size_t)i;
            cc += k->c[at] * cos(t); ct += cos(t) * cos(t);
            ss += k->s[at] * sin(t); st += sin(t) * sin(t);
        }
    if (!(ct > 0 && st > 0)) return;
    double a[2] = { cc / ct, ss / st }, lim = 16.0 * k->u + 0x1p-18;
    if (!(fabs(a[0] / a[1] - 1.0) > lim)) return;
    double sup = support(k, p_amps, a);
    if (!(sup > 0)) return;
    /* which one carries the schedule's attention factor (or 1) */
    int c_att = fabs(a[0] / k->att - 1.0) < lim, s_att = fabs(a[1] / k->att - 1.0) < lim;
    int c_one = fabs(a[0] - 1.0) < lim, s_one = fabs(a[1] - 1.0) < lim;
    char t[520], e[260], what[160];
    snprintf(what, sizeof what, "cos times %.6g and sin times %.6g", a[0], a[1]);
    evidence(e, sizeof e, k, sup, what);
    const char *which = c_att && s_one ? "cos only, not sin" : s_att && c_one ? "sin only, not cos"
                        : "one of them, or each by another";
    snprintf(t, sizeof t, "cos and sin have different amplitudes: cos x %.6g, sin x %.6g (the "
             "schedule's attention factor: %.6g): an attention factor (mscale) multiplied into %s; "
             "both must carry the same norm", a[0], a[1], k->att, which);
    add(out, sup, 2, t, e);
}

/* A linear schedule's factor used inverted: frequencies times the factor
 * instead of divided by it (ARG: h frequencies and the attention factor),
 * checked by the values it reproduces: the fitted frequencies alias past
 * pi a position, the values do not. */
static void h_reciprocal(const rk *k, pc_rope_causes *out)
{
    const pc_rope_params *p = k->cfg->sched ? k->cfg->sched->params : NULL;
    if (!p || p->type != PC_ROPE_LINEAR || !(p->factor > 0) || p->factor == 1.0) return;
    double *w = malloc(((size_t)k->h + 1) * sizeof *w), f = p->factor;
    if (!w) return;
    for (int i = 0; i < k->h; i++) w[i] = k->w[i] * f * f; /* w0 / f -> w0 * f */
    w[k->h] = k->att;
    double sup = support_own(k, freqs_self, w);
    free(w);
    if (!(sup > 0)) return;
    char t[520], e[260], what[160];
    snprintf(what, sizeof what, "the schedule with factor 1/%g (frequencies times %g)", f, f);
    evidence(e, sizeof e, k, sup, what);
    snprintf(t, sizeof t, "the scaling factor is inverted: the cache's frequencies are %g times the "
             "schedule's, those of linear factor 1/%g (the frequencies multiplied by %g instead of "
             "divided; llama.cpp's freq_scale is the reciprocal of the factor: --rope-freq-scale %g "
             "where --rope-scale %g, or --rope-freq-scale %g, was meant)", f * f, f, f, f, f, 1.0 / f);
    add(out, sup, 2, t, e);
}

/* the rows before ARG->at with ARG->a's frequencies, from it on with ARG->b's */
typedef struct split { const double *a, *b; int64_t at; } split;

static const double *split_at(const void *arg, int64_t p)
{
    const split *sp = arg;
    return p < sp->at ? sp->a : sp->b;
}

/* Which of the frequencies A and B reproduce 90% of the informative pairs
 * of one row (C, S at position P): bit 1 for A, 2 for B. */
static int row_fits(const rk *k, const double *c, const double *s, int64_t p, const double *a,
                    const double *b)
{
    int ia = 0, ib = 0, used = 0;
    for (int i = 0; i < k->h; i++) {
        double t = (double)p * k->w[i], ta = (double)p * a[i], tb = (double)p * b[i];
        if (!(tol_at(k, t) < 0.1 * k->att)) continue;
        used++;
        ia += hypot(c[i] - a[k->h] * cos(ta), s[i] - a[k->h] * sin(ta))
              <= tol_at(k, fmax(fabs(t), fabs(ta)));
        ib += hypot(c[i] - b[k->h] * cos(tb), s[i] - b[k->h] * sin(tb))
              <= tol_at(k, fmax(fabs(t), fabs(tb)));
    }
    if (!used) return 0;
    return (ia >= 0.9 * used ? 1 : 0) | (ib >= 0.9 * used ? 2 : 0);
}

/* The first position in (LO, HI] whose row fits only B, the rows up to LO
 * fitting A only (binary search, one row read at a time); -1 when a row
 * in between fits neither or both. */
static int64_t split_row(const rk *k, int64_t lo, int64_t hi, const double *a, const double *b)
{
    double *c = malloc((size_t)k->h * sizeof *c), *s = malloc((size_t)k->h * sizeof *s);
    while (c && s && hi - lo > 1) {
        int64_t mid = lo + (hi - lo) / 2;
        if (pc_rope_unit_rows(k->impl, k->d, k->cfg->base, k->cfg->layout, mid, 1, c, s)) break;
        int f = row_fits(k, c, s, mid, a, b);
        if (f == 1) lo = mid;
        else if (f == 2) hi = mid;
        else break;
    }
    int done = c && s && hi - lo == 1;
    free(c); free(s);
    return done ? hi : -1;
}

/* The held rows: the first then last ones fitting A only and B only (in
 * row order every A-only row before every B-only one, none fitting
 * neither); 0 when they do not split so. */
static int split_rows(const rk *k, const double *a, const double *b, int64_t *last_a,
                      int64_t *first_b)
{
    *last_a = *first_b = -1;
    for (size_t r = 0; r < k->n; r++) {
        size_t at = r * (size_t)k->h;
        int f = row_fits(k, k->c + at, k->s + at, k->pos[r], a, b);
        if (f == 0 || (f == 1 && *first_b >= 0)) return 0;
        if (f == 1) *last_a = k->pos[r];
        if (f == 2 && *first_b < 0) *first_b = k->pos[r];
    }
    return *last_a >= 0 && *first_b > *last_a;
}

/* LongRoPE's short factors on the rows below some position and the long
 * ones from it on (or the reverse), in one cache: HF's Phi-3 picks the
 * list per forward from the sequence length so far, so a prompt's keys
 * carry the short factors and the decode steps past the original length
 * the long ones.  Checked per row range: the held rows split so, the
 * switch found row by row, and the split reproduces the values. */
static void h_longrope_switch(const rk *k, const double *chk, const double *other, int use_long,
                              pc_rope_causes *out)
{
    const double *sh = use_long ? other : chk, *lg = use_long ? chk : other;
    int64_t last_a, first_b, at = -1;
    const double *a = sh, *b = lg;
    if (!split_rows(k, a, b, &last_a, &first_b)) {
        a = lg;
        b = sh;
        if (!split_rows(k, a, b, &last_a, &first_b)) return;
    }
    at = split_row(k, last_a, first_b, a, b);
    if (at < 0) return;
    split sp = { a, b, at };
    double sup = support_own(k, split_at, &sp);
    if (!(sup > 0)) return;
    char t[520], e[260], what[160];
    const char *na = a == sh ? "short" : "long", *nb = a == sh ? "long" : "short";
    snprintf(what, sizeof what, "the %s factors on rows %lld..%lld and the %s ones on %lld..%lld", na,
             (long long)k->cfg->pos_lo, (long long)at - 1, nb, (long long)at,
             (long long)k->cfg->pos_hi);
    evidence(e, sizeof e, k, sup, what);
    snprintf(t, sizeof t, "LongRoPE's factors switch mid-cache: rows %lld..%lld match the %s "
             "factors, rows %lld..%lld the %s ones (a cache mixed from two lengths: HF picks the "
             "factor list per forward from the sequence length so far, so a prompt's keys keep "
             "the short factors beside decode steps past the original length with the long ones); "
             "one cache must use one list", (long long)k->cfg->pos_lo, (long long)at - 1, na,
             (long long)at, (long long)k->cfg->pos_hi, nb);
    add(out, sup, 1, t, e);
}

/* LongRoPE: the other list of factors (short where long belong, or the
 * reverse). */
static void h_longrope(const rk *k, const pc_spec *spec, pc_rope_causes *out)
{
    const pc_rope_spec *rs = pc_rope_spec_of(spec);
    const pc_rope_params *p = k->cfg->sched ? k->cfg->sched->params : NULL;
    if (!rs || !p || p->type != PC_ROPE_LONGROPE || rs->n_factor != k->h) return;
    const double *other = p->use_long ? rs->short_factor : rs->long_factor;
    double *w = other ? malloc(((size_t)k->h + 1) * sizeof *w) : NULL;
    if (!w) return;
    for (int i = 0; i < k->h; i++) w[i] = pow(p->base, -2.0 * i / k->d) / other[i];
    w[k->h] = k->att;
    double sup = support(k, p_freqs, w);
    char t[520], e[260], what[120];
    snprintf(what, sizeof what, "the %s factors", p->use_long ? "short" : "long");
    evidence(e, sizeof e, k, sup, what);
    snprintf(t, sizeof t, "the cache uses LongRoPE's %s factors where the sequence length (%g, "
             "original %g) calls for the %s ones: short_factor and long_factor swapped, or the "
             "cache built for another length (--seq-len)", p->use_long ? "short" : "long",
             p->seq_len, p->orig_max, p->use_long ? "long" : "short");
    add(out, sup, 1, t, e);
    double *chk = malloc(((size_t)k->h + 1) * sizeof *chk);
    if (chk) {
        memcpy(chk, k->w, (size_t)k->h * sizeof *chk);
        chk[k->h] = k->att;
        h_longrope_switch(k, chk, w, p->use_long, out);
    }
    free(chk);
    free(w);
}

/* The error as a function of the reduced angle alone: within each of
 * RK_BINS bins of angle mod 2 pi, the residuals agree (R^2 of the bin
 * means over the residuals' spread, of informative values above their
 * tolerance). */
static double angle_r2(const rk *k, double *worst_phi, int *sin_side)
{
    double c0, a;
    mean_turn(k, &c0, &a);
    if (!isfinite(c0) || !isfinite(a)) return 0;
    double sum[RK_BINS][2], sq = 0, mc = 0, ms = 0;
    size_t cnt[RK_BINS] = { 0 }, n = 0;
    memset(sum, 0, sizeof sum);
    double big = 0, ec = 0, es = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i];
            if (!(tol_at(k, t) < 0.1 * k->att)) continue;
            size_t at = r * (size_t)k->h + (size_t)i;
            /* the residual of the best rotation a e^{i (theta + c)}: a norm
             * or a phase shows in the mean turn, not here */
            double rc = k->c[at] - a * cos(t + c0), rs = k->s[at] - a * sin(t + c0);
            double phi = remainder(t, 2.0 * M_PI);
            int b = (int)((phi + M_PI) / (2.0 * M_PI) * RK_BINS);
            if (b < 0) b = 0;
            if (b >= RK_BINS) b = RK_BINS - 1;
            sum[b][0] += rc; sum[b][1] += rs; cnt[b]++; n++;
            mc += rc; ms += rs; sq += rc * rc + rs * rs;
            ec += fabs(rc); es += fabs(rs);
            if (hypot(rc, rs) > big) { big = hypot(rc, rs); *worst_phi = phi; }
        }
    if (n < 64) return 0;
    double tot = sq - (mc * mc + ms * ms) / (double)n, between = 0;
    for (int b = 0; b < RK_BINS; b++)
        if (cnt[b]) between += (sum[b][0] * sum[b][0] + sum[b][1] * sum[b][1]) / (double)cnt[b];
    between -= (mc * mc + ms * ms) / (double)n;
    *sin_side = es > 2.0 * ec ? 1 : ec > 2.0 * es ? 0 : -1;
    return tot > 0 ? between / tot : 0;
}

static void h_evaluation(const rk *k, pc_rope_causes *out)
{
    double phi = 0;
    int side = -1;
    if (k->share0 > 0.9) return; /* the values are the schedule's: no evaluation error to see */
    double r2 = angle_r2(k, &phi, &side);
    if (!(r2 > 0.8)) return;
    char t[520], e[260];
    snprintf(e, sizeof e, "the error is a function of the angle mod 2 pi alone: the angle's bins "
             "explain %.1f%% of its variance across pairs and positions; largest near %.3g rad",
             100.0 * r2, phi);
    snprintf(t, sizeof t, "%s evaluated inexactly: the error depends on the angle alone, the same "
             "at every pair and position (a truncated series, a table or a fast approximation)",
             side == 1 ? "sin is" : side == 0 ? "cos is" : "cos and sin are");
    /* a pattern, not a reproduction: below any hypothesis that reproduces
     * nearly every value */
    add(out, 0.85 * r2, 3, t, e);
}

/* A table checked in the layout given (--layout, or a config's model)
 * whose columns are those of the other layout: every repeated column pair
 * of the other layout equal, some of the one given not (table.c).  The
 * columns show it whatever the values: support 1. */
static void h_table_layout(const rk *k, pc_rope_causes *out)
{
    const pc_table_info *ti = pc_table_info_of(k->impl);
    if (!ti || !ti->other_layout_fits) return;
    int l = k->cfg->layout, o = !l;
    char t[520], e[260];
    snprintf(e, sizeof e, "every repeated column pair of the %s layout is equal (%s); %d of the "
             "%s layout's differ", pc_layout_name(o),
             o ? "columns j and j+d/2: cat(freqs, freqs)" : "columns 2i and 2i+1: repeat_interleave",
             ti->dup_mismatch, pc_layout_name(l));
    snprintf(t, sizeof t, "the cache is in the %s layout but is checked as %s: it was built for "
             "the other layout (%s instead of %s), or pass --layout %s if the model rotates %s",
             pc_layout_name(o), pc_layout_name(l),
             o ? "cat(freqs, freqs)" : "repeat_interleave", o ? "repeat_interleave" : "cat(freqs, freqs)",
             pc_layout_name(o), o ? "(i, i + d/2)" : "(2i, 2i + 1)");
    add(out, 1.0, 0, t, e);
}

/* Asked for one layout, the source pairs dims as the other does (a
 * built-in or plugin; a table's layout is found from its columns, above). */
static void h_layout(const rk *k, pc_rope_causes *out)
{
    if (k->table) {
        h_table_layout(k, out);
        return;
    }
    int l = k->cfg->layout, o = !l, d = k->d, h = k->h;
    size_t m = k->n < 256 ? k->n : 256;
    float *x = calloc(m * (size_t)d, sizeof *x), *y = malloc(m * (size_t)d * sizeof *y);
    size_t ok = 0, used = 0;
    pc_fault fault = { 0, "" };
    for (size_t r = 0; x && r < m; r++)
        for (int i = 0; i < h; i++) x[r * (size_t)d + (size_t)(o ? i : 2 * i)] = 1.0f;
    int rc = x && y ? pc_call_rope(k->impl, &fault, k->pos, m, d, k->cfg->base, l, x, y) : -1;
    for (size_t r = 0; rc == 0 && !fault.faulted && r < m; r++)
        for (int i = 0; i < h; i++) {
            double t = (double)k->pos[r] * k->w[i], tol = tol_at(k, t);
            if (!(tol < 0.1 * k->att)) continue;
            size_t a = r * (size_t)d + (size_t)(o ? i : 2 * i), b = r * (size_t)d + (size_t)(o ? i + h : 2 * i + 1);
            used++;
            ok += hypot((double)y[a] - k->att * cos(t), (double)y[b] - k->att * sin(t)) <= tol;
        }
    free(x); free(y);
    double sh = used ? (double)ok / (double)used : 0;
    if (sh < k->share0 + 0.1) return;
    char t[520], e[260];
    snprintf(e, sizeof e, "read as the %s layout, its output reproduces %.1f%% of the values",
             pc_layout_name(o), 100.0 * sh);
    snprintf(t, sizeof t, "asked for the %s layout, the source pairs dims as the %s layout does (%s "
             "instead of %s): the layouts are swapped", pc_layout_name(l), pc_layout_name(o),
             o ? "(i, i + d/2)" : "(2i, 2i + 1)", o ? "(2i, 2i + 1)" : "(i, i + d/2)");
    add(out, sh, 2, t, e);
}

/* The schedule's account: the support of the identified schedule's
 * frequencies ALT, or 0.6 without them (fit.c found a pattern but no
 * schedule that explains every pair). */
static void h_schedule(const rk *k, const char *sched, const double *alt, pc_rope_causes *out)
{
    if (!sched || !sched[0]) return;
    double sup = alt ? support(k, p_freqs, alt) : 0.0;
    char e[260];
    if (sup > 0)
        evidence(e, sizeof e, k, sup, "the schedule identify finds");
    else if (alt) /* named, but not 0.1 above the checked schedule (which misses few values) */
        evidence(e, sizeof e, k, share(k, p_freqs, alt), "the schedule named");
    else
        snprintf(e, sizeof e, "the fitted frequencies and norms of the pairs (no schedule "
                 "reproduces the values)");
    add(out, sup > 0 ? sup : 0.6, 5, sched, e);
}

void pc_rope_hypotheses(const pc_impl *impl, const pc_spec *spec, const pc_acc_cfg *cfg,
                        const char *sched, const double *alt, pc_rope_causes *out)
{
    rk k;
    if (rk_load(&k, impl, cfg) != 0) { /* no rows to test: the schedule's account alone */
        rk_free(&k);
        pc_rope_cause_add(out, 0.6, 5, sched, "the fitted frequencies and norms of the pairs");
        return;
    }
    h_schedule(&k, sched, alt, out);
    h_nonfinite(&k, out);
    h_storage(&k, out);
    h_offset(&k, out);
    h_turns(&k, out);
    h_rounding(&k, out);
    h_tf32(&k, out);
    h_phase(&k, out);
    h_norm(&k, out);
    h_reversed(&k, out);
    h_longrope(&k, spec, out);
    h_period(&k, out);
    h_amplitudes(&k, out);
    h_reciprocal(&k, out);
    h_evaluation(&k, out);
    h_layout(&k, out);
    rk_free(&k);
}

/* ---- the ranking --------------------------------------------------------------- */

void pc_rope_cause_add(pc_rope_causes *out, double sup, int order, const char *text,
                       const char *ev)
{
    if (out->n >= PC_ROPE_CAUSES_MAX || !text || !text[0] || !(sup > 0)) return;
    pc_rope_cause *c = &out->c[out->n++];
    c->support = sup;
    c->order = order;
    snprintf(c->text, sizeof c->text, "%s", text);
    snprintf(c->evidence, sizeof c->evidence, "%s", ev ? ev : "");
}

/* Better: more support (beyond 0.02), then the lower order. */
static int cmp_cause(const void *a, const void *b)
{
    const pc_rope_cause *x = a, *y = b;
    if (fabs(x->support - y->support) > 0.02) return x->support > y->support ? -1 : 1;
    if (x->order != y->order) return x->order < y->order ? -1 : 1;
    return x->support > y->support ? -1 : x->support < y->support;
}

void pc_rope_causes_write(pc_rope_causes *cs, char *buf, size_t len)
{
    buf[0] = '\0';
    if (cs->n == 0) return;
    qsort(cs->c, (size_t)cs->n, sizeof cs->c[0], cmp_cause);
    size_t u = (size_t)snprintf(buf, len, "%s", cs->c[0].text);
    if (u < len && cs->c[0].evidence[0])
        u += (size_t)snprintf(buf + u, len - u, "\n  evidence: %s", cs->c[0].evidence);
    for (int k = 1, shown = 0; k < cs->n && shown < 3 && u < len; k++) {
        if (cs->c[k].support < 0.3) continue;
        u += (size_t)snprintf(buf + u, len - u, "%s%s (%s)", shown ? "\n    " :
                              "\n  other candidates, less supported:\n    ", cs->c[k].text,
                              cs->c[k].evidence);
        shown++;
    }
}

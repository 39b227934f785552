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
 * that beats the checked schedule's own share by 0.1 (else 0).
 * The hypotheses about which rows, amplitudes and factors the source
 * holds, its angle's evaluation and its pairs' layout are rank_rows.c's
 * (rank_internal.h: what the two share). */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rank.h"
#include "rank_internal.h"
#include "rank_checked.h"
#include "fit.h"
#include "scaling.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"
#include "harness/sources/table.h"
#include "reference/reference.h"

#define RK_VALUES (1 << 18)  /* values held: 2 MiB of doubles, a few ms a hypothesis */
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

/* The share of the informative values that PRED reproduces, within their
 * tolerance, plus (BUDGET) the gate's phase budget A kappa_i 2^-24 |theta|
 * of their pair: the re-check of a fitted hypothesis, what the gate would
 * pass once it is put back. */
static double share_within(const rk *k, pred_fn pred, const void *arg, int budget)
{
    size_t ok = 0, used = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i], tol = pc_rk_tol(k, t);
            if (!pc_rk_informative(k, tol)) continue;
            if (budget) tol += k->att * pc_rk_gate_kappa(k, i) * 0x1p-24 * fabs(t);
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
 * it falls), its second member 0; the support as pc_rk_support()'s. */
static double mixed_support(const rk *k)
{
    size_t ok = 0, used = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i], tol = pc_rk_tol(k, t);
            if (!pc_rk_informative(k, tol)) continue;
            size_t at = r * (size_t)k->h + (size_t)i;
            double c = k->att * cos(t), sn = k->att * sin(t);
            used++;
            ok += fabs(k->s[at]) <= tol && fmin(fabs(k->c[at] - (c + sn)),
                                                fabs(k->c[at] - (c - sn))) <= tol;
        }
    double sh = used ? (double)ok / (double)used : 0.0;
    return sh >= k->share0 + PC_RK_MARGIN ? sh : 0.0;
}

/* The share of the informative values that PRED reproduces. */
static double share(const rk *k, pred_fn pred, const void *arg)
{
    return share_within(k, pred, arg, 0);
}

double pc_rk_support(const rk *k, pred_fn pred, const void *arg)
{
    double sh = share(k, pred, arg);
    return sh >= k->share0 + PC_RK_MARGIN ? sh : 0.0;
}

/* ---- predictions ---------------------------------------------------------- */

/* the checked schedule */
static void p_exact(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    (void)arg;
    pc_rk_put_rot(k, (double)p * k->w[i], zc, zs);
}

/* the angle rounded to FMT after a binary32 product */
static void p_angle(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    double t32 = (double)(float)((double)(float)p * (double)k->w32[i]);
    pc_rk_put_rot(k, rn(t32, *(const int *)arg), zc, zs);
}

/* the position held in FMT */
static void p_pos(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    pc_rk_put_rot(k, (double)(float)(rn((double)p, *(const int *)arg) * (double)k->w32[i]), zc, zs);
}

/* the frequency held in FMT */
static void p_freq(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    pc_rk_put_rot(k, (double)p * rn(k->w[i], *(const int *)arg), zc, zs);
}

/* a TF32 matmul inv_freq @ position_ids: both factors rounded to TF32
 * (ARG: 1 toward zero, 0 to nearest), their product (22 bits) exact in
 * the binary32 accumulator */
static void p_tf32(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    int rz = *(const int *)arg;
    pc_rk_put_rot(k, rn_tf32((double)p, rz) * rn_tf32((double)k->w32[i], rz), zc, zs);
}

/* the values stored in FMT */
static void p_store(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    int fmt = *(const int *)arg;
    pc_rk_put_rot(k, (double)p * k->w[i], zc, zs);
    *zc = rn(*zc, fmt);
    *zs = rn(*zs, fmt);
}

/* the rows of position p + K */
static void p_offset(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    pc_rk_put_rot(k, ((double)p + *(const double *)arg) * k->w[i], zc, zs);
}

/* every angle plus C */
static void p_phase(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    pc_rk_put_rot(k, (double)p * k->w[i] + *(const double *)arg, zc, zs);
}

/* cos and sin swapped */
static void p_swap(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    pc_rk_put_rot(k, (double)p * k->w[i], zs, zc);
    (void)arg;
}

/* the rotation the other way */
static void p_sign(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    pc_rk_put_rot(k, -(double)p * k->w[i], zc, zs);
    (void)arg;
}

/* no rotation: every angle 0 */
static void p_still(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    (void)arg; (void)p; (void)i;
    pc_rk_put_rot(k, 0.0, zc, zs);
}

/* other frequencies (ARG: h of them) and attention factor (ARG[h]) */
void pc_rk_p_freqs(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
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

void pc_rk_evidence(char *buf, size_t len, const rk *k, double sup, const char *what)
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

/* Whether every value of one part (SIN_PART: the sin values, else cos) is
 * a FMT number, half of them not trivially so. */
static int part_in(const rk *k, int fmt, int sin_part)
{
    size_t nv = k->n * (size_t)k->h, nontrivial = 0;
    const double *v = sin_part ? k->s : k->c;
    for (size_t at = 0; at < nv; at++) {
        if (rn(v[at], fmt) != v[at]) return 0;
        nontrivial += v[at] != 0 && fabs(v[at]) != 1.0 && fabs(v[at]) != 0.5;
    }
    return 2 * nontrivial >= nv;
}

/* One of a table's cos and sin stored in a half type, the other not (a
 * cast on one branch): every value of that part a FMT number is near
 * proof (a float32 value is a bfloat16 one by chance once in 2^16). */
static void h_storage_part(const rk *k, pc_rope_causes *out)
{
    /* a whole cache in a half type is h_storage's (a bfloat16 cos is a
     * float16 one too where its sin's small values are not) */
    if (!k->table || all_in(k, FMT_BF16) || all_in(k, FMT_F16)) return;
    for (int fmt = FMT_BF16; fmt <= FMT_F16; fmt++)
        for (int part = 0; part < 2; part++) {
            if (!part_in(k, fmt, part) || part_in(k, fmt, !part)) continue;
            char t[520], e[260];
            const char *held = part ? "sin" : "cos", *other = part ? "cos" : "sin";
            snprintf(t, sizeof t, "%s is held in %s and %s is not: every %s value of the cache is a "
                     "%s number, the %s values are float32 ones (%s rounded on its own, a cast on "
                     "one branch only); round both alike, or neither", held, fmt_name[fmt], other,
                     held, fmt_name[fmt], other, held);
            snprintf(e, sizeof e, "all %zu %s values of %zu rows are %s numbers; the %s values are "
                     "not", k->n * (size_t)k->h, held, k->n, fmt_name[fmt], other);
            add(out, 1.0, 1, t, e);
            return;
        }
}

static void h_storage(const rk *k, pc_rope_causes *out)
{
    if (k->cfg->storage) return; /* already judged as stored in a half type */
    h_storage_part(k, out);
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
        double sa = pc_rk_support(k, p_angle, &fmt), sf = pc_rk_support(k, p_freq, &fmt);
        snprintf(what, sizeof what, "the angle p*w rounded to %s", fmt_name[fmt]);
        pc_rk_evidence(e, sizeof e, k, sa, what);
        snprintf(t, sizeof t, "the angle pos*omega is held in %s (a %s matmul or cast before "
                 "cos/sin): it loses %s bits as the position grows", fmt_name[fmt], fmt_name[fmt],
                 fmt == FMT_BF16 ? "all but 8 significant" : "all but 11 significant");
        add(out, sa, 3, t, e);
        snprintf(what, sizeof what, "each frequency rounded to %s", fmt_name[fmt]);
        pc_rk_evidence(e, sizeof e, k, sf, what);
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
        /* a claim checked first: the positions the type holds exactly give the schedule's rows */
        double sp = pc_rk_pos_grid_holds(k, fmt == FMT_F32 ? 24 : fmt == FMT_BF16 ? 8 : 11)
                    ? pc_rk_support(k, p_pos, &fmt) : 0.0;
        snprintf(what, sizeof what, "the positions rounded to %s", fmt_name[fmt]);
        pc_rk_evidence(e, sizeof e, k, sp, what);
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
    for (int m = 0; m < 2; m++) sup[m] = pc_rk_support(k, p_tf32, &modes[m]);
    if (sup[1] > sup[0]) best = 1;
    char t[520], e[260], what[160];
    snprintf(what, sizeof what, "the positions and frequencies rounded to TF32 (11 significant bits, "
             "%s)", best ? "toward zero" : "to nearest");
    pc_rk_evidence(e, sizeof e, k, sup[best], what);
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
    /* read from the first row: said only when the rows across the range
     * hold it (a ring buffer in slot order holds it in half of them) */
    if (k->cfg->pos_hi - k->cfg->pos_lo + 1 >= 2 * 256 && pc_rk_offset_share(k, (int64_t)q) < 0.9)
        return;
    double sup = pc_rk_support(k, p_offset, &q);
    char t[520], e[260], what[120];
    snprintf(what, sizeof what, "the rows of position p%+.0f", q);
    pc_rk_evidence(e, sizeof e, k, sup, what);
    /* a start of 1 is most often positions counted from 1 (ids from a
     * cumsum of the attention mask without its - 1), not a slice */
    if (k->table && q > 0)
        snprintf(t, sizeof t, "the rows are those of positions p%+.0f: the cache starts at position "
                 "%.0f (%s); pass --pos-start %.0f, or build it from position 0", q,
                 (double)k->cfg->pos_lo + q, (double)k->cfg->pos_lo + q == 1.0
                 ? "1-based positions, or sliced from a longer one?" : "sliced from a longer one?",
                 (double)k->cfg->pos_lo + q);
    else if (k->table && (double)k->cfg->pos_lo + q >= 0) /* --pos-start past the cache's start */
        snprintf(t, sizeof t, "the rows are those of positions p%+.0f: the cache starts at position "
                 "%.0f, not %lld (--pos-start %lld too large?); pass --pos-start %.0f, or the "
                 "cache's positions are off by %+.0f", q, (double)k->cfg->pos_lo + q,
                 (long long)k->cfg->pos_lo, (long long)k->cfg->pos_lo,
                 (double)k->cfg->pos_lo + q, q);
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
    double sw = pc_rk_support(k, p_swap, NULL), sg = pc_rk_support(k, p_sign, NULL);
    pc_rk_evidence(e, sizeof e, k, sw, "sin in place of cos and cos in place of sin");
    snprintf(t, sizeof t, "sin and cos are swapped: the %s", k->table
             ? "cos cache holds sin and the sin cache cos (--table and --table-sin crossed?)"
             : "source puts sin where cos belongs and cos where sin does");
    add(out, sw, 2, t, e);
    pc_rk_evidence(e, sizeof e, k, sg, "the rotation by -p*w");
    snprintf(t, sizeof t, "the rotation turns the wrong way: sin has the wrong sign (rotate_half "
             "as cat(x2, -x1) instead of cat(-x2, x1), or sin negated)");
    add(out, sg, 2, t, e);
    double st = pc_rk_support(k, p_still, NULL);
    pc_rk_evidence(e, sizeof e, k, st, "no rotation (cos 1, sin 0 at every position)");
    snprintf(t, sizeof t, "%s", k->table ? "the cache does not rotate: cos 1 and sin 0 at every "
             "position and pair" : "the source does not rotate these dims: they come back as "
             "they went in (k left unrotated, or the rotation applied to other dims of the head "
             "than the rotary ones: partial rotary on the wrong slice)");
    add(out, st, 2, t, e);
    double mx = mixed_support(k);
    pc_rk_evidence(e, sizeof e, k, mx, "the probe's pairs read back as A (cos + sin) or A (cos - "
                   "sin) with nothing in their other member (a rotation pairing its "
                   "neighbour's dim)");
    snprintf(t, sizeof t, "the rotation pairs the dims one way and its cos/sin are laid out the "
             "other: rotate_every_two (pairs (2i, 2i + 1)) with a cos/sin of cat(freqs, freqs) "
             "(pairs (i, i + d/2)), or rotate_half with a repeat_interleave'd cos/sin: each "
             "output mixes a dim with its neighbour's instead of its pair's");
    add(out, mx, 2, t, e);
}

/* The mean of z e^{-i theta} over the values (its argument: a constant
 * phase; its modulus: a constant norm), each weighted by 1 / TOL^2 (the
 * values of small angles, whose own roundings are smallest, count most). */
void pc_rk_mean_turn(const rk *k, double *phase, double *norm)
{
    double sc = 0, ss = 0, sw = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            size_t at = r * (size_t)k->h + (size_t)i;
            double t = (double)k->pos[r] * k->w[i], tol = pc_rk_tol(k, t), g = 1.0 / (tol * tol);
            if (!pc_rk_informative(k, tol)) continue;
            sc += g * (k->c[at] * cos(t) + k->s[at] * sin(t));
            ss += g * (k->s[at] * cos(t) - k->c[at] * sin(t));
            sw += g;
        }
    *phase = atan2(ss, sc);
    *norm = sw > 0 ? hypot(sc, ss) / sw : (double)NAN;
}

/* The gate's kappa_i of pair I (harness/engine/acc_block.c, pair_kappa). */
double pc_rk_gate_kappa(const rk *k, int i)
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
    pc_rk_mean_turn(k, &c, &a);
    if (!isfinite(c) || fabs(c) < 1e-6) return;
    double sup = pc_rk_support(k, p_phase, &c);
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
    pc_rk_mean_turn(k, &c, &a);
    if (!isfinite(a) || fabs(a / k->att - 1.0) < 16.0 * k->u + 0x1p-18) return;
    double *w = malloc(((size_t)k->h + 1) * sizeof *w);
    if (!w) return;
    memcpy(w, k->w, (size_t)k->h * sizeof *w);
    w[k->h] = a;
    double sup = pc_rk_support(k, pc_rk_p_freqs, w);
    free(w);
    const pc_rope_params *p = k->cfg->sched ? k->cfg->sched->params : NULL;
    char t[520], e[260], what[120];
    snprintf(what, sizeof what, "the schedule's rotations with norm %.6g", a);
    pc_rk_evidence(e, sizeof e, k, sup, what);
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
    double sup = pc_rk_support(k, pc_rk_p_freqs, w);
    free(w);
    char t[520], e[260];
    pc_rk_evidence(e, sizeof e, k, sup, "the frequencies in reverse pair order");
    snprintf(t, sizeof t, "the pairs' frequencies are in reverse order: pair 0 turns slowest and pair "
             "%d fastest (a flipped inv_freq, or arange counting down)", k->h - 1);
    add(out, sup, 2, t, e);
}

/* The schedule's account: the support of the identified schedule's
 * frequencies ALT, or 0.6 without them (fit.c found a pattern but no
 * schedule that explains every pair). */
static void h_schedule(const rk *k, const char *sched, const double *alt, pc_rope_causes *out)
{
    if (!sched || !sched[0]) return;
    double sup = alt ? pc_rk_support(k, pc_rk_p_freqs, alt) : 0.0;
    char e[260];
    if (sup > 0)
        pc_rk_evidence(e, sizeof e, k, sup, "the schedule identify finds");
    else if (alt) /* named, but not 0.1 above the checked schedule (which misses few values) */
        pc_rk_evidence(e, sizeof e, k, share(k, pc_rk_p_freqs, alt), "the schedule named");
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
    /* Rows of position ids (axes, sections, real coordinates): these
     * hypotheses predict row p from position p, which such a row does not
     * hold (a SAM-2 cache's ids (t mod 64, t / 64) read as "row p holds
     * position p mod 64"); the schedule's account (axes_match.c) speaks
     * for them. */
    if (!(cfg->sched && (cfg->sched->kind->position || cfg->sched->kind->coord))) {
        pc_rk_longrope(&k, spec, out);
        pc_rk_period(&k, out);
        pc_rk_blocks(&k, out);
        pc_rk_sin_rows(&k, out);
        pc_rk_amplitudes(&k, out);
        pc_rk_reciprocal(&k, out);
        pc_rk_forms(&k, out);
    }
    pc_rk_evaluation(&k, out);
    pc_rk_layout(&k, out);
    if (!(cfg->sched && (cfg->sched->kind->position || cfg->sched->kind->coord)))
        pc_rk_checked(&k, out); /* rank_checked.c: rows of position p, as above */
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

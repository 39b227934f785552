/* rank_rows.c: the hypotheses of rank.c about which rows, amplitudes and
 * factors a failed RoPE source holds (a period in its rows, cos and sin
 * scaled apart, a factor inverted, LongRoPE's other or switched factor
 * list), and those read from its errors' pattern and its pairs' layout
 * (rank_internal.h, docs/diagnosis.md).  The values, the tolerance and
 * the support are rank.c's. */
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "rank_internal.h"
#include "fit.h"
#include "options.h"
#include "scaling.h"
#include "harness/sandbox/call.h"
#include "harness/sources/table.h"

#define RK_BINS 128          /* angle bins of the evaluation test */

/* ---- rows, amplitudes and factors (docs/diagnosis.md) ------------------------ */

/* Rows sampled across the whole checked range, one at a time, beyond the
 * held ones: a hypothesis about which position a row holds is checked on
 * rows between the held blocks too. */
#define RK_SPREAD 256

/* The position row AT holds (pc_rope_fit_offset against the checked
 * frequencies; NAN when not a whole number or not read). */
static double row_holds(const rk *k, int64_t at)
{
    double *c = malloc((size_t)k->h * sizeof *c), *s = malloc((size_t)k->h * sizeof *s);
    double q = (double)NAN;
    if (c && s && pc_rope_unit_rows(k->impl, k->d, k->cfg->base, k->cfg->layout, at, 1, c, s) == 0)
        q = pc_rope_fit_offset(c, s, k->w, k->h, (double)at, 4.0 * k->u + 0x1p-20);
    free(c); free(s);
    return isfinite(q) && q == round(q) ? (double)at + q : (double)NAN;
}

/* The position each row of the sample holds (row_holds): into E, the
 * sampled positions into P; the count. */
static size_t spread_rows(const rk *k, int64_t *p, double *e)
{
    int64_t total = k->cfg->pos_hi - k->cfg->pos_lo + 1;
    for (int j = 0; j < RK_SPREAD; j++) {
        p[j] = k->cfg->pos_lo + (int64_t)((double)total * j / RK_SPREAD);
        e[j] = row_holds(k, p[j]);
    }
    return RK_SPREAD;
}

/* position p taken modulo ARG (an int64_t) */
static void p_mod(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    int64_t per = *(const int64_t *)arg, r = p % per;
    pc_rk_put_rot(k, (double)(r < 0 ? r + per : r) * k->w[i], zc, zs);
}

/* Rows that repeat with a period P: row p holds position p mod P (chunked
 * prefill whose position_ids restart at 0 each chunk, a rolling buffer's
 * slot used as the position).  P is the smallest drop from a sampled row's
 * position to the position it holds; the claim is checked twice: every
 * sampled row across the range holds p mod P (90%), and p mod P
 * reproduces the held rows' values. */
void pc_rk_period(const rk *k, pc_rope_causes *out)
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
    double sup = pc_rk_support(k, p_mod, &P);
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
    pc_rope_cause_add(out, sup, 2, t, e2);
}

double pc_rk_offset_share(const rk *k, int64_t q)
{
    int64_t p[RK_SPREAD];
    double e[RK_SPREAD];
    size_t m = spread_rows(k, p, e), agree = 0;
    for (size_t j = 0; j < m; j++) agree += e[j] == (double)(p[j] + q);
    return m ? (double)agree / (double)m : 0.0;
}

/* Rows FROM.. of the checked range hold position p + ARG[1], the rows
 * before p + ARG[0] (ARG: int64_t[3], ARG[2] the first position of the
 * second block) */
static void p_two_blocks(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    const int64_t *a = arg;
    pc_rk_put_rot(k, (double)(p + (p < a[2] ? a[0] : a[1])) * k->w[i], zc, zs);
}

/* The first row of LO..HI (HI's shift is D) whose shift is D: rows read
 * by bisection (the blocks are contiguous). */
static int64_t first_of_block(const rk *k, int64_t lo, int64_t hi, int64_t d)
{
    while (lo < hi) {
        int64_t mid = lo + (hi - lo) / 2;
        if (row_holds(k, mid) == (double)(mid + d)) hi = mid;
        else lo = mid + 1;
    }
    return hi;
}

/* The shift D of the sampled rows J0..J1-1 that 90% of them hold (their
 * held position p + D); 0 with *OK 0 when none does. */
static int64_t block_shift(const int64_t *p, const double *e, size_t j0, size_t j1, int *ok)
{
    *ok = 0;
    if (j1 <= j0 || !isfinite(e[j0])) return 0;
    int64_t d = (int64_t)e[j0] - p[j0];
    size_t agree = 0;
    for (size_t j = j0; j < j1; j++) agree += e[j] == (double)(p[j] + d);
    *ok = (double)agree >= 0.9 * (double)(j1 - j0);
    return d;
}

/* Rows in two blocks of other shifts: rows lo..c-1 hold p + D1, rows
 * c..hi p + D2 (a ring buffer's slots read in slot order: slot s holds
 * the position last written to it; two chunks concatenated in the wrong
 * order).  Each block's rows are sampled across it (spread_rows) and 90%
 * of each must hold its shift; then the two shifts reproduce the held
 * rows' values (the support). */
void pc_rk_blocks(const rk *k, pc_rope_causes *out)
{
    int64_t total = k->cfg->pos_hi - k->cfg->pos_lo + 1, p[RK_SPREAD];
    double e[RK_SPREAD];
    if (total < 2 * RK_SPREAD) return;
    size_t m = spread_rows(k, p, e), cut = 0;
    for (size_t j = 1; j < m && !cut; j++)
        if (isfinite(e[j]) && isfinite(e[j - 1]) && e[j] - (double)p[j] != e[j - 1] - (double)p[j - 1])
            cut = j;
    if (!cut || cut < 8 || m - cut < 8) return; /* each block sampled 8 times at least */
    int ok1, ok2;
    int64_t a[3];
    a[0] = block_shift(p, e, 0, cut, &ok1);
    a[1] = block_shift(p, e, cut, m, &ok2);
    if (!ok1 || !ok2 || a[0] == a[1]) return;
    a[2] = first_of_block(k, p[cut - 1] + 1, p[cut], a[1]);
    /* out of order: the first block's positions all after the second's (a
     * repeated or a skipped row shifts the rows after it, in order) */
    if (!(k->cfg->pos_lo + a[0] > k->cfg->pos_hi + a[1])) return;
    double sup = pc_rk_support(k, p_two_blocks, a);
    if (!(sup > 0)) return;
    char t[520], e2[300];
    snprintf(e2, sizeof e2, "rows before position %lld held as p%+lld and from it as p%+lld reproduce "
             "%.1f%% of the source's values (the checked schedule: %.1f%%); of %zu rows sampled, "
             "those before %lld hold p%+lld and the others p%+lld", (long long)a[2],
             (long long)a[0], (long long)a[1], 100.0 * sup, 100.0 * k->share0, m, (long long)a[2],
             (long long)a[0], (long long)a[1]);
    snprintf(t, sizeof t, "the rows are in two blocks out of order: the rows of positions %lld..%lld "
             "hold positions p%+lld, those from %lld hold p%+lld (a ring buffer's slots read in "
             "slot order, each slot holding the position last written to it, or two chunks "
             "concatenated in the wrong order); order the rows by position (roll the buffer by "
             "its write index)", (long long)k->cfg->pos_lo, (long long)a[2] - 1, (long long)a[0],
             (long long)a[2], (long long)a[1]);
    pc_rope_cause_add(out, sup, 2, t, e2);
}

/* cos of position p + ARG[0], sin of position p + ARG[1] (int64_t) */
static void p_sin_row(const rk *k, const void *arg, int64_t p, int i, double *zc, double *zs)
{
    const int64_t *q = arg;
    *zc = k->att * cos((double)(p + q[0]) * k->w[i]);
    *zs = k->att * sin((double)(p + q[1]) * k->w[i]);
}

/* A cache whose sin rows are those of other positions than its cos rows
 * (sin_cached[position_ids + 1], or the two caches sliced at different
 * starts): cos and sin then have no common angle, so the fit reads a norm
 * and a frequency that are neither's.  Only a table has two caches; the
 * shifts tried are those of indexing off by one or two, each cache's. */
void pc_rk_sin_rows(const rk *k, pc_rope_causes *out)
{
    if (!k->table) return;
    double best = 0;
    int64_t q[2] = { 0, 0 }, at[2];
    for (at[0] = -2; at[0] <= 2; at[0]++)
        for (at[1] = -2; at[1] <= 2; at[1]++) {
            if (at[0] == at[1]) continue; /* one shift of both: h_offset's */
            double sup = pc_rk_support(k, p_sin_row, at);
            if (sup > best) { best = sup; q[0] = at[0]; q[1] = at[1]; }
        }
    if (!(best > 0)) return;
    char t[520], e[260], what[120], pc[24], ps[24];
    for (int m = 0; m < 2; m++) /* "p", "p+1", "p-2" */
        snprintf(m ? ps : pc, sizeof pc, q[m] ? "p%+lld" : "p", (long long)q[m]);
    snprintf(what, sizeof what, "cos of position %s with sin of position %s", pc, ps);
    pc_rk_evidence(e, sizeof e, k, best, what);
    snprintf(t, sizeof t, "the cos and sin caches hold different positions: cos row p is position "
             "%s, sin row p position %s (the two indexed apart, sin_cached[position_ids %+lld], or "
             "sliced at different starts)", pc, ps, (long long)(q[1] - q[0]));
    pc_rope_cause_add(out, best, 2, t, e);
}

/* The frequencies (h of them and the attention factor) a prediction by
 * other frequencies uses at position P: ARG itself (pc_rk_p_freqs), or the
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
 * product of theta_scale included).  Its support as pc_rk_support()'s. */
static double support_own(const rk *k, freqs_at_fn at_p, const void *arg)
{
    size_t ok = 0, used = 0;
    for (size_t r = 0; r < k->n; r++) {
        const double *w = at_p(arg, k->pos[r]);
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i], tw = (double)k->pos[r] * w[i];
            if (!pc_rk_informative(k, pc_rk_tol(k, t))) continue;
            double big = fmax(fabs(t), fabs(tw));
            double tol = pc_rk_tol(k, big) + k->att * pc_rk_gate_kappa(k, i) * 0x1p-24 * big;
            size_t a = r * (size_t)k->h + (size_t)i;
            used++;
            ok += hypot(k->c[a] - w[k->h] * cos(tw), k->s[a] - w[k->h] * sin(tw)) <= tol;
        }
    }
    double sh = used ? (double)ok / (double)used : 0.0;
    return sh >= k->share0 + PC_RK_MARGIN ? sh : 0.0;
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
void pc_rk_amplitudes(const rk *k, pc_rope_causes *out)
{
    double cc = 0, ct = 0, ss = 0, st = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i];
            if (!pc_rk_informative(k, pc_rk_tol(k, t))) continue;
            size_t at = r * (size_t)k->h + (size_t)i;
            cc += k->c[at] * cos(t); ct += cos(t) * cos(t);
            ss += k->s[at] * sin(t); st += sin(t) * sin(t);
        }
    if (!(ct > 0 && st > 0)) return;
    double a[2] = { cc / ct, ss / st }, lim = 16.0 * k->u + 0x1p-18;
    if (!(fabs(a[0] / a[1] - 1.0) > lim)) return;
    double sup = pc_rk_support(k, p_amps, a);
    if (!(sup > 0)) return;
    /* which one carries the schedule's attention factor (or 1) */
    int c_att = fabs(a[0] / k->att - 1.0) < lim, s_att = fabs(a[1] / k->att - 1.0) < lim;
    int c_one = fabs(a[0] - 1.0) < lim, s_one = fabs(a[1] - 1.0) < lim;
    char t[520], e[260], what[160];
    snprintf(what, sizeof what, "cos times %.6g and sin times %.6g", a[0], a[1]);
    pc_rk_evidence(e, sizeof e, k, sup, what);
    const char *which = c_att && s_one ? "cos only, not sin" : s_att && c_one ? "sin only, not cos"
                        : "one of them, or each by another";
    snprintf(t, sizeof t, "cos and sin have different amplitudes: cos x %.6g, sin x %.6g (the "
             "schedule's attention factor: %.6g): an attention factor (mscale) multiplied into %s; "
             "both must carry the same norm", a[0], a[1], k->att, which);
    pc_rope_cause_add(out, sup, 2, t, e);
}

/* A linear schedule's factor used inverted: frequencies times the factor
 * instead of divided by it (ARG: h frequencies and the attention factor),
 * checked by the values it reproduces: the fitted frequencies alias past
 * pi a position, the values do not. */
void pc_rk_reciprocal(const rk *k, pc_rope_causes *out)
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
    pc_rk_evidence(e, sizeof e, k, sup, what);
    snprintf(t, sizeof t, "the scaling factor is inverted: the cache's frequencies are %g times the "
             "schedule's, those of linear factor 1/%g (the frequencies multiplied by %g instead of "
             "divided; llama.cpp's freq_scale is the reciprocal of the factor: --rope-freq-scale %g "
             "where --rope-scale %g, or --rope-freq-scale %g, was meant)", f * f, f, f, f, f, 1.0 / f);
    pc_rope_cause_add(out, sup, 2, t, e);
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
        if (!pc_rk_informative(k, pc_rk_tol(k, t))) continue;
        used++;
        ia += hypot(c[i] - a[k->h] * cos(ta), s[i] - a[k->h] * sin(ta))
              <= pc_rk_tol(k, fmax(fabs(t), fabs(ta)));
        ib += hypot(c[i] - b[k->h] * cos(tb), s[i] - b[k->h] * sin(tb))
              <= pc_rk_tol(k, fmax(fabs(t), fabs(tb)));
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
    pc_rk_evidence(e, sizeof e, k, sup, what);
    snprintf(t, sizeof t, "LongRoPE's factors switch mid-cache: rows %lld..%lld match the %s "
             "factors, rows %lld..%lld the %s ones (a cache mixed from two lengths: HF picks the "
             "factor list per forward from the sequence length so far, so a prompt's keys keep "
             "the short factors beside decode steps past the original length with the long ones); "
             "one cache must use one list", (long long)k->cfg->pos_lo, (long long)at - 1, na,
             (long long)at, (long long)k->cfg->pos_hi, nb);
    pc_rope_cause_add(out, sup, 1, t, e);
}

/* LongRoPE: the other list of factors (short where long belong, or the
 * reverse). */
void pc_rk_longrope(const rk *k, const pc_spec *spec, pc_rope_causes *out)
{
    const pc_rope_spec *rs = pc_rope_spec_of(spec);
    const pc_rope_params *p = k->cfg->sched ? k->cfg->sched->params : NULL;
    if (!rs || !p || p->type != PC_ROPE_LONGROPE || rs->n_factor != k->h) return;
    const double *other = p->use_long ? rs->short_factor : rs->long_factor;
    double *w = other ? malloc(((size_t)k->h + 1) * sizeof *w) : NULL;
    if (!w) return;
    for (int i = 0; i < k->h; i++) w[i] = pow(p->base, -2.0 * i / k->d) / other[i];
    w[k->h] = k->att;
    double sup = pc_rk_support(k, pc_rk_p_freqs, w);
    char t[520], e[260], what[120];
    snprintf(what, sizeof what, "the %s factors", p->use_long ? "short" : "long");
    pc_rk_evidence(e, sizeof e, k, sup, what);
    snprintf(t, sizeof t, "the cache uses LongRoPE's %s factors where the sequence length (%g, "
             "original %g) calls for the %s ones: short_factor and long_factor swapped, or the "
             "cache built for another length (--seq-len)", p->use_long ? "short" : "long",
             p->seq_len, p->orig_max, p->use_long ? "long" : "short");
    pc_rope_cause_add(out, sup, 1, t, e);
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
    pc_rk_mean_turn(k, &c0, &a);
    if (!isfinite(c0) || !isfinite(a)) return 0;
    double sum[RK_BINS][2], sq = 0, mc = 0, ms = 0;
    size_t cnt[RK_BINS] = { 0 }, n = 0;
    memset(sum, 0, sizeof sum);
    double big = 0, ec = 0, es = 0;
    for (size_t r = 0; r < k->n; r++)
        for (int i = 0; i < k->h; i++) {
            double t = (double)k->pos[r] * k->w[i];
            if (!pc_rk_informative(k, pc_rk_tol(k, t))) continue;
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

void pc_rk_evaluation(const rk *k, pc_rope_causes *out)
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
    pc_rope_cause_add(out, 0.85 * r2, 3, t, e);
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
    pc_rope_cause_add(out, 1.0, 0, t, e);
}

/* Asked for one layout, the source pairs dims as the other does (a
 * built-in or plugin; a table's layout is found from its columns, above). */
void pc_rk_layout(const rk *k, pc_rope_causes *out)
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
            double t = (double)k->pos[r] * k->w[i], tol = pc_rk_tol(k, t);
            if (!pc_rk_informative(k, tol)) continue;
            size_t a = r * (size_t)d + (size_t)(o ? i : 2 * i), b = r * (size_t)d + (size_t)(o ? i + h : 2 * i + 1);
            used++;
            ok += hypot((double)y[a] - k->att * cos(t), (double)y[b] - k->att * sin(t)) <= tol;
        }
    free(x); free(y);
    double sh = used ? (double)ok / (double)used : 0;
    if (sh < k->share0 + PC_RK_MARGIN) return;
    char t[520], e[260];
    snprintf(e, sizeof e, "read as the %s layout, its output reproduces %.1f%% of the values",
             pc_layout_name(o), 100.0 * sh);
    snprintf(t, sizeof t, "asked for the %s layout, the source pairs dims as the %s layout does (%s "
             "instead of %s): the layouts are swapped", pc_layout_name(l), pc_layout_name(o),
             o ? "(i, i + d/2)" : "(2i, 2i + 1)", o ? "(2i, 2i + 1)" : "(i, i + d/2)");
    pc_rope_cause_add(out, sh, 2, t, e);
}

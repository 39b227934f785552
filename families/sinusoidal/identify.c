/* identify.c: which sinusoidal formula a source's rows follow
 * (pc_sin_diagnosis; docs/sinusoidal.md "identify"):
 *
 *   the order: pair 0 (omega_0 = M, 1 but under tensor2tensor's
 *     min_timescale, M < pi) turns by +M rad a row read as (sin, cos), by
 *     -M rad read as (cos, sin);
 *   the frequencies: omega~_i = (phi_i(last) - phi_i(first)) / (n - 1), the
 *     unwrapped phase (every omega_i <= M < pi), good to 2 e / (n - 1);
 *   the min_timescale: M = omega~_0 rounded to 3 significant digits, 1
 *     when within ID_MIN_TOL of 1;
 *   the formula: omega_i = M r^i in every formula, ln r fitted through the
 *     origin to ln(omega~_i / M); the base B = M r^-(d/2 - S) is a round
 *     number (3 significant digits within 0.1%, as RoPE's) for one shift
 *     S: S = 1 is tensor2tensor's, fairseq's, Whisper's d/2 - 1 denominator;
 *   the offset: the position P0 of the first row, the one within 2^20 of
 *     the position it was read as (not below 0) whose
 *     angles P0 omega_i (omega_i certified, schedule_timescale.c) are
 *     closest to the first row's phases on every pair;
 *   the check: every value against sin and cos of its certified angle
 *     within the accuracy gate's element bound, the schedule's kappa_i. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sin_ident.h"
#include "harness/base/half.h"
#include "sin_timestep.h"
#include "families/family.h"
#include "harness/base/dtype.h"
#include "harness/engine/model.h"
#include "harness/sandbox/call.h"
#include "harness/sources/table.h"

#define ID_ROWS_MAX 4096           /* rows read (the first ones) */
#define ID_ROUND_TOL 1e-3          /* a round base: within 0.1% (pc_rope_round_base's) */
#define ID_MIN_TOL 1e-2           /* omega~_0 this near 1: no min_timescale (a bfloat16
                                         * table's omega~_0 is good to 2 * 2^-8 / 3 at 4
                                         * rows, 3e-3) */
#define ID_OFFSET_MAX ((int64_t)1 << 20) /* first-row positions tried: within this of
                                         * the position the rows were read as */

/* ---- the rows ----------------------------------------------------------- */

static pc_status read_rows(const pc_impl *impl, pc_sin_found *f, pc_err *err)
{
    int rc;
    pc_status st = pc_sin_read_rows(impl, f->lo, f->n, f->d, f->base_hint, f->read_layout,
                                    &f->rows, &rc, err);
    if (st != PC_OK) return st;
    if (rc != 0)
        return pc_seterr(err, PC_EINPUT, "%s: its sinusoidal hook returned %d for positions "
                         "%lld..%lld, d %d, layout %s: nothing to identify", impl->name, rc,
                         (long long)f->lo, (long long)f->hi, f->d,
                         pc_layout_name(f->read_layout));
    return PC_OK;
}

/* Pair I of row R, sin and cos, in F's order. */
static void values_at(const pc_sin_found *f, size_t r, int i, double *s, double *c)
{
    size_t h = (size_t)f->d / 2, a = f->layout ? (size_t)i : 2 * (size_t)i;
    size_t b = f->layout ? (size_t)i + h : 2 * (size_t)i + 1;
    const float *row = f->rows + r * (size_t)f->d;
    *s = (double)row[f->cos_first ? b : a];
    *c = (double)row[f->cos_first ? a : b];
}

/* Pair I of row R as the angle and length of (cos, sin). */
static void pair_at(const pc_sin_found *f, size_t r, int i, double *phase, double *amp)
{
    double s, c;
    values_at(f, r, i, &s, &c);
    *phase = atan2(s, c);
    *amp = hypot(s, c);
}

static double wrap(double x)
{
    return remainder(x, 2.0 * M_PI);
}

/* pair 0 turns by +1 rad a row read in the right order */
static void find_order(pc_sin_found *f)
{
    double sum = 0, p0, p1, a;
    f->cos_first = 0;
    for (size_t r = 0; r + 1 < f->n; r++) {
        pair_at(f, r, 0, &p0, &a);
        pair_at(f, r + 1, 0, &p1, &a);
        sum += wrap(p1 - p0);
    }
    f->cos_first = sum < 0;
}

/* omega~_i from the unwrapped phase of pair I over the rows */
static double fitted_omega(const pc_sin_found *f, int i)
{
    double prev, a, unwrapped = 0, first;
    pair_at(f, 0, i, &first, &a);
    prev = first;
    for (size_t r = 1; r < f->n; r++) {
        double p;
        pair_at(f, r, i, &p, &a);
        unwrapped += wrap(p - prev);
        prev = p;
    }
    return unwrapped / (double)(f->n - 1);
}

/* ---- the formula ---------------------------------------------------------- */

/* B to 3 significant digits, *DIST its relative distance from B */
static double round3(double b, double *dist)
{
    *dist = (double)INFINITY;
    if (!(b > 0.0) || !isfinite(b)) return (double)NAN;
    double p = pow(10.0, floor(log10(b)) - 2.0);
    double r = round(b / p) * p;
    *dist = fabs(r / b - 1.0);
    return r;
}

static double round_base(double b, double *dist)
{
    if (!(b > 1.0)) { *dist = (double)INFINITY; return (double)NAN; }
    return round3(b, dist);
}

/* M from pair 0's frequency (1 unless it is clearly another) */
static void find_min_timescale(pc_sin_found *f)
{
    double w0 = fitted_omega(f, 0), dist;
    f->min_ts = 1.0;
    if (!(fabs(w0 - 1.0) > ID_MIN_TOL)) return;
    double m = round3(w0, &dist);
    f->min_ts = dist <= ID_ROUND_TOL ? m : w0;
}

/* ln r through the origin: sum i ln(w~_i / M) / sum i^2 over the pairs
 * i >= 1 */
static void find_formula(pc_sin_found *f)
{
    int h = f->d / 2;
    double num = 0, den = 0;
    find_min_timescale(f);
    for (int i = 1; i < h; i++) {
        double w = fitted_omega(f, i);
        if (!(w > 0)) continue;
        num += (double)i * log(w / f->min_ts);
        den += (double)i * (double)i;
    }
    f->shift = 0;
    f->base = f->base_raw = f->base_hint;
    if (!(den > 0) || !(num < 0)) return; /* d = 2, or no pair turns forward */
    double lr = num / den, best = (double)INFINITY;
    for (int s = 0; s <= 1 && h - s >= 1; s++) {
        double raw = f->min_ts * exp(-(double)(h - s) * lr), dist;
        double b = round_base(raw, &dist);
        if (dist < best) { best = dist; f->shift = s; f->base_raw = raw; f->base = b; }
    }
    if (best > ID_ROUND_TOL) f->base = f->base_raw;
}

/* ---- the offset and the check --------------------------------------------- */

/* The largest |phase error| of row 0 at first position P over the pairs. */
static double row0_err(const pc_sin_found *f, const double *w, int64_t p)
{
    double worst = 0, ph, a;
    for (int i = 0; i < f->d / 2; i++) {
        pair_at(f, 0, i, &ph, &a);
        double e = fabs(wrap(ph - fmod((double)p * w[i], 2.0 * M_PI)));
        if (e > worst) worst = e;
    }
    return worst;
}

static void find_offset(pc_sin_found *f, const double *w)
{
    double ph, a, best = (double)INFINITY;
    pair_at(f, 0, 0, &ph, &a);
    f->first = f->lo;
    int64_t from = f->lo > ID_OFFSET_MAX ? f->lo - ID_OFFSET_MAX : 0;
    for (int64_t p = from; p <= f->lo + ID_OFFSET_MAX && p <= PC_POS_MAX - (int64_t)f->n; p++) {
        if (fabs(wrap(ph - fmod((double)p * w[0], 2.0 * M_PI))) > 1e-3)
            continue; /* pair 0's angle is p omega_0 */
        double e = row0_err(f, w, p);
        if (e < best) { best = e; f->first = p; }
    }
}

/* Every value against sin and cos of its angle (binary64, within 2^-50 of
 * the certified values: far below the bound) within the accuracy gate's
 * element bound, the schedule's kappa_i. */
static void check_rows(pc_sin_found *f, const double *w, const pc_schedule *s)
{
    double u_s = pc_model_u_storage(f->dtype);
    f->worst = 0;
    for (int i = 0; i < f->d / 2; i++) {
        double kappa = w[i] == 1.0 ? 0.0 : pc_schedule_model_c(s, f->d, i);
        for (size_t r = 0; r < f->n; r++) {
            int64_t p = f->first + (int64_t)r;
            double sv, cv, theta = (double)p * w[i];
            values_at(f, r, i, &sv, &cv);
            double e = fmax(fabs(sv - sin(theta)), fabs(cv - cos(theta)));
            double b = pc_model_element(pc_model_radial(0, 1.0),
                                        pc_model_phase(kappa, w[i], p), u_s, 1.0, 1.0);
            if (e / b > f->worst) { f->worst = e / b; f->worst_pair = i; f->worst_pos = p; }
        }
    }
    f->found = f->worst <= 1.0;
}

static pc_status identify_rows(pc_sin_found *f, pc_err *err)
{
    find_order(f);
    find_formula(f);
    pc_sin_sched sc = { f->shift, f->min_ts };
    pc_schedule s = pc_sin_schedule(&sc, f->base);
    pc_freqs *fr = pc_freqs_new(f->d, s);
    double *w = malloc((size_t)f->d / 2 * sizeof *w);
    if (!w) {
        pc_freqs_free(fr);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    if (!fr) {
        /* the pairs' fitted frequencies are no sinusoidal formula's (a
         * learned table's trained values fit a base such as 2.15 that has
         * no certified frequencies): not found, and check's line is the
         * paper's formula, one check takes */
        free(w);
        f->no_formula = 1;
        f->found = 0;
        f->worst = (double)INFINITY;
        f->base = f->base_hint > 1.0 ? f->base_hint : 10000.0; /* the paper's max_timescale */
        f->shift = 0;
        f->min_ts = 1.0;
        f->first = f->lo;
        return PC_OK;
    }
    for (int i = 0; i < f->d / 2; i++) w[i] = pc_freqs_omega(fr, i);
    find_offset(f, w);
    check_rows(f, w, &s);
    pc_sin_presets_of(f->shift, f->layout, pc_sin_found_cos_first(f), f->presets,
                      sizeof f->presets);
    if (f->min_ts != 1.0) /* only tensor2tensor has a min_timescale */
        snprintf(f->presets, sizeof f->presets, "%s", strstr(f->presets, "t2t") ? "t2t" : "");
    pc_freqs_free(fr);
    free(w);
    return PC_OK;
}

/* Row 0 of F's rows is all zeros. */
static int zero_row(const pc_sin_found *f)
{
    for (int j = 0; j < f->d; j++)
        if (f->rows[j] != 0.0f) return 0;
    return 1;
}

/* X rounded to binary16 (HALF 1) or bfloat16 (HALF 2) from binary32; X
 * itself for HALF 0. */
static double in_half(double x, int half)
{
    if (half == 0) return x;
    float v = (float)x;
    return half == 1 ? (double)pc_f16_value(pc_f16_of(v)) : (double)pc_bf16_value(pc_bf16_of(v));
}

/* Every value of F's rows within a binary32 computation's error (8 u (1 +
 * |theta|): the default class's order of magnitude) of sin and cos of
 * P omega_i, P or omega_i rounded to HALF when WHAT is 0 or 1. */
static int half_explains(const pc_sin_found *f, const double *w, int what, int half)
{
    for (size_t r = 0; r < f->n; r++) {
        double p = (double)(f->first + (int64_t)r);
        if (what == 0) p = in_half(p, half);
        for (int i = 0; i < f->d / 2; i++) {
            double th = p * (what == 1 ? in_half(w[i], half) : w[i]), s, c;
            /* a binary32 computation's error: the angle's product and sin/cos,
             * a few roundings of u = 2^-24 relative to the angle (8 u |theta|),
             * plus 2^-21 absolute (a few ulps of a value near 1) */
            double tol = 8.0 * 0x1p-24 * (1.0 + fabs(th)) + 0x1p-21;
            values_at(f, r, i, &s, &c);
            if (fabs(s - sin(th)) > tol || fabs(c - cos(th)) > tol) return 0;
        }
    }
    return 1;
}

/* The cause of HALF (1 binary16, 2 bfloat16) on WH (0 positions, 1
 * frequencies) under frequencies W, into BUF. */
static int half_hit(const pc_sin_found *f, const double *w, char *buf, size_t len)
{
    static const char *const what[2] = { "positions", "frequencies (div_term, inv_freq)" };
    if (half_explains(f, w, 0, 0)) return 0; /* the formula unrounded: rounding is not why */
    for (int k = 0; k < 4; k++) {
        int half = k % 2 ? 2 : 1, wh = k / 2;
        if (!half_explains(f, w, wh, half)) continue;
        snprintf(buf, len, "the %s are held in %s (%s): every value read is the formula's with "
                 "them rounded to %s", what[wh], half == 1 ? "float16" : "bfloat16", wh == 0
                 ? "torch.arange(..., dtype=float16) or a model cast before its buffer is built"
                 : "computed in half precision", half == 1 ? "float16" : "bfloat16");
        return 1;
    }
    return 0;
}

int pc_sin_half_cause(const pc_sin_found *f, const pc_schedule *checked, char *buf, size_t len)
{
    if (!f->rows || f->n < 4) return 0;
    pc_sin_sched sc = { f->shift, f->min_ts };
    pc_schedule own = pc_sin_schedule(&sc, f->base);
    const pc_schedule *tries[2] = { checked, &own };
    double *w = malloc((size_t)f->d / 2 * sizeof *w);
    int hit = 0;
    for (int t = 0; w && t < 2 && !hit; t++) {
        pc_freqs *fr = tries[t] ? pc_freqs_new(f->d, *tries[t]) : NULL;
        for (int i = 0; fr && i < f->d / 2; i++) w[i] = pc_freqs_omega(fr, i);
        hit = fr && half_hit(f, w, buf, len);
        pc_freqs_free(fr);
    }
    free(w);
    return hit;
}

/* IMPL's rows over LO..HI (a table: its own) under SPEC. */
pc_status pc_sin_identify(const pc_impl *impl, const pc_spec *spec, int64_t lo, int64_t hi,
                          pc_sin_found *f, pc_err *err)
{
    const pc_table_info *t = pc_table_info_of(impl);
    memset(f, 0, sizeof *f);
    f->impl = impl;
    f->d = t ? t->d : spec->d;
    f->read_layout = t ? t->layout : spec->layout >= 0 ? spec->layout : 0;
    f->layout = t && spec->layout == PC_SIN_OTHER_LAYOUT ? !f->read_layout : f->read_layout;
    f->lo = t ? t->pos_lo : lo;
    f->hi = t ? t->pos_hi : hi;
    f->swapped = t ? t->pair_swapped : 0;
    f->dtype = t ? t->dtype : PC_DT_F32;
    f->base_hint = spec->base;
    if (f->hi - f->lo + 1 < 4)
        return pc_seterr(err, PC_EINPUT, "%s: %lld row%s: the encoding cannot be identified from "
                         "fewer than 4 consecutive positions (a pair's turn between rows is what "
                         "gives its frequency); identify a table of 4 or more consecutive rows, "
                         "or check these rows with the formula's options (--preset, or --base "
                         "and --freq-shift; --pos-start for the first row's position)",
                         impl->name, (long long)(f->hi - f->lo + 1), f->hi == f->lo ? "" : "s");
    f->n = (size_t)(f->hi - f->lo + 1) > ID_ROWS_MAX ? ID_ROWS_MAX : (size_t)(f->hi - f->lo + 1);
    pc_status st = read_rows(impl, f, err);
    if (st == PC_OK && f->n > 4 && zero_row(f)) {
        /* fairseq zeroes row padding_idx of its table: a table sliced one
         * row early starts with it; the rows after it are identified */
        memmove(f->rows, f->rows + f->d, (f->n - 1) * (size_t)f->d * sizeof *f->rows);
        f->n--;
        f->lo++;
        f->zero_row = 1;
    }
    if (st == PC_OK) st = identify_rows(f, err);
    if (st == PC_OK && f->zero_row) {
        f->rest_found = f->found;
        f->found = 0; /* row 0 is not the formula's */
    }
    return st;
}

void pc_sin_found_free(pc_sin_found *f)
{
    free(f->rows);
    f->rows = NULL;
}

/* rope-relative and rope-norm: the two properties RoPE is built on.
 *
 * rope-relative: <R_m q, R_n k> = <R_{m+s} q, R_{n+s} k> for every shift s
 * (the score depends on m - n only), checked pair by pair, so a small
 * relative error on one slow pair is not hidden by the fast pairs' larger
 * bounds.  The report shows the shift-invariance error as a function of
 * the absolute offset (what bfloat16 RoPE breaks at long context).  With
 * position ids of several axes (--position-ids) the shift is along one
 * axis: from rows m, n to the rows whose positions are theirs moved by s
 * on that axis (axes_rows.h), the case's axis held in its N.
 * rope-norm: a rotation preserves every pair's norm.
 * xPos (--rope-xpos, schedule_xpos.c) scales pair i at position p by
 * G_i(p) = zeta_i^((p + q0)/B), which one cache's <R_m q, R_n k> carries as
 * G_i(m) G_i(n): not a function of m - n (xPos is relative only between
 * an upscaled query and a downscaled key).  rope-relative then checks the
 * angle part, each rotated pair divided by its certified G_i first;
 * rope-norm checks |(R_m x)_i| = A G_i(m) |x_i|, the certified norm. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "properties/property.h"
#include "axes_rows.h"


/* ------------------------------------------------------------------ */
/* rope-relative                                                      */

/* Rows M, N and a shift S on an axis whose shifted rows exist: tries at
 * random, then the first shiftable row (setup_rel found one) with S = 1. */
static void gen_axes(pc_prun *r, const pc_rope_axes *a, pc_rng *g, pc_case *c)
{
    c->npos = 2;
    c->vmode = PC_V_DENSE;
    for (int t = 0; t < 256; t++) {
        c->n = (int)pc_rng_below(g, (uint64_t)a->n_axes);
        c->k = pc_p_offset(g, 1, 64);
        c->pos[0] = pc_p_pos(g, r->lo, r->hi);
        c->pos[1] = pc_p_pos(g, r->lo, r->hi);
        if (pc_rope_axes_shift(a, c->pos[0], c->n, c->k) >= 0
            && pc_rope_axes_shift(a, c->pos[1], c->n, c->k) >= 0)
            return;
    }
    int axis = 0;
    int64_t m = r->lo;
    pc_rope_axes_shiftable(a, r->lo, r->hi, pc_p_pos(g, r->lo, r->hi), &axis, &m);
    c->n = axis;
    c->k = 1;
    c->pos[0] = c->pos[1] = m;
}

static void gen_rel(pc_prun *r, pc_rng *g, pc_case *c)
{
    const pc_rope_axes *a = pc_rope_run_axes(r, r->params->d);
    if (a) { gen_axes(r, a, g, c); return; }
    c->npos = 2;
    c->k = pc_p_offset(g, 1, r->hi - r->lo);
    int64_t top = r->hi - c->k;
    c->pos[0] = pc_p_pos(g, r->lo, top);
    c->pos[1] = pc_rng_below(g, 2) ? c->pos[0] + pc_p_offset(g, 0, top - c->pos[0])
                                   : pc_p_pos(g, r->lo, top);
    c->vmode = PC_V_DENSE;
}

/* The rows of C's shifted positions into S2 (one axis: their rows;
 * else m + s, n + s); 0 when one has none.  R's frequencies are made. */
static int shifted_rows(const pc_prun *r, const pc_case *c, int64_t *s2)
{
    const pc_rope_axes *a = pc_rope_run_axes_made(r);
    for (int j = 0; j < 2; j++)
        s2[j] = a ? pc_rope_axes_shift(a, c->pos[j], c->n, c->k) : c->pos[j] + c->k;
    return s2[0] >= 0 && s2[1] >= 0;
}

static int valid_rel(const pc_prun *r, const pc_case *c)
{
    int64_t s2[2];
    for (int j = 0; j < 2; j++)
        if (c->pos[j] < r->lo || c->pos[j] > r->hi) return 0;
    if (!shifted_rows(r, c, s2)) return 0; /* the generator made the frequencies */
    return c->k >= 1 && s2[0] <= r->hi && s2[1] <= r->hi;
}

/* rope-relative needs two rows a shift apart on one axis of the ids */
static pc_status setup_rel(pc_prun *r, pc_outcome *oc)
{
    pc_status st = pc_p_need_two(r, oc);
    const pc_rope_axes *a = st == PC_OK ? pc_rope_run_axes(r, r->params->d) : NULL;
    int axis;
    int64_t m;
    if (a && a->coords) { /* a shift is a whole step of the ids; coordinates have none */
        snprintf(oc->msg, sizeof oc->msg, "the position ids are real coordinates: rope-relative "
                 "moves rows by whole steps along one axis of integer ids (the accuracy gate "
                 "checks every row at its coordinates)");
        return PC_SKIP;
    }
    if (a && !pc_rope_axes_shiftable(a, r->lo, r->hi, r->lo, &axis, &m)) {
        snprintf(oc->msg, sizeof oc->msg, "no row of the position ids has another one step "
                 "further on one axis");
        return PC_SKIP;
    }
    return st;
}

typedef struct { double err, bound, d1, d2; int pair; double qk; } relv;

/* G_i(POS) of the run's schedule (xPos), the certified factor rounded to
 * binary64; 1 without one.  R's frequencies of D are made. */
static double pair_g(pc_prun *r, int d, int64_t pos, int i)
{
    pc_freqs *f = pc_p_freqs(r, d, NULL);
    return f && pc_freqs_scaled(f) ? pc_freqs_scale(f, pos, i) : 1.0;
}

/* Per pair i: |<R_m q, R_n k>_i - <R_{m'} q, R_{n'} k>_i| against its
 * bound, M2 and N2 the rows of the shifted positions (m + s, n + s, or
 * one axis' shift); returns the worst pair (by ratio) in *W; 1 on a hook
 * error. */
static int rel_eval(pc_prun *r, int d, int64_t m, int64_t n, int64_t m2, int64_t n2,
                    const float *q, const float *k, float *buf, relv *w)
{
    size_t dd = (size_t)d;
    float *x = buf, *out = buf + 4 * dd;
    memcpy(x, q, dd * sizeof *x);
    memcpy(x + dd, k, dd * sizeof *x);
    memcpy(x + 2 * dd, q, dd * sizeof *x);
    memcpy(x + 3 * dd, k, dd * sizeof *x);
    int64_t pos[4] = { m, n, m2, n2 };
    if (pc_p_rope(r, pos, 4, d, x, out)) return 1;
    double worst = -1, att = pc_p_att_factor(r, d); /* the frequencies in force, and A */
    const pc_freqs *fr = r->freqs;
    int scaled = pc_freqs_scaled(fr);
    memset(w, 0, sizeof *w);
    for (int i = 0; i < d / 2; i++) {
        size_t a = pc_p_col(r->layout, d, i, 0), b = pc_p_col(r->layout, d, i, 1);
        double d1 = (double)out[a] * (double)out[dd + a] + (double)out[b] * (double)out[dd + b];
        double d2 = (double)out[2 * dd + a] * (double)out[3 * dd + a]
                  + (double)out[2 * dd + b] * (double)out[3 * dd + b];
        if (scaled) { /* xPos: the angle part, each row's pair over its G_i (2 roundings more) */
            d1 /= pair_g(r, d, m, i) * pair_g(r, d, n, i);
            d2 /= pair_g(r, d, m2, i) * pair_g(r, d, n2, i);
        }
        double nq = hypot((double)q[a], (double)q[b]), nk = hypot((double)k[a], (double)k[b]);
        double wi = pc_p_omega(r, d, i);
        /* A R_m q + e with |e| <= sqrt(2) B(m w) |q_i| per pair (model, scale
         * |pair|; B with a schedule's C_i and A, pc_p_bound_i), |A R_m q| = A |q_i|:
         * |<a+ea, b+eb> - <a, b>| <= |ea||b| + |a||eb| + |ea||eb| */
        /* the pairs' own positions (a row's, or its axis' with position ids) */
        double pm = pc_freqs_coord(fr, m, i), pn = pc_freqs_coord(fr, n, i);
        double pm2 = pc_freqs_coord(fr, m2, i), pn2 = pc_freqs_coord(fr, n2, i);
        double bm = sqrt(2.0) * pc_p_bound_i(r, d, i, pm * wi, 1.0);
        double bn = sqrt(2.0) * pc_p_bound_i(r, d, i, pn * wi, 1.0);
        double bm2 = sqrt(2.0) * pc_p_bound_i(r, d, i, pm2 * wi, 1.0);
        double bn2 = sqrt(2.0) * pc_p_bound_i(r, d, i, pn2 * wi, 1.0);
        double bound = nq * nk * (att * (bm + bn + bm2 + bn2) + bm * bn + bm2 * bn2)
                     + (scaled ? 8.0 : 4.0) * 0x1p-52 * nq * nk * att * att; /* binary64 products and sums */
        double e = fabs(d1 - d2);
        if (isnan(e)) e = (double)INFINITY;
        double sc = bound > 0 ? e / bound : (e > 0 ? (double)INFINITY : 0);
        if (sc > worst) {
            worst = sc;
            w->err = e; w->bound = bound; w->d1 = d1; w->d2 = d2; w->pair = i; w->qk = nq * nk;
        }
    }
    return 0;
}

static pc_status check_rel(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    size_t dd = (size_t)c->d;
    float *v = malloc(10 * dd * sizeof *v);
    if (!v) return pc_p_nomem(err);
    pc_p_vector(c, r->layout, 0, v);
    pc_p_vector(c, r->layout, 1, v + dd);
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    relv w;
    int64_t s2[2];
    pc_rope_run_axes(r, c->d); /* the frequencies of the case's d */
    if (!shifted_rows(r, c, s2)) {
        free(v);
        return pc_seterr(err, PC_EINTERNAL, "rope-relative: a case without its shifted rows");
    }
    if (rel_eval(r, c->d, c->pos[0], c->pos[1], s2[0], s2[1], v, v + dd, v + 2 * dd, &w)) {
        pc_p_implerr(r, oc); free(v); return PC_OK;
    }
    oc->measured = w.err;
    oc->bound = w.bound;
    oc->score = w.bound > 0 ? w.err / w.bound : (w.err > 0 ? (double)INFINITY : 0);
    oc->kind = oc->score > 1.0 ? PC_O_FAIL : PC_O_PASS;
    oc->pair = w.pair;
    snprintf(oc->where, sizeof oc->where, "pair %d (columns %zu, %zu): <R_m q, R_n k> = %.9g, "
             "shifted by s: %.9g", w.pair, pc_p_col(r->layout, c->d, w.pair, 0),
             pc_p_col(r->layout, c->d, w.pair, 1), w.d1, w.d2);
    snprintf(oc->eq, sizeof oc->eq, "<R_%" PRId64 " q, R_%" PRId64 " k> = %.9g, but <R_%" PRId64
             " q, R_%" PRId64 " k> = %.9g on pair %d (same m - n)", c->pos[0], c->pos[1], w.d1,
             s2[0], s2[1], w.d2, w.pair);
    free(v);
    return PC_OK;
}

static void show_vec(FILE *f, const char *name, const float *v, int layout, int d, int pair)
{
    fprintf(f, "      %s pair %d = (", name, pair);
    pc_p_float(f, (double)v[pc_p_col(layout, d, pair, 0)]);
    fputs(", ", f);
    pc_p_float(f, (double)v[pc_p_col(layout, d, pair, 1)]);
    fputs(")\n", f);
}

static void show_rel(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    size_t dd = (size_t)c->d;
    float *v = malloc(10 * dd * sizeof *v);
    if (!v) return;
    pc_p_vector(c, r->layout, 0, v);
    pc_p_vector(c, r->layout, 1, v + dd);
    int i = oc->pair < 0 ? 0 : oc->pair;
    show_vec(f, "q", v, r->layout, c->d, i);
    show_vec(f, "k", v + dd, r->layout, c->d, i);
    relv w;
    int64_t s2[2];
    if (pc_rope_run_axes(r, c->d))
        fprintf(f, "      rows %" PRId64 ", %" PRId64 " and rows %s, their positions %" PRId64
                " further on axis %d of the position ids\n", c->pos[0], c->pos[1],
                shifted_rows(r, c, s2) ? "below" : "(none)", c->k, c->n);
    if (shifted_rows(r, c, s2)
        && !rel_eval(r, c->d, c->pos[0], c->pos[1], s2[0], s2[1], v, v + dd, v + 2 * dd, &w)) {
        fprintf(f, "      <R_%" PRId64 " q, R_%" PRId64 " k> on pair %d       = ", c->pos[0], c->pos[1], i);
        pc_p_float(f, w.d1);
        fprintf(f, "\n      <R_%" PRId64 " q, R_%" PRId64 " k> on pair %d       = ", s2[0], s2[1], i);
        pc_p_float(f, w.d2);
        fputc('\n', f);
    }
    free(v);
}

/* how far one rotation moves a pair's norm: |R_m x| / (G A) - 1 for the unit x, G xPos's
 * factor and A the schedule's attention factor (YaRN's 1.1386 is no drift) */
static double norm_drift(pc_prun *r, int d, int64_t m, int pair)
{
    size_t dd = (size_t)d;
    float *x = calloc(2 * dd, sizeof *x);
    double res = (double)NAN;
    if (!x) return res;
    x[pc_p_col(r->layout, d, pair, 0)] = 1.0f;
    if (!pc_p_rope(r, &m, 1, d, x, x + dd)) /* xPos: relative to the certified norm G_i(m) */
        res = hypot((double)x[dd + pc_p_col(r->layout, d, pair, 0)], (double)x[dd + pc_p_col(r->layout, d, pair, 1)])
              / (pair_g(r, d, m, pair) * pc_p_att_factor(r, d)) - 1.0; /* YaRN's A is no drift */
    free(x);
    return res;
}

/* A norm drift E (relative to the schedule's A) at position M the same at
 * the first and the last pair: the pairs' norm is another constant, an
 * attention factor missing, different or applied twice, not a rounding;
 * 1 with BUF saying so. */
static int att_drift(pc_prun *r, int d, int64_t m, double e, char *buf, size_t len)
{
    double a = pc_p_att_factor(r, d), e0 = norm_drift(r, d, m, 0), e1 = norm_drift(r, d, m, d / 2 - 1);
    /* 2^-12: far above binary32's rounding of a rotation (a few 2^-24) */
    if (!(fabs(e) > 0x1p-12) || !(fabs(e0 - e1) < 0x1p-12) || !(fabs(e0 - e) < 0x1p-12)) return 0;
    double norm = a * (1.0 + e);
    if (fabs(norm - 1.0) < 0x1p-12 && a != 1.0)
        snprintf(buf, len, "every pair keeps norm 1 where the schedule's attention factor is %.6g: the "
                 "attention factor (mscale) is missing", a);
    else
        snprintf(buf, len, "every pair's norm is %.6g where the schedule's attention factor is %.6g: "
                 "a different attention factor (missing, another, or applied twice)", norm, a);
    return 1;
}

/* An angle held in a low-precision type is off by a small share of itself
 * at every pair: bfloat16's half ulp is 2^-9 relative, and its position,
 * frequency and product each add one (1.5 2^-8); 2^-7 leaves room.  Checked at the pairs whose angle is
 * small enough to tell (that share of it below pi: an angle known modulo
 * 2 pi says nothing beyond). */
#define LOW_PRECISION_SHARE 0x1p-7

/* Whether a pair at one of the N positions POS is off by more than
 * LOW_PRECISION_SHARE of its angle: the low-precision claim refuted, and
 * BUF says what was measured instead. */
static int angle_far(pc_prun *r, int d, const int64_t *pos, int n, char *buf, size_t len)
{
    size_t dd = (size_t)d;
    float *x = malloc(2 * dd * sizeof *x);
    int far = 0;
    for (int t = 0; x && t < n && !far; t++)
        for (int i = 0; i < d / 2 && !far; i++) {
            double w = pc_p_omega(r, d, i), th = (double)pos[t] * w;
            if (!(LOW_PRECISION_SHARE * fabs(th) < M_PI) || th == 0) continue;
            memset(x, 0, 2 * dd * sizeof *x);
            x[pc_p_col(r->layout, d, i, 0)] = 1.0f;
            if (pc_p_rope(r, &pos[t], 1, d, x, x + dd)) break;
            double got = atan2((double)x[dd + pc_p_col(r->layout, d, i, 1)],
                               (double)x[dd + pc_p_col(r->layout, d, i, 0)]);
            double e = remainder(got - th, 2.0 * M_PI);
            if (fabs(e) > LOW_PRECISION_SHARE * fabs(th) + 1e-6) {
                far = 1;
                snprintf(buf, len, "the rotation at position %" PRId64 " turns pair %d by %.6g rad "
                         "where the schedule turns it %.6g (mod 2 pi, %.3g of the angle): too far "
                         "for an angle computed in low precision; the rows are not those of their "
                         "positions (positions clamped, stepped or wrapped, or other frequencies)",
                         pos[t], i, remainder(got, 2.0 * M_PI), remainder(th, 2.0 * M_PI),
                         fabs(e) / fabs(th));
            }
        }
    free(x);
    return far;
}

/* A norm drift no rounding of a rotation's cos and sin reaches: rounding
 * them to t significand bits moves the norm by at most about sqrt(2) 2^-t,
 * 2^-8.5 for bfloat16 (t = 8), 2^-3.5 for float8 e4m3 (t = 4); beyond 2^-3
 * (12%) the map is no rotation at all. */
#define NOT_A_ROTATION 0x1p-3
#define NOT_A_ROTATION_TEXT "the map is no rotation: the pair's two members are not turned by one " \
    "angle (a cos/sin cache built for the other layout, cos and sin of different frequencies, " \
    "or a sign error in rotate_half)"

static const char *cause_rel(pc_prun *r, const pc_case *c, const pc_outcome *oc, char *buf, size_t len)
{
    int i = oc->pair < 0 ? 0 : oc->pair;
    double worst = 0; /* the signed drift of largest size: the text says its sign */
    int64_t at = 0;
    int64_t probe[3] = { c->pos[0], c->pos[1], c->pos[0] + c->k };
    for (int t = 0; t < 3; t++) {
        double e = norm_drift(r, c->d, probe[t], i);
        if (fabs(e) > fabs(worst)) { worst = e; at = probe[t]; }
    }
    if (att_drift(r, c->d, at, worst, buf, len)) return buf;
    if (fabs(worst) > NOT_A_ROTATION) {
        snprintf(buf, len, "the rotation at position %" PRId64 " scales pair %d's norm by 1 %+.3g: "
                 NOT_A_ROTATION_TEXT, at, i, worst);
        return buf;
    }
    if (fabs(worst) > 0x1p-12) { /* far above binary32's rounding of a rotation (a few 2^-24) */
        snprintf(buf, len, "the rotation at position %" PRId64 " scales pair %d's norm by 1 %+.3g "
                 "(about 2^%.1f): cos and sin are held in low precision (a bfloat16 cache has "
                 "relative error up to 2^-9)", at, i, worst, log2(fabs(worst)));
        return buf;
    }
    /* the case's rows, and the range's middle and end: the claim is the whole range's */
    int64_t rows6[6] = { c->pos[0], c->pos[1], c->pos[0] + c->k, c->pos[1] + c->k,
                         r->lo + (r->hi - r->lo) / 2, r->hi };
    if (angle_far(r, c->d, rows6, 6, buf, len)) return buf; /* the claim below, refuted */
    return "errors grow with the absolute position and are constant in relative terms: the "
           "angle pos*w is computed in low precision";
}

/* The shift-invariance error as a function of the absolute offset. */
static pc_status report_rel(pc_prun *r, const pc_case *c, pc_outcome *oc, FILE *f, pc_err *err)
{
    size_t dd = (size_t)c->d;
    float *v = malloc(10 * dd * sizeof *v);
    if (!v) return pc_p_nomem(err);
    pc_p_vector(c, r->layout, 0, v);
    pc_p_vector(c, r->layout, 1, v + dd);
    int64_t m = c->pos[0], n = c->pos[1]; /* the case's own rows: the heading names them */
    if (pc_rope_run_axes(r, c->d)) { /* rows, not positions: the cases are the report */
        free(v);
        return PC_OK;
    }
    fprintf(f, "  shift-invariance error against the absolute offset s (m = %" PRId64 ", n = %" PRId64
            ", the case's vectors, worst pair):\n", m, n);
    fprintf(f, "      %12s  %14s  %14s  %10s\n", "offset s", "|error|", "bound", "error/bound");
    for (int64_t s = 1; ; s *= 4) {
        int64_t top = n > m ? n : m;
        if (s > r->hi - top) s = r->hi - top;
        if (s < 1) break;
        relv w;
        if (rel_eval(r, c->d, m, n, m + s, n + s, v, v + dd, v + 2 * dd, &w)) {
            pc_p_report_implerr(r, oc, f, "the shift-invariance error");
            break;
        }
        fprintf(f, "      %12" PRId64 "  %14.6g  %14.6g  %10.3g\n", s, w.err, w.bound,
                w.bound > 0 ? w.err / w.bound : 0.0);
        if (s == r->hi - top) break;
    }
    free(v);
    return PC_OK;
}

const pc_property pc_prop_rope_relative = {
    .name = "rope-relative",
    .families = "rope",
    .title = "<R_m q, R_n k> depends only on m - n",
    .measured_what = "|<R_m q, R_n k> - <R_{m+s} q, R_{n+s} k>| on one pair",
    .expect = "<R_m q, R_n k> = <R_{m+s} q, R_{n+s} k> on every pair, within the rotations' error bound",
    .pos_names = "m n",
    .k_name = "s",
    .math =
        "RoPE rotates pair i of a vector at position m by m*w_i: (R_m x)_i = R(m w_i) x_i.\n"
        "<R_m q, R_n k> = sum_i <R(m w_i) q_i, R(n w_i) k_i> = sum_i <q_i, R((n - m) w_i) k_i>\n"
        "so shifting both positions by s changes nothing, pair by pair.  With positions of\n"
        "several axes (M-RoPE, axial RoPE: --position-ids) it holds along each axis: from rows\n"
        "m, n to the rows whose positions are theirs moved by s on one axis.",
    .why =
        "Rotations compose and preserve inner products: R(a)^T R(b) = R(b - a).  The attention\n"
        "score therefore sees only the relative position.  A rotation that is not orthogonal\n"
        "(cos and sin rounded to bfloat16: c^2 + s^2 != 1) scales the score by a factor that\n"
        "depends on the absolute positions, and low-precision angles pos*w lose the relative\n"
        "angle as positions grow.",
    .tolerance =
        "per pair: |q_i||k_i| (b_m + b_n + b_m b_n + b_m' + b_n' + b_m' b_n'), b_x = sqrt(2) B(x w_i),\n"
        "B(theta) = C*u*(1+|theta|) relative to the pair's norm (harness/engine/model.h), primes at the\n"
        "shifted positions.  Checked per pair so a slow pair's tight bound is not hidden by the\n"
        "fast pairs' loose ones.",
    .concept_impl = "rope-mixed-layout",
    .concept_note = "the interleaved layout's cache under rotate_half: the two members of a pair turn by "
                    "different angles, so shifting m and n together changes the score",
    .precision_impl = "rope-bf16-cache",
    .precision_note = "cos/sin cache in bfloat16: the rotation is not orthogonal, the score changes with s",
    .shrink = PC_SH_D | PC_SH_POS | PC_SH_K | PC_SH_VEC,
    .k_min = 1,
    .setup = setup_rel,
    .gen = gen_rel,
    .check = check_rel,
    .valid = valid_rel,
    .show = show_rel,
    .cause = cause_rel,
    .report = report_rel,
};

/* ------------------------------------------------------------------ */
/* rope-norm                                                          */

static void gen_norm(pc_prun *r, pc_rng *g, pc_case *c)
{
    c->npos = 1;
    c->pos[0] = pc_p_pos(g, r->lo, r->hi);
    c->vmode = PC_V_DENSE;
}

static int valid_norm(const pc_prun *r, const pc_case *c)
{
    return c->pos[0] >= r->lo && c->pos[0] <= r->hi;
}

static pc_status check_norm(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err)
{
    size_t dd = (size_t)c->d;
    float *x = malloc(2 * dd * sizeof *x);
    if (!x) return pc_p_nomem(err);
    pc_p_vector(c, r->layout, 0, x);
    memset(oc, 0, sizeof *oc);
    oc->pair = -1;
    if (pc_p_rope(r, &c->pos[0], 1, c->d, x, x + dd)) { pc_p_implerr(r, oc); free(x); return PC_OK; }
    oc->score = -1;
    double att = pc_p_att_factor(r, c->d); /* a schedule's A scales every pair (1: none) */
    int scaled = pc_freqs_scaled(r->freqs);
    for (int i = 0; i < c->d / 2; i++) {
        size_t a = pc_p_col(r->layout, c->d, i, 0), b = pc_p_col(r->layout, c->d, i, 1);
        double n0 = hypot((double)x[a], (double)x[b]), n1 = hypot((double)x[dd + a], (double)x[dd + b]);
        double g = pair_g(r, c->d, c->pos[0], i); /* xPos: the certified G_i(m); else 1 */
        double e = fabs(n1 - att * g * n0);
        if (isnan(e)) e = (double)INFINITY;
        /* |R' x + e| - |R x| <= |e| <= sqrt(2) C u A G |x_i| for any angle of
         * R' (pc_p_norm_bound_i), plus binary64 hypot and G's rounding
         * (2^-52 each) */
        double bound = (pc_p_norm_bound_i(r, c->d, i, g) + 0x1p-50 * att * g) * n0;
        double sc = bound > 0 ? e / bound : (e > 0 ? (double)INFINITY : 0);
        if (sc > oc->score) {
            oc->score = sc; oc->measured = e; oc->bound = bound; oc->pair = i;
            snprintf(oc->eq, sizeof oc->eq, "|(R_%" PRId64 " x)_%d| = %.9g, but |x_%d| = %.9g%s%s",
                     c->pos[0], i, n1, i, n0, att != 1.0 ? " (times the attention factor)" : "",
                     scaled ? " times xPos's certified norm zeta_i^((m + q0)/B)" : "");
        }
    }
    oc->kind = oc->score > 1.0 ? PC_O_FAIL : PC_O_PASS;
    snprintf(oc->where, sizeof oc->where, "pair %d (columns %zu, %zu) at position %" PRId64, oc->pair,
             pc_p_col(r->layout, c->d, oc->pair, 0), pc_p_col(r->layout, c->d, oc->pair, 1), c->pos[0]);
    free(x);
    return PC_OK;
}

static void show_norm(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f)
{
    size_t dd = (size_t)c->d;
    float *x = malloc(2 * dd * sizeof *x);
    if (!x) return;
    pc_p_vector(c, r->layout, 0, x);
    int i = oc->pair < 0 ? 0 : oc->pair;
    if (!pc_p_rope(r, &c->pos[0], 1, c->d, x, x + dd)) {
        show_vec(f, "x", x, r->layout, c->d, i);
        char name[48];
        snprintf(name, sizeof name, "R_%" PRId64 " x", c->pos[0]);
        show_vec(f, name, x + dd, r->layout, c->d, i);
        size_t a = pc_p_col(r->layout, c->d, i, 0), b = pc_p_col(r->layout, c->d, i, 1);
        fprintf(f, "      |x| = ");
        pc_p_float(f, hypot((double)x[a], (double)x[b]));
        fprintf(f, ", |R x| = ");
        pc_p_float(f, hypot((double)x[dd + a], (double)x[dd + b]));
        fputc('\n', f);
    }
    free(x);
}

static const char *cause_norm(pc_prun *r, const pc_case *c, const pc_outcome *oc, char *buf, size_t len)
{
    double e = norm_drift(r, c->d, c->pos[0], oc->pair < 0 ? 0 : oc->pair);
    if (att_drift(r, c->d, c->pos[0], e, buf, len)) return buf;
    if (fabs(e) > NOT_A_ROTATION) {
        snprintf(buf, len, "the rotation scales the pair by 1 %+.3g: " NOT_A_ROTATION_TEXT, e);
        return buf;
    }
    if (fabs(e) > 0x1p-12) {
        snprintf(buf, len, "the rotation scales the pair by 1 %+.3g (about 2^%.1f): cos and sin are "
                 "held in low precision (bfloat16 has relative error up to 2^-9)", e, log2(fabs(e)));
        return buf;
    }
    return NULL;
}

const pc_property pc_prop_rope_norm = {
    .name = "rope-norm",
    .families = "rope",
    .title = "the rotation preserves every pair's norm",
    .measured_what = "| |(R_m x)_i| - |x_i| |",
    .expect = "|(R_m x)_i| = |x_i| for every pair i, within sqrt(2) C u |x_i| at any angle",
    .pos_names = "m",
    .math = "|(R_m x)_i| = |R(m w_i) x_i| = |x_i|, since cos^2 + sin^2 = 1",
    .why =
        "A rotation is orthogonal.  Norm growth or shrinkage that depends on the position\n"
        "changes attention scores with absolute position (see rope-relative).",
    .tolerance =
        "sqrt(2) C u |x_i| + 2^-51 |x_i|, whatever the angle: of B(theta) = C*u*(1+|theta|)\n"
        "(harness/engine/model.h) the C*u*|theta| part is the angle's error, which turns the pair\n"
        "and keeps its norm; C*u, on each of its two elements, is the values' own rounding; plus\n"
        "binary64's hypot.  So a pair of norm 0 fails at any position.",
    .concept_impl = "rope-mixed-layout",
    .concept_note = "the interleaved layout's cache under rotate_half: a pair's two members turn by "
                    "different angles, which no rotation does, so the pair's length changes",
    .precision_impl = "rope-bf16-cache",
    .precision_note = "cos/sin rounded to bfloat16: c^2 + s^2 != 1",
    .shrink = PC_SH_D | PC_SH_POS | PC_SH_VEC,
    .setup = pc_p_need_two,
    .gen = gen_norm,
    .check = check_norm,
    .valid = valid_norm,
    .show = show_norm,
    .cause = cause_norm,
};

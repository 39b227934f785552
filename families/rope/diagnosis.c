/* diagnosis.c: what the RoPE family says of a source beyond its verdicts
 * (pc_diagnosis, families/family.h): the likely cause of a failed gate
 * (fit.c), the base a table's rows fit, and `pecheck identify`: which
 * schedule a cache, built-in or plugin computes (identify.h): base,
 * schedule and its parameters, layout, storage, attention factor, position
 * offset, and the HF rope_scaling object that reproduces it
 * (docs/identify.md). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "families/family.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/io/json.h"
#include "harness/engine/model.h"
#include "harness/sources/sources.h"
#include "harness/sources/table.h"
#include "harness/engine/accuracy.h"
#include "harness/base/rng.h"
#include "identify.h"
#include "axes_match.h"
#include "fit.h"
#include "options.h"
#include "families/spec_sched.h"

#define IDS_ROWS_MAX ((size_t)1 << 16)  /* rows at position ids fitted on (fit_at_ids) */

typedef struct ident_run {
    const pc_impl *impl;
    int d, layout, layouts;
    double base;              /* the hook's base argument (--base; a table ignores it) */   /* LAYOUTS: bit 0 interleaved, bit 1 half accepted */
    int64_t lo, hi;
    int dtype, storage;       /* storage (enum pc_dtype) and whether it was found from the values */
    char storage_note[96];
    pc_rope_fit fit;
    pc_rope_ident id;
    double offset;            /* effective position offset (positions) */
    /* rows with position ids of several axes (--position-ids): each pair's
     * axis under the spec's frequencies (axes_match.h), instead of a fit */
    int n_axes, axes_found;
    int *follow;
    char sections[400];
    const pc_rope_opts *given;  /* the options the axes were matched under (check_args) */
    /* no split given: the one found (--rope-sections or --rope-axes-dim,
     * its value, --mrope-interleaved) and what was tried */
    const char *split_opt;
    char split[64];
    int split_interleaved;
    int split_parity;         /* the split found shares the frequencies by parity */
    int base_searched;        /* SPEC_BASE is a released model's, found (no base given) */
    const char *scale_found;  /* the --rope-angle-scale found (none given), else NULL */
    char scale_text[40];      /* its text */
    int base_fitted_axes;     /* SPEC_BASE and SCALE_FOUND fitted (axes_fit), not released */
    double spec_base;
    int spec_base_set;
    int seq_len_set;          /* --seq-len given: SEQ_LEN */
    double seq_len;
    /* rows at position ids of one axis (--position-ids): row LO + k is at
     * IDS[k] (NULL: at LO + k); the fit over them (fit_ids.c) */
    /* norms that change along the rows (fit.h lamp_slope): xPos's
     * zeta_i^(+-(p + q0)/B) when XPOS, else NORM_DRIFT (not explained) */
    int xpos, xpos_down, norm_drift;
    double xpos_b;
    long long xpos_q0;
    const int64_t *ids;
    const char *ids_path;
    size_t ids_rows;          /* the rows fitted on (at most IDS_ROWS_MAX) */
    pc_rope_ids_info ids_info;
    /* the accuracy gate of check_args on the table's rows (gate_found):
     * GATE_RAN when run, GATE_RATIO its max |err|/bound, GATE_FAILED when
     * it failed (the schedule is then the closest, not found) */
    int gate_ran, gate_failed;
    double gate_ratio;
    double u_s;               /* the unit roundoff of the rows' storage (the fit's) */
} ident_run;

/* Rows LO.. (M of them) of the rotation of (1, 0) in every pair: the
 * cache's (A cos, A sin) exactly (x_a cos - 0 sin, 0 cos + x_a sin). */
static int rows_at(const ident_run *r, int layout, int64_t lo, size_t m, float *y)
{
    size_t d = (size_t)r->d;
    float *x = calloc(m * d, sizeof *x);
    int64_t *pos = malloc(m * sizeof *pos);
    int rc = -1;
    if (x && pos) {
        for (size_t k = 0; k < m; k++) {
            pos[k] = lo + (int64_t)k;
            for (int i = 0; i < r->d / 2; i++) x[k * d + (size_t)(layout ? i : 2 * i)] = 1.0f;
        }
        pc_fault fault = { 0, "" };
        rc = pc_call_rope(r->impl, &fault, pos, m, r->d, r->base, layout, x, y);
        if (fault.faulted) rc = -1;
    }
    free(x); free(pos);
    return rc;
}

static void find_layout(ident_run *r, int want)
{
    const pc_table_info *t = pc_table_info_of(r->impl);
    float *y = malloc((size_t)r->d * sizeof *y);
    r->layouts = 0;
    for (int l = 0; y && l < 2; l++)
        if ((want < 0 || want == l) && rows_at(r, l, r->lo, 1, y) == 0) r->layouts |= 1 << l;
    free(y);
    r->layout = r->layouts & 2 ? 1 : 0;
    if (t && t->layout >= 0) r->layout = t->layout;
}

/* Binary32 values that are all bfloat16 (low 16 bits zero) or all float16
 * (11 significant bits, exponent >= -24) were stored in half precision. */
static int is_f16(float v)
{
    if (v == 0.0f) return 1;
    int e;
    (void)frexpf(v, &e);
    int q = e - 11 < -24 ? -24 : e - 11;
    float s = ldexpf(v, -q);
    return s == rintf(s) && fabsf(v) <= 65504.0f;
}

static void find_storage(ident_run *r)
{
    const pc_table_info *t = pc_table_info_of(r->impl);
    size_t m = (size_t)(r->hi - r->lo + 1 < 256 ? r->hi - r->lo + 1 : 256), nv = m * (size_t)r->d;
    float *y = malloc(nv * sizeof *y);
    int bf = 1, f16 = 1;
    if (y && rows_at(r, r->layout, r->lo, m, y) == 0)
        for (size_t k = 0; k < nv; k++) {
            uint32_t b;
            memcpy(&b, &y[k], sizeof b);
            bf &= (b & 0xffffu) == 0;
            f16 &= is_f16(y[k]);
        }
    else bf = f16 = 0;
    free(y);
    r->dtype = t ? t->dtype : PC_DT_F32;
    if (r->dtype == PC_DT_F32 && (bf || f16)) r->dtype = bf ? PC_DT_BF16 : PC_DT_F16;
    snprintf(r->storage_note, sizeof r->storage_note, "%s%s", pc_dtype_name(r->dtype),
             t && t->dtype == r->dtype ? " (the file's type)"
             : r->dtype != PC_DT_F32 ? " (binary32 values that are all representable in it)" : "");
}

/* The position the rows are for, relative to LO: per pair the phase at LO
 * against the identified schedule's, unwrapped from the lowest frequency
 * (coarse, unambiguous) to the highest (fine). */
static void find_offset(ident_run *r)
{
    pc_rope_params p;
    pc_err err = { "" };
    r->offset = (double)NAN;
    if (!r->id.found || pc_rope_ident_params(&r->id, &p, &err) != PC_OK) return;
    pc_freqs *fr = pc_freqs_new(r->d, pc_rope_schedule(&p));
    float *y = malloc((size_t)r->d * sizeof *y);
    int h = r->d / 2;
    double *c = malloc((size_t)h * 3 * sizeof *c);
    if (fr && y && c && rows_at(r, r->layout, r->lo, 1, y) == 0) {
        double *sn = c + h, *w = c + 2 * h;
        for (int i = 0; i < h; i++) {
            c[i] = (double)y[r->layout ? i : 2 * i];
            sn[i] = (double)y[r->layout ? i + h : 2 * i + 1];
            w[i] = pc_freqs_omega(fr, i);
        }
        r->offset = pc_rope_fit_offset(c, sn, w, h, (double)(r->ids ? r->ids[0] : r->lo),
                                       r->fit.eps);
    }
    free(c);
    free(y);
    pc_freqs_free(fr);
    pc_rope_params_free(&p);
}

/* The sequence length a dynamic or longrope cache was built for: --seq-len,
 * else the last position + 1. */
static double seq_len_of(const pc_spec *spec, int64_t hi)
{
    const pc_rope_spec *s = pc_rope_spec_of(spec);
    return s && s->given.seq_len_set ? s->given.seq_len : (double)hi + 1.0;
}

/* The norms of R's rows along the positions (a table's consecutive rows):
 * constant, else xPos's ln |pair i| = ln A + k (p + q0) ln zeta_i, k =
 * +-1/B (torchscale's XPOS, schedule_xpos.c; - for the keys' downscale),
 * fitted by least squares over the pairs' ln-norm lines (k from their
 * slopes, q0 from their values at the first row); a norm that moves by
 * more than the storage's error and not so is a drift no schedule
 * explains (R->id.found cleared). */
#define XPOS_DRIFT_EPS 16.0  /* a norm's change beyond 16 e: not rounding (e: fit.h eps) */
static void xpos_of(ident_run *r)
{
    const pc_rope_fit *f = &r->fit;
    if (!f->lamp_slope || f->n < 16) return;
    double span = (double)(f->n - 1), drift = 0, szz = 0, szs = 0;
    for (int i = 0; i < f->h; i++) {
        double z = pc_rope_xpos_log_zeta(r->d, i);
        drift = fmax(drift, fabs(f->lamp_slope[i]) * span);
        szz += z * z;
        szs += z * f->lamp_slope[i];
    }
    if (!(drift > XPOS_DRIFT_EPS * f->eps)) return;
    double k = szs / szz, worst = 0, sz = 0, sa = 0, sza = 0;
    for (int i = 0; i < f->h; i++) {
        double z = pc_rope_xpos_log_zeta(r->d, i);
        worst = fmax(worst, fabs(f->lamp_slope[i] - k * z) * span);
        sz += z; sa += f->lamp_at0[i]; sza += z * f->lamp_at0[i];
    }
    double m = (double)f->h, slope_at0 = (m * sza - sz * sa) / (m * szz - sz * sz);
    double b = 1.0 / fabs(k), q = slope_at0 / k - (double)r->lo;
    if (worst > XPOS_DRIFT_EPS * f->eps || !isfinite(b) || !isfinite(q) || b < 1.0) {
        r->norm_drift = 1;
        r->id.found = 0;
        return;
    }
    r->xpos = 1;
    r->xpos_down = k < 0;
    r->xpos_b = fabs(b - round(b)) < 1e-3 * b ? round(b) : b;
    r->xpos_q0 = llround(q);
}

/* Rows with position ids of several axes: which axis each pair follows,
 * with the frequencies of SPEC's schedule at R's width (its base, its
 * config, its split), found when every pair follows one (and, WANT not
 * NULL, the axis WANT gives it). */
static pc_status axes_under(ident_run *r, const pc_spec *spec, const int *want, pc_err *err)
{
    pc_acc_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.d = r->d; cfg.base = spec->base; cfg.pos_lo = r->lo; cfg.pos_hi = r->hi;
    pc_spec_sched hold;
    pc_status st = pc_spec_schedule(spec, &cfg, &hold, err);
    if (st != PC_OK) return st;
    const pc_rope_axes *ax = ((const pc_rope_params *)hold.own)->axes;
    pc_freqs *fr = pc_freqs_new(r->d, hold.s);
    double *omega = malloc((size_t)(r->d / 2) * sizeof *omega);
    if (!r->follow) r->follow = malloc((size_t)(r->d / 2) * sizeof *r->follow);
    r->n_axes = ax->n_axes;
    for (int i = 0; fr && omega && i < r->d / 2; i++) omega[i] = pc_freqs_omega(fr, i);
    if (!fr || !omega || !r->follow) st = pc_seterr(err, PC_ENOMEM, "out of memory");
    else if (pc_rope_axes_follow(r->impl, ax, omega, r->d, r->base, r->layout, r->lo, r->hi,
                                 r->follow) != 0)
        st = pc_seterr(err, PC_EINPUT, "%s: its rows cannot be read", r->impl->name);
    if (st == PC_OK) {
        r->axes_found = 1;
        for (int i = 0; i < r->d / 2; i++)
            r->axes_found &= r->follow[i] >= 0 && (!want || r->follow[i] == want[i]);
        pc_rope_axes_describe_follow(r->follow, r->d / 2, ax->n_axes, r->sections,
                                     sizeof r->sections);
    }
    free(omega);
    pc_freqs_free(fr);
    pc_spec_sched_release(&hold);
    return st;
}

/* 1 when two axes of RS's ids hold the same position in every row: no
 * split of the pairs between them can be told. */
static int axes_alike(const pc_rope_spec *rs)
{
    int A = rs->n_id_axes;
    for (int a = 0; a < A; a++)
        for (int b = a + 1; b < A; b++) {
            int64_t k = 0;
            /* real coordinates: the ids are -1 throughout, the coordinates differ */
            while (k < rs->n_ids && (rs->coords ? rs->coords[k * A + a] == rs->coords[k * A + b]
                                                : rs->ids[k * A + a] == rs->ids[k * A + b]))
                k++;
            if (k == rs->n_ids) return 1;
        }
    return 0;
}

/* The axial dims tried for A axes at width D (FLUX's axes_dim 16,56,56;
 * equal dims, a 2-D ViT's d/2, d/2) into DIMS (PC_ROPE_AXES_MAX each);
 * how many. */
static int axial_candidates(int A, int d, int dims[][PC_ROPE_AXES_MAX])
{
    int n = 0;
    if (A == 3 && d == 128) { dims[n][0] = 16; dims[n][1] = 56; dims[n][2] = 56; n++; }
    if (d % (2 * A) == 0) {
        for (int a = 0; a < A; a++) dims[n][a] = d / A;
        n++;
    }
    return n;
}

/* No split given: the pairs' axes under the one schedule's frequencies,
 * read as M-RoPE sections (in turn or interleaved), else each axial split
 * of axial_candidates; the first that explains every pair is reported (its
 * option in check_args), else PC_EINPUT naming what was tried. */
static pc_status axes_guess(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, pc_err *err)
{
    int A = rs->n_id_axes, h = r->d / 2;
    if (axes_alike(rs))
        return pc_seterr(err, PC_EINPUT, "%s has %d position axes, two of which hold the same "
                         "position in every row: any split of the pairs between them explains the "
                         "rows; say how the pairs follow them (--rope-sections, --rope-axes-dim, or "
                         "a config with mrope_section)", rs->given.ids_path, A);
    pc_rope_spec t = *rs;
    pc_spec s2 = *spec;
    s2.own = &t;
    memset(t.sections, 0, sizeof t.sections);
    t.n_sections = A;
    t.sections[0] = h;         /* every pair at the one schedule's frequency */
    t.sections_interleaved = 0;
    t.n_axes_dim = 0;
    pc_status st = axes_under(r, &s2, NULL, err);
    if (st != PC_OK) return st;
    int kind = r->axes_found ? pc_rope_axes_sections_of(r->follow, h, A, r->split, sizeof r->split) : 0;
    if (kind) {
        r->split_opt = "--rope-sections";
        r->split_interleaved = kind == 2;
        return PC_OK;
    }
    int dims[2][PC_ROPE_AXES_MAX] = { { 0 } }, want[PC_D_MAX / 2];
    int nc = axial_candidates(A, r->d, dims);
    char tried[200] = "";
    /* each axial split, then its equal dims with the frequencies shared by
     * parity (--rope-axes-parity: Pixtral's vision RoPE, freqs[::2] for the
     * rows, freqs[1::2] for the columns; its pairs follow the axes as the
     * split's do) */
    for (int c = 0; c < 2 * nc; c++) {
        int dc = c % nc, parity = c >= nc;
        if (parity && dims[dc][0] != r->d / A) continue;
        size_t u = strlen(tried);
        t.n_sections = 0;
        t.n_axes_dim = A;
        t.axes_parity = parity;
        for (int a = 0, j = 0; a < A; a++) {
            t.axes_dim[a] = dims[dc][a];
            u += (size_t)snprintf(tried + u, sizeof tried - u, "%s%d", a ? "," : c ? "; " : "",
                                  dims[dc][a]);
            for (int l = 0; l < dims[dc][a] / 2 && j < h; l++) want[j++] = a;
        }
        if (parity && u < sizeof tried) snprintf(tried + u, sizeof tried - u, " by parity");
        if ((st = axes_under(r, &s2, want, err)) != PC_OK) return st;
        if (r->axes_found) {
            r->split_parity = parity;
            r->split_opt = "--rope-axes-dim";
            for (int a = 0, v = 0; a < A && v >= 0 && (size_t)v < sizeof r->split; a++)
                v += snprintf(r->split + v, sizeof r->split - (size_t)v, "%s%d", a ? "," : "",
                              dims[dc][a]);
            return PC_OK;
        }
    }
    return pc_seterr(err, PC_EINPUT, "%s has %d position axes and no split tried explains every "
                     "pair: M-RoPE sections under the one schedule (the pairs follow: %.120s)%s%s; "
                     "say how the pairs follow them (--rope-sections, --rope-axes-dim, or a config "
                     "with mrope_section)", rs->given.ids_path, A, r->sections,
                     nc ? ", axial dims " : "", tried);
}

/* Under SPEC: the split given, else the split found (axes_guess). */
static pc_status axes_split(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, pc_err *err)
{
    if (rs->n_sections || rs->n_axes_dim) return axes_under(r, spec, NULL, err);
    return axes_guess(r, spec, rs, err);
}

/* The bases of released models with position axes, tried when nothing
 * gives one: Qwen2-VL's and Qwen2.5-VL's 1e6, Qwen3-VL's 5e6, FLUX's and
 * 2-D ViTs' 10000 (the default), then the other common ones (identify.c's
 * list), then DINOv3's period base 100 (RopePositionEmbedding's default,
 * dinov3/layers/rope_position_encoding.py). */
static const double released_bases[] = { 1e6, 5e6, 1e4, 5e5, 1e5, 5e4, 1e7, 100 };

/* The angle scales of released code at real coordinates, tried when none
 * is given: none (1), DINOv3's 2 pi (angles 2 pi coords / periods, with
 * coordinates normalized to [-1, 1]), pi.  As --rope-angle-scale K pi^PI
 * (positions.c pc_rope_scale_parse); TEXT is the option's value. */
static const struct { double k; int pi; const char *text; } released_scales[] = {
    { 0.0, 0, NULL }, { 2.0, 1, "2pi" }, { 1.0, 1, "pi" }
};
#define N_BASES (sizeof released_bases / sizeof released_bases[0])
#define N_SCALES (sizeof released_scales / sizeof released_scales[0])

/* Under base B (0: the spec's own) and angle scale SC (an index of
 * released_scales; -1: the spec's own): 1 when a split explains every
 * pair (R's split and axes then those). */
static int axes_try_scale(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, double b,
                          double k, int pi, const char *text);
static int axes_try(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, double b, int sc)
{
    if (sc >= 0)
        return axes_try_scale(r, spec, rs, b, released_scales[sc].k, released_scales[sc].pi,
                              released_scales[sc].text);
    return axes_try_scale(r, spec, rs, b, -1.0, 0, NULL);
}

/* The same under the angle scale K pi^PI (K < 0: the spec's own), TEXT
 * its --rope-angle-scale value (NULL: none to give). */
static int axes_try_scale(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs, double b,
                          double k, int pi, const char *text)
{
    pc_spec sb = *spec;
    pc_rope_spec tb = *rs;   /* the schedule's base and scale are the rope spec's */
    pc_err e2 = { "" };
    if (b > 0) {
        sb.base = tb.p.base = b;
        sb.base_set = tb.have_base = 1;
    }
    if (k >= 0) {
        tb.p.scale_k = k;
        tb.p.scale_pi = pi;
    }
    sb.own = &tb;
    if (axes_split(r, &sb, &tb, &e2) != PC_OK || !r->axes_found) return 0;
    if (b > 0) {
        r->spec_base = b;
        r->spec_base_set = 1;
        r->base_searched = 1;
    }
    if (text) {
        snprintf(r->scale_text, sizeof r->scale_text, "%s", text);
        r->scale_found = r->scale_text;
    }
    return 1;
}

/* ---- axial frequencies fitted at the ids (no base or scale tried
 * explains the pairs) ----------------------------------------------------- */

#define FIT_MIN_ANGLE 0.05  /* a pair's angle read below this is not used: a bfloat16
                             * pair's is good to 2^-8 rad (axes_freqs.c's AF_MIN_ANGLE) */
#define FIT_SNAP 1e-3       /* a scale within 0.1% of K pi or of a whole K is that */

/* The row among R's with the smallest positive position on axis A of
 * RS's ids (-1: none). */
static int64_t smallest_row(const ident_run *r, const pc_rope_spec *rs, int a)
{
    int64_t best = -1;
    double bx = 0;
    for (int64_t k = r->lo; k <= r->hi && k < rs->n_ids; k++) {
        double x = rs->coords ? rs->coords[k * rs->n_id_axes + a]
                              : (double)rs->ids[k * rs->n_id_axes + a];
        if (x > 0 && (best < 0 || x < bx)) { best = k; bx = x; }
    }
    return best;
}

/* Axial dims DIMS (A axes, each pair of axis a at local j turning at
 * S B^(-2j/dims[a])): S and B fitted by least squares on ln w over the
 * pairs, w a pair's angle over its axis' smallest positive position p
 * (p w < pi: the row nearest the origin on that axis).  0 when fewer than
 * two exponents are read. */
static int fit_axial(const ident_run *r, const pc_rope_spec *rs, const int *dims, double *S,
                     double *B)
{
    int A = rs->n_id_axes, h = r->d / 2, lay = r->layout, n = 0;
    double sx = 0, sy = 0, sxx = 0, sxy = 0;
    float *y = malloc((size_t)r->d * sizeof *y);
    for (int a = 0, i0 = 0; y && a < A; i0 += dims[a] / 2, a++) {
        int64_t row = smallest_row(r, rs, a);
        if (row < 0 || rows_at(r, lay, row, 1, y) != 0) continue;
        double p = rs->coords ? rs->coords[row * A + a] : (double)rs->ids[row * A + a];
        for (int j = 0; j < dims[a] / 2 && i0 + j < h; j++) {
            int i = i0 + j;
            double ang = atan2((double)y[lay ? i + h : 2 * i + 1], (double)y[lay ? i : 2 * i]);
            if (!(ang >= FIT_MIN_ANGLE)) continue;
            double x = 2.0 * j / dims[a], v = log(ang / p);
            sx += x; sy += v; sxx += x * x; sxy += x * v; n++;
        }
    }
    free(y);
    double den = (double)n * sxx - sx * sx;
    if (n < 2 || !(den > 0)) return 0;
    double slope = ((double)n * sxy - sx * sy) / den;
    *S = exp((sy - slope * sx) / n);
    *B = exp(-slope);
    return isfinite(*S) && isfinite(*B) && *B > 1.0;
}

/* S as --rope-angle-scale: K pi (K whole, "pi", "2pi") or a whole K
 * within FIT_SNAP, else S itself; K and PI of it. */
static void scale_text(double S, double *k, int *pi, char *buf, size_t len)
{
    double kp = round(S / M_PI), kw = round(S);
    if (kp >= 1 && fabs(S / (kp * M_PI) - 1.0) < FIT_SNAP) {
        *k = kp; *pi = 1;
        if (kp == 1) snprintf(buf, len, "pi"); else snprintf(buf, len, "%.0fpi", kp);
    } else {
        *k = kw >= 1 && fabs(S / kw - 1.0) < FIT_SNAP ? kw : S;
        *pi = 0;
        snprintf(buf, len, "%.9g", *k);
    }
}

/* Each axial split of axial_candidates: its base and angle scale fitted
 * (fit_axial; the base rounded as identify.c rounds one), kept when every
 * pair then follows its axis.  1 when one is. */
static int axes_fit(ident_run *r, const pc_spec *spec, const pc_rope_spec *rs)
{
    int dims[2][PC_ROPE_AXES_MAX] = { { 0 } };
    int nc = axial_candidates(rs->n_id_axes, r->d, dims);
    for (int c = 0; c < nc; c++) {
        double S, B, k;
        int pi;
        char text[40];
        if (!fit_axial(r, rs, dims[c], &S, &B)) continue;
        double br = pc_rope_round_base(B);
        scale_text(S, &k, &pi, text, sizeof text);
        if (axes_try_scale(r, spec, rs, isnan(br) ? B : br, k, pi, k == 1 && !pi ? NULL : text)) {
            r->base_fitted_axes = 1;
            return 1;
        }
    }
    return 0;
}

/* Rows with position ids of several axes: under the split given, else
 * the split found (axes_guess); without a base, config or factors, under
 * the released_bases too; at real coordinates without --rope-angle-scale,
 * under the released_scales too (each base under each scale). */
static pc_status identify_axes(ident_run *r, const pc_spec *spec, pc_err *err)
{
    const pc_rope_spec *rs = pc_rope_spec_of(spec);
    r->given = &rs->given;
    r->spec_base = spec->base;
    r->spec_base_set = spec->base_set;
    pc_status st = axes_split(r, spec, rs, err);
    /* nothing says the frequencies (no --base, config, rope_scaling or
     * factors): the bases of released models are tried too (Qwen2-VL's
     * 1e6, Qwen3-VL's 5e6), each kept only when every pair follows an axis
     * under it, and given in check_args; nothing says the angle scale of
     * real coordinates: DINOv3's 2 pi and pi too (a scale S multiplies
     * every frequency, S B^(-2j/dim) of no other base and scale) */
    const pc_rope_opts *g = &rs->given;
    int base_given = spec->base_set || g->config || g->inline_json || g->freqs_path;
    int scales = rs->coords && !g->angle_scale ? (int)N_SCALES : 1;
    if ((st == PC_OK && r->axes_found) || (base_given && scales == 1)) return st;
    for (int sc = 0; sc < scales; sc++) {
        if (sc > 0 && axes_try(r, spec, rs, 0.0, sc)) return PC_OK;
        for (size_t k = 0; !base_given && k < N_BASES; k++)
            if (released_bases[k] != rs->p.base
                && axes_try(r, spec, rs, released_bases[k], scales > 1 ? sc : -1))
                return PC_OK;
    }
    /* at real coordinates with nothing given: the base and scale fitted
     * from the pairs' angles (DINOv3's periods of another base) */
    if (rs->coords && !base_given && scales > 1 && axes_fit(r, spec, rs)) return PC_OK;
    st = axes_split(r, spec, rs, err);  /* the first answer, as it was */
    size_t u = strlen(err->msg);
    if (st != PC_OK && strstr(err->msg, "no split tried") && u + 1 < sizeof err->msg)
        snprintf(err->msg + u, sizeof err->msg - u, " (also tried: %s%s)",
                 base_given ? "" : "the bases of released models 1e6, 5e6, 1e4, 5e5, 1e5, 5e4, "
                 "1e7, 100", scales > 1 ? (base_given ? "the angle scales 2pi, pi"
                                           : ", each under the angle scales 1, 2pi, pi, then a "
                                             "base and scale fitted per axial split") : "");
    return st;
}

/* Rows at the position ids of one axis of RS: the fit over their own
 * positions (fit_ids.c); PC_EINPUT naming --position-ids and the fix when
 * they cannot give one. */
static pc_status fit_at_ids(ident_run *r, const pc_rope_spec *rs, double u_s, pc_err *err)
{
    const char *path = rs->given.ids_path;
    if (r->lo < 0 || r->hi >= rs->n_ids)
        return pc_seterr(err, PC_EINPUT, "--position-ids %s has %lld rows but %s has rows "
                         "%lld..%lld: give one position a row", path, (long long)rs->n_ids,
                         r->impl->name, (long long)r->lo, (long long)r->hi);
    r->ids = rs->ids + r->lo;
    r->ids_path = path;
    /* at most IDS_ROWS_MAX rows are fitted on: the fit keeps a phase per
     * pair and distinct position (64 pairs: 32 MiB), check holds them all */
    size_t n = (size_t)(r->hi - r->lo + 1);
    if (n > IDS_ROWS_MAX) n = IDS_ROWS_MAX;
    r->ids_rows = n;
    pc_status st = pc_rope_fit_ids(r->impl, r->d, r->base, r->layout, r->lo, n, r->ids, u_s,
                                   &r->fit, &r->ids_info);
    if (st != PC_SKIP || n < 16) return st;
    if (r->ids_info.distinct >= 2 && r->ids_info.seed_gap > 3)
        return pc_seterr(err, PC_EINPUT, "--position-ids %s: no two of its %zu positions are "
                         "within 3 of each other (the closest: %lld apart), so a pair's turn "
                         "between rows cannot be told: the schedule cannot be identified from "
                         "these rows; identify rows that include some "
                         "neighbouring positions (or check with --position-ids and --base or "
                         "--hf-config)", path, r->ids_info.distinct,
                         (long long)r->ids_info.seed_gap);
    if (r->ids_info.distinct < 2)
        return pc_seterr(err, PC_EINPUT, "--position-ids %s: every row is at position %lld: one "
                         "position has no frequency to fit; identify rows of several positions",
                         path, (long long)r->ids[0]);
    return PC_SKIP;
}

/* What rows at position ids say besides their schedule: rows of one
 * position that differ, pairs that follow no one frequency over the ids,
 * rows that are those of other positions: not found, said in the note. */
static void ids_verdict(ident_run *r)
{
    const pc_rope_ids_info *in = &r->ids_info;
    char why[200] = "";
    if (in->dup_pairs)
        snprintf(why, sizeof why, "rows of one position differ in %d pairs", in->dup_pairs);
    else if (in->off_pairs)
        snprintf(why, sizeof why, "%d pairs follow no one frequency over the positions of %s",
                 in->off_pairs, r->ids_path);
    else if (r->id.found && isfinite(r->offset) && r->offset != 0)
        snprintf(why, sizeof why, "the rows are those of the position ids %+.6g: save ids %+.6g",
                 r->offset, r->offset);
    if (!why[0]) return;
    r->id.found = 0;
    size_t u = strlen(r->id.note);
    snprintf(r->id.note + u, sizeof r->id.note - u, "%s%s", u ? "; " : "", why);
}

/* The first position of the rows that check_args' --pos-start names: the
 * rows' own, moved by a whole offset found (check_args below). */
static int64_t args_pos_start(const ident_run *r)
{
    int whole = isfinite(r->offset) && r->offset == round(r->offset);
    return whole && (double)r->lo + r->offset >= 0 ? r->lo + (int64_t)r->offset : r->lo;
}

/* When the gate fails identify's reading (or it explains not every
 * pair), the readings of the frequencies anchored at the rows' own
 * positions (identify_gate.c): the first that passes is FOUND, at offset 0
 * (they are fitted at those positions); SCHEDULES_ONLY: a schedule's
 * reading in place of a passing factor per pair, none else. */
static void gate_anchored(ident_run *r, int schedules_only)
{
    pc_rope_ident got;
    double ratio = 0;
    int rc = pc_rope_ident_anchored(r->impl, r->d, r->base, r->layout, r->lo, r->hi, r->u_s,
                                    r->dtype, &r->id, schedules_only, &got, &ratio);
    if (rc == 0 && !schedules_only) {
        /* what the rows leave open, and what to pass instead */
        size_t u = strlen(r->id.note);
        snprintf(r->id.note + u, sizeof r->id.note - u, "%sno reading of the phases at the rows' "
                 "own positions passes the gate either: these rows leave some pairs' frequencies "
                 "open to check's precision; check them with the model's config (--hf-config, or "
                 "--base and --rope-scaling)", u ? "; " : "");
    }
    if (rc != 1) return;
    pc_rope_ident_free(&r->id);
    r->id = got;
    r->id.found = 1;
    r->offset = 0;
    r->gate_ran = 1;
    r->gate_failed = 0;
    r->gate_ratio = ratio;
}

/* The accuracy gate that check_args asks for, on the table's rows: a
 * FOUND is said only when it passes.  The fit's residual bounds each
 * pair's frequency to the fit's own error, which over 64 rows at position
 * 520000 admits a base rounded to 2 digits (2.8e8 for 2.8225e8) whose
 * angles are off by 0.12 rad there: the gate fails at err/bound 805.
 * Run when check_args reads the same rows: a table, no position ids
 * (check reads them from the file), no xPos norms; at the positions
 * check_args' --pos-start names (a whole offset moves them: a YaRN cache
 * at 520000 read as base 49846 for 50000 placed its rows at -333, a FOUND
 * whose check failed while the gate was not run). */
static void gate_found(ident_run *r)
{
    const pc_table_info *t = pc_table_info_of(r->impl);
    if (!t || r->ids || r->xpos || r->norm_drift) return;
    if (r->id.found) {
        int64_t at = args_pos_start(r);
        double ratio = 0;
        int rc = pc_rope_ident_gate(r->impl, &r->id, r->layout, r->dtype, at, &ratio);
        if (rc < 0 && at == t->pos_lo) return;
        r->id.found = rc == 1; /* not gated at the offset's positions: not said found */
        r->gate_ran = rc >= 0;
        r->gate_ratio = ratio;
        r->gate_failed = rc == 0;
        /* a factor per pair explains any cache: a schedule's reading of
         * the anchored frequencies that passes too is named instead (YaRN
         * caches of 64 rows at 5000 read so) */
        if (rc == 1 && r->id.type == PC_ROPE_LONGROPE && at == t->pos_lo) gate_anchored(r, 1);
        if (rc == 1) return;
    }
    gate_anchored(r, 0);
}

static pc_status identify_one(const pc_impl *impl, const pc_spec *spec, int64_t lo, int64_t hi,
                              ident_run *r, pc_err *err)
{
    memset(r, 0, sizeof *r);
    r->impl = impl;
    if (!impl->rope)
        return pc_seterr(err, PC_EINPUT, "%s: identify takes a RoPE source (a cos/sin cache pair, "
                         "or a built-in or plugin with the rope hook)", impl->name);
    pc_acc_cfg cfg;
    memset(&cfg, 0, sizeof cfg);
    cfg.d = spec->d; cfg.pos_lo = lo; cfg.pos_hi = hi;
    pc_sources_adjust_cfg(impl, &cfg); /* a table fixes d and the positions */
    r->d = cfg.d; r->lo = cfg.pos_lo; r->hi = cfg.pos_hi;
    r->base = spec->base;
    find_layout(r, spec->layout);
    if (!r->layouts)
        return pc_seterr(err, PC_EINPUT, "%s declines every layout at d = %d", impl->name, r->d);
    find_storage(r);
    const pc_rope_spec *rs = pc_rope_spec_of(spec);
    /* the hook is called at row indices: a table's rows are the ids'
     * rows, a built-in or plugin computes at the index itself */
    /* the fits turn a pair by whole positions; the axes are matched at any
     * coordinate (axes_match.c: pc_rope_axes_x) */
    if (rs && rs->coords && rs->n_id_axes < 2)
        return pc_seterr(err, PC_EINPUT, "--position-ids %s holds real coordinates: identify fits "
                         "integer positions; check the table with --position-ids and the "
                         "schedule's options (--rope-axes-dim, --base, --rope-angle-scale); "
                         "the timesteps of a sinusoidal table are --timesteps", rs->given.ids_path);
    if (rs && rs->ids && !pc_table_info_of(impl))
        return pc_seterr(err, PC_EINPUT, "--position-ids %s gives the positions of a table's rows; "
                         "%s computes at the positions it is called with (--positions): identify "
                         "it without --position-ids", rs->given.ids_path, impl->name);
    if (rs && rs->ids && rs->n_id_axes > 1) return identify_axes(r, spec, err);
    double u_s = r->dtype == PC_DT_F32 ? 0x1p-24 : pc_model_u(r->dtype);
    r->u_s = u_s;
    pc_status st = rs && rs->ids ? fit_at_ids(r, rs, u_s, err)
                 : pc_rope_fit_run(impl, r->d, r->base, r->layout, r->lo, r->hi, u_s, &r->fit);
    if (st == PC_SKIP)
        return pc_seterr(err, PC_EINPUT, "%s: positions %lld..%lld cannot be fitted (at least 16 "
                         "positions the source serves)%s", impl->name, (long long)r->lo,
                         (long long)r->hi, r->hi - r->lo + 1 < 16 ? ": the schedule cannot be "
                         "identified from fewer than 16 positions (a pair's turn between rows "
                         "is what gives its frequency); identify a cache of 16 or more "
                         "consecutive rows, or check these rows with the schedule's options "
                         "(--base, --rope-scaling or --hf-config; --pos-start for the first "
                         "row's position)" : "");
    if (st != PC_OK) return st == PC_ENOMEM ? pc_seterr(err, st, "out of memory") : st;
    /* a table's base is what identify finds; --base is then a hint */
    r->seq_len_set = rs && rs->given.seq_len_set;
    r->seq_len = r->seq_len_set ? rs->given.seq_len : 0;
    st = pc_rope_identify(&r->fit, r->d, seq_len_of(spec, r->ids ? rs->max_id : r->hi),
                          spec->base_set && pc_table_info_of(impl) ? spec->base : 0.0, &r->id);
    if (st != PC_OK) return pc_seterr(err, st, "out of memory");
    find_offset(r);
    if (r->ids) ids_verdict(r);
    else xpos_of(r);
    gate_found(r);
    return PC_OK;
}

static const char *layout_text(const ident_run *r)
{
    const pc_table_info *t = pc_table_info_of(r->impl);
    if (t) return t->layout_note;
    return r->layouts == 3 ? "either (the implementation takes both; fitted on half)"
         : r->layouts == 2 ? "half (the implementation declines interleaved)"
                           : "interleaved (the implementation declines half)";
}

static void print_axes(FILE *f, const ident_run *r)
{
    fprintf(f, "%s  %s: rows %lld..%lld, d %d, positions of %d axes\n",
            r->axes_found ? "FOUND" : "UNKNOWN", r->impl->name, (long long)r->lo,
            (long long)r->hi, r->d, r->n_axes);
    fprintf(f, "  layout: %s\n  storage: %s\n", layout_text(r), r->storage_note);
    fprintf(f, "  axes: %s%s\n", r->sections, r->axes_found ? ""
            : " (\"none\": no axis explains the pair with the given frequencies)");
    if (r->split_opt)
        fprintf(f, "  split: none given; %s %s%s%s explains every pair (tried: M-RoPE sections "
                "under the one schedule, then axial dims, then by parity)\n", r->split_opt,
                r->split, r->split_interleaved ? " --mrope-interleaved" : "",
                r->split_parity ? " --rope-axes-parity" : "");
    if (r->spec_base_set && r->base_searched)
        fprintf(f, "  base: %.9g (none given: %s under which every pair follows an axis)\n",
                r->spec_base, r->base_fitted_axes ? "fitted from the pairs' angles at their axes' "
                "smallest positions, with the angle scale," : "a released model's base");
    if (r->scale_found)
        fprintf(f, "  angle scale: %s (none given: the angles are %s x the coordinates' "
                "positions times the frequencies, as DINOv3's 2 pi coords / periods%s)\n",
                r->scale_found, r->scale_found, r->base_fitted_axes ? "; fitted" : "");
}

static void print_text(FILE *f, const void *found)
{
    const ident_run *r = found;
    if (r->follow) { print_axes(f, r); return; }
    char desc[400], js[8192];
    const pc_rope_ident *id = &r->id;
    pc_rope_ident_describe(id, desc, sizeof desc);
    pc_rope_ident_json(id, js, sizeof js);
    if (r->ids)
        fprintf(f, "%s  %s: rows %lld..%lld at the positions of %s (%zu distinct, %lld..%lld, "
                "in the %zu rows fitted on), d %d\n", id->found ? "FOUND" : "UNKNOWN",
                r->impl->name, (long long)r->lo, (long long)r->hi, r->ids_path,
                r->ids_info.distinct, (long long)r->ids_info.first, (long long)r->ids_info.last,
                r->ids_rows, r->d);
    else
        fprintf(f, "%s  %s: positions %lld..%lld, d %d\n", id->found ? "FOUND" : "UNKNOWN",
                r->impl->name, (long long)r->lo, (long long)r->hi, r->d);
    fprintf(f, "  layout: %s\n  storage: %s\n", layout_text(r), r->storage_note);
    if (r->gate_failed)
        fprintf(f, "  schedule: %s (closest: the fitted frequencies agree with it, the values do "
                "not)\n  closest: %s fails the accuracy gate at err/bound %.3g on these rows "
                "(the check below fails)\n", desc, desc, r->gate_ratio);
    else
        fprintf(f, "  schedule: %s%s\n", desc, id->found ? "" : " (closest; it does not explain every pair)");
    fprintf(f, "  base: %.9g (fitted from the high-frequency pairs: %.9g)\n", id->base, id->base_fit);
    fprintf(f, "  attention factor: %.9g (%s)\n", id->att,
            id->att_given ? "given: not the schedule's own" : "the schedule's own");
    if (r->offset == 0)
        fprintf(f, "  position offset: 0 (the rows are those of their positions)\n");
    else if (isfinite(r->offset))
        fprintf(f, "  position offset: %+.6g (the rows are those of position p%+.6g)\n", r->offset,
                r->offset);
    if (r->ids && r->ids_info.unreached)
        fprintf(f, "  positions: %zu of %s's are too far from the others to be fitted on (check "
                "holds every row to the schedule)\n", r->ids_info.unreached, r->ids_path);
    fprintf(f, "  frequencies: largest residual %.3g beyond the fit's own error, %d of %d pairs "
            "resolved\n", id->resid, id->resolved, r->d / 2);
    if (id->note[0]) fprintf(f, "  assumed: %s\n", id->note);
    if (r->xpos)
        fprintf(f, "  xpos: the pairs' norms are zeta_i^(%s(p %+lld)/%.9g) (torchscale's XPOS%s)\n",
                r->xpos_down ? "-" : "", r->xpos_q0, r->xpos_b, r->xpos_down ? ", the keys' "
                "downscale" : "");
    if (r->norm_drift)
        fprintf(f, "  norms: the pairs' norms change along the rows, not as xPos's zeta_i^((p + "
                "q0)/B): no norm schedule identify knows explains them\n");
    fprintf(f, "  rope_theta: %.17g\n  rope_scaling: %s\n", id->base, js);
}

static void write_json_axes(pc_json *j, const ident_run *r)
{
    pc_json_int(j, "axes", r->n_axes);
    if (r->base_searched) pc_json_num(j, "base_found", r->spec_base);
    if (r->scale_found) pc_json_str(j, "angle_scale_found", r->scale_found);
    if (r->base_searched) pc_json_bool(j, "base_scale_fitted", r->base_fitted_axes);
    pc_json_str(j, "sections", r->sections);
    if (r->split_opt) {
        pc_json_str(j, "split_found", r->split_opt);
        pc_json_str(j, "split", r->split);
        pc_json_bool(j, "split_interleaved", r->split_interleaved);
        pc_json_bool(j, "split_parity", r->split_parity);
    }
    pc_json_arr(j, "pair_axis");
    for (int i = 0; i < r->d / 2; i++) pc_json_int(j, NULL, r->follow[i]);
    pc_json_end(j);
}

static void write_json_one(pc_json *j, const void *found)
{
    const ident_run *r = found;
    const pc_rope_ident *id = &r->id;
    pc_json_str(j, "source", r->impl->name);
    pc_json_bool(j, "found", r->follow ? r->axes_found : id->found);
    pc_json_int(j, "d", r->d);
    pc_json_obj(j, "positions");
    pc_json_int(j, "start", (long long)r->lo);
    pc_json_int(j, "end", (long long)r->hi);
    pc_json_end(j);
    pc_json_str(j, "layout", pc_layout_name(r->layout));
    pc_json_str(j, "storage", pc_dtype_name(r->dtype));
    if (r->ids) {
        pc_json_str(j, "position_ids", r->ids_path);
        pc_json_int(j, "distinct_positions", (long long)r->ids_info.distinct);
    }
    if (r->follow) { write_json_axes(j, r); return; }
    pc_json_num(j, "rope_theta", id->base);
    pc_json_num(j, "base_fitted", id->base_fit);
    pc_json_str(j, "rope_type", pc_rope_type_name(id->type));
    pc_rope_ident_json_write(j, "rope_scaling", id);
    pc_json_num(j, "attention_factor", id->att);
    pc_json_bool(j, "attention_factor_given", id->att_given);
    pc_json_num(j, "position_offset", r->offset);
    pc_json_num(j, "residual", id->resid);
    pc_json_int(j, "resolved_pairs", id->resolved);
    pc_json_str(j, "assumed", id->note);
    if (r->xpos) {
        pc_json_obj(j, "xpos");
        pc_json_num(j, "scale_base", r->xpos_b);
        pc_json_int(j, "offset", r->xpos_q0);
        pc_json_bool(j, "downscale", r->xpos_down);
        pc_json_end(j);
    }
    pc_json_bool(j, "norm_drift", r->norm_drift);
    if (r->gate_ran) {
        pc_json_obj(j, "accuracy_gate");
        pc_json_bool(j, "pass", !r->gate_failed);
        pc_json_num(j, "err_bound", r->gate_ratio);
        pc_json_end(j);
    }
}

/* check's arguments of what was found: the base, the schedule, the
 * layout of a table that has one, the storage found from the values, the
 * position of the first row, the sequence length given. */
/* Rows of several axes: the options they were matched under (the spec's
 * frequencies, the position ids) and the layout. */
static void axes_check_args(const ident_run *r, pc_args *out)
{
    const pc_rope_opts *o = r->given;
    const char *name[] = { "--hf-config", "--rope-scaling", "--rope-freqs", "--layer-type",
                           "--position-ids", "--rope-sections", "--rope-axes-dim",
                           "--rope-angle-scale" };
    const char *value[] = { o->config, o->inline_json, o->freqs_path, o->layer_type,
                            o->ids_path, o->sections, o->axes_dim,
                            o->angle_scale ? o->angle_scale : r->scale_found };
    if (r->spec_base_set) { pc_args_add(out, "--base"); pc_args_add(out, "%.17g", r->spec_base); }
    for (size_t k = 0; k < sizeof name / sizeof name[0]; k++)
        if (value[k]) { pc_args_add(out, "%s", name[k]); pc_args_add(out, "%s", value[k]); }
    if (o->rotary_dim) { pc_args_add(out, "--rotary-dim"); pc_args_add(out, "%d", o->rotary_dim); }
    if (o->sections_interleaved) pc_args_add(out, "--mrope-interleaved");
    /* the given options that shape the axes' frequencies, angles and
     * columns (ChatGLM-6B's halves and float16 frequencies): without them
     * check reads other rows than those identify matched */
    if (o->tower_vision) { pc_args_add(out, "--tower"); pc_args_add(out, "vision"); }
    if (o->axes_halves) pc_args_add(out, "--rope-axes-halves");
    if (o->axes_parity && !(r->split_opt && r->split_parity)) pc_args_add(out, "--rope-axes-parity");
    const char *more[] = { "--rope-freq-dtype", "--rope-angle-dtype", "--rope-angle-scale" };
    const char *more_v[] = { o->freq_dtype, o->angle_dtype, o->angle_scale };
    for (size_t k = 0; k < sizeof more / sizeof more[0]; k++)
        if (more_v[k]) { pc_args_add(out, "%s", more[k]); pc_args_add(out, "%s", more_v[k]); }
    if (r->split_opt) {
        pc_args_add(out, "%s", r->split_opt);
        pc_args_add(out, "%s", r->split);
        if (r->split_interleaved) pc_args_add(out, "--mrope-interleaved");
        if (r->split_parity) pc_args_add(out, "--rope-axes-parity");
    }
    pc_args_add(out, "--layout");
    pc_args_add(out, "%s", pc_layout_name(r->layout));
}

static void check_args(const void *found, pc_args *out)
{
    const ident_run *r = found;
    if (r->follow) { axes_check_args(r, out); return; }
    const pc_rope_ident *id = &r->id;
    const pc_table_info *t = pc_table_info_of(r->impl);
    char js[8192];
    pc_args_add(out, "--base");
    pc_args_add(out, "%.17g", id->base);
    pc_rope_ident_json(id, js, sizeof js);
    if (strcmp(js, "null") != 0) {
        pc_args_add(out, "--rope-scaling");
        pc_args_add(out, "%s", js);
    }
    if ((t && t->layout >= 0) || (!t && r->layouts != 3)) {
        pc_args_add(out, "--layout");
        pc_args_add(out, "%s", pc_layout_name(r->layout));
    }
    if (r->dtype != PC_DT_F32 && !(t && t->dtype == r->dtype)) {
        pc_args_add(out, "--dtype");
        pc_args_add(out, "%s", pc_dtype_name(r->dtype));
    }
    if (r->ids) {
        pc_args_add(out, "--position-ids");
        pc_args_add(out, "%s", r->ids_path);
    } else if (t && ((isfinite(r->offset) && r->offset == round(r->offset)) || r->lo > 0)) {
        /* a whole offset moves the rows' positions; none found (llama.cpp's
         * longrope at 520192: +0.0107): the rows' positions as given */
        pc_args_add(out, "--pos-start");
        pc_args_add(out, "%lld", (long long)args_pos_start(r));
    }
    if (r->xpos) {
        pc_args_add(out, "--rope-xpos");
        pc_args_add(out, "%.17g", r->xpos_b);
        pc_args_add(out, "--rope-xpos-offset");
        pc_args_add(out, "%lld", r->xpos_q0);
        if (r->xpos_down) pc_args_add(out, "--rope-xpos-downscale");
    }
    if (r->seq_len_set) {
        pc_args_add(out, "--seq-len");
        pc_args_add(out, "%.17g", r->seq_len);
    }
}


static void ident_free(void *found)
{
    ident_run *r = found;
    if (!r) return;
    pc_rope_fit_free(&r->fit);
    pc_rope_ident_free(&r->id);
    free(r->follow);
    free(r);
}

static pc_status ident_run_one(const pc_impl *impl, const pc_spec *spec, int64_t lo, int64_t hi,
                               void **found, pc_err *err)
{
    ident_run *r = calloc(1, sizeof *r);
    *found = r;
    if (!r) return pc_seterr(err, PC_ENOMEM, "out of memory");
    return identify_one(impl, spec, lo, hi, r, err);
}

static int explained(const void *found)
{
    const ident_run *r = found;
    return r->follow ? r->axes_found : r->id.found;
}

static const pc_identify_kind identify = {
    .run = ident_run_one, .explained = explained, .text = print_text, .json = write_json_one,
    .check_args = check_args, .free = ident_free
};

const pc_diagnosis pc_rope_diagnosis = {
    .likely_cause = pc_rope_likely_cause, .table_base = pc_rope_table_base,
    .table_points = &pc_rope_table_points,
    .identify = &identify
};

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
#include "ident_run.h"
#include "axes_match.h"
#include "fit.h"
#include "options.h"
#include "families/spec_sched.h"

#define IDS_ROWS_MAX ((size_t)1 << 16)  /* rows at position ids fitted on (fit_at_ids) */

/* Rows LO.. (M of them) of the rotation of (1, 0) in every pair: the
 * cache's (A cos, A sin) exactly (x_a cos - 0 sin, 0 cos + x_a sin). */
int pc_rope_ident_rows_at(const ident_run *r, int layout, int64_t lo, size_t m, float *y)
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
        if ((want < 0 || want == l) && pc_rope_ident_rows_at(r, l, r->lo, 1, y) == 0) r->layouts |= 1 << l;
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
    if (y && pc_rope_ident_rows_at(r, r->layout, r->lo, m, y) == 0)
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
             t && t->dtype == r->dtype ? (t->file_f64 ? " (the file's float64 values, rounded to "
                                                      "binary32 on reading)" : " (the file's type)")
             : r->dtype != PC_DT_F32 ? " (binary32 values that are all representable in it)" : "");
}

/* The position the rows are for, relative to LO: per pair the phase at LO
 * against the identified schedule's, unwrapped from the lowest frequency
 * (coarse, unambiguous) to the highest (fine).  Rows of a table read
 * without --position-ids get it for the closest reading too: rows sliced
 * far from 0 are fitted from their turn alone, and the gate (gate_reading)
 * says whether the reading holds at the offset found. */
static double offset_of(const ident_run *r, const pc_rope_ident *id)
{
    pc_rope_params p;
    pc_err err = { "" };
    double q = (double)NAN;
    if (pc_rope_ident_params(id, &p, &err) != PC_OK) return q;
    pc_freqs *fr = pc_freqs_new(r->d, pc_rope_schedule(&p));
    float *y = malloc((size_t)r->d * sizeof *y);
    int h = r->d / 2;
    double *c = malloc((size_t)h * 3 * sizeof *c);
    if (fr && y && c && pc_rope_ident_rows_at(r, r->layout, r->lo, 1, y) == 0) {
        double *sn = c + h, *w = c + 2 * h;
        for (int i = 0; i < h; i++) {
            c[i] = (double)y[r->layout ? i : 2 * i];
            sn[i] = (double)y[r->layout ? i + h : 2 * i + 1];
            w[i] = pc_freqs_omega(fr, i);
        }
        q = pc_rope_fit_offset(c, sn, w, h, (double)(r->ids ? r->ids[0] : r->lo), r->fit.eps);
    }
    free(c);
    free(y);
    pc_freqs_free(fr);
    pc_rope_params_free(&p);
    return q;
}

static void find_offset(ident_run *r)
{
    r->offset = r->id.found || !r->ids ? offset_of(r, &r->id) : (double)NAN;
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

/* The closest reading, at rows moved by the whole offset found for it:
 * FOUND when the gate passes there (a cache sliced at 520192 is fitted
 * from 256 rows' turn, which leaves the base to 4 digits; the rows' own
 * positions are not 0..255, so the readings anchored there fail). */
static int gate_at_offset(ident_run *r)
{
    double ratio = 0;
    int rc = pc_rope_ident_gate(r->impl, &r->id, r->layout, r->dtype, args_pos_start(r), &ratio);
    if (rc != 1) return 0;
    r->id.found = 1;
    r->gate_ran = 1;
    r->gate_failed = 0;
    r->gate_ratio = ratio;
    return 1;
}

/* The factor of a LongRoPE reading's schedule in its place: its factors
 * when they are one factor F (within the fit's 10^-3; linear scaling,
 * default at 1), else 1 (the factors are those of another base: LongRoPE's
 * reading takes the largest base whose factors are >= 1); 0 for another
 * reading (kept as it is). */
static double uniform_factor(const pc_rope_ident *id)
{
    if (id->type != PC_ROPE_LONGROPE) return 0;
    if (!id->ext) return 1.0;
    for (int i = 1; i < id->d / 2; i++)
        if (fabs(id->ext[i] / id->ext[0] - 1) > 1e-3) return 1.0;
    return fabs(id->ext[0] - 1) <= 1e-3 ? 1.0 : id->ext[0];
}

/* GEOMETRIC: the default schedule (linear by the head's fitted scale, or
 * by LongRoPE's one factor: uniform_factor); else the closest reading's
 * own scaled schedule; with the base read from the high-frequency pairs
 * rounded to 3, 2 and 1
 * significant digits (within 5% of it), at the offset found for each:
 * FOUND when the gate passes there.  64 rows at 2^20 read a base 10000 as
 * 10026.6 (binary32 holds their angles to 0.06 rad), past round_base's
 * 0.1%, and the readings anchored at the rows' own positions fail when
 * the rows are another position's. */
static int gate_round_bases(ident_run *r, int geometric)
{
    double fit = r->id.base_fit, tried[3] = { 0 }, f = uniform_factor(&r->id);
    if (!(fit > 1) || !isfinite(fit)) return 0;
    /* the closest reading's own schedule: a scaled one (YaRN, llama3,
     * dynamic); LongRoPE's factors are fitted, not rounded */
    if (!geometric && (r->id.type == PC_ROPE_DEFAULT || r->id.type == PC_ROPE_LINEAR
                       || r->id.type == PC_ROPE_LONGROPE))
        return 0;
    for (int k = 0; k < 3; k++) {
        double scale = pow(10.0, floor(log10(fit)) - (2 - k));
        double b = round(fit / scale) * scale;
        if (fabs(b / fit - 1) > 0.05 || (k && b == tried[k - 1])) continue;
        tried[k] = b;
        pc_rope_ident c = r->id;
        c.ext = NULL; /* r->id keeps its own */
        c.found = 0;
        c.note[0] = 0;
        c.base = b;
        if (geometric) {
            /* the head's fitted scale e^-c (identify.c), or LongRoPE's one
             * factor, as linear scaling; else the default schedule */
            double g = f > 0 ? f : c.type == PC_ROPE_DEFAULT || c.type == PC_ROPE_LINEAR ? c.factor : 1;
            c.type = g > 1 ? PC_ROPE_LINEAR : PC_ROPE_DEFAULT;
            c.factor = g > 1 ? g : 1;
        }
        double q = offset_of(r, &c), ratio = 0;
        if (!isfinite(q) || q != round(q) || (double)r->lo + q < 0) continue;
        if (pc_rope_ident_gate(r->impl, &c, r->layout, r->dtype, r->lo + (int64_t)q, &ratio) != 1)
            continue;
        snprintf(c.note, sizeof c.note, "the base read from the high-frequency pairs' turn "
                 "(%.6g) rounded to %d significant digit%s: the rows' turn leaves it open, the "
                 "gate holds it", fit, 3 - k, k == 2 ? "" : "s");
        pc_rope_ident_free(&r->id);
        r->id = c;
        r->id.found = 1;
        r->offset = q;
        r->gate_ran = 1;
        r->gate_failed = 0;
        r->gate_ratio = ratio;
        return 1;
    }
    return 0;
}

/* A reading that failed at the rows' own positions, gated elsewhere, the
 * simplest first: the geometric schedule (default, or linear by the
 * head's scale) of the rounded base at its own offset; the reading itself
 * at the offset found for it; its scaled schedule with the base rounded
 * (a plain cache sliced far from 0 read as YaRN of factor 1.01 and an
 * original length of 6e12, which computes the default schedule, was named
 * so). */
static int gate_moved(ident_run *r)
{
    int moved = args_pos_start(r) != pc_table_info_of(r->impl)->pos_lo;
    return gate_round_bases(r, 1) || (moved && r->id.type != PC_ROPE_LONGROPE && gate_at_offset(r))
           || gate_round_bases(r, 0) || (moved && r->id.type == PC_ROPE_LONGROPE && gate_at_offset(r));
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
static void gate_reading(ident_run *r)
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
    } else if (gate_moved(r)) {
        return;
    }
    if (!r->id.found) r->offset = (double)NAN; /* an offset the gate did not hold */
    gate_anchored(r, 0);
}

/* The gate of the reading found, then, on float32 rows that passed it,
 * the same gate under each computed strict class (identify_form.h): the
 * formulation proposed. */
static void gate_found(ident_run *r)
{
    gate_reading(r);
    if (!r->id.found || !r->gate_ran || r->gate_failed || r->dtype != PC_DT_F32) return;
    r->form_ran = pc_rope_ident_gate_form(r->impl, &r->id, r->layout, r->dtype,
                                          args_pos_start(r), &r->form) == 0;
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
    char cause[1024];
    /* identity columns would be fitted as pairs of frequency 0 (a base of
     * 10^8 for a whole head): what they are, and the slice to identify */
    if (!spec->d_set && pc_rope_identity_cause(impl, rs, 1, cause, sizeof cause))
        return pc_seterr(err, PC_EINPUT, "%s: %s", impl->name, cause);
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
    if (rs && rs->ids && rs->n_id_axes > 1) return pc_rope_identify_axes(r, spec, err);
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

/* The split of R as check's options, "--rope-axes-dim 64,64 --rope-axes-halves". */
static void split_words(const ident_run *r, char *buf, size_t len)
{
    snprintf(buf, len, "%s %s%s%s%s", r->split_opt, r->split,
             r->split_interleaved ? " --mrope-interleaved" : "",
             r->split_parity ? " --rope-axes-parity" : "", r->halves_found ? " --rope-axes-halves" : "");
}

/* The split found, the closest, or the one given for check (R->split_opt set). */
static void print_split(FILE *f, const ident_run *r)
{
    char w[160];
    split_words(r, w, sizeof w);
    if (r->split_any == 1 && r->closest)
        fprintf(f, "  split: none given, and these rows cannot tell one: every axis holds the "
                "same position in every row; %s; %s is given for check, which fails with its own "
                "cause\n", r->tried, w);
    else if (r->split_any == 1)
        fprintf(f, "  split: none given, and these rows cannot tell one: every axis holds the "
                "same position in every row, so every split of the pairs explains them (the "
                "rows are those of one position a row); %s is given for check, not "
                "determined by the data\n", w);
    else if (r->closest)
        fprintf(f, "  split: none given; %s; the closest, %s (%d of %d pairs on their axes), is "
                "given for check, which fails with its own cause\n", r->tried, w,
                r->closest_pairs, r->d / 2);
    else
        fprintf(f, "  split: none given; %s explains every pair%s (tried: M-RoPE sections "
                "under the one schedule, then axial dims, then by parity, then each axis' dims "
                "in a half layout of its own)\n", w, r->permuted ? " with the ids' columns in "
                "another order (below)" : "");
    if (r->split_any == 2)
        fprintf(f, "  split between axes %d and %d: not determined by the data: they hold the "
                "same position in every row, so any split of the pairs between them explains the "
                "rows (the one above is one check takes)\n", r->alike[0], r->alike[1]);
}

/* Every pair follows an axis of the split found with the ids' columns in
 * another order: which, and what it means. */
static void print_permuted(FILE *f, const ident_run *r)
{
    char from[64] = "", to[64] = "";
    for (int a = 0, u = 0, v = 0; a < r->n_axes && a < PC_ROPE_AXES_MAX; a++) {
        u += snprintf(from + u, sizeof from - (size_t)u, "%s%d", a ? ", " : "", a);
        v += snprintf(to + v, sizeof to - (size_t)v, "%s%d", a ? ", " : "", r->perm[a]);
    }
    fprintf(f, "  columns of the ids: in another order than the cache's: every pair follows an "
            "axis, the split's axes %s those of the ids' columns %s, not %s: the ids saved in "
            "another order (ChatGLM-6B's are (position, block position), SAM-2's (x, y), "
            "Qwen2-VL's (t, h, w)), or the model gave parts of the head each other's ids; check "
            "(below) takes the axes in the columns' order and names them; the ids ids[:, [%s]] "
            "are this cache's\n", from, to, from, to);
}

static void print_axes(FILE *f, const ident_run *r)
{
    fprintf(f, "%s  %s: rows %lld..%lld, d %d, positions of %d axes\n",
            r->axes_found ? "FOUND" : "UNKNOWN", r->impl->name, (long long)r->lo,
            (long long)r->hi, r->d, r->n_axes);
    fprintf(f, "  layout: %s\n  storage: %s\n", layout_text(r), r->storage_note);
    int none = 0;
    for (int i = 0; i < r->d / 2; i++) none |= r->follow[i] < 0;
    fprintf(f, "  axes: %s%s\n", r->sections, none
            ? " (\"none\": no axis explains the pair with the given frequencies)" : "");
    if (r->split_opt) print_split(f, r);
    if (r->split_given && !r->axes_found && !none && !r->permuted)
        fprintf(f, "  split: the one given holds some pairs to other axes than those they follow "
                "(above): check (below) takes it and fails naming them\n");
    if (r->permuted) print_permuted(f, r);
    if (r->halves_found && !r->closest)
        fprintf(f, "  columns: each axis' dims in a half layout of its own, [a a | b b] "
                "(ChatGLM-6B's position_encoding_2d, one rotate_half per axis): found, none "
                "given\n");
    if (r->storage_found)
        fprintf(f, "  storage of the angles: %s (none given: found; %s)\n",
                r->storage_found == 1 ? "the frequencies are float16 values, omega_i rounded "
                "to float16 (--rope-freq-dtype f16)" : "the angles are float16 values, "
                "fl16(fl16(x) fl16(omega_i)) (--rope-freq-dtype f16 --rope-angle-dtype f16)",
                r->storage_found == 1 ? "inv_freq held in half precision, ChatGLM-6B's "
                "inv_freq.half()" : "the model run in float16: the position, frequency and "
                "product in half precision");
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
    else if (isfinite(r->offset) && r->offset == round(r->offset) && fabs(r->offset) < 0x1p53)
        fprintf(f, "  position offset: %+.0f (the rows are those of position p%+.0f)\n", r->offset,
                r->offset);
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
    if (r->form_ran) pc_rope_form_probe_text(f, &r->form);
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
        /* split_closest: none explains every pair (or does with the ids'
         * columns in another order, axes_columns); check takes it and fails */
        pc_json_str(j, r->closest || r->permuted ? "split_closest" : "split_found", r->split_opt);
        pc_json_str(j, "split", r->split);
        pc_json_bool(j, "split_interleaved", r->split_interleaved);
        pc_json_bool(j, "split_parity", r->split_parity);
        pc_json_bool(j, "split_halves", r->halves_found);
        /* false: the rows cannot tell the split (every axis alike), SPLIT is one check takes */
        pc_json_bool(j, "split_determined", !r->split_any);
        if (r->split_any == 2) {  /* the two axes alike, between which it is not */
            pc_json_arr(j, "alike_axes");
            pc_json_int(j, NULL, r->alike[0]);
            pc_json_int(j, NULL, r->alike[1]);
            pc_json_end(j);
        }
    }
    if (r->split_given) pc_json_bool(j, "split_given_held", r->axes_found);
    if (r->closest) {
        pc_json_int(j, "closest_pairs", r->closest_pairs);
        pc_json_str(j, "not_explained", r->tried);
    }
    if (r->permuted) {
        pc_json_arr(j, "axes_columns");  /* the ids' column of each axis of the split */
        for (int a = 0; a < r->n_axes && a < PC_ROPE_AXES_MAX; a++) pc_json_int(j, NULL, r->perm[a]);
        pc_json_end(j);
    }
    if (r->storage_found)
        pc_json_str(j, "storage_found", r->storage_found == 1 ? "float16 frequencies"
                                                              : "float16 angles");
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
    if (r->form_ran) pc_rope_form_probe_json(j, &r->form);
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
        if (r->halves_found) pc_args_add(out, "--rope-axes-halves");
    }
    /* the storage found (none given): the frequencies float16, the angles too */
    if (r->storage_found && !o->freq_dtype) pc_args_add(out, "--rope-freq-dtype");
    if (r->storage_found && !o->freq_dtype) pc_args_add(out, "f16");
    if (r->storage_found == 2) pc_args_add(out, "--rope-angle-dtype");
    if (r->storage_found == 2) pc_args_add(out, "f16");
    pc_args_add(out, "--layout");
    pc_args_add(out, "%s", pc_layout_name(r->layout));
    /* the values' storage, as for one axis (check_args): a bfloat16 cache
     * of Qwen2-VL's (n, 3) ids was FOUND with a check line check failed
     * ("every value ... is a bfloat16 number ... rerun with --dtype bf16") */
    const pc_table_info *t = pc_table_info_of(r->impl);
    if (r->dtype != PC_DT_F32 && !(t && t->dtype == r->dtype)) {
        pc_args_add(out, "--dtype");
        pc_args_add(out, "%s", pc_dtype_name(r->dtype));
    }
}

static void check_args(const void *found, pc_args *out)
{
    const ident_run *r = found;
    if (r->follow) { axes_check_args(r, out); return; }
    const pc_rope_ident *id = &r->id;
    const pc_table_info *t = pc_table_info_of(r->impl);
    char js[8192];
    /* a base check takes (> 1): rows that turn too little to fit one
     * (cos and sin swapped, one row repeated) leave it to check's own fit */
    if (id->base > 1 && isfinite(id->base)) {
        pc_args_add(out, "--base");
        pc_args_add(out, "%.17g", id->base);
    }
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
    if (r->form_ran && r->form.proposed) { /* the class whose gate passed on these rows */
        pc_args_add(out, "--formulation");
        pc_args_add(out, "%s", pc_model_class_name(r->form.proposed));
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
    .likely_cause = pc_rope_likely_cause, .pass_note = pc_rope_strict_pass_note,
    .table_base = pc_rope_table_base,
    .table_points = &pc_rope_table_points,
    .identify = &identify
};

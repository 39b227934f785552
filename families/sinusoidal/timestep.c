/* timestep.c: tables of timestep embeddings (--timesteps T.npy): row r of
 * the table is the embedding of the timestep T[r], a real number
 * (diffusers' get_timestep_embedding, ADM's timestep_embedding), its
 * angles K T[r] omega_i (K: --angle-scale, diffusers' `scale`).  The gate
 * holds every value to the certified sin and cos of its angle
 * (timestep_ref.c) under the accuracy gate's element bound with the
 * schedule's kappa_i, one more u for the scale's product, and the phase
 * term at |K T[r]| rounded up (docs/sinusoidal.md "Timesteps"). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sin_ident.h"
#include "sin_timestep.h"
#include "harness/base/half.h"
#include "families/family.h"
#include "harness/base/dtype.h"
#include "harness/base/progress.h"
#include "harness/engine/gate.h"
#include "harness/engine/model.h"
#include "harness/formats/verdict.h"
#include "harness/io/json.h"
#include "harness/sandbox/call.h"
#include "harness/sources/table.h"

pc_status pc_sin_read_rows(const pc_impl *impl, int64_t lo, size_t n, int d, double base,
                           int layout, float **rows, int *rc, pc_err *err)
{
    int64_t *pos = malloc(n * sizeof *pos);
    *rows = malloc(n * (size_t)d * sizeof **rows);
    *rc = 0;
    if (!pos || !*rows) { free(pos); return pc_seterr(err, PC_ENOMEM, "out of memory"); }
    for (size_t k = 0; k < n; k++) pos[k] = lo + (int64_t)k;
    pc_fault fault;
    for (size_t k = 0; k < n && *rc == 0; k += 256) {
        size_t m = n - k < 256 ? n - k : 256;
        *rc = pc_call_sinusoidal(impl, &fault, pos + k, m, d, base, layout, *rows + k * (size_t)d);
        if (fault.faulted) *rc = -1;
    }
    free(pos);
    return PC_OK;
}

static pc_status read_rows(const pc_impl *impl, ts_run *r, pc_err *err)
{
    int rc;
    pc_status st = pc_sin_read_rows(impl, r->t->pos_lo, r->n, r->d, 0.0, r->t->layout, &r->rows,
                                    &rc, err);
    if (st == PC_OK && rc)
        st = pc_seterr(err, PC_EINTERNAL, "%s: its rows could not be read", impl->name);
    return st;
}

/* omega_i and kappa_i of the schedule: kappa 0 for a pair of omega 1
 * (pair 0 but under a min_timescale), one more u for the scale's product
 * fl(K x) */
pc_status pc_sin_ts_frequencies(ts_run *r, pc_err *err)
{
    size_t h = (size_t)r->d / 2;
    pc_freqs *f = pc_freqs_new(r->d, r->sched);
    r->omega = malloc(h * sizeof *r->omega);
    r->kappa = malloc(h * sizeof *r->kappa);
    if (!f || !r->omega || !r->kappa) {
        pc_freqs_free(f);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    double extra = r->s->angle_scale != 1.0 ? 1.0 : 0.0;
    for (size_t i = 0; i < h; i++) {
        r->omega[i] = pc_freqs_omega(f, (int)i);
        r->kappa[i] = (r->omega[i] == 1.0 ? 0.0 : pc_schedule_model_c(&r->sched, r->d, (int)i))
                      + extra;
    }
    pc_freqs_free(f);
    return PC_OK;
}

static void judge(ts_worst *w, float got, double exact, double bound, size_t row, int col)
{
    double err = fabs((double)got - exact), ratio = err / bound;
    w->count++;
    if (!(err <= bound)) w->over++;
    if (!(ratio <= w->ratio)) {
        w->ratio = isnan(ratio) ? (double)INFINITY : ratio;
        w->err = err; w->bound = bound; w->exact = exact; w->got = got;
        w->row = row; w->col = col;
    }
}

/* The phase term of pair I at timestep T (model.h), its position
 * ceil(|K T|) past 2^62 (no int64_t) an angle no bound constrains. */
static double ts_phase(const ts_run *r, size_t i, double t)
{
    double at = ceil(fabs(r->s->angle_scale * t)); /* the phase term's position, rounded up */
    if (!(at < 0x1p62)) return (double)INFINITY;
    return pc_model_phase(r->kappa[i], r->omega[i], (int64_t)at);
}

/* Pair I of ROW, (S, C), against the unit circle (pc_model_norm_bound), and
 * whether its element bound still constrains its angle (PHI). */
static void judge_norm(ts_norm *z, const ts_run *r, double s, double c, double bound, double phi,
                       size_t row, size_t i)
{
    double e = fabs(hypot(s, c) - 1.0);
    if (!(e <= bound)) {
        if (!(e <= z->err)) { z->err = isnan(e) ? (double)INFINITY : e; z->row = row; z->pair = (int)i; }
        z->over++;
    }
    z->bound = bound;
    if (phi + pc_model_radial(0, 1.0) * PC_MODEL_U32 <= PC_MODEL_VACUOUS) return;
    if (z->vac_row == r->n || fabs(r->s->t[row]) < fabs(r->s->t[z->vac_row])) {
        z->vac_row = row;
        z->vac_pair = (int)i;
    }
}

/* How many of the d/2 pairs the element bound leaves unconstrained at the
 * largest |timestep| (the long-context note). */
static int vacuous_pairs(const ts_run *r)
{
    size_t far = 0;
    for (size_t k = 1; k < r->n; k++)
        if (fabs(r->s->t[k]) > fabs(r->s->t[far])) far = k;
    int n = 0;
    for (size_t i = 0; i < (size_t)r->d / 2; i++)
        n += ts_phase(r, i, r->s->t[far]) + pc_model_radial(0, 1.0) * PC_MODEL_U32
             > PC_MODEL_VACUOUS;
    return n;
}

pc_status pc_sin_ts_compare(const ts_run *r, ts_worst *w, pc_err *err)
{
    size_t h = (size_t)r->d / 2, d = (size_t)r->d;
    double u_s = pc_model_u_storage(r->t->dtype), k = r->s->angle_scale;
    double nb = pc_model_norm_bound(pc_model_radial(0, 1.0), u_s, 1.0);
    memset(w, 0, sizeof *w);
    w->norm.vac_row = r->n;
    for (size_t row = 0; row < r->n; row++)
        for (size_t i = 0; i < h; i++) {
            double t = r->s->t[row];
            pc_ref2 sv, cv;
            if (pc_sin_timestep_ref(&r->sched, r->d, (int)i, t, k, &sv, &cv) != PC_OK)
                return pc_seterr(err, PC_EINTERNAL, "no certified value at timestep %.17g", t);
            double phi = ts_phase(r, i, t);
            double b = pc_model_element(pc_model_radial(0, 1.0), phi, u_s, 1.0, 1.0);
            size_t a = r->t->layout ? i : 2 * i, c = r->t->layout ? i + h : 2 * i + 1;
            judge(w, r->rows[row * d + a], sv.f64, b, row, (int)a);
            judge(w, r->rows[row * d + c], cv.f64, b, row, (int)c);
            judge_norm(&w->norm, r, (double)r->rows[row * d + a], (double)r->rows[row * d + c], nb,
                       phi, row, i);
        }
    w->norm.vac_pairs = vacuous_pairs(r);
    return PC_OK;
}

/* ---- the likely cause: the formula of the rows -------------------------- */

/* What the row of the smallest nonzero timestep says: its angles unwrapped
 * from the last pair (the smallest, below pi when K t omega_{d/2-2} < pi)
 * down, each the stored phase plus the 2 pi multiple nearest to the
 * geometric prediction theta_{i+1}^2 / theta_{i+2}; ln theta_i = ln(K t) +
 * i ln r fitted by least squares; the shift whose base r^-(d/2 - S) is
 * round (docs/sinusoidal.md "Timesteps"). */
typedef struct ts_fit {
    int ok, shift, cos_first;
    double base, scale, resid;
} ts_fit;

static size_t smallest_row(const ts_run *r)
{
    size_t best = r->n;
    for (size_t k = 0; k < r->n; k++)
        if (r->s->t[k] != 0.0 && (best == r->n || fabs(r->s->t[k]) < fabs(r->s->t[best])))
            best = k;
    return best;
}

/* the angles of ROW read with COS_FIRST into TH; 0 when they do not unwrap */
static int unwrap(const ts_run *r, size_t row, int cos_first, double *th)
{
    size_t h = (size_t)r->d / 2, d = (size_t)r->d;
    for (size_t i = 0; i < h; i++) {
        size_t a = r->t->layout ? i : 2 * i, c = r->t->layout ? i + h : 2 * i + 1;
        double sv = (double)r->rows[row * d + (cos_first ? c : a)];
        double cv = (double)r->rows[row * d + (cos_first ? a : c)];
        th[i] = atan2(sv, cv);
    }
    for (size_t i = h - 2; i-- > 0;) {
        if (th[i + 2] == 0.0) return 0;
        double pred = th[i + 1] * th[i + 1] / th[i + 2];
        th[i] += 2.0 * M_PI * round((pred - th[i]) / (2.0 * M_PI));
    }
    return 1;
}

static void fit_line(const double *th, size_t h, double *slope, double *icpt, double *resid)
{
    double sx = 0, sy = 0, sxx = 0, sxy = 0, n = (double)h;
    for (size_t i = 0; i < h; i++) {
        double x = (double)i, y = log(fabs(th[i]));
        sx += x; sy += y; sxx += x * x; sxy += x * y;
    }
    *slope = (n * sxy - sx * sy) / (n * sxx - sx * sx);
    *icpt = (sy - *slope * sx) / n;
    *resid = 0;
    for (size_t i = 0; i < h; i++)
        *resid = fmax(*resid, fabs(log(fabs(th[i])) - *icpt - *slope * (double)i));
}

static double round3(double b)
{
    double p = pow(10.0, floor(log10(b)) - 2.0);
    return round(b / p) * p;
}

static void fit_rows(const ts_run *r, ts_fit *f)
{
    size_t h = (size_t)r->d / 2, row = smallest_row(r);
    memset(f, 0, sizeof *f);
    double *th = malloc(h * sizeof *th);
    if (!th || row == r->n || h < 4) { free(th); return; }
    f->resid = (double)INFINITY;
    for (int cf = 0; cf <= 1; cf++) {
        double slope, icpt, resid;
        if (!unwrap(r, row, cf, th)) continue;
        fit_line(th, h, &slope, &icpt, &resid);
        if (!(resid < f->resid) || th[0] * r->s->t[row] <= 0) continue;
        f->resid = resid;
        f->cos_first = cf;
        f->scale = exp(icpt) / fabs(r->s->t[row]);
        double best = (double)INFINITY;
        for (int sh = 0; sh <= 1; sh++) {
            double b = exp(-slope * (double)((int)h - sh)), dist = fabs(round3(b) / b - 1.0);
            if (dist < best) { best = dist; f->shift = sh; f->base = round3(b); }
        }
        f->ok = resid < 1e-3 && best < 1e-3;
    }
    free(th);
}

/* The timesteps rounded to a half-precision type before the embedding
 * (diffusers' `timesteps.half()`, a model cast to float16 or bfloat16):
 * the rows checked against the embedding of the rounded timesteps, every
 * value and pair within its bound; the cause, into BUF. */
static int rounded_timesteps(const ts_run *r, char *buf, size_t len)
{
    static const int types[2] = { PC_DT_F16, PC_DT_BF16 };
    double *t = malloc(r->n * sizeof *t);
    int found = 0;
    for (int k = 0; t && k < 2 && !found; k++) {
        int changed = 0;
        for (size_t row = 0; row < r->n; row++) {
            float v = (float)r->s->t[row];
            t[row] = types[k] == PC_DT_F16 ? (double)pc_f16_value(pc_f16_of(v))
                                           : (double)pc_bf16_value(pc_bf16_of(v));
            changed |= t[row] != r->s->t[row];
        }
        pc_sin_spec s2 = *r->s;
        s2.t = t;
        ts_run r2 = *r;
        r2.s = &s2;
        ts_worst w;
        pc_err err;
        found = changed && pc_sin_ts_compare(&r2, &w, &err) == PC_OK && w.over == 0
                && w.norm.over == 0;
        if (found)
            snprintf(buf, len, "the timesteps are rounded to %s before the embedding (as "
                     "timesteps.%s() or a model cast to %s does): every row matches the embedding "
                     "of its timestep rounded to %s", pc_dtype_name(types[k]),
                     types[k] == PC_DT_F16 ? "half" : "bfloat16", types[k] == PC_DT_F16
                     ? "float16" : "bfloat16", pc_dtype_name(types[k]));
    }
    free(t);
    return found;
}

/* The likely cause of a failed timestep gate into BUF: timesteps held in
 * half precision, else the formula the rows fit and what differs from the
 * check's. */
void pc_sin_ts_cause(const ts_run *r, double base, char *buf, size_t len)
{
    ts_fit f;
    buf[0] = '\0';
    if (rounded_timesteps(r, buf, len)) return;
    fit_rows(r, &f);
    if (!f.ok) return;
    double k = round3(f.scale);
    char diff[300] = "";
    size_t u = 0;
    if (f.shift != r->s->sched.shift)
        u += (size_t)snprintf(diff + u, sizeof diff - u, "%sdownscale_freq_shift %d, not %d",
                              u ? "; " : "", f.shift, r->s->sched.shift);
    if (f.base != base && u < sizeof diff)
        u += (size_t)snprintf(diff + u, sizeof diff - u, "%smax period %.9g, not %.9g",
                              u ? "; " : "", f.base, base);
    if (f.cos_first && u < sizeof diff)
        u += (size_t)snprintf(diff + u, sizeof diff - u, "%sthe halves the other way (flip_sin_to_cos)",
                              u ? "; " : "");
    if (fabs(k / r->s->angle_scale - 1.0) > 1e-6 && u < sizeof diff)
        snprintf(diff + u, sizeof diff - u, "%sangle scale %.9g, not %.9g", u ? "; " : "", k,
                 r->s->angle_scale);
    int table_cf = (f.cos_first != 0) != (r->s->cos_first != 0); /* as read, undone */
    char scale[60] = "";
    if (k != 1.0) snprintf(scale, sizeof scale, " --angle-scale %.9g", k);
    if (diff[0])
        snprintf(buf, len, "the rows match omega_i = %.9g^(-i/(d/2%s)), %s first, angle scale "
                 "%.9g (%s): pass --freq-shift %d --order %s --base %.9g%s", f.base,
                 f.shift ? " - 1" : "", table_cf ? "cos" : "sin", k, diff, f.shift,
                 table_cf ? "cos-sin" : "sin-cos", f.base, scale);
}

/* The long-context note (as the accuracy gate's, accuracy.c print_reach)
 * into BUF, "" when every pair's bound constrains its angle. */
static void ts_reach_note(const ts_run *r, const ts_norm *z, char *buf, size_t len)
{
    buf[0] = '\0';
    if (z->vac_row == r->n) return;
    snprintf(buf, len, "long context: from timestep %.9g (row %zu) the bound of pair %d exceeds %g "
             "of the pair's norm; at the largest |timestep| it no longer constrains %d of the %d "
             "pairs' angles: there the gate checks only their norm (sin^2 + cos^2 = 1 within "
             "%.3g)", r->s->t[z->vac_row], z->vac_row, z->vac_pair,
             PC_MODEL_VACUOUS, z->vac_pairs, r->d / 2, z->bound);
}

/* V's details and data: the long-context note (null when not reached), as
 * the accuracy gate's "long_context" (accuracy.c reach_json). */
static void ts_reach_out(pc_verdict *v, const ts_run *r, const ts_norm *z)
{
    char note[600];
    ts_reach_note(r, z, note, sizeof note);
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return;
    pc_json j;
    pc_json_init(&j, f);
    pc_json_obj(&j, NULL);
    if (!note[0]) pc_json_str(&j, "long_context", NULL);
    else {
        pc_json_obj(&j, "long_context");
        pc_json_num(&j, "vacuous_share", PC_MODEL_VACUOUS);
        pc_json_num(&j, "bound_vacuous_from_timestep", r->s->t[z->vac_row]);
        pc_json_int(&j, "bound_vacuous_row", (int64_t)z->vac_row);
        pc_json_int(&j, "bound_vacuous_pair", z->vac_pair);
        pc_json_int(&j, "pairs_unconstrained_at_end", z->vac_pairs);
        pc_json_num(&j, "norm_bound", z->bound);
        pc_json_bool(&j, "reached", 1);
        pc_json_end(&j);
    }
    pc_json_int(&j, "pairs_off_unit_circle", (int64_t)z->over);
    pc_json_end(&j);
    if (fclose(f) != 0) { free(buf); return; }
    free(v->json);
    v->json = buf;
    if (note[0]) {
        free(v->details);
        v->details = strdup(note);
    }
}

/* The pairs off the unit circle, into BUF ("" when none). */
static void ts_norm_text(const ts_run *r, const ts_norm *z, char *buf, size_t len)
{
    buf[0] = '\0';
    if (!z->over) return;
    snprintf(buf, len, "%zu pair%s off the unit circle: row %zu (timestep %.9g) pair %d has "
             "| |(sin, cos)| - 1 | = %.3g > %.3g, a bound that holds at any angle", z->over,
             z->over == 1 ? "" : "s", z->row, r->s->t[z->row], z->pair, z->err, z->bound);
}

static void fill(pc_verdict *v, const ts_run *r, const ts_worst *w)
{
    const ts_norm *z = &w->norm;
    char normtxt[300], reach[160] = "";
    ts_norm_text(r, z, normtxt, sizeof normtxt);
    if (z->vac_row < r->n)
        snprintf(reach, sizeof reach, "; long context: the bound no longer constrains %d of the "
                 "%d pairs' angles at the largest |timestep| (their norm is checked)", z->vac_pairs,
                 r->d / 2);
    ts_reach_out(v, r, z);
    v->status = w->over || z->over ? PC_FAIL : PC_OK;
    v->measured = w->err;
    v->bound = w->bound;
    snprintf(v->measured_what, sizeof v->measured_what, "|err| of the worst element (by "
             "err/bound)");
    char what[200];
    snprintf(what, sizeof what, "%zu values, %zu timesteps %.9g..%.9g%s, d=%d", w->count, r->n,
             r->s->t[0], r->s->t[r->n - 1], r->s->angle_scale != 1.0 ? " (scaled)" : "", r->d);
    if (!w->over && !z->over)
        snprintf(v->summary, sizeof v->summary, "%s: max |err|/bound %.3g (row %zu, timestep "
                 "%.9g, dim %d)%s", what, w->ratio, w->row, r->s->t[w->row], w->col, reach);
    else if (!w->over) {
        v->measured = z->err;
        v->bound = z->bound;
        snprintf(v->measured_what, sizeof v->measured_what, "| |(sin, cos)| - 1 | of the worst pair");
        snprintf(v->summary, sizeof v->summary, "%s; every value within its element bound "
                 "(max |err|/bound %.3g)%s", normtxt, w->ratio, reach);
    } else
    {
        char cause[600];
        pc_sin_ts_cause(r, r->base, cause, sizeof cause);
        snprintf(v->summary, sizeof v->summary, "%zu of %zu values exceed the bound; "
                 "worst at row %zu (timestep %.9g) dim %d: got %a (%.9g), exact %a (%.9g), "
                 "|err| %.3g > bound %.3g%s%s%s%s", w->over, w->count, w->row, r->s->t[w->row],
                 w->col, (double)w->got, (double)w->got, w->exact, w->exact, w->err, w->bound,
                 normtxt[0] ? "; " : "", normtxt, cause[0] ? "; likely cause: " : "", cause);
    }
}

static void run_free(ts_run *r)
{
    free(r->omega);
    free(r->kappa);
    free(r->rows);
}

pc_status pc_sin_timestep_gate(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    double t0 = pc_now();
    ts_run r;
    memset(&r, 0, sizeof r);
    r.s = pc_sin_spec_of(g->spec);
    r.t = pc_table_info_of(impl);
    r.n = r.t ? (size_t)(r.t->pos_hi - r.t->pos_lo + 1) : 0;
    if (r.t && r.n != r.s->n_t)
        return pc_seterr(g->err, PC_EINPUT, "--timesteps %s has %zu timesteps but %s has %zu "
                         "rows: one timestep a row", r.s->timesteps_path, r.s->n_t, r.t->path,
                         r.n);
    pc_verdict *v = pc_gate_verdict(g, impl, fam->name, "accuracy",
                                    r.t ? pc_layout_name(r.t->layout) : NULL);
    if (!v) return pc_gate_oom(g);
    if (!r.t) {
        v->status = PC_SKIP;
        snprintf(v->summary, sizeof v->summary, "skipped: --timesteps name the rows of a table "
                 "(--table), not of a built-in or plugin");
        return PC_OK;
    }
    r.d = r.t->d;
    r.base = g->spec->base;
    r.sched = pc_sin_schedule(&r.s->sched, r.base);
    ts_worst w;
    pc_status st = read_rows(impl, &r, g->err);
    if (st == PC_OK) st = pc_sin_ts_frequencies(&r, g->err);
    if (st == PC_OK) st = pc_sin_ts_compare(&r, &w, g->err);
    if (st == PC_OK) fill(v, &r, &w);
    run_free(&r);
    v->seconds = pc_now() - t0;
    return st;
}

/* ---- identify ----------------------------------------------------------- */

/* The rows as read swapped into sin first (the fit found them cos first). */
static void swap_rows(ts_run *r)
{
    size_t h = (size_t)r->d / 2, d = (size_t)r->d;
    for (size_t row = 0; row < r->n; row++)
        for (size_t i = 0; i < h; i++) {
            float *p = r->rows + row * d;
            size_t a = r->t->layout ? i : 2 * i, c = r->t->layout ? i + h : 2 * i + 1;
            float x = p[a];
            p[a] = p[c];
            p[c] = x;
        }
}

/* F from the fit FIT of R and the check of every value under it. */
static pc_status identify_fit(ts_run *r, const ts_fit *fit, pc_sin_found *f, pc_err *err)
{
    pc_sin_spec s2 = *r->s;
    s2.sched.shift = fit->shift;
    s2.angle_scale = round3(fit->scale);
    f->shift = fit->shift;
    f->min_ts = pc_sin_min_timescale(&s2.sched);
    f->base = f->base_raw = fit->base;
    f->scale = s2.angle_scale;
    f->cos_first = fit->cos_first;
    if (fit->cos_first) swap_rows(r);
    r->s = &s2;
    r->base = fit->base;
    r->sched = pc_sin_schedule(&s2.sched, fit->base);
    ts_worst w;
    pc_status st = pc_sin_ts_frequencies(r, err);
    if (st == PC_OK) st = pc_sin_ts_compare(r, &w, err);
    if (st == PC_OK) {
        f->worst = w.ratio;
        f->worst_pair = w.col;
        f->worst_pos = (int64_t)w.row;
        f->found = w.over == 0;
    }
    return st;
}

pc_status pc_sin_timestep_identify(const pc_impl *impl, const pc_spec *spec, pc_sin_found *f,
                                   pc_err *err)
{
    ts_run r;
    memset(&r, 0, sizeof r);
    memset(f, 0, sizeof *f);
    r.s = pc_sin_spec_of(spec);
    r.t = pc_table_info_of(impl);
    if (!r.t || !r.s || !r.s->t)
        return pc_seterr(err, PC_EINPUT, "%s: --timesteps name the rows of a table (--table)",
                         impl->name);
    r.n = (size_t)(r.t->pos_hi - r.t->pos_lo + 1);
    r.d = r.t->d;
    if (r.n != r.s->n_t)
        return pc_seterr(err, PC_EINPUT, "--timesteps %s has %zu timesteps but %s has %zu "
                         "rows: one timestep a row", r.s->timesteps_path, r.s->n_t, r.t->path,
                         r.n);
    f->impl = impl;
    f->d = r.d;
    f->layout = f->read_layout = r.t->layout;
    f->lo = f->first = r.t->pos_lo;
    f->hi = r.t->pos_hi;
    f->n = r.n;
    f->dtype = r.t->dtype;
    f->swapped = r.t->pair_swapped;
    f->timesteps = r.s->timesteps_path;
    ts_fit fit;
    pc_status st = read_rows(impl, &r, err);
    if (st == PC_OK) {
        fit_rows(&r, &fit);
        size_t row = smallest_row(&r);
        double t_min = row < r.n ? fabs(r.s->t[row]) : 0.0;
        /* past 2^24 a binary32 angle t omega of the first pair (omega 1 in
         * every released formula) is good to a radian or worse: the row's
         * phases say nothing of the frequencies */
        if (!fit.ok && t_min >= 0x1p24)
            st = pc_seterr(err, PC_EINPUT, "%s: its smallest nonzero timestep is %.6g: a binary32 "
                           "angle t omega is then good to t 2^-24 >= 1 rad, so the frequencies "
                           "cannot be identified from these rows (identify a table with a row of a "
                           "small timestep, or check these rows with --timesteps and the "
                           "formula's options: --preset, or --base and --freq-shift)",
                           impl->name, t_min);
        else if (!fit.ok)
            st = pc_seterr(err, PC_EINPUT, "%s: its row of the smallest timestep does not fit "
                           "omega_i = r^i (no sinusoidal timestep formula found)", impl->name);
    }
    if (st == PC_OK) st = identify_fit(&r, &fit, f, err);
    if (st == PC_OK)
        pc_sin_presets_of(f->shift, f->layout, pc_sin_found_cos_first(f), f->presets,
                          sizeof f->presets);
    run_free(&r);
    return st;
}

/* report_curves.c: the data of the report's plots 4 to 10, each drawn
 * from a reference of its own beside the implementations' values: RoPE's
 * long-term decay and shift invariance, the sinusoidal dot product and PE
 * matrix, attention's permutation equivariance, T5's buckets and ALiBi's
 * biases (report_data.c holds the summary and the error scan of plots
 * 1 to 3, and calls these). */
#include <errno.h>
#include <ctype.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness/engine/accuracy.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/engine/model.h"
#include "report.h"
#include "harness/sources/table.h"
#include "harness/base/rng.h"
#include "families/family.h"
#include "reference/reference.h"
#include "reference/relative.h"

/* ---- the schedule a verdict checked against --------------------------- */

/* The frequencies RI's verdicts were checked against: its spec's schedule
 * (a config's llama3, YaRN, ...), else the geometric schedule of its base
 * (a table's fitted one, or the report's): a plot drawn against another
 * reference would contradict the verdicts beside it. */
static pc_schedule impl_schedule(const pc_rep_impl *ri)
{
    return ri->cfg.sched ? *ri->cfg.sched : pc_schedule_geometric(ri->cfg.base);
}

/* "schedule llama3, base 500000" of RI's schedule note (to its rotary dim),
 * or "base B": a plot title's words for the reference. */
static void impl_schedule_words(const pc_rep_impl *ri, char *buf, size_t len)
{
    const char *n = ri->cfg.sched_note;
    const char *end = n ? strstr(n, ", rotary dim") : NULL;
    if (!end && n) end = strstr(n, " (");
    if (n && end) snprintf(buf, len, "%.*s", (int)(end - n), n);
    else snprintf(buf, len, "base %.9g", ri->cfg.base);
}

/* Whether A and B were checked against the same frequencies. */
static int same_schedule(const pc_rep_impl *a, const pc_rep_impl *b)
{
    if (!a->cfg.sched_note != !b->cfg.sched_note) return 0;
    if (a->cfg.sched_note) return !strcmp(a->cfg.sched_note, b->cfg.sched_note);
    return a->cfg.base == b->cfg.base;
}

/* A gnuplot string assignment NAME = "TEXT" (quotes and backslashes dropped). */
static void put_string_var(char *buf, size_t len, const char *name, const char *text)
{
    size_t u = strlen(buf);
    int w = snprintf(buf + u, len - u, "%s = \"", name);
    if (w < 0 || (size_t)w >= len - u) return;
    u += (size_t)w;
    for (const char *c = text; *c && u + 3 < len; c++)
        if (*c != '"' && *c != '\\') buf[u++] = *c;
    buf[u] = '\0';
    snprintf(buf + u, len - u, "\"\n");
}

/* ---- plot 4: RoPE long-term decay (RoFormer section 3.4.3) ------------
 * bound(r) = (1/(d/2)) sum_{j=1..d/2} |S_j|,  S_j = sum_{k<j} e^{i r theta_k}:
 * the relative upper bound of |q^T R_r k| by Abel summation. */

#define DECAY_LINEAR 256     /* every r in 1..256 (the RoFormer figure's range) */
#define DECAY_MAX 65536      /* then 16 samples per doubling up to 2^16 */

static double decay_bound(const double *c, const double *s, int h)
{
    double re = 0, im = 0, sum = 0;
    for (int j = 0; j < h; j++) {   /* |S_{j+1}| after adding term j */
        re += c[j];
        im += s[j];
        sum += hypot(re, im);
    }
    return sum / h;
}

static int decay_rs(int64_t *rs)
{
    int n = 0;
    for (int64_t v = 1; v <= DECAY_LINEAR; v++) rs[n++] = v;
    for (int k = 1; ; k++) {
        double v = nearbyint(DECAY_LINEAR * exp2(k / 16.0));
        if (v > DECAY_MAX) break;
        if ((int64_t)v > rs[n - 1]) rs[n++] = (int64_t)v;
    }
    return n;
}

/* The bound the decay property holds an implementation's curve to at R
 * (families/rope/decay.c): the mean over j of the summed element bounds
 * sqrt(2) B(r theta_k) of the pairs k < j, plus the binary64 sums. */
static double decay_dev_bound(const pc_report *r, const double *th, int h, int64_t rr, double A)
{
    double acc = 0, eb = 0;
    for (int k = 0; k < h; k++) {
        acc += sqrt(2.0) * pc_model_bound(r->C, r->u, (double)rr * th[k], A, -1.0) + 0x1p-52;
        eb += acc;
    }
    return eb / h + (double)h * (double)h * 0x1p-52;
}

/* rope_decay.dat: the exact bound for d = 64, 128, 256 at the paper's base
 * and Llama 3's, at the NR distances RS (C, S: room for 128 pairs). */
static pc_status decay_exact(pc_report *r, const int64_t *rs, int nr, double *c, double *s,
                             pc_err *err)
{
    static const int ds[3] = { 64, 128, 256 };
    static const double bases[2] = { 1e4, 5e5 }; /* the paper's base; Llama 3's 5e5 */
    pc_status st;
    FILE *f = pc_report_fopen(r, "rope_decay.dat", err, &st);
    if (!f) return st;
    fprintf(f, "r");
    for (int b = 0; b < 2; b++)
        for (int k = 0; k < 3; k++) fprintf(f, " d%d_base%g", ds[k], bases[b]);
    fputc('\n', f);
    for (int q = 0; q < nr; q++) {
        fprintf(f, "%lld", (long long)rs[q]);
        for (int b = 0; b < 2; b++)
            for (int k = 0; k < 3; k++) {
                int h = ds[k] / 2;
                /* binary64: theta_k = base^(-2k/d) and r theta_k to ~1e-16
                 * relative, far below what the plot resolves */
                for (int i = 0; i < h; i++) {
                    double a = (double)rs[q] * pow(bases[b], -2.0 * i / ds[k]);
                    c[i] = cos(a);
                    s[i] = sin(a);
                }
                pc_report_put_num(f, decay_bound(c, s, h));
            }
        fputc('\n', f);
    }
    st = pc_report_fclose(r, f, "rope_decay.dat", err);
    pc_report_add_data(&r->plots[3], "rope_decay.dat", nr);
    return st;
}

/* The RoPE implementations plot 4's right panel draws, into SEL: those
 * checked against the first one's schedule; the others' names into
 * LEFT_OUT.  Their count. */
static int decay_select(const pc_report *r, int *sel, char *left_out, size_t len)
{
    int n_sel = 0;
    left_out[0] = '\0';
    for (int k = 0; k < r->n_impls; k++) {
        if (!pc_report_draws(&r->impls[k], "rope_decay") || r->impls[k].layout < 0) continue;
        if (n_sel > 0 && !same_schedule(&r->impls[sel[0]], &r->impls[k])) {
            size_t u = strlen(left_out);
            snprintf(left_out + u, len - u, "%s%s", u ? ", " : "", r->impls[k].impl->name);
            continue;
        }
        sel[n_sel++] = k;
    }
    return n_sel;
}

/* The bound of RI's rotation of the unit vector (1, 0) of each pair at
 * distance R (X, OUT: d floats; C, S: d/2 doubles); NaN when the call fails. */
static double decay_impl(const pc_report *r, const pc_rep_impl *ri, int64_t rr, float *x,
                         float *out, double *c, double *s)
{
    int h = r->d / 2, L = ri->layout;
    memset(x, 0, (size_t)r->d * sizeof *x);
    for (int i = 0; i < h; i++) x[L == 0 ? 2 * i : i] = 1.0f;
    pc_fault fault;
    int rc = pc_call_rope(ri->impl, &fault, &rr, 1, r->d, ri->cfg.base, L, x, out);
    if (fault.faulted || rc != 0) return (double)NAN;
    for (int i = 0; i < h; i++) {
        c[i] = (double)out[L == 0 ? 2 * i : i];
        s[i] = (double)out[L == 0 ? 2 * i + 1 : i + h];
    }
    return decay_bound(c, s, h);
}

/* Plot 4's variables and note. */
static void decay_vars(pc_report *r, const int *sel, int n_sel, const char *words, int mapped,
                       const char *left_out)
{
    pc_rep_plot *pl = &r->plots[3];
    snprintf(pl->vars, sizeof pl->vars, "d = %d\nbase = %.17g\nn_impl = %d\n", r->d,
             n_sel ? r->impls[sel[0]].cfg.base : r->base, n_sel);
    put_string_var(pl->vars, sizeof pl->vars, "sched", words);
    put_string_var(pl->vars, sizeof pl->vars, "no_curve", mapped
                   ? "positions of several axes (--position-ids): no distance r to draw over"
                   : "no RoPE implementation selected");
    if (mapped)
        snprintf(pl->note, sizeof pl->note, "The RoPE source's positions have several axes "
                 "(--position-ids): its decay over a distance r is not drawn.");
    else if (n_sel == 0)
        snprintf(pl->note, sizeof pl->note, "No RoPE implementation was selected: the right "
                 "panel shows the reference only.");
    else if (left_out[0])
        snprintf(pl->note, sizeof pl->note, "The right panel is drawn against %s, the schedule "
                 "of its first implementation; left out, checked against another: %s.", words,
                 left_out);
}

pc_status pc_report_plot_decay(pc_report *r, pc_err *err)
{
    int64_t rs[512];
    int nr = decay_rs(rs);
    int hmax = (r->d > 256 ? r->d : 256) / 2;
    double *c = malloc((size_t)hmax * sizeof *c), *s = malloc((size_t)hmax * sizeof *s);
    double *th = malloc((size_t)hmax * sizeof *th);
    float *x = malloc((size_t)r->d * sizeof *x), *out = malloc((size_t)r->d * sizeof *out);
    if (!c || !s || !th || !x || !out) {
        free(c); free(s); free(th); free(x); free(out);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    pc_status st = decay_exact(r, rs, nr, c, s, err);
    /* implementations against the schedule their verdicts were checked
     * against (the first one's; one of another schedule is left out, named
     * in the note): e^{i r theta_k} is what the implementation makes of the
     * unit vector (1, 0) of each pair, A e^{i r theta_k} under an attention
     * factor A */
    int sel[PC_MAX_IMPLS];
    char left_out[400], words[200];
    int n_sel = decay_select(r, sel, left_out, sizeof left_out), h = r->d / 2;
    if (n_sel) impl_schedule_words(&r->impls[sel[0]], words, sizeof words);
    else snprintf(words, sizeof words, "base %.9g", r->base);
    pc_freqs *fr = st == PC_OK ? pc_freqs_new(r->d, n_sel ? impl_schedule(&r->impls[sel[0]])
                                                          : pc_schedule_geometric(r->base)) : NULL;
    if (st == PC_OK && !fr) st = pc_seterr(err, PC_ENOMEM, "out of memory");
    int mapped = fr && pc_freqs_mapped(fr); /* positions of several axes: no curve over r */
    if (mapped) n_sel = 0;
    double A = fr ? pc_freqs_attention(fr) : 1.0;
    FILE *f;
    if (st == PC_OK && (f = pc_report_fopen(r, "rope_decay_impl.dat", err, &st)) != NULL) {
        fprintf(f, "r reference bound");
        pc_report_header_impls(f, r, sel, n_sel, "");
        fputc('\n', f);
        for (int i = 0; i < h; i++) th[i] = pc_freqs_omega(fr, i);
        for (int q = 0; q < nr; q++) {
            fprintf(f, "%lld", (long long)rs[q]);
            for (int i = 0; i < h; i++) {
                c[i] = A * cos((double)rs[q] * th[i]);
                s[i] = A * sin((double)rs[q] * th[i]);
            }
            pc_report_put_num(f, decay_bound(c, s, h));
            pc_report_put_num(f, decay_dev_bound(r, th, h, rs[q], A));
            for (int k = 0; k < n_sel; k++)
                pc_report_put_num(f, decay_impl(r, &r->impls[sel[k]], rs[q], x, out, c, s));
            fputc('\n', f);
        }
        st = pc_report_fclose(r, f, "rope_decay_impl.dat", err);
        pc_report_add_data(&r->plots[3], "rope_decay_impl.dat", nr);
    }
    if (st == PC_OK) decay_vars(r, sel, n_sel, words, mapped, left_out);
    pc_freqs_free(fr);
    free(c); free(s); free(th); free(x); free(out);
    return st;
}

/* ---- plot 5: sinusoidal PE(p).PE(q) against q - p ---------------------- */

#define DOT_K 256   /* q - p in [-256, 256] */
static const int64_t dot_anchor[3] = { 512, 4096, 32768 };

/* Plots 5 and 7 draw the paper's PE over positions: for a table whose
 * rows are not of positions (--timesteps, --grid) they would show another
 * encoding than the one its gate checked, so PL says why it is not drawn
 * and the plot has no data (1).  0: draw it. */
static int not_positions(const pc_report *r, pc_rep_plot *pl)
{
    const char *why = pc_report_rows_note(r, "sinusoidal");
    if (!why) return 0;
    snprintf(pl->note, sizeof pl->note, "%s: this plot shows the paper's encoding of "
             "consecutive positions, which those rows are not; the accuracy column holds the "
             "gate's verdict on every row, against the formula the gate used.", why);
    pl->note[0] = (char)toupper((unsigned char)pl->note[0]);
    return 1;
}

pc_status pc_report_plot_dot(pc_report *r, pc_err *err)
{
    pc_rep_plot *pl = &r->plots[4];
    if (not_positions(r, pl)) return PC_OK;
    int d = r->d, h = d / 2;
    /* reference frequencies omega_i = base^(-2i/d); the mismatched cos
     * frequency base^(-(2i+1)/d) is frequency 2i+1 of a table of width 2d */
    pc_freqs *fr = pc_freqs_new(d, pc_schedule_geometric(r->base));
    pc_freqs *f2 = d * 2 <= PC_D_MAX ? pc_freqs_new(2 * d, pc_schedule_geometric(r->base)) : NULL;
    double *as = malloc(3 * (size_t)h * sizeof *as), *ac = malloc(3 * (size_t)h * sizeof *ac);
    double *am = malloc(3 * (size_t)h * sizeof *am);
    if (!fr || !as || !ac || !am) {
        pc_freqs_free(fr); pc_freqs_free(f2); free(as); free(ac); free(am);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    pc_status st = PC_OK;
    pc_ref2 s, c;
    /* anchors: sin, cos and mismatched cos of each pair */
    for (int a = 0; a < 3 && st == PC_OK; a++)
        for (int i = 0; i < h && st == PC_OK; i++) {
            st = pc_ref_sincos(fr, dot_anchor[a], i, &s, &c);
            as[a * h + i] = s.f64;
            ac[a * h + i] = c.f64;
            if (st == PC_OK && f2) st = pc_ref_sincos(f2, dot_anchor[a], 2 * i + 1, &s, &c);
            am[a * h + i] = f2 ? c.f64 : (double)NAN;
        }
    FILE *f = NULL;
    if (st == PC_OK && (f = pc_report_fopen(r, "dot_product.dat", err, &st)) != NULL) {
        fprintf(f, "k");
        static const char *const kind[3] = { "reference", "sin_only", "mismatched" };
        for (int v = 0; v < 3; v++)
            for (int a = 0; a < 3; a++) fprintf(f, " %s_p%lld", kind[v], (long long)dot_anchor[a]);
        fputc('\n', f);
        for (int k = -DOT_K; k <= DOT_K && st == PC_OK; k++) {
            double dot[3][3] = { { 0 } };
            for (int a = 0; a < 3 && st == PC_OK; a++) {
                int64_t q = dot_anchor[a] + k;
                for (int i = 0; i < h && st == PC_OK; i++) {
                    pc_ref2 s2, c2;
                    st = pc_ref_sincos(fr, q, i, &s, &c);
                    double mc = (double)NAN;
                    if (st == PC_OK && f2) {
                        st = pc_ref_sincos(f2, q, 2 * i + 1, &s2, &c2);
                        mc = c2.f64;
                    }
                    dot[0][a] += as[a * h + i] * s.f64 + ac[a * h + i] * c.f64;
                    dot[1][a] += 2.0 * as[a * h + i] * s.f64;  /* sin in both members */
                    dot[2][a] += as[a * h + i] * s.f64 + am[a * h + i] * mc;
                }
            }
            fprintf(f, "%d", k);
            for (int v = 0; v < 3; v++)
                for (int a = 0; a < 3; a++) pc_report_put_num(f, dot[v][a]);
            fputc('\n', f);
        }
        if (st != PC_OK) {
            fclose(f);
            return pc_seterr(err, PC_EINTERNAL, "reference failed in the dot-product plot");
        }
        st = pc_report_fclose(r, f, "dot_product.dat", err);
        pc_report_add_data(pl, "dot_product.dat", 2 * DOT_K + 1);
        snprintf(pl->vars, sizeof pl->vars, "d = %d\nbase = %.17g\np1 = %lld\np2 = %lld\np3 = %lld\n",
                 d, r->base, (long long)dot_anchor[0], (long long)dot_anchor[1],
                 (long long)dot_anchor[2]);
    }
    pc_freqs_free(fr); pc_freqs_free(f2); free(as); free(ac); free(am);
    return st;
}

/* ---- plot 6: RoPE shift invariance against the absolute offset --------
 * <R_{m+delta} q, R_m k> = <R_delta q, k> for every m (exact); the error of
 * an implementation's score at offset m, relative to |q| |k|. */

#define SHIFT_TRIALS 8        /* (q, k, delta) triples; the max is plotted */
#define SHIFT_MAX_LOG2 20     /* offsets up to 2^20, 4 per doubling */

/* The exact scores <R_delta q, k> of RI's trials under the schedule its
 * verdicts were checked against, times its attention factor squared (both
 * rotations carry A), into EXACT[0..SHIFT_TRIALS). */
static pc_status shift_exact(const pc_rep_impl *ri, int d, const float *q, const float *kk,
                             const int64_t *delta, double *rq, double *exact, pc_err *err)
{
    size_t D = (size_t)d;
    pc_freqs *fr = pc_freqs_new(d, impl_schedule(ri));
    if (!fr) return pc_seterr(err, PC_ENOMEM, "out of memory");
    double A = pc_freqs_attention(fr);
    pc_status st = PC_OK;
    for (int t = 0; t < SHIFT_TRIALS && st == PC_OK; t++) {
        if (pc_ref_rope_row(fr, delta[t], ri->layout, q + (size_t)t * D, NULL, rq) != PC_OK)
            st = pc_seterr(err, PC_EINTERNAL, "reference failed in the shift-invariance plot");
        double dot = 0;
        for (size_t j = 0; j < D; j++) dot += rq[j] * (double)kk[(size_t)t * D + j];
        exact[t] = A * dot; /* RQ holds A R_delta q */
    }
    pc_freqs_free(fr);
    return st;
}

/* RI's worst relative score error over the trials at offset M; NaN when a
 * call fails. */
static double shift_worst(const pc_rep_impl *ri, int d, int64_t m, const float *q, const float *kk,
                          const int64_t *delta, const double *exact, const double *nrm, float *gq,
                          float *gk)
{
    size_t D = (size_t)d;
    double worst = 0;
    for (int t = 0; t < SHIFT_TRIALS; t++) {
        int64_t pq = m + delta[t], pk = m;
        pc_fault fq, fk;
        int ok = pc_call_rope(ri->impl, &fq, &pq, 1, d, ri->cfg.base, ri->layout,
                              q + (size_t)t * D, gq) == 0 && !fq.faulted
              && pc_call_rope(ri->impl, &fk, &pk, 1, d, ri->cfg.base, ri->layout,
                              kk + (size_t)t * D, gk) == 0 && !fk.faulted;
        if (!ok) return (double)NAN;
        double dot = 0;
        for (size_t j = 0; j < D; j++) dot += (double)gq[j] * (double)gk[j];
        double e = fabs(dot - exact[t]) / nrm[t];
        if (!(e <= worst)) worst = e; /* NaN sticks */
    }
    return worst;
}

/* Whether RI's schedule maps rows to positions (--position-ids): the
 * plot's offsets m are then rows, not positions. */
static int shift_mapped(const pc_rep_impl *ri, int d)
{
    pc_freqs *fr = pc_freqs_new(d, impl_schedule(ri));
    int mapped = fr && pc_freqs_mapped(fr);
    pc_freqs_free(fr);
    return mapped;
}

pc_status pc_report_plot_shift(pc_report *r, pc_err *err)
{
    const pc_opts *o = &r->o;
    pc_rep_plot *pl = &r->plots[5];
    int sel[PC_MAX_IMPLS], n_sel = 0;
    for (int k = 0; k < r->n_impls; k++)
        if (pc_report_draws(&r->impls[k], "rope_shift") && r->impls[k].layout >= 0) sel[n_sel++] = k;
    if (n_sel == 0) {
        snprintf(pl->note, sizeof pl->note, "No RoPE implementation was selected: nothing to draw.");
        return PC_OK;
    }
    if (shift_mapped(&r->impls[sel[0]], r->d)) {
        snprintf(pl->note, sizeof pl->note, "The RoPE source's positions come from "
                 "--position-ids, so a row is not its offset: a score between rows m + delta and "
                 "m is not one at the distance delta (with several axes there is no single "
                 "distance). The rope-relative property checks the scores at the rows' own "
                 "positions.");
        return PC_OK;
    }
    int d = r->d;
    size_t D = (size_t)d;
    int64_t ms[4 * SHIFT_MAX_LOG2 + 2];
    int nm = 0;
    for (int k = 0; k <= 4 * SHIFT_MAX_LOG2; k++) {
        int64_t v = (int64_t)nearbyint(exp2(k / 4.0));
        if (nm == 0 || v > ms[nm - 1]) ms[nm++] = v;
    }
    float *q = malloc(SHIFT_TRIALS * D * sizeof *q), *kk = malloc(SHIFT_TRIALS * D * sizeof *kk);
    float *gq = malloc(D * sizeof *gq), *gk = malloc(D * sizeof *gk);
    double *rq = malloc(D * sizeof *rq);
    double *exact = malloc((size_t)n_sel * SHIFT_TRIALS * sizeof *exact);
    double *nrm = malloc(SHIFT_TRIALS * sizeof *nrm);
    int64_t delta[SHIFT_TRIALS];
    pc_status st = q && kk && gq && gk && rq && exact && nrm ? PC_OK
                 : pc_seterr(err, PC_ENOMEM, "out of memory");
    pc_rng rng;
    pc_rng_seed(&rng, o->seed ^ UINT64_C(0x5348494654)); /* "SHIFT": a stream of its own */
    for (int t = 0; t < SHIFT_TRIALS && st == PC_OK; t++) {
        delta[t] = 1 + (int64_t)pc_rng_below(&rng, 255);  /* 1..255: short-range attention */
        pc_normal_row(o->seed, UINT64_C(0x71000000) + (uint64_t)t, d, q + (size_t)t * D);
        pc_normal_row(o->seed, UINT64_C(0x6b000000) + (uint64_t)t, d, kk + (size_t)t * D);
        double nq = 0, nk = 0;
        for (size_t j = 0; j < D; j++) {
            nq += (double)q[(size_t)t * D + j] * (double)q[(size_t)t * D + j];
            nk += (double)kk[(size_t)t * D + j] * (double)kk[(size_t)t * D + j];
        }
        nrm[t] = sqrt(nq) * sqrt(nk);
    }
    /* each implementation against its own schedule (its verdicts'), and the
     * title names it when they share one */
    int shared = 1;
    for (int k = 0; k < n_sel && st == PC_OK; k++) {
        shared &= same_schedule(&r->impls[sel[0]], &r->impls[sel[k]]);
        st = shift_exact(&r->impls[sel[k]], d, q, kk, delta, rq, exact + (size_t)k * SHIFT_TRIALS, err);
    }
    FILE *f = NULL;
    if (st == PC_OK && (f = pc_report_fopen(r, "rope_shift.dat", err, &st)) != NULL) {
        fprintf(f, "offset");
        pc_report_header_impls(f, r, sel, n_sel, "");
        fputc('\n', f);
        for (int a = 0; a < nm; a++) {
            fprintf(f, "%lld", (long long)ms[a]);
            for (int k = 0; k < n_sel; k++)
                pc_report_put_num(f, shift_worst(&r->impls[sel[k]], d, ms[a], q, kk, delta,
                                                 exact + (size_t)k * SHIFT_TRIALS, nrm, gq, gk));
            fputc('\n', f);
        }
        st = pc_report_fclose(r, f, "rope_shift.dat", err);
        pc_report_add_data(pl, "rope_shift.dat", nm);
        char words[200];
        if (shared) impl_schedule_words(&r->impls[sel[0]], words, sizeof words);
        else snprintf(words, sizeof words, "each against its own schedule");
        snprintf(pl->vars, sizeof pl->vars, "d = %d\nbase = %.17g\n", d, r->impls[sel[0]].cfg.base);
        put_string_var(pl->vars, sizeof pl->vars, "sched", words);
    }
    free(q); free(kk); free(gq); free(gk); free(rq); free(exact); free(nrm);
    return st;
}

/* ---- plot 7: the PE matrix and the wavelengths ------------------------- */

#define PE_D 512      /* the articles' figure: d_model = 512 ... */
#define PE_POS 50     /* ... positions 0..50 */

pc_status pc_report_plot_pe(pc_report *r, pc_err *err)
{
    pc_rep_plot *pl = &r->plots[6];
    if (not_positions(r, pl)) return PC_OK;
    double base = r->base;
    pc_freqs *fr = pc_freqs_new(PE_D, pc_schedule_geometric(base));
    double *row = malloc(PE_D * sizeof *row);
    if (!fr || !row) {
        pc_freqs_free(fr); free(row);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    pc_status st;
    FILE *f = pc_report_fopen(r, "pe_matrix.dat", err, &st);
    if (f) {
        /* the half layout (sin of every pair, then cos of every pair): the
         * interleaved one alternates sin and cos columns, which draws as a
         * moire barcode at 512 columns */
        fprintf(f, "pos column value\n");
        for (int64_t p = 0; p <= PE_POS && st == PC_OK; p++) {
            st = pc_ref_sinusoidal_row(fr, p, 1, NULL, row);
            for (int j = 0; j < PE_D && st == PC_OK; j++)
                fprintf(f, "%lld %d %.9g\n", (long long)p, j, row[j]);
        }
        if (st != PC_OK) {
            fclose(f);
            pc_freqs_free(fr); free(row);
            return pc_seterr(err, PC_EINTERNAL, "reference failed in the PE matrix plot");
        }
        st = pc_report_fclose(r, f, "pe_matrix.dat", err);
        pc_report_add_data(pl, "pe_matrix.dat", (PE_POS + 1) * PE_D);
    }
    if (st == PC_OK && (f = pc_report_fopen(r, "wavelength.dat", err, &st)) != NULL) {
        fprintf(f, "dim pair omega wavelength\n");
        for (int j = 0; j < PE_D; j++) {
            double w = pc_freqs_omega(fr, j / 2);
            fprintf(f, "%d %d %.17g %.17g\n", j, j / 2, w, 2.0 * M_PI / w);
        }
        st = pc_report_fclose(r, f, "wavelength.dat", err);
        pc_report_add_data(pl, "wavelength.dat", PE_D);
        snprintf(pl->vars, sizeof pl->vars, "d = %d\nbase = %.17g\nnpos = %d\n", PE_D, base, PE_POS);
    }
    pc_freqs_free(fr);
    free(row);
    return st;
}

/* ---- plot 8: attention permutation equivariance ----------------------- */

#define ATT_D_MAX 128   /* width for this plot: min(--d, 128) keeps it under 0.1 s */
#define ATT_TRIALS 4    /* random permutations per length; the max is plotted */
static const int att_n[] = { 2, 4, 8, 16, 32, 64, 128 };
#define ATT_NN ((int)(sizeof att_n / sizeof att_n[0]))

/* max |T(P X + E) - P T(X + E)| with E = PE (with_pe) or 0 */
static int equiv_err(const pc_impl *impl, size_t n, int d, const float *x, const float *pe,
                     const float *w, const size_t *perm, float *buf, double *out)
{
    size_t D = (size_t)d;
    float *a = buf, *b = buf + n * D, *ta = buf + 2 * n * D, *tb = buf + 3 * n * D;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < D; j++) {
            float e = pe ? pe[i * D + j] : 0.0f;
            a[i * D + j] = x[perm[i] * D + j] + e;   /* token perm[i] at position i */
            b[i * D + j] = x[i * D + j] + e;         /* token i at position i */
        }
    const float *wq = w, *wk = w + D * D, *wv = w + 2 * D * D;
    pc_fault fault;
    if (pc_call_attention(impl, &fault, n, d, a, wq, wk, wv, 0, ta) != 0 || fault.faulted) return 1;
    if (pc_call_attention(impl, &fault, n, d, b, wq, wk, wv, 0, tb) != 0 || fault.faulted) return 1;
    double m = 0;
    for (size_t i = 0; i < n; i++)
        for (size_t j = 0; j < D; j++) {
            double e = fabs((double)ta[i * D + j] - (double)tb[perm[i] * D + j]);
            if (!(e <= m)) m = e;
        }
    *out = m;
    return 0;
}

pc_status pc_report_plot_attention(pc_report *r, pc_err *err)
{
    const pc_opts *o = &r->o;
    pc_rep_plot *pl = &r->plots[7];
    const pc_impl *list[PC_MAX_IMPLS];
    int n_sel = 0;
    for (int k = 0; k < r->n_impls; k++)
        if (pc_report_draws(&r->impls[k], "attention_equivariance")) list[n_sel++] = r->impls[k].impl;
    if (n_sel == 0) {
        const pc_impl *b = pc_builtin_find("attention-f32");
        if (!b || !b->attention) {
            snprintf(pl->note, sizeof pl->note, "No attention implementation: nothing to draw.");
            return PC_OK;
        }
        list[n_sel++] = b;
        snprintf(pl->note, sizeof pl->note, "No attention implementation was selected: the "
                 "built-in attention-f32 is shown.");
    }
    int d = r->d < ATT_D_MAX ? r->d : ATT_D_MAX;
    size_t D = (size_t)d, N = (size_t)att_n[ATT_NN - 1];
    float *x = malloc(N * D * sizeof *x), *pe = malloc(N * D * sizeof *pe);
    float *w = malloc(3 * D * D * sizeof *w), *buf = malloc(4 * N * D * sizeof *buf);
    size_t *perm = malloc(N * sizeof *perm);
    pc_freqs *fr = pc_freqs_new(d, pc_schedule_geometric(r->base));
    pc_status st = x && pe && w && buf && perm && fr ? PC_OK : pc_seterr(err, PC_ENOMEM, "out of memory");
    if (st == PC_OK) {
        /* tokens N(0,1); weights N(0,1)/sqrt(d) so the scores are O(1) */
        for (size_t i = 0; i < N; i++) pc_normal_row(o->seed, UINT64_C(0x41000000) + i, d, x + i * D);
        for (size_t i = 0; i < 3 * D; i++) {
            pc_normal_row(o->seed, UINT64_C(0x57000000) + i, d, w + i * D);
            for (size_t j = 0; j < D; j++) w[i * D + j] /= sqrtf((float)d);
        }
        for (size_t i = 0; i < N && st == PC_OK; i++)
            st = pc_ref_sinusoidal_row(fr, (int64_t)i, 0, pe + i * D, NULL);
        if (st != PC_OK) st = pc_seterr(err, PC_EINTERNAL, "reference failed in the attention plot");
    }
    FILE *f = NULL;
    if (st == PC_OK && (f = pc_report_fopen(r, "attention_equivariance.dat", err, &st)) != NULL) {
        char name[96];
        fprintf(f, "n");
        for (int k = 0; k < n_sel; k++) {
            pc_report_colname(list[k], NULL, name, sizeof name);
            fprintf(f, " no_pe:%s with_pe:%s", name, name);
        }
        fputc('\n', f);
        pc_rng rng;
        pc_rng_seed(&rng, o->seed ^ UINT64_C(0x5045524d)); /* "PERM": a stream of its own */
        for (int a = 0; a < ATT_NN; a++) {
            size_t n = (size_t)att_n[a];
            double mx[PC_MAX_IMPLS][2];
            int ok[PC_MAX_IMPLS];
            for (int k = 0; k < n_sel; k++) { mx[k][0] = mx[k][1] = 0; ok[k] = 1; }
            for (int t = 0; t < ATT_TRIALS; t++) {
                /* Fisher-Yates; a derangement is not needed (fixed points
                 * only make the error smaller, the max over trials stays),
                 * only the identity is replaced */
                for (size_t i = 0; i < n; i++) perm[i] = i;
                for (size_t i = n - 1; i > 0; i--) {
                    size_t j = (size_t)pc_rng_below(&rng, i + 1), tmp = perm[i];
                    perm[i] = perm[j];
                    perm[j] = tmp;
                }
                size_t fixed = 0;
                for (size_t i = 0; i < n; i++) fixed += perm[i] == i;
                if (fixed == n) /* the identity tests nothing: rotate by one */
                    for (size_t i = 0; i < n; i++) perm[i] = (i + 1) % n;
                for (int k = 0; k < n_sel; k++)
                    for (int with = 0; with < 2 && ok[k]; with++) {
                        double e;
                        if (equiv_err(list[k], n, d, x, with ? pe : NULL, w, perm, buf, &e)) ok[k] = 0;
                        else if (!(e <= mx[k][with])) mx[k][with] = e;
                    }
            }
            fprintf(f, "%zu", n);
            for (int k = 0; k < n_sel; k++) {
                pc_report_put_num(f, ok[k] ? mx[k][0] : (double)NAN);
                pc_report_put_num(f, ok[k] ? mx[k][1] : (double)NAN);
            }
            fputc('\n', f);
        }
        st = pc_report_fclose(r, f, "attention_equivariance.dat", err);
        pc_report_add_data(pl, "attention_equivariance.dat", ATT_NN);
        snprintf(pl->vars, sizeof pl->vars, "d = %d\ntrials = %d\n", d, ATT_TRIALS);
    }
    free(x); free(pe); free(w); free(buf); free(perm);
    pc_freqs_free(fr);
    return st;
}

/* ---- plots 9 and 10: T5 buckets and ALiBi biases ----------------------
 * The data comes from the relative-position families' own writer
 * (reference/relative.h); the report adds the row counts. */

static long count_rows(const pc_report *r, const char *name)
{
    char path[PC_REP_FPATH];
    snprintf(path, sizeof path, "%s/%s", r->dir, name);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    long lines = 0;
    int c, prev = '\n', blank = 1;
    while ((c = getc(f)) != EOF) {
        if (c == '\n') { if (!blank) lines++; blank = 1; }
        else if (c != ' ' && c != '\t' && c != '\r') blank = 0;
        prev = c;
    }
    if (prev != '\n' && !blank) lines++;
    fclose(f);
    return lines > 0 ? lines - 1 : 0; /* minus the header line */
}

pc_status pc_report_plot_relative(pc_report *r, pc_err *err)
{
    const pc_impl **list = calloc((size_t)r->n_impls + 1, sizeof *list);
    if (!list) return pc_seterr(err, PC_ENOMEM, "out of memory");
    int n = 0, n_t5 = 0;
    for (int k = 0; k < r->n_impls; k++) {
        const pc_impl *impl = r->impls[k].impl;
        int seen = 0;
        for (int j = 0; j < n && !seen; j++) seen = list[j] == impl;
        if (seen) continue;
        if (!impl->t5_bucket) { /* ALiBi: drawn when its slopes call succeeds */
            if (impl->alibi_slopes) list[n++] = impl;
            continue;
        }
        /* one that fails on j - i = 0 is left out of the plot (its verdicts say why) */
        int64_t rel = 0;
        int32_t b[1];
        pc_fault f1, f2;
        if (pc_call_t5_bucket(impl, &f1, &rel, 1, 1, PC_T5_HF_BUCKETS, PC_T5_HF_MAXDIST, b) != 0 ||
            f1.faulted ||
            pc_call_t5_bucket(impl, &f2, &rel, 1, 0, PC_T5_HF_BUCKETS, PC_T5_HF_MAXDIST, b) != 0 ||
            f2.faulted)
            continue;
        list[n++] = impl;
        n_t5++;
    }
    pc_status st = pc_relative_plot_data(r->dir, list, n, err);
    free(list);
    if (st != PC_OK) return st;
    pc_rep_plot *t5 = &r->plots[8], *al = &r->plots[9];
    pc_report_add_data(t5, "t5_buckets.dat", count_rows(r, "t5_buckets.dat"));
    pc_report_add_data(al, "alibi_bias.dat", count_rows(r, "alibi_bias.dat"));
    pc_report_add_data(al, "alibi_slopes.dat", count_rows(r, "alibi_slopes.dat"));
    snprintf(t5->vars, sizeof t5->vars, "n_impl = %d\n", n_t5);
    if (n_t5 == 0)
        snprintf(t5->note, sizeof t5->note, "No T5 implementation was selected: the exact "
                 "buckets only.");
    return PC_OK;
}


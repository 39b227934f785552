/* report_data.c: the numbers behind `pecheck report`: the summary (accuracy
 * gate and property verdicts of every implementation) and the data file of
 * every plot.  Everything is computed from public APIs: the implementation
 * hooks (impl.h), the certified references (reference.h), the accuracy
 * engine (accuracy.h), the property engine (property.h) and the precision
 * model (model.h).  Sizes are chosen so that `pecheck report --impl all`
 * takes seconds: each MPFR sin/cos pair costs about 1.5 us. */
#include <ctype.h>
#include <errno.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "harness/engine/accuracy.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/engine/model.h"
#include "harness/cli/property.h"
#include "harness/cli/acc_opts.h"
#include "harness/engine/gate.h"
#include "report.h"
#include "harness/sources/table.h"
#include "harness/engine/fitmodel.h"
#include "harness/engine/fitsums.h"
#include "harness/base/rng.h"
#include "families/family.h"
#include "reference/reference.h"
#include "reference/relative.h"

/* The layout an implementation accepts for ROWS: interleaved when it
 * does, else half, else -1 (it declines both).  A call that faults is not
 * a declined layout: that layout is taken, and its accuracy run reports the
 * fault with its cause. */
static int probe_layout(const pc_impl *impl, const pc_rows *rows, int d, double base, int from)
{
    float *x = calloc((size_t)d, sizeof *x), *out = calloc((size_t)d, sizeof *out);
    int found = -1;
    int64_t pos = impl->pos_bounded ? impl->pos_min : 1; /* a table may start later */
    for (int layout = from; layout <= 1 && found < 0 && x && out; layout++) {
        pc_fault fault;
        int rc = rows->call(impl, &fault, &pos, 1, d, base, layout, rows->input ? x : NULL, out);
        if (rc == 0 || fault.faulted) found = layout;
    }
    free(x);
    free(out);
    return found;
}

/* ---- summary: the accuracy gate and the properties -------------------- */

/* RI's accuracy gate with the fitted model of the same pass (as `check`'s,
 * harness/engine/gate.c): RI->acc and RI->fit. */
static pc_status report_gate(pc_rep_impl *ri, pc_err *err)
{
    pc_fitm m;
    char note[200] = "";
    memset(&m, 0, sizeof m);
    pc_status fs = pc_fitm_setup(&ri->cfg, &m, note, sizeof note);
    pc_fitp *sums = fs == PC_OK ? pc_fitp_new(m.h) : NULL;
    if (fs == PC_ENOMEM || (fs == PC_OK && !sums)) {
        pc_fitm_free(&m);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    pc_acc_cfg cfg = ri->cfg;
    cfg.fit = sums;
    pc_status st = pc_accuracy_run(ri->impl, &cfg, &ri->acc, err);
    if (st == PC_OK && sums && ri->acc.fit_note[0]) {
        snprintf(note, sizeof note, "%s", ri->acc.fit_note);
        fs = PC_SKIP;
    }
    if (st == PC_OK && fs == PC_OK && pc_fitm_judge(&m, sums) != 0) fs = PC_SKIP;
    memset(&ri->fit, 0, sizeof ri->fit);
    if (st == PC_OK) pc_fitm_verdict(fs == PC_OK ? &m : NULL, note[0] ? note : "no fit", &ri->fit);
    free(ri->fit.details);
    ri->fit.details = NULL;
    pc_fitm_free(&m);
    pc_fitp_free(sums);
    return st;
}

/* The other layout's accuracy gate of RI, where the source holds it (a
 * table holds the layout of its columns only). */
static pc_status report_other_layout(const pc_report *r, pc_rep_impl *ri, const pc_family *fam,
                                     pc_err *err)
{
    const pc_table_info *t = pc_table_info_of(ri->impl);
    if ((t && t->layout >= 0) || ri->layout != 0) return PC_OK; /* the first found is interleaved */
    int l2 = probe_layout(ri->impl, fam->rows, r->d, r->base, 1);
    if (l2 != 1) return PC_OK;
    ri->cfg2 = ri->cfg;
    ri->cfg2.layout = l2;
    pc_status st = pc_accuracy_run(ri->impl, &ri->cfg2, &ri->acc2, err);
    if (st == PC_OK) { ri->has_acc2 = 1; ri->layout2 = l2; }
    return st;
}

/* RI's accuracy configuration, as `check` makes it: the family's spec (its
 * schedule, --hf-config and the like, into RI->sched), a table's storage
 * and fitted base, the report's range within a table's rows. */
static pc_status report_cfg(const pc_report *r, pc_rep_impl *ri, const pc_family *fam, pc_err *err)
{
    const pc_opts *o = &r->o;
    const pc_impl *impl = ri->impl;
    const pc_spec *spec = pc_specs_of(&r->specs, fam);
    pc_acc_cfg cfg = { .family = fam->name, .d = r->d, .base = r->base, .base_from = spec->base_from,
                       .layout = ri->layout, .dtype = PC_DT_F32, .pos_lo = o->pos_lo,
                       .pos_hi = o->pos_hi, .seed = o->seed, .tol_abs = -1.0, .quiet = o->quiet,
                       /* --strict and --formulation as check takes them (acc_opts.c): a
                        * named formulation is its class; a bare --strict is cr until the
                        * family names its own (RoPE: hf, in its schedule below) */
                       .strict = o->formulation ? o->formulation
                               : o->strict ? PC_CLASS_STRICT : PC_CLASS_DEFAULT,
                       .formulation = o->formulation != 0 };
    const pc_table_info *t = pc_table_info_of(impl);
    if (t) pc_table_adjust_cfg(t, &cfg); /* its width, storage, fitted base (and all its rows) */
    if (impl->pos_bounded) { /* a table: the gate's range within its rows (all, as check's) */
        cfg.pos_lo = o->pos_set && o->pos_lo > impl->pos_min ? o->pos_lo : impl->pos_min;
        cfg.pos_hi = o->pos_set && o->pos_hi < impl->pos_max ? o->pos_hi : impl->pos_max;
        if (cfg.pos_lo > cfg.pos_hi) { cfg.pos_lo = impl->pos_min; cfg.pos_hi = impl->pos_max; }
    }
    ri->cfg = cfg;
    return pc_spec_schedule(spec, &ri->cfg, &ri->sched, err);
}

pc_status pc_report_summary(pc_report *r, pc_err *err)
{
    const pc_opts *o = &r->o;
    for (int k = 0; k < r->n_impls; k++) {
        pc_rep_impl *ri = &r->impls[k];
        const pc_impl *impl = ri->impl;
        ri->layout = -1;
        ri->scan_first_over = -1;
        ri->scan_max_abs = (double)NAN;
        ri->scan_max_ratio = (double)NAN;
        const pc_family *fam = pc_family_find(ri->family);
        const pc_spec *spec = fam ? pc_specs_of(&r->specs, fam) : NULL;
        pc_status ust = pc_spec_usable(spec, err);
        if (ust != PC_OK) return ust;
        /* rows that are not of positions (--timesteps, --grid): the
         * accuracy run over positions would judge them against the wrong
         * angles; the family's own gate judges them, as `check` does */
        int own_rows = spec && spec->rows_note;
        if (fam && fam->rows && !own_rows && fam->provides(impl))
            ri->layout = probe_layout(impl, fam->rows, r->d, r->base, 0);
        if (ri->layout >= 0) {
            pc_status st = report_cfg(r, ri, fam, err);
            if (st == PC_OK) st = report_gate(ri, err);
            if (st == PC_OK) st = report_other_layout(r, ri, fam, err);
            if (st != PC_OK) return st;
            ri->has_acc = 1;
        }
        pc_err perr = { "" };
        pc_status st = PC_OK;
        if (fam && fam->gate && (!fam->rows || own_rows) && fam->provides(impl)) {
            /* the family's own gate (attention's accuracy, the learned
             * table's contract, a timestep or grid table's accuracy), as
             * `pecheck check` runs it */
            pc_acc_cfg run;
            pc_acc_run_from_opts(o, &run);
            pc_gate g = { .run = &run, .spec = pc_specs_of(&r->specs, fam), .vs = &ri->props,
                          .err = &perr };
            st = fam->gate(&g, impl, fam);
        }
        if (st >= 0 && fam)
            st = pc_properties_run(impl, pc_specs_of(&r->specs, fam), o, &ri->props, &perr);
        if (st < 0) /* shown in the report; the other results still stand */
            snprintf(ri->prop_error, sizeof ri->prop_error, "%s",
                     perr.msg[0] ? perr.msg : "the property engine failed");
    }
    return PC_OK;
}

/* ---- plots 1-3: the error scan over log-spaced positions --------------- */

#define SCAN_PER_OCTAVE 8   /* bins per doubling of the position */
#define SCAN_PER_BIN 8      /* positions sampled in each bin, spread evenly */
#define SCAN_CHUNK 256      /* positions per call of an implementation */
#define HIST_K 40           /* ulp buckets (2^(k-1), 2^k], k = 0..HIST_K, then > 2^HIST_K */
#define HIST_N (HIST_K + 3) /* + "correctly rounded" + overflow */
/* errors below this are drawn at the floor of the heatmap: 1e-10 is far
 * under the 2^-24 ~ 6e-8 rounding of values near 1 */
#define HEAT_FLOOR 1e-10

typedef struct scan_acc {
    double *max_abs, *max_ratio;  /* per bin */
    double *heat;                 /* bin x pair: max |err| */
    double hist[HIST_N];
    double count;
} scan_acc;

/* Bucket of one element: 0 correctly rounded, 1 + k for (2^(k-1), 2^k]. */
static int hist_bucket(float got, float ref32, double ulp)
{
    uint32_t a, b;
    memcpy(&a, &got, 4);
    memcpy(&b, &ref32, 4);
    if (a == b) return 0;
    if (!(ulp <= ldexp(1.0, HIST_K))) return HIST_N - 1; /* also NaN */
    int k = ulp <= 1.0 ? 0 : (int)ceil(log2(ulp));
    if (k > HIST_K) k = HIST_K;
    return 1 + k;
}

/* The scan's positions: bin edges round(2^(k/8)), deduplicated, up to
 * scan_max + 1; SCAN_PER_BIN positions per bin, stratified: one at a seeded
 * random place in each of SCAN_PER_BIN equal slices of [edge_b, edge_b+1),
 * so a bin is not all even positions (evenly spaced samples alias with
 * errors that depend on the position's low bits, like bfloat16's). */
typedef struct scan_sample {
    int64_t *edge;   /* nb + 1 bin edges */
    int nb;
    int64_t *pos;    /* np ascending positions ... */
    int *bin;        /* ... and their bins */
    int np;
} scan_sample;

static void sample_free(scan_sample *s)
{
    free(s->edge); free(s->pos); free(s->bin);
}

static pc_status sample_positions(const pc_report *r, scan_sample *s, pc_err *err)
{
    int cap = 64 * SCAN_PER_OCTAVE + 2;
    memset(s, 0, sizeof *s);
    s->edge = malloc((size_t)cap * sizeof *s->edge);
    if (!s->edge) return pc_seterr(err, PC_ENOMEM, "out of memory");
    s->edge[s->nb++] = 1;
    for (int k = 1; k < cap - 1; k++) {
        double v = nearbyint(exp2((double)k / SCAN_PER_OCTAVE));
        if (v >= (double)r->scan_max) break;
        if ((int64_t)v > s->edge[s->nb - 1]) s->edge[s->nb++] = (int64_t)v;
    }
    s->edge[s->nb] = r->scan_max + 1;
    s->pos = malloc((size_t)s->nb * SCAN_PER_BIN * sizeof *s->pos);
    s->bin = malloc((size_t)s->nb * SCAN_PER_BIN * sizeof *s->bin);
    if (!s->pos || !s->bin) return pc_seterr(err, PC_ENOMEM, "out of memory");
    for (int b = 0; b < s->nb; b++) {
        int64_t w = s->edge[b + 1] - s->edge[b];
        for (int j = 0; j < SCAN_PER_BIN; j++) {
            double u = (double)(pc_hash3(r->o.seed, (uint64_t)b, (uint64_t)j) >> 11) * 0x1p-53;
            int64_t p = s->edge[b] + (int64_t)((double)w * (j + u) / SCAN_PER_BIN);
            if (s->np > 0 && p <= s->pos[s->np - 1]) continue;
            s->pos[s->np] = p;
            s->bin[s->np++] = b;
        }
    }
    return PC_OK;
}

/* One implementation's scan: the positions it serves, and what the
 * observer gathers from every element of the checker's run. */
typedef struct scan_obs {
    scan_acc *a;
    pc_rep_impl *ri;
    int64_t *pos;    /* the positions it serves ... */
    int *bin;        /* ... their bins */
    size_t n, q;     /* count; the current position's index */
    int h;
} scan_obs;

static void scan_observe(void *ctx, const pc_witness *w, int pair, double ratio)
{
    scan_obs *s = ctx;
    while (s->q + 1 < s->n && s->pos[s->q] < w->pos) s->q++;
    scan_acc *a = s->a;
    pc_rep_impl *ri = s->ri;
    int b = s->bin[s->q];
    double e = w->err;
    if (isnan(a->max_abs[b]) || e > a->max_abs[b]) a->max_abs[b] = e;
    if (isnan(a->max_ratio[b]) || ratio > a->max_ratio[b]) a->max_ratio[b] = ratio;
    double *hc = &a->heat[(size_t)b * (size_t)s->h + (size_t)pair];
    if (isnan(*hc) || e > *hc) *hc = e;
    a->hist[hist_bucket(w->got, w->ref32, w->ulp)] += 1.0;
    a->count += 1.0;
    if (ratio > 1.0 && ri->scan_first_over < 0) ri->scan_first_over = w->pos;
    if (isnan(ri->scan_max_abs) || e > ri->scan_max_abs) ri->scan_max_abs = e;
    if (isnan(ri->scan_max_ratio) || ratio > ri->scan_max_ratio) ri->scan_max_ratio = ratio;
}

static pc_status acc_new(scan_acc *a, int nb, int h, pc_err *err)
{
    a->max_abs = malloc((size_t)nb * sizeof(double));
    a->max_ratio = malloc((size_t)nb * sizeof(double));
    a->heat = malloc((size_t)nb * (size_t)h * sizeof(double));
    if (!a->max_abs || !a->max_ratio || !a->heat)
        return pc_seterr(err, PC_ENOMEM, "out of memory for the error scan");
    for (int b = 0; b < nb; b++) a->max_abs[b] = a->max_ratio[b] = (double)NAN;
    /* a cell no element of the source falls in (a table's rows end
     * before the bin) is no data, not an error of 0 */
    for (size_t c = 0; c < (size_t)nb * (size_t)h; c++) a->heat[c] = (double)NAN;
    return PC_OK;
}

/* The scan of RI: a sampled run of the accuracy gate's checker (accuracy.h)
 * on the positions RI serves, RoPE rotating unit-norm pairs so that one
 * bound line serves both families.  Positions past an implementation
 * error stay NaN. */
static pc_status scan_impl(const pc_report *r, pc_rep_impl *ri, const scan_sample *s,
                           scan_acc *a, pc_err *err)
{
    scan_obs ob = { a, ri, malloc((size_t)s->np * sizeof(int64_t)),
                    malloc((size_t)s->np * sizeof(int)), 0, 0, r->d / 2 };
    if (!ob.pos || !ob.bin) {
        free(ob.pos); free(ob.bin);
        return pc_seterr(err, PC_ENOMEM, "out of memory for the error scan");
    }
    for (int q = 0; q < s->np; q++)
        if (pc_report_in_range(ri->impl, s->pos[q])) { ob.pos[ob.n] = s->pos[q]; ob.bin[ob.n++] = s->bin[q]; }
    pc_acc_cfg cfg = ri->cfg;
    cfg.positions = ob.pos;
    cfg.n_positions = ob.n;
    cfg.unit_inputs = 1;
    cfg.observe = scan_observe;
    cfg.observe_ctx = &ob;
    cfg.quiet = 1;
    pc_acc_result res;
    pc_status st = ob.n ? pc_accuracy_run(ri->impl, &cfg, &res, err) : PC_OK;
    free(ob.pos); free(ob.bin);
    return st;
}

/* The frequencies of RI's schedule when it maps rows to positions
 * (--position-ids), else NULL (rows are positions; also when out of
 * memory: the line is then drawn at the row, as before). */
static pc_freqs *mapped_freqs(const pc_report *r, const pc_rep_impl *ri)
{
    pc_freqs *fr = ri->cfg.sched ? pc_freqs_new(r->d, *ri->cfg.sched) : NULL;
    if (fr && !pc_freqs_mapped(fr)) {
        pc_freqs_free(fr);
        fr = NULL;
    }
    return fr;
}

/* The angle of omega = 1 at which plot 1's bound line is drawn for the
 * sampled row ROW: the largest over the implementations of the row itself,
 * or where a schedule maps rows to positions (FR[k] not NULL), of the
 * largest |position| of the row's pairs, so that the line stays the
 * envelope of the elements' bounds. */
static double line_position(pc_freqs *const *fr, int n_sel, int h, int64_t row)
{
    double at = 0;
    for (int k = 0; k < n_sel; k++) {
        if (!fr[k] && (double)row > at) at = (double)row;
        for (int i = 0; fr[k] && i < h; i++) {
            double p = fabs(pc_freqs_coord(fr[k], row, i));
            if (p > at) at = p;
        }
    }
    return at;
}

/* Whether a selected implementation's rows are mapped to positions
 * (--position-ids): plots 1 and 2 are then drawn over rows. */
static int rows_mapped(const pc_report *r, const int *sel, int n_sel)
{
    int mapped = 0;
    for (int k = 0; k < n_sel && !mapped; k++) {
        pc_freqs *fr = mapped_freqs(r, &r->impls[sel[k]]);
        mapped = fr != NULL;
        pc_freqs_free(fr);
    }
    return mapped;
}

/* plot 1: error_vs_position.dat (the bound's envelope: the highest-
 * frequency pair, omega_0 = 1, so theta = pos, at the bin's largest sampled
 * position (line_position), unit scale) and error_ratio.dat */
static pc_status write_plot1(pc_report *r, const scan_sample *s, const scan_acc *acc,
                             const int *sel, int n_sel, pc_err *err)
{
    pc_rep_plot *p1 = &r->plots[0];
    double *bound = malloc((size_t)s->nb * sizeof *bound);
    if (!bound) return pc_seterr(err, PC_ENOMEM, "out of memory");
    pc_freqs *fr[PC_MAX_IMPLS];
    for (int k = 0; k < n_sel; k++) fr[k] = mapped_freqs(r, &r->impls[sel[k]]);
    for (int b = 0; b < s->nb; b++) bound[b] = 0;
    for (int q = 0; q < s->np; q++) {
        double v = pc_model_bound(r->C, r->u, line_position(fr, n_sel, r->d / 2, s->pos[q]), 1.0,
                                  -1.0);
        if (v > bound[s->bin[q]]) bound[s->bin[q]] = v;
    }
    for (int k = 0; k < n_sel; k++) pc_freqs_free(fr[k]);
    pc_status st;
    FILE *f = pc_report_fopen(r, "error_vs_position.dat", err, &st);
    if (f) {
        fprintf(f, "pos_lo pos_hi bound");
        pc_report_header_impls(f, r, sel, n_sel, "");
        fputc('\n', f);
        for (int b = 0; b < s->nb; b++) {
            fprintf(f, "%lld %lld", (long long)s->edge[b], (long long)(s->edge[b + 1] - 1));
            pc_report_put_num(f, bound[b]);
            for (int k = 0; k < n_sel; k++) pc_report_put_num(f, acc[k].max_abs[b]);
            fputc('\n', f);
        }
        st = pc_report_fclose(r, f, "error_vs_position.dat", err);
        pc_report_add_data(p1, "error_vs_position.dat", s->nb);
    }
    free(bound);
    if (st == PC_OK && (f = pc_report_fopen(r, "error_ratio.dat", err, &st)) != NULL) {
        fprintf(f, "pos_lo pos_hi");
        pc_report_header_impls(f, r, sel, n_sel, "");
        fputc('\n', f);
        for (int b = 0; b < s->nb; b++) {
            fprintf(f, "%lld %lld", (long long)s->edge[b], (long long)(s->edge[b + 1] - 1));
            for (int k = 0; k < n_sel; k++) pc_report_put_num(f, acc[k].max_ratio[b]);
            fputc('\n', f);
        }
        st = pc_report_fclose(r, f, "error_ratio.dat", err);
        pc_report_add_data(p1, "error_ratio.dat", s->nb);
    }
    return st;
}

/* Plot 1's note: where each implementation leaves its bound. */
static void note_plot1(pc_report *r, const int *sel, int n_sel)
{
    pc_rep_plot *p1 = &r->plots[0];
    size_t len = 0;
    for (int k = 0; k < n_sel && len < sizeof p1->note; k++) {
        const pc_rep_impl *ri = &r->impls[sel[k]];
        if (ri->scan_first_over < 0) continue;
        len += (size_t)snprintf(p1->note + len, sizeof p1->note - len, "%s%s leaves its bound at "
                                "%s %lld", len ? "; " : "In this run: ", ri->impl->name,
                                rows_mapped(r, sel, n_sel) ? "row" : "position",
                                (long long)ri->scan_first_over);
    }
    if (len == 0)
        snprintf(p1->note, sizeof p1->note, "In this run every sampled element is within its bound.");
    else if (len < sizeof p1->note - 2)
        snprintf(p1->note + len, sizeof p1->note - len, ".");
    int mapped = rows_mapped(r, sel, n_sel);
    snprintf(p1->vars, sizeof p1->vars, "scan_max = %lld\nscan_axis = \"%s\"\n",
             (long long)r->scan_max, mapped ? "row of the table" : "position pos");
    size_t u = strlen(p1->note);
    if (mapped && u < sizeof p1->note)
        snprintf(p1->note + u, sizeof p1->note - u, " The positions of the rows come from "
                 "--position-ids: the x axis is the table's row, each element is judged at its "
                 "own positions, and the bound line at the row's largest position.");
}

/* Plot 2's panels: the worst implementation (largest err/bound in the
 * scan) and a good one: the first that passes the gate and stays within
 * its bound in the scan (with --impl all, the articles' own formulation),
 * else the one with the smallest err/bound; -1: none. */
static void pick_panels(const pc_report *r, const int *sel, int n_sel, int *worst, int *good)
{
    int best = -1;
    *worst = *good = -1;
    for (int k = 0; k < n_sel; k++) {
        const pc_rep_impl *ri = &r->impls[sel[k]];
        double m = ri->scan_max_ratio;
        if (isnan(m)) continue;
        if (*worst < 0 || m > r->impls[sel[*worst]].scan_max_ratio) *worst = k;
        if (best < 0 || m < r->impls[sel[best]].scan_max_ratio) best = k;
        if (*good < 0 && ri->acc.status == PC_OK && m <= 1.0) *good = k;
    }
    if (*good < 0) *good = best;
    if (*good == *worst) *good = -1;
}

static pc_status write_heatmap(pc_report *r, const scan_sample *s, const scan_acc *a,
                               const char *fname, pc_err *err)
{
    int h = r->d / 2;
    pc_status st;
    FILE *f = pc_report_fopen(r, fname, err, &st);
    if (!f) return st;
    fprintf(f, "pair pos_lo pos_hi max_abs_err log10_err\n");
    for (int b = 0; b < s->nb; b++)
        for (int i = 0; i < h; i++) {
            double e = a->heat[(size_t)b * (size_t)h + (size_t)i];
            fprintf(f, "%d %lld %lld", i, (long long)s->edge[b], (long long)(s->edge[b + 1] - 1));
            pc_report_put_num(f, e); /* NaN: no element there, drawn as no cell */
            pc_report_put_num(f, isnan(e) ? e : log10(e > HEAT_FLOOR ? e : HEAT_FLOOR));
            fputc('\n', f);
        }
    st = pc_report_fclose(r, f, fname, err);
    pc_report_add_data(&r->plots[1], fname, (long)s->nb * h);
    return st;
}

/* plot 2: the heatmaps of the worst and of a good implementation */
static pc_status write_plot2(pc_report *r, const scan_sample *s, const scan_acc *acc,
                             const int *sel, int n_sel, pc_err *err)
{
    pc_rep_plot *p2 = &r->plots[1];
    int worst, good;
    pick_panels(r, sel, n_sel, &worst, &good);
    char wname[96] = "", gname[96] = "";
    pc_status st = PC_OK;
    for (int w = 0; w < 2 && st == PC_OK; w++) {
        int k = w == 0 ? worst : good;
        if (k < 0) continue;
        const pc_rep_impl *ri = &r->impls[sel[k]];
        pc_report_colname(ri->impl, ri->multi ? ri->family : NULL, w == 0 ? wname : gname, sizeof wname);
        st = write_heatmap(r, s, &acc[k], w == 0 ? "heatmap_worst.dat" : "heatmap_good.dat", err);
    }
    if (st != PC_OK) return st;
    /* single-quoted: gnuplot expands no backslash, backquote or macro
     * there; colname() leaves no quote or newline to end it */
    snprintf(p2->vars, sizeof p2->vars, "worst = '%s'\ngood = '%s'\nfloor = %g\n"
             "scan_max = %lld\nscan_axis = \"%s\"\n", wname, gname, log10(HEAT_FLOOR),
             (long long)r->scan_max, rows_mapped(r, sel, n_sel) ? "row of the table" : "position");
    if (worst < 0) return PC_OK;
    int len = snprintf(p2->note, sizeof p2->note, "Left: %s (largest error/bound in the scan, "
                       "%.3g).", r->impls[sel[worst]].impl->name, r->impls[sel[worst]].scan_max_ratio);
    if (len < 0 || (size_t)len >= sizeof p2->note) len = 0; /* truncated: no second part */
    else if (good >= 0)
        snprintf(p2->note + len, sizeof p2->note - (size_t)len, " Right: %s (error/bound at "
                 "most %.3g).", r->impls[sel[good]].impl->name, r->impls[sel[good]].scan_max_ratio);
    else
        snprintf(p2->note + len, sizeof p2->note - (size_t)len, " Only one implementation has "
                 "scan data, so there is no second panel.");
    return PC_OK;
}

/* plot 3: ulp histogram (fractions of the scanned elements) */
static pc_status write_plot3(pc_report *r, const scan_sample *s, const scan_acc *acc,
                             const int *sel, int n_sel, pc_err *err)
{
    pc_rep_plot *p3 = &r->plots[2];
    pc_status st;
    FILE *f = pc_report_fopen(r, "ulp_histogram.dat", err, &st);
    if (!f) return st;
    fprintf(f, "log2_ulp_hi label");
    pc_report_header_impls(f, r, sel, n_sel, "");
    fputc('\n', f);
    for (int b = 0; b < HIST_N; b++) {
        /* x: -1 for "correctly rounded", k for (2^(k-1), 2^k], HIST_K+1 for more */
        if (b == 0) fprintf(f, "-1 CR");
        else if (b == HIST_N - 1) fprintf(f, "%d >2^%d", HIST_K + 1, HIST_K);
        else fprintf(f, "%d %d", b - 1, b - 1);
        for (int k = 0; k < n_sel; k++)
            pc_report_put_num(f, acc[k].count > 0 ? acc[k].hist[b] / acc[k].count : (double)NAN);
        fputc('\n', f);
    }
    st = pc_report_fclose(r, f, "ulp_histogram.dat", err);
    pc_report_add_data(p3, "ulp_histogram.dat", HIST_N);
    snprintf(p3->note, sizeof p3->note, "%.0f elements per implementation (%d positions x %d "
             "dimensions).", acc[0].count, s->np, r->d);
    return st;
}

/* The rows_note of a selected family with rows (FAMILY, or any when NULL)
 * whose table rows are not of positions (--timesteps, --grid;
 * families/spec.h), or NULL. */
const char *pc_report_rows_note(const pc_report *r, const char *family)
{
    for (int k = 0; k < r->n_impls; k++) {
        if (family && strcmp(r->impls[k].family, family) != 0) continue;
        const pc_family *f = pc_family_find(r->impls[k].family);
        const pc_spec *sp = f && f->rows ? pc_specs_of(&r->specs, f) : NULL;
        if (sp && sp->rows_note) return sp->rows_note;
    }
    return NULL;
}

/* Plots 1-3: the implementations with an accuracy run, each scanned on
 * log-spaced sampled positions by the gate's own checker. */
static pc_status scan(pc_report *r, pc_err *err)
{
    int sel[PC_MAX_IMPLS], n_sel = 0;
    for (int k = 0; k < r->n_impls; k++)
        if (r->impls[k].has_acc && r->impls[k].acc.status != PC_SKIP) sel[n_sel++] = k;
    if (n_sel == 0) {
        const char *why = "no sinusoidal or RoPE implementation among the selected ones";
        const char *note = pc_report_rows_note(r, NULL);
        char buf[sizeof r->plots[0].note];
        if (note) {
            snprintf(buf, sizeof buf, "%s, not rows of consecutive positions: the scan over "
                     "positions does not apply; the accuracy column holds the gate's verdict on "
                     "every row.", note);
            buf[0] = (char)toupper((unsigned char)buf[0]);
            why = buf;
        }
        for (int p = 0; p < 3; p++) snprintf(r->plots[p].note, sizeof r->plots[p].note, "%s", why);
        return PC_OK;
    }
    scan_sample s;
    pc_status st = sample_positions(r, &s, err);
    scan_acc *acc = st == PC_OK ? calloc((size_t)n_sel, sizeof *acc) : NULL;
    if (st == PC_OK && !acc) st = pc_seterr(err, PC_ENOMEM, "out of memory for the error scan");
    for (int k = 0; k < n_sel && st == PC_OK; k++) st = acc_new(&acc[k], s.nb, r->d / 2, err);
    for (int k = 0; k < n_sel && st == PC_OK; k++) st = scan_impl(r, &r->impls[sel[k]], &s, &acc[k], err);
    if (st == PC_OK) st = write_plot1(r, &s, acc, sel, n_sel, err);
    if (st == PC_OK) note_plot1(r, sel, n_sel);
    if (st == PC_OK) st = write_plot2(r, &s, acc, sel, n_sel, err);
    if (st == PC_OK) st = write_plot3(r, &s, acc, sel, n_sel, err);
    for (int k = 0; acc && k < n_sel; k++) {
        free(acc[k].max_abs); free(acc[k].max_ratio); free(acc[k].heat);
    }
    free(acc);
    sample_free(&s);
    return st;
}

/* Whether a selected entry's family lists plot ID (pc_family.plots). */
static int family_draws(const pc_report *r, const char *id)
{
    for (int k = 0; k < r->n_impls; k++)
        if (pc_report_draws(&r->impls[k], id)) return 1;
    return 0;
}

void pc_report_plots_wanted(pc_report *r)
{
    int rows = 0;
    for (int k = 0; k < r->n_impls; k++) {
        const pc_family *f = pc_family_find(r->impls[k].family);
        rows |= f && f->rows;
    }
    for (int k = 0; k < PC_REP_PLOTS; k++)
        r->plots[k].wanted = k < 3 ? rows : family_draws(r, r->plots[k].id);
}

static int wanted(const pc_report *r, int k)
{
    return r->plots[k].wanted;
}

pc_status pc_report_data(pc_report *r, pc_err *err)
{
    pc_status st = wanted(r, 0) ? scan(r, err) : PC_OK;
    if (st == PC_OK && wanted(r, 3)) st = pc_report_plot_decay(r, err);
    if (st == PC_OK && wanted(r, 4)) st = pc_report_plot_dot(r, err);
    if (st == PC_OK && wanted(r, 5)) st = pc_report_plot_shift(r, err);
    if (st == PC_OK && wanted(r, 6)) st = pc_report_plot_pe(r, err);
    if (st == PC_OK && wanted(r, 7)) st = pc_report_plot_attention(r, err);
    if (st == PC_OK && (wanted(r, 8) || wanted(r, 9))) st = pc_report_plot_relative(r, err);
    if (st == PC_OK && !wanted(r, 8)) r->plots[8].has_data = r->plots[8].n_data = 0;
    if (st == PC_OK && !wanted(r, 9)) r->plots[9].has_data = r->plots[9].n_data = 0;
    return st;
}

/* diagnosis.c: what the sinusoidal family says of a source beyond its
 * verdicts (pc_sin_diagnosis): `pecheck identify`'s result (identify.c)
 * as text, JSON and check's arguments, and the likely cause of a failed
 * accuracy gate, from the same identification ("this table matches the
 * d/2 - 1 formula ...: pass --preset t2t"). */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "sin_ident.h"
#include "families/family.h"
#include "harness/base/dtype.h"
#include "harness/base/half.h"
#include "harness/engine/accuracy.h"
#include "harness/io/json.h"
#include "harness/sources/table.h"

#define ID_PAPER_BASE 10000.0  /* every preset's base (max_timescale, max_period) */

/* The preset of F's formula: the one whose rows start where F's do
 * (fairseq's padding_idx + 1), else the first; NULL: none. */
static const pc_sin_preset *preset_of(const pc_sin_found *f)
{
    const pc_sin_preset *first = NULL;
    for (int k = 0; k < pc_sin_n_presets; k++) {
        const pc_sin_preset *p = &pc_sin_presets[k];
        if (p->shift != f->shift || p->layout != f->layout
            || p->cos_first != pc_sin_found_cos_first(f))
            continue;
        if (f->min_ts != 1.0 && strcmp(p->name, "t2t") != 0)
            continue; /* only tensor2tensor has a min_timescale */
        if (p->pos_start == f->first && p->pos_start) return p;
        if (f->timesteps && p->timesteps) return p; /* a timestep library's name */
        if (!first) first = p;
    }
    return first;
}

/* X as the shortest of %.15g and %.17g that reads back as X (a fitted
 * 3-digit 1.1 as "1.1", not "1.1000000000000001") */
static void add_number(pc_args *out, double x)
{
    char b[40];
    snprintf(b, sizeof b, "%.15g", x);
    if (strtod(b, NULL) != x) snprintf(b, sizeof b, "%.17g", x);
    pc_args_add(out, "%s", b);
}

static void check_args(const void *found, pc_args *out)
{
    const pc_sin_found *f = found;
    const pc_sin_preset *p = f->grid_h ? NULL : preset_of(f); /* each half's options */
    if (p) {
        pc_args_add(out, "--preset");
        pc_args_add(out, "%s", p->name);
    } else {
        pc_args_add(out, "--freq-shift");
        pc_args_add(out, "%d", f->shift);
        pc_args_add(out, "--order");
        pc_args_add(out, "%s", pc_sin_found_cos_first(f) ? "cos-sin" : "sin-cos");
        pc_args_add(out, "--layout");
        pc_args_add(out, "%s", pc_layout_name(f->layout));
    }
    if (f->base != ID_PAPER_BASE) {
        pc_args_add(out, "--base");
        add_number(out, f->base);
    }
    if (f->min_ts != 1.0) {
        pc_args_add(out, "--min-timescale");
        add_number(out, f->min_ts);
    }
    if (f->timesteps) {
        pc_args_add(out, "--timesteps");
        pc_args_add(out, "%s", f->timesteps);
        if (f->scale != 1.0) { pc_args_add(out, "--angle-scale"); pc_args_add(out, "%.9g", f->scale); }
    }
    if (f->first != 0) {
        pc_args_add(out, "--pos-start");
        pc_args_add(out, "%lld", (long long)f->first);
    }
    if (f->grid_h) {
        pc_args_add(out, "--grid");
        pc_args_add(out, "%lld,%lld", (long long)f->grid_h, (long long)f->grid_w);
        if (f->cls_rows) {
            pc_args_add(out, "--cls-rows");
            pc_args_add(out, "%lld", (long long)f->cls_rows);
        }
    }
}

static const char *order_text(const pc_sin_found *f)
{
    int cf = pc_sin_found_cos_first(f);
    if (f->layout) return cf ? "cos first ([cos | sin])" : "sin first ([sin | cos])";
    return cf ? "cos first ((cos, sin) pairs)" : "sin first ((sin, cos) pairs)";
}

static void formula_text(const pc_sin_found *f, char *buf, size_t len)
{
    char m[40] = "", over[40] = "";
    if (f->min_ts != 1.0) {
        snprintf(m, sizeof m, "%.9g (", f->min_ts);
        snprintf(over, sizeof over, "/%.9g)", f->min_ts);
    }
    snprintf(buf, len, "omega_i = %s%.9g%s^(-i/(d/2%s))%s%s", m, f->base, over,
             f->shift ? " - 1" : "", f->presets[0] ? ", the formula of --preset " : "",
             f->presets);
}

/* A table of rows that no formula explains may be a learned (trained)
 * table, which the values cannot tell from a broken formula's: how to ask
 * about it as one (families/learned/identify.c). */
static void learned_hint(FILE *out, const pc_sin_found *f)
{
    const pc_table_info *t = pc_table_info_of(f->impl);
    if (!t || f->timesteps || f->grid_h) return;
    fprintf(out, "  learned?: if the table holds trained values (a learned position table, row r "
            "= position r), no formula is to be found: pecheck identify --family learned --table "
            "%s says what it is, and check --family learned checks its lookups and unique rows\n",
            t->path);
}

static void print_text(FILE *out, const void *found)
{
    const pc_sin_found *f = found;
    char formula[300];
    formula_text(f, formula, sizeof formula);
    fprintf(out, "%s  %s: positions %lld..%lld, d %d\n", f->found ? "FOUND" : "UNKNOWN",
            f->impl->name, (long long)f->lo, (long long)f->hi, f->d);
    if (f->no_formula) {
        fprintf(out, "  formula: none: the pairs' fitted frequencies are no sinusoidal formula's "
                "(fitted base %.9g, for which there are no certified frequencies)\n", f->base_raw);
        learned_hint(out, f);
        fprintf(out, "  check's line below: the paper's formula (base %.9g), which the rows do not "
                "follow\n", f->base);
        return;
    }
    fprintf(out, "  formula: %s%s\n", formula, f->found ? "" : " (closest; it does not explain "
            "every value)");
    fprintf(out, "  base: %.9g (fitted %.9g)\n", f->base, f->base_raw);
    fprintf(out, "  layout: %s, %s\n", pc_layout_name(f->layout), order_text(f));
    if (f->zero_row)
        fprintf(out, "  row 0: all zeros (a padding row, as fairseq zeroes row padding_idx); the "
                "rows after it %s the formula above from position %lld\n",
                f->rest_found ? "match" : "are closest to", (long long)f->first);
    if (f->grid_h)
        fprintf(out, "  rows: %lld cls rows, then a %lldx%lld grid, row N + i W + j = [PE_{d/2}(j) "
                "| PE_{d/2}(i)] (MAE's get_2d_sincos_pos_embed)\n", (long long)f->cls_rows,
                (long long)f->grid_h, (long long)f->grid_w);
    else if (f->timesteps)
        fprintf(out, "  rows: the timesteps of %s, angle scale %.9g\n", f->timesteps, f->scale);
    else
        fprintf(out, "  rows: positions %lld..%lld (row 0 is position %lld)\n",
                (long long)f->first, (long long)f->first + (long long)(f->hi - f->lo),
                (long long)f->first);
    if (f->timesteps || f->grid_h)
        fprintf(out, "  values: worst |err|/bound %.3g (row %lld, column %d)\n", f->worst,
                (long long)f->worst_pos, f->worst_pair);
    else
        fprintf(out, "  values: worst |err|/bound %.3g (pair %d, position %lld; %zu rows read)\n",
                f->worst, f->worst_pair, (long long)f->worst_pos, f->n);
    if (!f->found) learned_hint(out, f);
}

static void write_json(pc_json *j, const void *found)
{
    const pc_sin_found *f = found;
    pc_json_str(j, "source", f->impl->name);
    pc_json_bool(j, "found", f->found);
    pc_json_bool(j, "no_formula", f->no_formula);
    pc_json_int(j, "d", f->d);
    pc_json_obj(j, "positions");
    pc_json_int(j, "start", (long long)f->lo);
    pc_json_int(j, "end", (long long)f->hi);
    pc_json_end(j);
    pc_json_str(j, "layout", pc_layout_name(f->layout));
    pc_json_str(j, "order", pc_sin_found_cos_first(f) ? "cos-sin" : "sin-cos");
    pc_json_int(j, "freq_shift", f->shift);
    pc_json_str(j, "denominator", f->shift ? "d/2-1" : "d/2");
    pc_json_num(j, "base", f->base);
    pc_json_num(j, "base_fitted", f->base_raw);
    pc_json_num(j, "min_timescale", f->min_ts);
    pc_json_int(j, "first_position", (long long)f->first);
    pc_json_str(j, "presets", f->presets);
    pc_json_num(j, "worst_ratio", f->worst);
    pc_json_str(j, "timesteps", f->timesteps);
    pc_json_num(j, "angle_scale", f->timesteps ? f->scale : 1.0);
    if (f->grid_h) {
        pc_json_arr(j, "grid");
        pc_json_int(j, NULL, (long long)f->grid_h);
        pc_json_int(j, NULL, (long long)f->grid_w);
        pc_json_end(j);
        pc_json_int(j, "cls_rows", (long long)f->cls_rows);
    }
}

static pc_status run(const pc_impl *impl, const pc_spec *spec, int64_t lo, int64_t hi,
                     void **found, pc_err *err)
{
    pc_sin_found *f = calloc(1, sizeof *f);
    *found = f;
    if (!f) return pc_seterr(err, PC_ENOMEM, "out of memory");
    const pc_sin_spec *s = pc_sin_spec_of(spec);
    if (s && s->t) return pc_sin_timestep_identify(impl, spec, f, err);
    if (s && s->grid_h) return pc_sin_grid_identify(impl, spec, f, err);
    return pc_sin_identify(impl, spec, lo, hi, f, err);
}

static int explained(const void *found)
{
    return ((const pc_sin_found *)found)->found;
}

static void found_free(void *found)
{
    pc_sin_found *f = found;
    if (f) pc_sin_found_free(f);
    free(f);
}

static const pc_identify_kind identify = {
    .run = run, .explained = explained, .text = print_text, .json = write_json,
    .check_args = check_args, .free = found_free
};

/* ---- the likely cause of a failed gate ------------------------------------ */

/* The differences between what F found and the run CFG, "; "-separated. */
static void differences(const pc_sin_found *f, const pc_acc_cfg *cfg, char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = '\0';
    int shift = pc_sin_schedule_shift(cfg->sched);
    if (f->shift != shift && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%sthe d/2%s denominator, not d/2%s",
                              u ? "; " : "", f->shift ? " - 1" : "", shift ? " - 1" : "");
    double m = pc_sin_schedule_min(cfg->sched);
    if (f->min_ts != m && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%smin_timescale %.9g, not %.9g", u ? "; " : "",
                              f->min_ts, m);
    if (f->base != cfg->base && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%sbase %.9g, not %.9g", u ? "; " : "", f->base,
                              cfg->base);
    if (cfg->layout >= 0 && f->layout != cfg->layout && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%sthe %s layout, %s, not the %s layout the "
                              "check read", u ? "; " : "", pc_layout_name(f->layout),
                              order_text(f), pc_layout_name(cfg->layout));
    else if (f->cos_first && u < len)
        u += (size_t)snprintf(buf + u, len - u, "%s%s, not the order the check read",
                              u ? "; " : "", order_text(f));
    if (f->first != cfg->pos_lo && u < len)
        snprintf(buf + u, len - u, "%sthe first row is position %lld, not %lld",
                 u ? "; " : "", (long long)f->first, (long long)cfg->pos_lo);
}

/* The half-precision type on whose grid every value of F's rows lies
 * (PC_DT_BF16, then PC_DT_F16), -1 for none.  A binary32 table computed in
 * binary32 has a value off the bfloat16 grid with probability 1 - 2^-16
 * each; rows of 4 or more, d >= 2 values each, and at least 64 nonzero
 * values make the chance of a coincidence negligible. */
static int half_grid(const pc_sin_found *f)
{
    size_t n = f->n * (size_t)f->d, nonzero = 0;
    int bf16 = 1, f16 = 1;
    for (size_t k = 0; k < n && (bf16 || f16); k++) {
        float v = f->rows[k];
        nonzero += v != 0.0f;
        bf16 &= pc_bf16_value(pc_bf16_of(v)) == v;
        f16 &= pc_f16_value(pc_f16_of(v)) == v;
    }
    if (nonzero < 64) return -1;
    return bf16 ? PC_DT_BF16 : f16 ? PC_DT_F16 : -1;
}

/* When F's rows are a half-precision table widened to binary32 that the
 * run reads as binary32 values: the cause, into BUF. */
static int widened_cause(const pc_sin_found *f, const pc_table_info *t, char *buf, size_t len)
{
    int g = t->dtype == PC_DT_F32 && f->rows ? half_grid(f) : -1;
    if (g < 0) return 0;
    const char *name = pc_dtype_name(g);
    snprintf(buf, len, "every value of the table is a %s value (%s): a %s table widened to "
             "float32 (the model or buffer cast to torch.%s, then .float()), held to float32's "
             "bound; --dtype %s checks it as %s storage", name, g == PC_DT_BF16 ? "the low 16 "
             "bits of each float32 are 0" : "each is exact in binary16", name,
             g == PC_DT_BF16 ? "bfloat16" : "float16", name, name);
    return 1;
}

/* F's rows after an all-zero row 0 (fairseq's padding row) match: the
 * cause, into BUF. */
static int padding_row_cause(const pc_sin_found *f, char *buf, size_t len)
{
    if (!f->zero_row || !f->rest_found) return 0;
    snprintf(buf, len, "row 0 is all zeros, a padding row (fairseq's get_embedding zeroes row "
             "padding_idx), and the rows after it are positions %lld.. of the formula (%s): the "
             "table was sliced one row early, from the padding row; the rows a model reads start "
             "after it (weights[padding_idx + 1:], positions from padding_idx + 1)",
             (long long)f->first, f->presets[0] ? f->presets : "its base");
    return 1;
}

/* What F found against the check's CFG, into BUF ("" when it is what the
 * check used: the cause is elsewhere). */
static void matched_cause(const pc_sin_found *f, const pc_acc_cfg *cfg, char *buf, size_t len)
{
    char diff[400], formula[300];
    differences(f, cfg, diff, sizeof diff);
    formula_text(f, formula, sizeof formula);
    pc_args a = { 0, 0, { NULL } };
    check_args(f, &a);
    size_t u = (size_t)snprintf(buf, len, "this table matches %s, %s, row 0 at position %lld "
                                "(%s): pass", formula, order_text(f), (long long)f->first, diff);
    for (int k = 0; k < a.n && u < len; k++)
        u += (size_t)snprintf(buf + u, len - u, " %s", a.v[k]);
    if (!diff[0]) buf[0] = '\0';
    pc_args_free(&a);
}

/* Tables only: a built-in or plugin is not called again after its gate
 * (its calls are the gate's, tests/plugin_pool.t).  Identify searches from
 * the gate's configuration CFG (its width, layout and base), not from the
 * run's spec; a layout the check was given (--layout, a preset) that
 * explains nothing is tried the other way (the layout may be the mistake). */
static void likely_cause(const pc_impl *impl, const pc_spec *run_spec, const pc_acc_cfg *cfg,
                         char *buf, size_t len)
{
    (void)run_spec;
    buf[0] = '\0';
    const pc_table_info *t = pc_table_info_of(impl);
    if (!t) return;
    pc_spec spec;
    memset(&spec, 0, sizeof spec);
    spec.d = cfg->d;
    spec.layout = cfg->layout;
    spec.base = cfg->base;
    pc_sin_found f, other;
    pc_err err;
    pc_schedule checked = cfg->sched ? *cfg->sched : pc_schedule_geometric(cfg->base);
    pc_status st = pc_sin_identify(impl, &spec, cfg->pos_lo, cfg->pos_hi, &f, &err);
    if (st == PC_OK && !f.found && !f.zero_row && spec.layout >= 0) {
        spec.layout = PC_SIN_OTHER_LAYOUT;
        if (pc_sin_identify(impl, &spec, cfg->pos_lo, cfg->pos_hi, &other, &err) == PC_OK &&
            other.found) {
            pc_sin_found_free(&f);
            f = other;
        } else pc_sin_found_free(&other);
    }
    if (st == PC_OK && !padding_row_cause(&f, buf, len) && !widened_cause(&f, t, buf, len) &&
        !(!f.found && pc_sin_half_cause(&f, &checked, buf, len)) && f.found)
        matched_cause(&f, cfg, buf, len);
    pc_sin_found_free(&f);
}

const pc_diagnosis pc_sin_diagnosis = { .likely_cause = likely_cause, .identify = &identify };

/* report.h: `pecheck report` internals, shared by harness/report_*.c and
 * harness/cli/cmd_report.c.  Not a public API.
 *
 * A report is a folder: the data of every plot (.dat, whitespace-separated,
 * one header line naming the columns), the gnuplot script that draws it
 * (reports/NAME.gp with the run's parameters prepended), the image
 * (NAME.png), summary.json and index.html.  The data is computed here from
 * the public APIs (implementation hooks, the certified references, the
 * accuracy engine, the property engine, the precision model); gnuplot only
 * draws it, so a report without gnuplot still carries every number. */
#ifndef PECHECK_REPORT_H
#define PECHECK_REPORT_H

#include <stdint.h>
#include <stdio.h>
#include "harness/engine/accuracy.h"
#include "harness/sandbox/impl.h"
#include "harness/cli/opts.h"
#include "harness/sources/sources.h"
#include "harness/base/status.h"
#include "harness/formats/verdict.h"
#include "families/spec_sched.h"

#define PC_REP_PLOTS 10     /* the eight plots of issue 5, T5 buckets, ALiBi biases */
#define PC_REP_FILES 3      /* data files per plot, at most */
#define PC_REP_PATH 4096
#define PC_REP_FPATH (PC_REP_PATH + 640) /* a path in the report folder: dir + .tmp.PID + a file name */

/* One data file of a plot: name in the report folder and its row count
 * (data lines, without the header line). */
typedef struct pc_rep_data {
    char name[64];
    long rows;
} pc_rep_data;

typedef struct pc_rep_plot {
    const char *id;          /* NAME: NAME.gp draws NAME.png from NAME*.dat */
    const char *title;       /* heading in index.html */
    const char *caption;     /* what it shows and how to read it (HTML) */
    char note[1024];         /* computed remarks for this run (HTML-escaped text) */
    char vars[1024];         /* gnuplot variable lines prepended to the script */
    pc_rep_data data[PC_REP_FILES];
    int n_data;
    int wanted;              /* a family of the selection draws it (pc_report_plots_wanted) */
    int has_data;            /* 0: nothing to plot with this selection */
    int drawn;               /* NAME.png exists and is a PNG */
    char why[256];           /* not drawn: why */
} pc_rep_plot;

/* One selected implementation and one family it provides (a plugin that
 * exports several families has one entry per family). */
typedef struct pc_rep_impl {
    const pc_impl *impl;
    const char *family;      /* "sinusoidal", "rope", "learned", "attention", ... */
    int multi;               /* the implementation has entries for several families */
    int layout;              /* layout it accepts (0 interleaved, 1 half), -1 none */
    int has_acc;             /* accuracy gate ran */
    pc_acc_cfg cfg;
    pc_spec_sched sched;     /* the family's schedule behind CFG (released with the report) */
    pc_acc_result acc;
    /* the fitted model of the gate's rows (harness/engine/fitmodel.h):
     * FIT's status and summary (PC_SKIP: not fitted, the summary says why) */
    pc_verdict fit;
    /* the other layout's gate, where the source holds both (HAS_ACC2) */
    int has_acc2, layout2;
    pc_acc_cfg cfg2;
    pc_acc_result acc2;
    pc_verdicts props;       /* property verdicts (whatever the engine returns) */
    char prop_error[PC_ERR_LEN]; /* the property engine returned an error */
    /* scan of plot 1/2/3 (sinusoidal and RoPE) */
    double scan_max_abs, scan_max_ratio;
    int64_t scan_first_over; /* first sampled position over the bound, -1 none */
} pc_rep_impl;

/* Set each plot's WANTED: the error scan (plots 1-3) when a selected
 * entry's family has certified rows, a family's own plot (pc_family.plots)
 * when a selected entry is of that family.  The others are neither
 * computed, drawn nor shown. */
struct pc_report;
void pc_report_plots_wanted(struct pc_report *r);

typedef struct pc_report {
    pc_opts o;
    pc_specs specs;              /* each family's encoding (a table's width in every one) */
    int d;                       /* the report's width: --d, a table's, or the default */
    double base;                 /* the report's base: --base or the default */
    pc_rep_impl *impls;
    int n_impls;
    char dir[PC_REP_PATH + 32];  /* folder being written (DIR.tmp.PID) */
    char final_dir[PC_REP_PATH]; /* DIR */
    char scripts[PC_REP_PATH];   /* folder holding the NAME.gp scripts */
    const char *gnuplot;         /* program: $PECHECK_GNUPLOT or "gnuplot" */
    char gnuplot_version[128];   /* "" when gnuplot cannot be run */
    char gnuplot_missing[512];   /* why gnuplot cannot be run, "" when it can */
    pc_rep_plot plots[PC_REP_PLOTS];
    double C, u;                 /* precision model at --base, f32 (C_SCHED: the gates'
                                  * largest A kappa_i, from their schedules) */
    int C_sched;
    int strict;                  /* --strict: the gates' strict classes (C from them too) */
    char model[256];             /* pc_model_describe */
    int64_t scan_max;            /* largest position of the error scan */
    double seconds_data, seconds_plots, seconds_total;
    int has_proof;               /* proof-report.txt copied */
} pc_report;

/* ---- data (report_data.c) ------------------------------------------- */
/* Fill every plot's data files in R->dir, and the summary (accuracy gate,
 * properties) of every implementation. */
pc_status pc_report_summary(pc_report *r, pc_err *err);
pc_status pc_report_data(pc_report *r, pc_err *err);

/* The rows_note (families/spec.h) of a selected family (FAMILY, or any
 * when NULL) whose table rows are not of positions (--timesteps, --grid),
 * or NULL: the plots over positions do not apply to them. */
const char *pc_report_rows_note(const pc_report *r, const char *family);

/* The data of plots 4 to 10 (report_curves.c), called by pc_report_data. */
pc_status pc_report_plot_decay(pc_report *r, pc_err *err);
pc_status pc_report_plot_dot(pc_report *r, pc_err *err);
pc_status pc_report_plot_shift(pc_report *r, pc_err *err);
pc_status pc_report_plot_pe(pc_report *r, pc_err *err);
pc_status pc_report_plot_attention(pc_report *r, pc_err *err);
pc_status pc_report_plot_relative(pc_report *r, pc_err *err);

/* ---- drawing (report_plot.c) ---------------------------------------- */
/* Probe gnuplot; copy every script into R->dir with its variables; draw.
 * A missing gnuplot is not an error: plots are marked not drawn. */
pc_status pc_report_find_scripts(pc_report *r, pc_err *err);
pc_status pc_report_draw(pc_report *r, pc_err *err);

/* ---- pages (report_html.c) ------------------------------------------ */
pc_status pc_report_write_html(pc_report *r, pc_err *err);
pc_status pc_report_write_json(pc_report *r, pc_err *err);

/* ---- helpers (report_files.c) ---------------------------------------- */
/* Open R->dir/NAME for writing (an error names the file). */
FILE *pc_report_fopen(const pc_report *r, const char *name, pc_err *err, pc_status *st);
/* Close; an error of fclose/ferror becomes PC_EIO naming the file. */
pc_status pc_report_fclose(const pc_report *r, FILE *f, const char *name, pc_err *err);
/* Record data file NAME with ROWS rows on PLOT. */
void pc_report_add_data(pc_rep_plot *plot, const char *name, long rows);
/* A column name for IMPL (no spaces; gnuplot and CSV friendly), with
 * ":FAMILY" appended when FAMILY is not NULL. */
void pc_report_colname(const pc_impl *impl, const char *family, char *buf, size_t len);
void pc_html_escape(FILE *f, const char *s);
/* A number for a data file: "NaN" where there is no value. */
void pc_report_put_num(FILE *f, double v);
/* The column names of the selected implementations SEL[0..N_SEL), each after PREFIX. */
void pc_report_header_impls(FILE *f, const pc_report *r, const int *sel, int n_sel,
                            const char *prefix);
/* Whether plot ID draws RI's family (pc_family.plots). */
int pc_report_draws(const pc_rep_impl *ri, const char *id);
/* Whether IMPL serves position POS (impl.h: 0, 0 = unlimited). */
int pc_report_in_range(const pc_impl *impl, int64_t pos);

#endif

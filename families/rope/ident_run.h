/* ident_run.h: what `pecheck identify` finds of one RoPE source, shared
 * by diagnosis.c (the fits, the printing, check_args) and ident_axes.c
 * (rows at position ids of several axes: which axis each pair follows). */
#ifndef PECHECK_ROPE_IDENT_RUN_H
#define PECHECK_ROPE_IDENT_RUN_H

#include <stddef.h>
#include <stdint.h>
#include "families/spec.h"
#include "harness/sandbox/impl.h"
#include "identify.h"
#include "fit.h"
#include "scaling.h"
#include "identify_form.h"

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
    int split_any;            /* 1: every axis holds the same position in every row: any split
                               * explains the rows, SPLIT is one for check, not found; 2: two
                               * axes do, ALIKE: the split between them is not found */
    int alike[2];
    int halves_found;         /* none given: each axis' dims a half layout of its own, found */
    int storage_found;        /* none given: 1 the frequencies float16 values, 2 the angles too */
    /* no split explains every pair (UNKNOWN): SPLIT_OPT and SPLIT are the
     * closest tried, CLOSEST_PAIRS of its pairs on their axes, TRIED what
     * was tried; check takes them and fails with its own cause */
    int closest, closest_pairs;
    char tried[700];
    /* every pair follows an axis of the split found, its axis a the ids'
     * column PERM[a], not a: the columns in another order (UNKNOWN) */
    int permuted;
    int perm[PC_ROPE_AXES_MAX];
    int split_given;          /* a split given: each pair held to its axis (check's) */
    int d0, layout0;          /* the width and layout of the table's own reading, which each
                               * search of a split starts from (the halves read it in blocks) */
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
    /* float32 rows that passed it: the gate under hf and ggml (FORM_RAN),
     * the class proposed (identify_form.h) */
    int form_ran;
    pc_rope_form_probe form;
} ident_run;

/* Rows LO.. (M of them) of the rotation of (1, 0) in every pair of R's
 * source, in LAYOUT, into Y (M * d values); 0, or -1 when a call fails. */
int pc_rope_ident_rows_at(const ident_run *r, int layout, int64_t lo, size_t m, float *y);

/* Rows with position ids of several axes (ident_axes.c): under the split
 * given, else the split found; R's follow, sections and split then say
 * which axis each pair follows.  PC_EINPUT naming what was tried when no
 * split explains the pairs. */
pc_status pc_rope_identify_axes(ident_run *r, const pc_spec *spec, pc_err *err);

#endif

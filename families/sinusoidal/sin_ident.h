/* sin_ident.h: which sinusoidal formula a source's rows follow
 * (identify.c), and what the family says of it (diagnosis.c: identify's
 * output, check's arguments, the likely cause of a failed gate). */
#ifndef PECHECK_SIN_IDENT_H
#define PECHECK_SIN_IDENT_H

#include <stddef.h>
#include <stdint.h>
#include "sin_spec.h"
#include "harness/sandbox/impl.h"

typedef struct pc_sin_found {
    const pc_impl *impl;
    int d, layout, dtype;    /* LAYOUT: how the rows are read as pairs */
    int read_layout;         /* the layout the rows are asked for in (a table's own) */
    int64_t lo, hi;          /* the positions the rows were read as */
    size_t n;                /* rows read (the first ones) */
    float *rows;
    double base_hint;        /* the run's base (d = 2 has no other) */
    int swapped;             /* the rows were read swapped (--order cos-sin) */
    int cos_first;           /* as read: each pair's cos comes first */
    int shift;               /* omega_i = M (base/M)^(-i/(d/2 - shift)) */
    double min_ts;           /* M, tensor2tensor's min_timescale (1: none) */
    double base, base_raw;   /* the base (rounded when round), as fitted */
    int64_t first;           /* the position of the first row */
    double worst;            /* largest |err| / the accuracy gate's bound */
    int worst_pair;
    int64_t worst_pos;
    int found;               /* every value explained */
    int no_formula;          /* the fitted frequencies are no formula's (no certified
                              * frequencies for them: BASE_RAW and MIN_TS as fitted);
                              * BASE, SHIFT, MIN_TS then the paper's, for check's line */
    int zero_row;            /* row 0 was all zeros (a padding row) and is left out: the
                              * fields above are the rows after it (LO one later) */
    int rest_found;          /* with ZERO_ROW: every value after row 0 explained */
    char presets[120];       /* the presets of the formula, "t2t, fairseq and whisper" */
    const char *timesteps;   /* --timesteps: the rows are these timesteps' (NULL: positions) */
    double scale;            /* their angle scale K */
    int64_t grid_h, grid_w, cls_rows; /* --grid H,W, --cls-rows N (grid.c; GRID_H 0: none) */
} pc_sin_found;

/* Identify IMPL's rows over LO..HI (a table: its own rows) under SPEC
 * (width, layout, base of a source that is not a table; a table's layout
 * is its own, or the other one when SPEC's layout is PC_SIN_OTHER_LAYOUT:
 * a layout given with --layout or a preset that may be the mistake).
 * PC_EINPUT when there are too few rows or the hook declines. */
#define PC_SIN_OTHER_LAYOUT (-2)
pc_status pc_sin_identify(const pc_impl *impl, const pc_spec *spec, int64_t lo, int64_t hi,
                          pc_sin_found *f, pc_err *err);
void pc_sin_found_free(pc_sin_found *f);
/* F's rows (its layout and first position) as the schedule CHECKED (the
 * check's; NULL: none) or F's formula (found or closest) computed with the
 * positions or the frequencies held in float16 or bfloat16
 * (torch.arange(..., dtype=float16), a div_term in half precision): the
 * cause into BUF when one of those explains every value read; 0 else. */
struct pc_schedule;
int pc_sin_half_cause(const pc_sin_found *f, const struct pc_schedule *checked, char *buf,
                      size_t len);
/* The same for a table of timestep embeddings (--timesteps in SPEC;
 * timestep.c): the formula its row of the smallest timestep fits, checked
 * on every value.  F->rows stays NULL. */
pc_status pc_sin_timestep_identify(const pc_impl *impl, const pc_spec *spec, pc_sin_found *f,
                                   pc_err *err);
/* The table's own order: cos first (the rows' order undone of a swap). */
static inline int pc_sin_found_cos_first(const pc_sin_found *f)
{
    return f->cos_first != f->swapped;
}

/* A 2-D grid table (--grid, --cls-rows in SPEC; grid.c): the layout, the
 * order, the frequency denominator and the base (the paper's, or SPEC's
 * --base) under which grid.c's comparison passes every value and the cls
 * rows are zeros, into F (F->found 0 with the first reading when none). */
pc_status pc_sin_grid_identify(const pc_impl *impl, const pc_spec *spec, pc_sin_found *f,
                               pc_err *err);

extern const struct pc_diagnosis pc_sin_diagnosis;

#endif

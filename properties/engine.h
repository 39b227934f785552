/* engine.h (internal to the property engine): what its four parts share.
 *
 *   run.c          one property on one implementation: the cases, in order
 *                  (saved, generated or replayed), the sweep, the verdict;
 *                  the selection of properties for `pecheck check`
 *   shrink.c       the generic shrinker
 *   regressions.c  the regression file (saved failing cases; regressions.h,
 *                  its line reader regress_read.c)
 *   render.c       the verdict's text and JSON: counterexample, replay command
 *   catalogue.c    the list of properties
 *
 * The engine reads its parameters from a pc_prop_params (harness/cli/property.h),
 * never from the command line's options. */
#ifndef PECHECK_PROPERTIES_ENGINE_H
#define PECHECK_PROPERTIES_ENGINE_H

#include <stdint.h>
#include "property.h"
#include "regressions.h"
#include "harness/formats/verdict.h"
#include "families/family.h"

/* The first failing case of a run and what the shrinker made of it. */
typedef struct pc_found {
    int any;
    pc_case orig, cur;
    pc_outcome oc0, oc;
    int has_seed;
    uint64_t seed;
    const char *origin;  /* "regression", "generated", "replay", "sweep" */
    long index;
    int steps;
} pc_found;

/* ---- the run's family ---- */
/* A family with certified rows (sinusoidal, RoPE): a layout, a base. */
static inline int pc_eng_formula_family(const pc_prun *r)
{
    const pc_family *f = pc_family_find(r->family);
    return f && f->rows;
}

/* Rows that rotate an input vector (RoPE): the case's vectors matter. */
static inline int pc_eng_rotates_input(const pc_prun *r)
{
    const pc_family *f = pc_family_find(r->family);
    return f && f->rows && f->rows->input;
}

/* ---- shrink.c ---- */
/* Shrink CUR (failing as OC) to a smaller case failing the same way;
 * *STEPS counts the accepted candidates. */
pc_status pc_eng_shrink(const pc_property *p, pc_prun *r, pc_case *cur, pc_outcome *oc,
                        int *steps, pc_err *err);

/* ---- render.c ---- */
/* The verdict's identity (check, family, implementation, layout, seed). */
void pc_eng_fill_head(pc_verdict *v, const pc_property *p, const pc_prun *r);
/* The options that shaped R's run beyond its source, family, d, positions
 * and property, as a command line (" --base 10000 --layout half --table-sin
 * S.npy --hf-config c.json ..."): the replay line's, and the regression
 * file's record's. */
void pc_eng_run_options(const pc_prun *r, char *buf, size_t len);
pc_status pc_eng_skip(pc_verdict *v, const char *why);
/* The verdict of a failing run: FD's shrunk case, the replay command and
 * SAVE_NOTE (the regression file's line), in text and JSON. */
pc_status pc_eng_write_fail(const pc_property *p, pc_prun *r, pc_found *fd, pc_verdict *v,
                            const char *save_note, pc_err *err);
/* The verdict of a passing run of NCASES cases (NREG from the regression
 * file): WORST is the case nearest to failing, WOC its outcome; a property's
 * report may still turn it into a failure. */
pc_status pc_eng_write_pass(const pc_property *p, pc_prun *r, long ncases, int nreg,
                            const pc_case *worst, const pc_outcome *woc, pc_verdict *v,
                            const char *note, pc_err *err);

#endif

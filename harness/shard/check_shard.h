/* check_shard.h: `pecheck check --shard K/N` (a shard of the whole gate)
 * and `pecheck merge` of the N shard files into the unsharded run's result.
 *
 * Every shard makes the same list of verdicts, in the unsharded order (the
 * list depends only on the options and the sources); each verdict is one
 * slot of the shard file, made one of four ways:
 *   ACCURACY  the accuracy gate: shard K checks the K-th contiguous run of
 *             blocks; the slot holds the engine's exact result (shard.h),
 *             merged like `accuracy` shards, then rendered as check does;
 *   CASES     a property: shard K runs the K-th contiguous run of its cases
 *             (harness/cli/property.h, pc_case_split) and renders the verdict its
 *             cases would give if they decided the run; merge replays the
 *             engine's rule: the first failing case in case order, else the
 *             sweep's failure, else the passing case nearest to failing (the
 *             first of the largest scores);
 *   OWNER     a unit one shard runs whole (existential property, replay);
 *   SAME      made whole by every shard (skips, table and contract gates,
 *             the repeat check): merge takes shard 1's and requires all equal;
 *   FITTED    the fitted model: shard K writes the fit's constants and the
 *             exact sums of its own blocks (fitsums.h), or why it has none;
 *             merge joins them in shard order and judges the whole range
 *             (check_shard_fit.c).
 * The file carries the run's identity (options that change the result), so
 * shards of different runs are refused. */
#ifndef PECHECK_CHECK_SHARD_H
#define PECHECK_CHECK_SHARD_H

#include <stdio.h>
#include "harness/engine/accuracy.h"
#include "harness/engine/fitmodel.h"
#include "harness/engine/gate.h"
#include "harness/io/json.h"
#include "harness/io/jsonread.h"
#include "harness/cli/opts.h"
#include "harness/cli/property.h"
#include "harness/base/status.h"
#include "harness/formats/verdict.h"
#include "slot.h"

#define PC_CHECK_SHARD_KIND "check-shard"
#define PC_CHECK_SHARD_FORMAT 2 /* the layout of the file; a reader refuses another */

void pc_shard_rec_free(pc_shard_rec *rec);
/* The gates' view of REC (pc_gate.shard): how they record what they made. */
pc_gate_shard pc_shard_rec_gate(pc_shard_rec *rec);
/* The property engine's report of a verdict's split (pc_prop_params.split). */
void pc_shard_rec_split(void *rec, int slot, const pc_case_split *s);


/* Write the shard file of the verdicts VS of the run O. */
void pc_check_shard_write(FILE *f, const pc_opts *o, const pc_specs *specs, const pc_verdicts *vs,
                          const pc_shard_rec *rec);

/* Is TOP (a parsed file) a check shard? */
int pc_check_shard_is(const pc_jnode *top);

/* A failing case the unsharded run saves to its regression file: the
 * case of merged verdict VERDICT (a shard never writes the file). */
typedef struct pc_check_save {
    int verdict;
    const char *impl;            /* the implementation's whole name (in the parsed file) */
    uint64_t seed;
    int d;
    int64_t pos_lo, pos_hi;
    char options[1024];          /* the run's other options (informative) */
} pc_check_save;

/* What merge needs of the run to judge it as check does. */
typedef struct pc_check_run {
    uint64_t seed;
    const char *family;          /* --family (NULL: none) */
    int layout;                  /* --layout (-1: none) */
    const char *properties[PC_MAX_SOURCES];
    int n_properties;
    const char *regressions;     /* the shards' regression file (NULL: off) */
    pc_check_save *saves;        /* in verdict order; pc_check_run_free */
    int n_saves;
} pc_check_run;

void pc_check_run_free(pc_check_run *run);

/* Merge the N shard files TOPS[0..N) (parsed; FILES name them) into OUT,
 * the unsharded run's verdicts, and RUN (its strings point into TOPS; free
 * it with pc_check_run_free, also after an error).  Errors (PC_EINPUT) when
 * they are not the N shards of one run or a slot is not what pecheck
 * writes.  Writes no file: the caller saves RUN's cases. */
pc_status pc_check_shard_merge(const pc_jnode *const *tops, const char *const *files, int n,
                               pc_verdicts *out, pc_check_run *run, pc_err *err);

#endif

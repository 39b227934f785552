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
#include "harness/io/json.h"
#include "harness/io/jsonread.h"
#include "harness/cli/opts.h"
#include "harness/cli/property.h"
#include "harness/base/status.h"
#include "harness/formats/verdict.h"

#define PC_CHECK_SHARD_KIND "check-shard"
#define PC_CHECK_SHARD_FORMAT 2 /* the layout of the file; a reader refuses another */

enum pc_slot_mode { PC_SLOT_SAME = 0, PC_SLOT_CASES, PC_SLOT_OWNER, PC_SLOT_ACCURACY,
                   PC_SLOT_FITTED };

/* How one verdict of a shard was made. */
typedef struct pc_slot {
    int mode;                /* enum pc_slot_mode */
    pc_case_split split;     /* CASES, OWNER */
    /* ACCURACY: the engine's result and what its verdict's text needs */
    pc_acc_cfg cfg;          /* pointers other than family cleared */
    pc_acc_result res;
    int sched, storage;      /* a RoPE schedule was in force; DTYPE is a storage type */
    char sched_note[256];
    char context[1200];      /* a table's lines (gate.c) */
    int likely_set;          /* LIKELY was computed (the shard failed) */
    char likely[960];
    /* FITTED: the fit's constants and this shard's sums (owned), or the
     * reason it has none (FIT NULL); its seconds */
    pc_fitm fitm;
    struct pc_fitp *fit;
    char fit_note[200];
    double fit_seconds;
} pc_slot;

/* The slots of one shard, indexed like its verdicts. */
typedef struct pc_shard_rec {
    int k, n;
    pc_slot *slots;
    int cap;
} pc_shard_rec;

/* Slot INDEX (grown and zeroed: SAME), NULL when out of memory. */
pc_slot *pc_shard_rec_slot(pc_shard_rec *rec, int index);
void pc_shard_rec_free(pc_shard_rec *rec);
/* The property engine's report of a verdict's split (pc_prop_params.split). */
void pc_shard_rec_split(void *rec, int slot, const pc_case_split *s);

/* Slot INDEX as FITTED: the fit's constants M and the shard's SUMS (copied),
 * or, SUMS NULL, NOTE; its SECONDS.  PC_ENOMEM when out of memory. */
pc_status pc_shard_rec_fit(pc_shard_rec *rec, int index, const pc_fitm *m,
                           const struct pc_fitp *sums, const char *note, double seconds);
void pc_slot_fit_free(pc_slot *s);
/* The "fit" member of FITTED slot S (check_shard_fit.c). */
void pc_check_shard_write_fit(pc_json *j, const pc_slot *s);
/* S as the writer writes a binary64 (%a: "0x1.8p+0", "-0x0p+0", "nan",
 * "inf") into *X: 0, or -1 for any other text (blanks, decimals, "NaN",
 * "Infinity", upper case, a longer mantissa). */
int pc_check_shard_hex(const char *s, double *x);

/* S (a name or note from a file) for a message, in BUF: printable ASCII,
 * any other byte as '?', cut to LEN - 1 bytes. */
const char *pc_check_shard_shown(const char *s, char *buf, size_t len);

/* What merge knows of the run when it reads a FITTED slot: the merged
 * accuracy gate's configuration just before it (d, base, dtype, positions,
 * class, storage; SCHED set when a schedule was in force, which the shard
 * does not record) and each shard's own accuracy result (RES[j], shard
 * j + 1), where its faults and declined calls are. */
typedef struct pc_fit_ctx {
    const struct pc_acc_cfg *cfg;
    const struct pc_acc_result *const *res;
} pc_fit_ctx;
/* The fitted-model verdict of FITTED slot S of the N shards' slot arrays
 * SLOTS (FILES: their names, in shard order) into OUT (status, numbers,
 * text, seconds; the caller sets its identity and seed).  The constants
 * and notes are checked against what CTX implies (docs/sharding.md). */
pc_status pc_check_shard_merge_fit(const pc_jnode *const *slots, const char *const *files, int n,
                                   int s, const pc_fit_ctx *ctx, pc_verdict *out, pc_err *err);

/* Write the shard file of the verdicts VS of the run O. */
void pc_check_shard_write(FILE *f, const pc_opts *o, const pc_verdicts *vs, const pc_shard_rec *rec);

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

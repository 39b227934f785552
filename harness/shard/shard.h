/* shard.h: results of `pecheck accuracy --shard K/N` read back from their
 * JSON and combined into the result of the unsharded run.
 *
 * A shard covers a contiguous run of the run's blocks (pc_acc_shard_blocks);
 * its JSON carries every metric exactly (counts, hex witnesses, %.17g
 * maxima that read back to the same binary64, and the sums of squares as
 * exact expansions), so merging shards 1..N in order with the engine's own
 * merge gives bit for bit the metrics of the unsharded run. */
#ifndef PECHECK_SHARD_H
#define PECHECK_SHARD_H

#include "harness/engine/accuracy.h"
#include "harness/io/jsonread.h"
#include "harness/base/status.h"

/* --shard K/N: at most 2^20 shards (far more than blocks in any practical run) */
#define PC_SHARD_MAX (1 << 20)

/* One result read from a shard file. */
typedef struct pc_shard_item {
    const char *file;      /* the file it was read from (for messages) */
    char name[256];        /* implementation */
    char family[32];
    char base_from[200];   /* where the base came from ("": not said) */
    char schedule[1400];   /* params.schedule, the family's schedule (pc_spec_sched.note; "": none) */
    pc_acc_cfg cfg;        /* cfg.family points into FAMILY, cfg.base_from into BASE_FROM,
                            * cfg.sched_note into SCHEDULE,
                            * cfg.form into FORM (a strict class the family computed) */
    pc_acc_result res;
    /* bound.formulation, as read (pc_acc_form's arrays, d/2 pairs) */
    pc_acc_form form;
    char form_what[200];
    double form_kappa[PC_D_MAX / 2], form_k[PC_D_MAX / 2];
    float form_cand[PC_D_MAX / 2 * PC_ACC_FORM_CANDS];
} pc_shard_item;

/* Read one result object, checking every field: integers in range (no
 * 2^70), numbers finite (no 1e999; the writer writes null for a non-finite
 * value), parameters pecheck accepts, and counts, witnesses and status that
 * agree with each other and with the shard's positions (a "fail" shard with
 * nothing over the bound, or a "pass" one with failures, is refused).  Any
 * breach is PC_EINPUT naming FILE and the field. (the top object of a single-result file, or an
 * element of "results").  FILE names the input in messages. */
pc_status pc_shard_read(const pc_jnode *obj, const char *file, pc_shard_item *out, pc_err *err);

/* Combine N results of the same check, one per shard 1..N in any order,
 * into OUT (cfg.shard_n = 1: the unsharded run).  Errors when they are not
 * the N shards of one run (different implementation, parameters, bound or
 * shard count, a shard repeated, or missing: "shard 3/8 missing"). */
pc_status pc_shard_merge(const pc_shard_item *items, int n, pc_shard_item *out, pc_err *err);

#endif

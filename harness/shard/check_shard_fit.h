/* check_shard_fit.h: the fitted model's slots of a check shard (FITTED,
 * check_shard.h): recorded, written, and merged over the shards
 * (check_shard_fit.c). */
#ifndef PECHECK_CHECK_SHARD_FIT_H
#define PECHECK_CHECK_SHARD_FIT_H

#include "slot.h"

/* Slot INDEX as FITTED: the fit's constants M and the shard's SUMS (copied),
 * or, SUMS NULL, NOTE; its SECONDS.  PC_ENOMEM when out of memory. */
pc_status pc_shard_rec_fit(pc_shard_rec *rec, int index, const pc_fitm *m,
                           const struct pc_fitp *sums, const char *note, double seconds);
void pc_slot_fit_free(pc_slot *s);
/* The "fit" member of FITTED slot S (check_shard_fit.c). */
void pc_check_shard_write_fit(pc_json *j, const pc_slot *s);
/* The fitted-model verdict of FITTED slot S of the N shards' slot arrays
 * SLOTS (FILES: their names, in shard order) into OUT (status, numbers,
 * text, seconds; the caller sets its identity and seed).  The constants
 * and notes are checked against what CTX implies (docs/sharding.md). */
pc_status pc_check_shard_merge_fit(const pc_jnode *const *slots, const char *const *files, int n,
                                   int s, const pc_fit_ctx *ctx, pc_verdict *out, pc_err *err);

#endif

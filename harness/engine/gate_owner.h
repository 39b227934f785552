/* gate_owner.h: a gate that `check --shard K/N` does not split (the ABI v2
 * gates, families/NAME/gate_v2.c) made whole by one shard per verdict.
 *
 * Each of its verdicts is an OWNER slot (check_shard.h): shard
 * (slot mod N) + 1 makes it and merge takes that shard's.  A gate making
 * a group of verdicts from one run (a dtype and layout's accuracy and
 * pass-through) makes the group in each shard that owns one of its slots;
 * the others add the group's verdicts as placeholders, which the shard file
 * writes as null. */
#ifndef PECHECK_GATE_OWNER_H
#define PECHECK_GATE_OWNER_H

#include "harness/engine/gate.h"

/* Does this run make the group of N verdicts that starts at the next slot
 * (unsharded: always)? */
int pc_gate_owns(const pc_gate *g, int n);

/* The group's N verdicts (CHECKS[0..N), of LAYOUT) when another shard
 * makes them: placeholders saying which. */
pc_status pc_gate_elsewhere(pc_gate *g, const pc_impl *impl, const char *family,
                            const char *const *checks, int n, const char *layout);

/* In a shard, mark the N verdicts from slot FIRST as OWNER slots. */
pc_status pc_gate_owned(pc_gate *g, int first, int n);

#endif

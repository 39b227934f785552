/* gate.h: what a family's gate in `pecheck check` works with: the options,
 * the verdicts it appends, and the helpers every gate shares.  A family's
 * gate is pc_family.gate (families/family.h); the accuracy gate of the
 * families with certified rows is pc_gate_accuracy. */
#ifndef PECHECK_GATE_H
#define PECHECK_GATE_H

#include <stddef.h>
#include "impl.h"
#include "opts.h"
#include "status.h"
#include "verdict.h"
#include "../families/family.h"

struct pc_gate {
    const pc_opts *o;
    pc_verdicts *vs;
    pc_err *err;
};

/* Append a verdict of IMPL for FAMILY's CHECK (LAYOUT may be NULL), with
 * the seed filled and the numbers NaN; NULL when out of memory. */
pc_verdict *pc_gate_verdict(pc_gate *g, const pc_impl *impl, const char *family,
                            const char *check, const char *layout);
pc_status pc_gate_oom(pc_gate *g);

/* Everything `pecheck check` runs on IMPL (harness/cmd_check.c): a table's
 * own checks, then for each family it provides (only WANT when not NULL)
 * the family's gate and every property that applies, as verdicts in G->vs.
 * `pecheck demo` calls it on every built-in. */
pc_status pc_check_impl(pc_gate *g, const pc_impl *impl, const pc_family *want);

/* The accuracy gate (harness/accuracy.c) of a family with rows, on each
 * layout (both unless --layout; a declined layout is skipped). */
pc_status pc_gate_accuracy(pc_gate *g, const pc_impl *impl, const pc_family *fam);

#endif

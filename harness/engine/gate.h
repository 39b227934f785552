/* gate.h: what a family's gate in `pecheck check` works with: the options,
 * the verdicts it appends, and the helpers every gate shares.  A family's
 * gate is pc_family.gate (families/family.h); the accuracy gate of the
 * families with certified rows is pc_gate_accuracy. */
#ifndef PECHECK_GATE_H
#define PECHECK_GATE_H

#include <stddef.h>
#include "harness/sandbox/impl.h"
#include "harness/cli/opts.h"
#include "harness/base/status.h"
#include "harness/formats/verdict.h"
#include "families/family.h"

struct pc_shard_rec;
struct pc_gate {
    const pc_opts *o;
    pc_verdicts *vs;
    pc_err *err;
    struct pc_shard_rec *rec; /* check --shard K/N: how each verdict was made (NULL: not sharded) */
    /* the hashes of the rows the accuracy gate got, for the properties'
     * sweep that follows it (rowdigest.h); made and freed by
     * pc_check_impl, NULL otherwise */
    struct pc_row_digest *digest;
};

/* Append a verdict of IMPL for FAMILY's CHECK (LAYOUT may be NULL), with
 * the seed filled and the numbers NaN; NULL when out of memory. */
pc_verdict *pc_gate_verdict(pc_gate *g, const pc_impl *impl, const char *family,
                            const char *check, const char *layout);
pc_status pc_gate_oom(pc_gate *g);

/* Everything `pecheck check` runs on IMPL (harness/cli/cmd_check.c): a table's
 * own checks, then for each family it provides (only WANT when not NULL)
 * the family's gate and every property that applies, as verdicts in G->vs.
 * `pecheck demo` calls it on every built-in. */
pc_status pc_check_impl(pc_gate *g, const pc_impl *impl, const pc_family *want);

/* The accuracy gate (harness/engine/accuracy.c) of a family with rows, on each
 * layout (both unless --layout; a declined layout is skipped). */
pc_status pc_gate_accuracy(pc_gate *g, const pc_impl *impl, const pc_family *fam);

/* The accuracy gate's verdict in check: RES under CFG, after FAULT (NULL:
 * none), the TABLE lines (pc_gate_acc_context, "" for other sources) and
 * LIKELY, a RoPE failure's fitted cause ("" none).  `pecheck merge` makes
 * the verdict of merged check shards with it. */
struct pc_acc_cfg;
struct pc_acc_result;
void pc_gate_acc_render(const pc_impl *impl, const struct pc_acc_cfg *cfg,
                        const struct pc_acc_result *res, const char *fault, const char *table,
                        const char *likely, pc_verdict *v);
void pc_gate_acc_context(const pc_impl *impl, char *buf, size_t len);
/* FAMILY's rows rotate an input (RoPE): its failures get a fitted cause. */
int pc_gate_acc_rotates(const char *family);

/* The accuracy engine's run under CFG (pc_accuracy_run) of an ABI v2
 * gate's adapter of IMPL: HOOKS's ctx and hooks (the rest of HOOKS
 * unset), with IMPL's name and description, FAM's name as its family,
 * expected to pass (gate_adapter.c). */
pc_status pc_gate_run_adapter(const pc_impl *impl, const pc_family *fam, const pc_impl *hooks,
                              const struct pc_acc_cfg *cfg, struct pc_acc_result *res,
                              pc_err *err);

/* The fault an ABI v2 adapter's calls met (the adapter hands the engine
 * a nonzero return for a faulted call, and keeps the cause here).  Calls
 * on several threads fault in any order: the one of the lowest positions
 * is kept (pc_adapter_fault_note, under the adapter's lock), and it is
 * the run's fault only when it is the engine's first failing block (a
 * later block's, called before that failure ended the run, is not: one
 * thread would not have called it). */
typedef struct pc_adapter_fault {
    int faulted;
    int64_t pos;              /* the first position of its call */
    char cause[PC_ERR_LEN];
} pc_adapter_fault;
void pc_adapter_fault_note(pc_adapter_fault *f, const char *cause, int64_t pos0);
/* RES failed with F's fault (status, faulted, note set): 1, else 0. */
int pc_adapter_fault_apply(const pc_adapter_fault *f, struct pc_acc_result *res);

/* Nothing checked is an error, not a pass: PC_EINPUT naming what did not
 * apply when every verdict of VS was skipped or a --property of O ran on
 * nothing (check, and merge of check shards). */
pc_status pc_check_require(const pc_opts *o, const pc_verdicts *vs, pc_err *err);
/* VS in O's format on O's output (--quiet: text has one line per check);
 * with --output, the text report goes to stderr too, so that a CI log shows
 * what failed (the file is for tools). */
pc_status pc_check_report(const pc_opts *o, const pc_verdicts *vs, pc_err *err);

#endif

/* gate.h: what a family's gate in `pecheck check` works with: the run's
 * engine options, the family's encoding spec, the verdicts it appends, and
 * the helpers every gate shares.  A family's
 * gate is pc_family.gate (families/family.h); the accuracy gate of the
 * families with certified rows is pc_gate_accuracy. */
#ifndef PECHECK_GATE_H
#define PECHECK_GATE_H

#include <stddef.h>
#include "harness/sandbox/impl.h"
#include "harness/base/status.h"
#include "harness/base/dtype.h"
#include "harness/formats/verdict.h"
#include "families/family.h"

struct pc_acc_cfg;
struct pc_acc_result;
struct pc_prop_params;
struct pc_fitm;
struct pc_fitp;

/* How a shard of `check --shard K/N` keeps what the gates made (the shard
 * layer's record, harness/shard/check_shard.h): the gates call it, they
 * never write a shard themselves. */
typedef struct pc_gate_shard {
    int k, n;                /* shard K of N (1-based) */
    void *ctx;
    /* Verdict INDEX is the accuracy gate's RES under CFG, with its TABLE
     * lines, LIKELY cause (LIKELY_SET: computed, the shard failed) and OWN,
     * the source's own values at this shard's worst witness ("": none). */
    pc_status (*accuracy)(void *ctx, int index, const struct pc_acc_cfg *cfg,
                          const struct pc_acc_result *res, const char *table, const char *likely,
                          int likely_set, const char *own);
    /* Verdict INDEX is the fitted model of constants M and this shard's
     * SUMS (NULL: none, NOTE says why); its SECONDS. */
    pc_status (*fitted)(void *ctx, int index, const struct pc_fitm *m,
                        const struct pc_fitp *sums, const char *note, double seconds);
    /* Verdict INDEX is made whole by shard OWNER alone (gate_owner.h). */
    pc_status (*owned)(void *ctx, int index, int owner);
} pc_gate_shard;

struct pc_gate {
    /* the run's engine options: positions, dtype, tolerance (--tol-abs,
     * --strict, --max-abs-err), seed, --quiet, --threads; its family,
     * width, base and layout are the spec's (pc_gate_cfg) */
    const struct pc_acc_cfg *run;
    const pc_spec *spec;      /* the encoding of the family being gated */
    /* the properties that follow the gate (their selection: whether one
     * sweeps the rows, rowdigest.h); NULL: none */
    const struct pc_prop_params *par;
    pc_verdicts *vs;
    pc_err *err;
    const pc_gate_shard *shard; /* check --shard K/N: how each verdict was made (NULL: not sharded) */
    /* the hashes of the rows the accuracy gate got, for the properties'
     * sweep that follows it (rowdigest.h); made and freed by
     * pc_check_impl, NULL otherwise */
    struct pc_row_digest *digest;
    /* set by a family's gate whose verdict ends the family's checks of
     * the source (RoPE: a table whose columns are not the rotary dim, its
     * cause checked): the properties, which need the schedule the source
     * cannot be held to, are not run; pc_check_impl clears it */
    int family_done;
};

/* Append a verdict of IMPL for FAMILY's CHECK (LAYOUT may be NULL), with
 * the seed filled and the numbers NaN; NULL when out of memory. */
pc_verdict *pc_gate_verdict(pc_gate *g, const pc_impl *impl, const char *family,
                            const char *check, const char *layout);
pc_status pc_gate_oom(pc_gate *g);

/* The accuracy engine's configuration of G's family on LAYOUT: the run's
 * options with the spec's width and base, over the whole range. */
void pc_gate_cfg_spec(const pc_gate *g, int layout, struct pc_acc_cfg *cfg);
/* The same for IMPL's accuracy gate: this shard's part of the range, a
 * table's own width and range. */
void pc_gate_cfg(const pc_gate *g, const pc_impl *impl, int layout, struct pc_acc_cfg *cfg);

/* The accuracy gate (harness/engine/accuracy.c) of a family with rows, on each
 * layout (both unless --layout; a declined layout is skipped). */
pc_status pc_gate_accuracy(pc_gate *g, const pc_impl *impl, const pc_family *fam);

/* The accuracy gate's verdict in check: RES under CFG, after FAULT (NULL:
 * none), the TABLE lines (pc_gate_acc_context, "" for other sources),
 * LIKELY, a RoPE failure's ranked cause ("" none), and OWN, the source's
 * own values at the witness ("" none: rows without an input).  `pecheck
 * merge` makes the verdict of merged check shards with it. */
struct pc_acc_cfg;
struct pc_acc_result;
void pc_gate_acc_render(const pc_impl *impl, const struct pc_acc_cfg *cfg,
                        const struct pc_acc_result *res, const char *fault, const char *table,
                        const char *likely, const char *own, pc_verdict *v);
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

#endif

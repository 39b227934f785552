/* params.h: what one run of the property engine needs (the engine and the
 * catalogue read a pc_prop_params, never the command line: a command makes
 * one from its options and the family's spec, harness/cli/property.h). */
#ifndef PECHECK_PROP_PARAMS_H
#define PECHECK_PROP_PARAMS_H

#include <stdint.h>
#include "harness/sandbox/impl.h"
#include "harness/formats/verdict.h"
#include "families/spec.h"

/* How one property's verdict was made in shard K of N (`check --shard K/N`,
 * harness/shard/check_shard.h).  SAME: every shard makes the whole verdict (a
 * skip).  CASES: the cases are split into N contiguous runs of the global
 * order (saved cases first, then generated ones); each shard runs its own
 * and makes the verdict its cases would give if they decided the run, with
 * global case numbers and counts.  OWNER: one shard, OWNER, runs the whole
 * property (an existential property, a whole check, --replay). */
enum pc_split_mode { PC_SPLIT_SAME = 0, PC_SPLIT_CASES = 1, PC_SPLIT_OWNER = 2 };

typedef struct pc_case_split {
    int mode;             /* enum pc_split_mode */
    int owner;            /* OWNER: the shard that runs it; CASES: the shard that runs the sweep */
    long total;           /* CASES: cases of the whole run (saved + generated) */
    long start, end;      /* CASES: this shard's cases [start, end) */
    long failed_at;       /* CASES: the first failing case of [start, end), -1: none */
    double worst_score;   /* CASES: score of the passing case nearest to failing (-inf: none) */
    int sweep;            /* CASES: 0 not run here, 1 ran and found nothing, 2 found a failure */
    /* CASES, OWNER: the failing case this shard's verdict names, which the
     * unsharded run would save to the regression file: `pecheck merge`
     * saves it when the merged verdict is this one (a shard never writes the
     * file: shards running side by side read it) */
    int save;
    const char *save_impl;   /* the implementation's whole name (a verdict's may be cut) */
    uint64_t save_seed;
    int save_d;
    int64_t save_lo, save_hi;
    char save_options[1024]; /* the run's other options (pc_eng_run_options) */
} pc_case_split;

/* What one run of the property engine needs. */
typedef struct pc_prop_params {
    /* the encoding */
    int d;                   /* model dimension */
    double base;             /* frequency base */
    int layout;              /* 0 interleaved, 1 half, -1: probe the implementation */
    int dtype;               /* storage type of the precision model (enum pc_dtype) */
    int dtype_set;           /* DTYPE was chosen (the replay command names it) */
    int input_dtype;         /* the input vectors are values of this type (an ABI v2
                              * kernel's f16 or bf16 tensor: families/rope/props_v2.c);
                              * PC_DT_F32 (0): binary32 */
    const char *via;         /* how the implementation is called, for people, when not
                              * through its own hook (an adapter's: props_v2.c); NULL */
    int half_arith;          /* the rows are computed in the f16 or bf16 DTYPE (cos/sin
                              * cache, products and sum each rounded): the element
                              * bound is that class's (model.h, pc_model_element_half),
                              * as the ABI v2 gate's default class */
    double tol_abs;          /* absolute tolerance; < 0: the precision model */
    int strict;              /* --strict: the strict tolerance class (model.h) */
    int formulation;         /* STRICT came from --formulation (the replay names it) */
    /* the cases */
    int64_t pos_lo, pos_hi;  /* positions the cases draw from (inclusive) */
    uint64_t seed;           /* run seed: case I of property P has seed hash(seed, P, I) */
    long cases;              /* generated cases per property */
    int replay_set;          /* run only the case of seed REPLAY */
    uint64_t replay;
    const char *regressions; /* the regression file; NULL: none */
    const char *table_sin;   /* the sin table of a split table source (replay command) */
    /* the selection: names of properties ("all"); none: the default set */
    const char *const *properties;
    int n_properties;
    int gate_outside;        /* the caller runs the accuracy gate: never the catalogue's "accuracy" */
    /* a source whose kind has no other hooks than those it holds (a .npy
     * table): a property it lacks the hook of, and --property did not
     * name, gives no verdict (a skip is for what could have run) */
    int fixed_hooks;
    /* the family's encoding spec (families/spec.h): its schedule and its
     * own options (replay lines carry them); NULL: the shared defaults */
    const pc_spec *spec;
    int threads;             /* threads of a property's sweep (--threads); 0: every core */
    /* a shard of `check --shard K/N` (SHARD_N 0: not sharded): SLOT is the
     * verdict's index in the run (set by pc_properties_run_with); SPLIT,
     * when set, is told how each verdict was made */
    int shard_k, shard_n;
    int slot;
    void (*split)(void *ctx, int slot, const pc_case_split *s);
    void *split_ctx;
    /* the rows' hashes the accuracy gate made (harness/engine/rowdigest.h), for a
     * sweep over the same rows; NULL: none */
    const struct pc_row_digest *digest;
} pc_prop_params;

/* Run the properties selected by PAR (all by default; PAR->properties
 * filters) that apply to FAMILY on IMPL, appending one verdict per property. */
pc_status pc_properties_run_with(const pc_impl *impl, const char *family,
                                 const pc_prop_params *par, pc_verdicts *out, pc_err *err);
/* Whether a property PAR selects on FAMILY has a sweep over the whole
 * range (the accuracy gate then leaves it the rows' hashes, rowdigest.h). */
int pc_properties_sweep_selected(const char *family, const pc_prop_params *par);
#endif

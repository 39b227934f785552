/* accuracy.h: compare an implementation with the certified reference over
 * every position of a range and every dimension (the accuracy gate).
 *
 * Work is cut into fixed blocks of PC_ACC_BLOCK positions counted from the
 * first position; each block has its own metrics and blocks are merged in
 * position order, with the sums of squares added exactly (xsum.h), so the
 * result does not depend on how blocks are scheduled: the same bits for any
 * --threads N, and for shards (--shard K/N: a contiguous run of blocks)
 * combined by `pecheck merge` (shard.h). */
#ifndef PECHECK_ACCURACY_H
#define PECHECK_ACCURACY_H

#include <stdint.h>
#include <stdio.h>
#include "harness/sandbox/impl.h"
#include "harness/io/json.h"
#include "harness/base/status.h"
#include "harness/base/xsum.h"
#include "reference/reference.h"
#include "model.h"

/* The JSON's bound.C_formula where the kappa_i are a schedule's
 * (acc_output.c; merge reads it back, shard.c) */
#define PC_ACC_C_SCHED "the largest kappa_i (per pair, the schedule's: docs/schedules.md) times " \
    "the attention factor"
#define PC_ACC_BLOCK 256  /* positions per block: 256 x 8192 floats = 8 MiB max */
#define PC_ACC_LANES 2    /* layouts one pass can run together */

struct pc_witness;
/* Called for every element of a sampled run, in position order: W (the
 * element, its error and bound), the element's PAIR, and err/bound. */
typedef void (*pc_acc_observer)(void *ctx, const struct pc_witness *w, int pair, double ratio);

/* A strict class computed by the family for one run (pc_acc_cfg.form):
 * per pair, its phase constant, the formulation's frequency error in units
 * of u, and the binary32 frequencies the formulation can produce (up to
 * PC_ACC_FORM_CANDS a pair, ascending, the last repeated where there are
 * fewer; NULL where the formulation's angle is no binary32 frequency
 * times the position: ggml's cumulative product). */
#define PC_ACC_FORM_CANDS 4
typedef struct pc_acc_form {
    const char *what;       /* for people: "transformers' float32 frequency code" */
    const double *kappa;    /* d/2 */
    const double *k;        /* d/2 */
    const float *cand;      /* d/2 x PC_ACC_FORM_CANDS: pair i's from PC_ACC_FORM_CANDS i; or NULL */
} pc_acc_form;

typedef struct pc_acc_cfg {
    const char *family;     /* a family with certified rows (families/family.h) */
    int d;
    double base;
    int layout;             /* 0 interleaved, 1 half */
    int dtype;              /* declared working precision (enum pc_dtype) */
    int64_t pos_lo, pos_hi; /* inclusive */
    uint64_t seed;          /* RoPE input vectors */
    double tol_abs;         /* < 0: precision model */
    int quiet;              /* no progress line */
    int threads;            /* worker threads; 0: every online core */
    int shard_k, shard_n;   /* this run covers shard K of N (1-based); 0, 0 or 1, 1: all */
    /* A sampled run (the report's scan): the N_POSITIONS ascending
     * POSITIONS instead of pos_lo..pos_hi (which then only describe the
     * range), no shards. */
    const int64_t *positions;
    size_t n_positions;
    int unit_inputs;        /* rows with an input: seeded unit-norm pairs, not normal rows */
    pc_acc_observer observe;/* every element (one thread when set) */
    void *observe_ctx;
    /* the frequency schedule (NULL: the geometric one of BASE); its
     * precision-model constant is per pair (docs/schedules.md) */
    const pc_schedule *sched;
    const char *sched_note; /* one line describing SCHED (NULL: none) */
    /* the worst witness' coordinate text as a shard wrote it (merge, which
     * holds no schedule: check_shard.c); NULL: from SCHED (acc_verdict.c) */
    const char *coord_at;
    /* the kappa_i are a schedule's (a merged result's, which holds no SCHED:
     * harness/shard/shard.c reads it back from the shards' C_formula) */
    int kappa_sched;
    /* where BASE came from, for people (pc_spec.base_from: "--base", "the
     * default", "rope_theta of config.json"; a table's: "fitted from the
     * table"); NULL: not said */
    const char *base_from;
    /* 1: DTYPE is the storage of values computed in binary32 and rounded
     * once (a half-precision cache), not the working precision: the
     * bound is binary32's plus the storage rounding (docs/schedules.md) */
    int storage;
    /* 1 (with STORAGE): a kernel computing in DTYPE, its cos/sin cache,
     * products and sum each rounded (flash-attn, vLLM, HF eager at f16 or
     * bf16): three roundings instead of one (model.h
     * pc_model_element_half; docs/schedules.md) */
    int half_arith;
    /* the tolerance class (enum pc_model_class): 0 default, 1 cr, 2 hf;
     * the family may turn a bare --strict (1, FORMULATION 0) into its own
     * strict class (RoPE: hf) */
    int strict;
    int formulation;        /* --formulation named the class (0: not named) */
    /* non-NULL: why STRICT is not the class --formulation named (a family
     * without it runs its own: pc_spec_schedule), said in the verdict */
    const char *class_note;
    /* the strict class's phase constants where the family computes them
     * (RoPE's hf: formulation_hf.c); NULL: model.c's of the class */
    const struct pc_acc_form *form;
    /* 1: the family names the likely cause of a failure (its diagnosis,
     * pc_gate_acc_render): the text report gives the worst element's own
     * reading as that, not as the likely cause */
    int cause_given;
    double max_abs_err;     /* > 0: an absolute budget |err| <= E on top of the model */
    /* rows with an input: each input element rounded to this type (enum
     * pc_dtype; PC_DT_F32, the default: as drawn), so that a kernel taking
     * f16 or bf16 inputs is judged on the very inputs it was given */
    int input_dtype;
    /* non-NULL: also the fitted model's sums of this layout's rows (an
     * empty run of d/2 pairs, fitsums.h; the caller's), block by block in
     * the same pass: rows without an input from the rows the gate got,
     * rows with an input from one more call per block, the rotation of
     * (1, 0) on every pair, made in the lane's turn (fitmodel.h) */
    struct pc_fitp *fit;
    /* non-NULL: also the hashes of this layout's rows (rowdigest.h; the
     * caller's, empty, over pos_lo..pos_hi), each block's made by the
     * worker that holds its rows; complete after a run that called every
     * block without a failure (not a shard, not a sampled run) */
    struct pc_row_digest *digest;
} pc_acc_cfg;

/* kappa_i of pair I (frequency not exactly 1) in CFG's strict class: the
 * family's (CFG->form) or model.c's; the default class: -1. */
double pc_acc_class_kappa(const pc_acc_cfg *cfg, int i);

/* One element, shown as a witness. */
typedef struct pc_witness {
    int valid;
    int64_t pos;
    int dim;
    float got;
    float ref32;      /* correctly rounded binary32 reference */
    double ref;       /* correctly rounded binary64 reference */
    double err;       /* |got - ref| */
    double ulp;       /* err in ulps of ref32 */
    double bound;
    double theta;     /* pos * omega of the element's pair (binary64) */
    /* error split (pecheck_accuracy_split) */
    int has_split;    /* 1: implied split filled; 2: also the exact split */
    double angle_err; /* implied: angle of got pair minus angle of ref pair (rad) */
    double norm_err;  /* implied: |got pair| / |ref pair| - 1 */
    float theta_impl; /* exact split: the binary32 angle the implementation used */
    double angle_part;/* |ref at theta_impl - ref| */
    double eval_part; /* |got - ref at theta_impl| */
    /* the gate asked for POS alone (n = 1, pc_acc_alone), and then
     * (BATCHED) the element's err/bound in a call of BATCHED_N positions */
    int alone, batched, batched_n;
    double batched_ratio;
} pc_witness;

typedef struct pc_metrics {
    uint64_t count, n_over, n_exact, n_nonfinite;
    double max_abs, max_ulp, max_ratio;
    /* sums of squares: exact totals of the merged blocks (x*) plus the
     * running binary64 sum of the current block (blk_*); sum_sq_* is the
     * exact total rounded once, up to date after pc_metrics_merge and
     * pc_metrics_finish */
    double sum_sq_err, sum_sq_ref;
    double blk_sq_err, blk_sq_ref;
    pc_xsum xsq_err, xsq_ref;
    pc_witness worst;      /* largest err / bound: decides the verdict */
    pc_witness worst_abs;  /* largest absolute error */
    pc_witness first_over; /* first element over the bound, in position order */
} pc_metrics;

/* Where the element-wise bound stops constraining (model.h): from VAC_POS
 * the budget of pair VAC_PAIR exceeds PC_MODEL_VACUOUS of the pair's norm;
 * at the run's last position VAC_PAIRS pairs are past that point.  From
 * REP_POS the rounding of a binary32 angle alone (u |theta|, pair
 * REP_PAIR) exceeds it: no binary32 formulation represents the angle. */
typedef struct pc_acc_reach {
    int known;                 /* 0: not computed (a merged result without it) */
    int64_t vac_pos, rep_pos;  /* INT64_MAX: not below 2^53 */
    int vac_pair, rep_pair, vac_pairs;
} pc_acc_reach;

typedef struct pc_acc_result {
    pc_status status;      /* PC_OK pass, PC_FAIL, PC_SKIP */
    char note[256];        /* why skipped / implementation error */
    pc_metrics m;
    double C, u;           /* C: the largest A kappa_i; u: the budget's u, binary32's 2^-24
                            * (the storage's is u_s, pc_model_u_storage) */
    double R;              /* the radial part's constant in force (pc_model_radial and the
                            * schedule's model_r) */
    pc_acc_reach reach;
    double seconds;
    /* the implementation's error that ended the run (0: none), and the
     * positions of the block it came from (for `pecheck merge`) */
    int impl_rc;
    int64_t impl_rc_lo, impl_rc_hi;
    /* a call faulted (a plugin crashed, exited, hung or wrote outside OUT):
     * status is PC_FAIL and NOTE its cause; FAULT_LO is the first position
     * of the block whose call faulted (the run stopped before it) */
    int faulted;
    int64_t fault_lo;
    /* the call that ended the run (IMPL_RC or FAULTED) was the block's last
     * position asked for alone, after the block's other call returned */
    int impl_alone;
    /* with CFG->fit: why its sums stop short of the run's blocks (empty:
     * they do not), and the fit's share of the pass in seconds, taken out
     * of SECONDS (the pass's time split by the workers' measured time) */
    char fit_note[200];
    double fit_seconds;
} pc_acc_result;

/* Whether the gate under CFG asks for position POS alone (n = 1): the
 * last position of each block of more than one (acc_block.c pc_blk_call). */
int pc_acc_alone(const pc_acc_cfg *cfg, int64_t pos);
/* "WHAT (position POS asked for alone, n = 1, ...; the call of LO..POS-1
 * before it returned)" into BUF: the note of a run ended by that call. */
void pc_acc_alone_note(char *buf, size_t len, const char *what, int64_t pos, int64_t lo);
/* Whether witness W was asked for alone and its element differs in a call
 * of two positions: the single-position path is another (what the text
 * marks "asked for alone, n = 1"; a table or a built-in never is). */
int pc_witness_alone_differs(const struct pc_witness *w);

/* The bound CFG gives the element of witness W (its pair's norm from the
 * seeded input row); -1 when it cannot be computed (out of memory). */
double pc_accuracy_bound_at(const pc_acc_cfg *cfg, const pc_witness *w);
/* The rows of CFG's family (a family without rows reads as rows without an
 * input); for the output (acc_output.c). */
const struct pc_rows *pc_accuracy_rows_of(const pc_acc_cfg *cfg);
/* Under --strict, what the worst element W's angle says of the class, into
 * BUF; 0 when there is nothing to say (acc_output.c prints it). */
int pc_accuracy_class_why(char *buf, size_t len, const pc_acc_cfg *cfg, const pc_witness *w);

/* The checker, "error against bound", defined once for every gate and the
 * report: W's GOT against its certified REF (binary64) and REF32 (binary32)
 * under W's BOUND.  Fills W->err and W->ulp (+inf for a non-finite GOT) and
 * returns err/bound (+inf for any error under a zero bound).  The element
 * is over the bound when !(W->err <= W->bound). */
double pc_check_element(struct pc_witness *w);

/* Run the gate.  Returns PC_OK when the run completed (verdict in
 * RES->status), or an error (bad parameters, reference failure). */
pc_status pc_accuracy_run(const pc_impl *impl, const pc_acc_cfg *cfg,
                          pc_acc_result *res, pc_err *err);

/* The same run on NL (<= PC_ACC_LANES) configurations CFGS that differ
 * only in their layout, in one pass over the blocks: RES[l] is what
 * pc_accuracy_run gives for CFGS[l], bit for bit (seconds apart: each gets
 * an equal share of the pass).  A family whose rows have no input computes
 * the certified rows once for every layout (a layout is a permutation of
 * the pairs).  A plugin is called in (block, layout) order, the same for
 * any thread count; a layout's calls end at its first failed call. */
pc_status pc_accuracy_run_layouts(const pc_impl *impl, const pc_acc_cfg *cfgs, int nl,
                                  pc_acc_result *res, pc_err *err);

/* Metrics of one block, merged in order (exposed for threads and shards). */
void pc_metrics_init(pc_metrics *m);
/* INTO (earlier positions) absorbs FROM (later positions). */
void pc_metrics_merge(pc_metrics *into, const pc_metrics *from);
/* The same without refreshing the rounded sums (the engine merges its
 * blocks so, and finishes once). */
void pc_metrics_merge_raw(pc_metrics *into, const pc_metrics *from);
/* Bring sum_sq_err and sum_sq_ref up to date (after merges). */
void pc_metrics_finish(pc_metrics *m);

/* The blocks of a run: block b covers positions pos_lo + b*PC_ACC_BLOCK ..;
 * shard K of N takes blocks [*B0, *B1) (balanced contiguous split). */
int64_t pc_acc_nblocks(int64_t pos_lo, int64_t pos_hi);
void    pc_acc_shard_blocks(int64_t nblocks, int k, int n, int64_t *b0, int64_t *b1);

/* The note of a run ended by the implementation's error RC on the block
 * LO..HI: FIRST (the run's first block) means "layout not supported". */
void pc_acc_impl_note(char *buf, size_t len, const char *impl, int rc, int first,
                      int layout, int64_t lo, int64_t hi);

/* Cores online (>= 1): the default of --threads. */
int pc_cores(void);

double pc_rms(const pc_metrics *m);
double pc_nmse(const pc_metrics *m);

void pc_accuracy_print_text(FILE *f, const pc_impl *impl, const pc_acc_cfg *cfg,
                            const pc_acc_result *res);
/* Writes the JSON fields of one result into the current object. */
void pc_accuracy_json_fields(pc_json *j, const pc_impl *impl, const pc_acc_cfg *cfg,
                             const pc_acc_result *res);
void pc_witness_json(pc_json *j, const char *key, const pc_witness *w);

#endif

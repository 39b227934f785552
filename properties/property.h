/* property.h (internal to properties/): the property descriptor, the case a
 * generator draws, and the helpers the catalogue shares.
 *
 * A property is one file defining one pc_property, in families/NAME/ (or
 * here when it serves several families alike):
 *   - NAME and the FAMILIES it applies to ("sinusoidal rope", ...);
 *   - GEN: draws one case from a seeded PRNG (positions, offset, d, vectors,
 *     permutation); the case is a plain value, so shrinking copies it;
 *   - CHECK: runs the implementation on the case and returns an outcome:
 *     pass/fail, the MEASURED quantity and the BOUND it was held to (the
 *     bound derives from the precision model, harness/engine/model.h);
 *   - SHRINK: which fields of the case the engine's generic shrinker may
 *     simplify (and an optional VALID predicate and position targets);
 *   - the explanation: the math, why it holds, the tolerance in force;
 *   - optional SHOW / CAUSE / REPORT: the counterexample's values, a likely
 *     cause line, and whole-run extras (sweeps, fits, curves).
 *
 * Engine: properties/run.c, shrink.c, regressions.c, render.c (engine.h).
 * Adding a property: one file there and one line in the PC_PROPERTIES list
 * of properties/catalogue.c. */
#ifndef PECHECK_PROPERTIES_PROPERTY_H
#define PECHECK_PROPERTIES_PROPERTY_H

#include <stdint.h>
#include <stdio.h>
#include "harness/sandbox/hook.h"
#include "harness/sandbox/impl.h"
#include "params.h"
#include "harness/base/dtype.h"
#include "harness/base/rng.h"
#include "harness/base/status.h"
#include "reference/reference.h"

/* ------------------------------------------------------------------ */
/* Cases                                                              */

#define PC_CASE_MAXPOS 16   /* positions in one case (learned batches) */

enum pc_vmode {             /* how the case's vectors are made */
    PC_V_DENSE = 0,         /* every entry standard normal (from VSEED) */
    PC_V_PAIR  = 1,         /* normal entries on pair PAIR only, zero elsewhere */
    PC_V_UNIT  = 2          /* (1, 0) on pair PAIR only: the simplest vector */
};

typedef struct pc_case {
    int d;                        /* model dimension */
    int npos;                     /* positions used */
    int64_t pos[PC_CASE_MAXPOS];  /* positions (p, q; m, n; a batch) */
    int64_t k;                    /* offset k, shift s or relative distance r */
    int n;                        /* sequence length (attention) */
    int vmode, pair;              /* vectors (enum pc_vmode) */
    int perm;                     /* attention: 0 random permutation, 1 swap rows 0,1 */
    uint64_t vseed;               /* vectors, weights, permutation */
    int vdtype;                   /* the vectors are rounded to this type (pc_prop_params'
                                   * input_dtype; PC_DT_F32: as drawn) */
} pc_case;

/* ------------------------------------------------------------------ */
/* One run of one property on one implementation                      */

typedef struct pc_prun {
    const pc_impl *impl;
    const char *family;
    const pc_prop_params *params; /* d, base, seed, dtype, tolerance, ... */
    int layout;               /* pair layout in force (0 interleaved, 1 half) */
    int64_t lo, hi;           /* positions the cases draw from (inclusive) */
    double C, u, tol_abs;     /* precision model (model.h) */
    int64_t max_len;          /* learned: rows of the table */
    pc_freqs *freqs;          /* certified frequencies for FREQS_D (cache) */
    int freqs_d;
    struct pc_spec_sched *sched; /* the spec's schedule behind FREQS (NULL: geometric) */
    long calls;               /* hook calls made */
    int faulted;              /* the last failed call crashed or timed out (isolated hooks) */
    int no_hook;              /* skipped: the source lacks the hook the property calls */
    char implmsg[256];        /* last implementation error */
} pc_prun;

enum pc_okind { PC_O_PASS = 0, PC_O_FAIL = 1, PC_O_IMPLERR = 2 };

/* A sweep's *FOUND (pc_property.sweep): 0 nothing, 1 a failing case, or: */
enum { PC_SWEEP_IMPLERR = 2 };  /* a call of the implementation failed */

typedef struct pc_outcome {
    int kind;                 /* enum pc_okind */
    int sub;                  /* failure class; the shrinker keeps it */
    double measured, bound;   /* the verdict's numbers */
    double score;             /* badness, > 1 fails for most properties */
    char where[200];          /* where the worst element is, e.g. "pair 0 (dims 0,1)" */
    /* the property's equation at this case, its two sides that differ, e.g.
     * "<R_0 q, R_0 k> = 1  but  <R_1 q, R_1 k> = 0.9959" ("": the render's
     * generic line, MEASURED against BOUND) */
    char eq[200];
    int pair;                 /* the worst pair (the shrinker tries it first), -1 none */
    int above;                /* 1: MEASURED must exceed BOUND (a margin), 0: stay within */
    char msg[256];            /* implementation error or note */
} pc_outcome;

/* shrink flags: which fields the generic shrinker simplifies */
enum {
    PC_SH_D    = 1 << 0,  /* d toward 2 */
    PC_SH_POS  = 1 << 1,  /* positions toward their target (default r->lo) */
    PC_SH_K    = 1 << 2,  /* k toward K_MIN */
    PC_SH_N    = 1 << 3,  /* n toward 2 */
    PC_SH_VEC  = 1 << 4,  /* dense -> one pair -> unit vector; pair toward 0 */
    PC_SH_PERM = 1 << 5,  /* random permutation -> swap of rows 0 and 1 */
    PC_SH_DROP = 1 << 6   /* drop positions from the batch (npos toward 1) */
};

typedef struct pc_property {
    const char *name;
    const char *families;      /* space-separated */
    const char *title;         /* one line for the registry */
    const char *measured_what; /* what MEASURED is */
    const char *expect;        /* one line: what a correct implementation gives */
    const char *pos_names;     /* names of the case's positions, e.g. "p" or "m n" */
    const char *k_name;        /* name of K ("k", "s", "r"), NULL when unused */
    const char *math;          /* the statement, a few lines */
    const char *why;           /* why it holds */
    const char *tolerance;     /* the bound and where it comes from */
    /* The built-ins that break it, for `pecheck explain`: one whose idea is
     * wrong (a conceptual mistake) and one whose idea is right but whose
     * arithmetic is not precise enough (a precision mistake), each with one
     * line on its teaching run; NULL where no built-in makes that kind of
     * mistake (integer families have no precision to lose). */
    const char *concept_impl, *concept_note;
    const char *precision_impl, *precision_note;
    /* For a margin property (an outcome with ABOVE set): why a run may pass
     * although its worst case is within the margin, shown in that summary
     * (NULL: the margin always holds in a passing run). */
    const char *margin_note;
    /* On rows that are not of positions (a spec's rows_note: --timesteps):
     * why the property is not run (NULL: it compares rows of consecutive
     * positions). */
    const char *rows_note_why;
    int default_off;           /* run only when selected with --property */
    int shrink;                /* PC_SH_* */
    int64_t k_min;             /* smallest k (shrink target) */
    /* PC_OK applicable; PC_SKIP with the reason in OC->msg */
    pc_status (*setup)(pc_prun *r, pc_outcome *oc);
    void (*gen)(pc_prun *r, pc_rng *g, pc_case *c);
    /* Returns PC_OK with *OC filled, or an error of pecheck itself. */
    pc_status (*check)(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err);
    int (*valid)(const pc_prun *r, const pc_case *c);             /* NULL: all */
    int64_t (*pos_target)(const pc_prun *r, const pc_case *c, int j); /* NULL: r->lo */
    /* The counterexample's inputs and values (indented lines). */
    void (*show)(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f);
    /* One line on the likely cause, or NULL. */
    const char *(*cause)(pc_prun *r, const pc_case *c, const pc_outcome *oc,
                         char *buf, size_t len);
    /* After the cases: a sweep that may find a failing case (*FOUND = 1),
     * or whose call of the implementation failed (*FOUND = PC_SWEEP_IMPLERR,
     * R->implmsg naming the fault and the positions, C those positions). */
    pc_status (*sweep)(pc_prun *r, pc_case *c, int *found, pc_err *err);
    /* Extra lines for the details (curves, fits); may turn a pass into a
     * fail by setting OC (kind, measured, bound, where). */
    pc_status (*report)(pc_prun *r, const pc_case *c, pc_outcome *oc, FILE *f, pc_err *err);
    /* Existential for this run (NULL: universal): the property holds when
     * SOME case passes (e.g. "the causal mask shows"); it fails, with the
     * first case shrunk, only when no case does. */
    int (*existential)(const pc_prun *r);
    /* A property that is a whole check of its own (accuracy). */
    pc_status (*whole)(pc_prun *r, void *verdict, pc_err *err);
} pc_property;

/* ------------------------------------------------------------------ */
/* The catalogue                                                      */

size_t pc_property_count(void);
const pc_property *pc_property_at(size_t k);
const pc_property *pc_property_find(const char *name);
/* " (did you mean linear-shift?)" for a mistyped property NAME, or "";
 * returns BUF. */
const char *pc_property_hint(const char *name, char *buf, size_t len);
int pc_property_applies(const pc_property *p, const char *family);
/* Run P on IMPL for FAMILY into V (what pc_properties_run does for each
 * selected property; `pecheck explain` calls it on a teaching built-in). */
struct pc_verdict;
pc_status pc_property_run(const pc_property *p, const pc_impl *impl, const char *family,
                          const pc_prop_params *par, struct pc_verdict *v, pc_err *err);

/* ------------------------------------------------------------------ */
/* Helpers for properties (properties/util.c)                         */

/* omega_i = base^(-2i/d) in binary64 (a few binary64 ulps: 2^-50
 * relative, negligible beside binary32's u = 2^-24); a spec's own schedule's
 * omega_i once its frequencies for D are made (pc_p_freqs; pc_p_sinusoidal
 * makes them). */
double pc_p_omega(const pc_prun *r, int d, int i);
/* the precision model's bound for one element of angle THETA */
double pc_p_bound(const pc_prun *r, double theta, double scale);
/* The bound of one element of pair I of dimension D (its frequencies
 * pc_p_freqs'd) at angle THETA: with a schedule (a RoPE --hf-config, ...),
 * the schedule's own C_i (docs/schedules.md) times its attention factor A,
 * C_i u (1 + |theta|) A SCALE, the values being A cos, A sin; else
 * pc_p_bound's. */
double pc_p_bound_i(const pc_prun *r, int d, int i, double theta, double scale);
/* The accuracy gate's budget (harness/engine/model.h, default class) of pair I of
 * dimension D at POS, ROTATES for RoPE rows; a schedule or --tol-abs: pc_p_bound_i. */
double pc_p_bound_pair(const pc_prun *r, int d, int i, int64_t pos, int rotates, double scale);
/* How far a correct pair's norm may move, at any angle: sqrt(2)
 * pc_p_bound_i at theta = 0 (C_i u A SCALE, or --tol-abs).  Of B(theta) =
 * C u (1 + |theta|), the term C u |theta| is the angle's error, which
 * moves a pair along its circle and keeps its norm; C u is the rounding of
 * the values themselves, at most C u on each of the pair's two elements,
 * so sqrt(2) C u on its norm.  A pair of norm 0 (a zero or constant
 * table) fails it however large the angle (docs/precision-model.md,
 * "The norm at any angle"). */
double pc_p_norm_bound_i(const pc_prun *r, int d, int i, double scale);
/* column of member K (0 sin/x, 1 cos/y) of pair I */
size_t pc_p_col(int layout, int d, int i, int k);
/* certified frequencies for D (cached in R) */
pc_freqs *pc_p_freqs(pc_prun *r, int d, pc_err *err);
/* The attention factor of the frequencies in force for D (1: none). */
double pc_p_att_factor(pc_prun *r, int d);
/* Release the frequencies and schedule of R. */
void pc_p_release(pc_prun *r);

/* Hook calls: 0 on success; nonzero: the implementation failed (message
 * in R->implmsg, naming the hook, the inputs and the fault if isolated). */
/* What the run's family is (its descriptor, families/family.h): rows
 * bounded by a row count (a learned table), rows that rotate an input
 * vector (RoPE). */
int pc_p_bounded(const pc_prun *r);
int pc_p_rotates(const pc_prun *r);
int pc_p_sinusoidal(pc_prun *r, const int64_t *pos, size_t n, int d, float *out);
int pc_p_rope(pc_prun *r, const int64_t *pos, size_t n, int d, const float *x, float *out);
int pc_p_learned(pc_prun *r, const int64_t *pos, size_t n, int d, float *out);
int pc_p_attention(pc_prun *r, size_t n, int d, const float *x, const float *wq,
                   const float *wk, const float *wv, int causal, float *out);
/* R's message for a call of HOOK that returned RC or faulted (FAULT) for
 * WHAT (its inputs): "crashed (the fault)", "returned RC", or, for a call
 * the plugin host refused (the entry point timed out earlier, the host
 * could not be restarted), "not run ..., because ...". */
void pc_p_hook_msg(pc_prun *r, pc_hook_id hook, int rc, const pc_fault *fault, const char *what);
/* Fill OC as an implementation error from R->implmsg. */
void pc_p_implerr(pc_prun *r, pc_outcome *oc);
/* A setup's skip for the source's lack of HOOK ("t5_bucket"): PC_SKIP,
 * OC->msg saying so, R->no_hook set. */
pc_status pc_p_no_hook(pc_prun *r, pc_outcome *oc, const char *hook);

/* A property's REPORT whose call failed (R->implmsg): a line on F saying
 * so of WHAT, and a passing outcome OC becomes that implementation error
 * (a failure in a report is a failure of the run, as in its cases). */
void pc_p_report_implerr(pc_prun *r, pc_outcome *oc, FILE *f, const char *what);

/* The case's vectors: D values for vector number WHICH (pairs of LAYOUT). */
void pc_p_vector(const pc_case *c, int layout, int which, float *out);

/* A position in [lo, hi] (uniform) and an offset drawn for k-type fields:
 * 1 with probability 1/4, small (1..64) 1/4, anywhere up to SPAN 1/2. */
int64_t pc_p_pos(pc_rng *g, int64_t lo, int64_t hi);
int64_t pc_p_offset(pc_rng *g, int64_t kmin, int64_t span);

/* Shared pieces of properties over a position and an offset k:
 * pc_p_need_two skips a run whose range holds fewer than two positions;
 * pc_p_gen_pos_k draws pos in [lo, hi-1] and k in [1, hi-pos];
 * pc_p_valid_pos_k says whether a (shrunk) case still fits the range. */
pc_status pc_p_need_two(pc_prun *r, pc_outcome *oc);
void pc_p_gen_pos_k(pc_prun *r, pc_rng *g, pc_case *c);
int pc_p_valid_pos_k(const pc_prun *r, const pc_case *c);

/* "0.841470957 (0x1.aed548p-1)" */
void pc_p_float(FILE *f, double v);
/* a row (or its first pairs) as "[a, b, ...]" with hex */
void pc_p_row(FILE *f, const float *v, int d, int max);

/* The message of a pc_status error of pecheck itself */
pc_status pc_p_nomem(pc_err *err);

#endif

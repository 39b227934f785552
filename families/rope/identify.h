/* identify.h: which RoPE frequency schedule a cache or implementation
 * computes (identify.c): base, schedule type and its parameters where they
 * are identifiable, attention factor, position offset, as an HF-shaped
 * rope_scaling object.  docs/identify.md: the method and what cannot be
 * told apart. */
#ifndef PECHECK_ROPE_IDENTIFY_H
#define PECHECK_ROPE_IDENTIFY_H

#include <stddef.h>
#include "fit.h"
#include "harness/io/json.h"
#include "scaling.h"

typedef struct pc_rope_ident {
    int found;                /* a schedule explains every resolved pair */
    int refused;              /* pecheck's schedules refuse the parameters (not proposed) */
    int type;                 /* enum pc_rope_type */
    int d;
    double base, base_fit;    /* the base (rounded when within 0.1%), the fitted one */
    double factor;
    double orig_max;          /* yarn, llama3: original length; longrope: the cache's */
    double max_pos;           /* dynamic: max_position_embeddings */
    double seq_len;           /* dynamic: the sequence length assumed (the cache's) */
    double lf, hf;            /* llama3 */
    int yarn_low, yarn_high;  /* yarn: the ramp's ends */
    double beta_fast, beta_slow;  /* yarn: the betas that put them there (HF's 32, 1 by default) */
    int no_truncate;          /* yarn: the ramp's ends not whole (HF's truncate false) */
    double att;               /* the fitted norm of the pairs */
    int att_given;            /* the norm is not the schedule's own factor: given */
    double *ext;              /* longrope: the factor of every pair */
    double resid;             /* largest |w~/w - 1| - fit error over the resolved pairs */
    int resolved;
    char note[640];           /* what was assumed (several clauses: 330 characters cut one) */
} pc_rope_ident;

/* Identify the schedule of the fitted frequencies F (positions 0.. of a
 * cache of SEQ_LEN rows; BASE_HINT > 1: the base to assume).  ID->found
 * says whether the identified schedule, evaluated by pecheck's certified
 * schedules, explains every resolved pair. */
pc_status pc_rope_identify(const pc_rope_fit *f, int d, double seq_len, double base_hint,
                           pc_rope_ident *id);
void pc_rope_ident_free(pc_rope_ident *id);
/* Other readings of F's frequencies anchored at the rows' own positions
 * (F->omega_err; none without them), for when ID (pc_rope_identify's on
 * the unanchored fit) fails the gate: ID's type, then default, linear,
 * YaRN and llama3, with their base, factor, ramp or band refitted to them,
 * then a factor per pair (LongRoPE), at most MAX into OUT, in that order
 * (each pc_rope_ident_free'd by the caller); their count (polish.c). */
int pc_rope_ident_candidates(const pc_rope_fit *f, const pc_rope_ident *id, pc_rope_ident *out,
                             int max);
/* The accuracy gate of `check` with ID's schedule on table IMPL's rows, read
 * as those of positions AT.. in LAYOUT and storage DTYPE (check's default
 * class and seed, as check_args give them): 1 passed, 0 failed, -1 not run
 * (identify_gate.c); *RATIO its max |err|/bound. */
int pc_rope_ident_gate(const pc_impl *impl, const pc_rope_ident *id, int layout, int dtype,
                       int64_t at, double *ratio);
/* For table IMPL's rows LO..HI (D, BASE, LAYOUT as for pc_rope_fit_run,
 * U_S its storage's unit roundoff, DTYPE the storage check_args name)
 * whose reading ID failed the gate: the fit anchored at the rows' own
 * positions, its readings (pc_rope_ident_candidates) each gated, then
 * refitted once more to the pairs anchored at their own frequencies: the
 * first that passes into *OUT (its gate's *RATIO; SCHEDULES_ONLY: no factor
 * per pair), 1; 0 when none does
 * (or none is made), -1 when the rows cannot be fitted (identify_gate.c). */
int pc_rope_ident_anchored(const pc_impl *impl, int d, double base, int layout, int64_t lo,
                           int64_t hi, double u_s, int dtype, const pc_rope_ident *id,
                           int schedules_only, pc_rope_ident *out, double *ratio);

/* The HF rope_scaling object of ID ("null" for the default schedule). */
void pc_rope_ident_json(const pc_rope_ident *id, char *buf, size_t len);
/* The same through the JSON writer J (null for the default schedule). */
void pc_rope_ident_json_write(pc_json *j, const char *key, const pc_rope_ident *id);
/* One line: "default, base 500000" / "llama3, base 500000, factor 8, ...". */
void pc_rope_ident_describe(const pc_rope_ident *id, char *buf, size_t len);
/* What differs between ID and the schedule a check used (USED: NULL for
 * the geometric one of USED_BASE; USED_ATT its attention factor), as "this
 * cache matches yarn with factor 2, attention factor 1.0693; the check used
 * factor 4, attention factor 1.1386"; empty when nothing does. */
void pc_rope_ident_diff(const pc_rope_ident *id, const pc_rope_params *used, double used_base,
                        double used_att, char *buf, size_t len);
/* ID's schedule as prepared parameters (pc_rope_params_free). */
pc_status pc_rope_ident_params(const pc_rope_ident *id, pc_rope_params *p, pc_err *err);

#endif

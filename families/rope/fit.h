/* fit.h: a RoPE implementation's frequencies and amplitude, measured
 * through its own hook (fit.c): the base of a table given without one,
 * and the likely cause of a failure. */
#ifndef PECHECK_ROPE_FIT_H
#define PECHECK_ROPE_FIT_H

#include <stddef.h>
#include <stdint.h>
#include "harness/sandbox/impl.h"
#include "harness/base/status.h"

typedef struct pc_rope_fit {
    int h;              /* pairs */
    size_t n;           /* positions used */
    double eps;         /* phase error of one stored pair (radians) */
    double pos_max;     /* the largest |position| of the rows (0: not known): a binary32
                         * angle p w adds up to 2^-22 p w to a phase (fit_ids.c's e(p)) */
    double *omega;      /* fitted frequency of each pair */
    double *omega_ls;   /* the least-squares slope of each pair's unwrapped phase over
                         * consecutive rows (NULL: not made): the end phases' 2 e / (n - 1)
                         * bounds it too, but a storage's rounding errors, which vary along
                         * the rows, average out in it */
    double *amp;        /* mean |(cos, sin)| of each pair */
    double *lamp_slope, *lamp_at0; /* the least-squares line of ln |(cos, sin)| over the rows:
                         * its slope per row and its value at the first row (NULL: not
                         * made); xPos's zeta_i^((p + q0)/B) is the line ln zeta_i (p + q0)/B */
    int *resolved;      /* the pair turned enough for its frequency to be fitted */
    double *omega_err;  /* per pair, the absolute error of OMEGA once anchored at the rows'
                         * own positions (pc_rope_fit_anchor; NaN: not anchored; NULL: none) */
} pc_rope_fit;

/* Fit IMPL's rotations of positions LO..HI (consecutive) at D, BASE (the
 * hook's argument: a table ignores it) and LAYOUT; U_S the unit roundoff
 * of its storage.  PC_SKIP when the hook declines or fewer than 16
 * positions. */
pc_status pc_rope_fit_run(const pc_impl *impl, int d, double base, int layout, int64_t lo,
                          int64_t hi, double u_s, pc_rope_fit *f);
void pc_rope_fit_free(pc_rope_fit *f);
/* F's frequencies from the phases of the rows LO..HI (the last 4096 of
 * them) at their own positions (anchor.c): per pair not anchored yet
 * whose turns at those positions an estimate tells (F's own, its anchored
 * neighbours', or MODEL[i] good to REL_MODEL relatively; MODEL NULL:
 * none), the line theta = p w through position 0, with its error in
 * F->omega_err; a pair whose rows stray from the line (rows of other
 * positions) keeps F's frequency. */
void pc_rope_fit_anchor(const pc_impl *impl, int d, double base, int layout, int64_t lo,
                        int64_t hi, pc_rope_fit *f, const double *model, double rel_model);

/* The fit of the N rows LO.. of IMPL (D, BASE, LAYOUT as for
 * pc_rope_fit_run) whose positions are IDS[0..N) (--position-ids of one
 * axis: any order, repeats and gaps; fit_ids.c): per pair the phases of
 * the distinct positions unwrapped from the closest two outwards while the
 * step is unambiguous; F->n - 1 is the span whose 2 eps / (n - 1) bounds
 * the frequencies' error as for consecutive rows.  INFO: what the ids and
 * rows say besides.  PC_SKIP under 16 rows, with no two distinct positions
 * within 3 of each other (INFO->seed_gap), or when the hook declines. */
typedef struct pc_rope_ids_info {
    size_t distinct;          /* distinct positions */
    int64_t first, last;      /* the smallest and largest */
    int64_t seed_gap;         /* the smallest step between two of them */
    size_t unreached;         /* positions a pair's unwrapping could not reach (the most) */
    int off_pairs;            /* pairs whose phases follow no one frequency over the ids */
    int dup_pairs;            /* pairs whose rows of one position differ */
} pc_rope_ids_info;
pc_status pc_rope_fit_ids(const pc_impl *impl, int d, double base, int layout, int64_t lo,
                          size_t n, const int64_t *ids, double u_s, pc_rope_fit *f,
                          pc_rope_ids_info *info);

/* The same fit made row by row, in any number of pieces (memory: a few
 * numbers a pair, whatever the positions): pc_rope_fit_acc_row takes one
 * position's (A cos, A sin) of each of the H pairs, C[i] and S[i], in
 * position order; pc_rope_fit_acc_end gives what pc_rope_fit_run gives
 * for those rows (PC_SKIP under 16 rows), the same operations per pair in
 * the same order, and frees A.  AMP 0: no amplitudes (NaN; the base's fit
 * does not use them). */
typedef struct pc_rope_fit_acc {
    int h;
    size_t n;               /* rows so far */
    double *sum_amp;        /* or NULL */
    double *turn, *prev;    /* unwrapped phase so far, last phase */
    double *sy, *sxy;       /* sums of the unwrapped phase y and of r y over the rows r */
    double *sla, *srla;     /* with amplitudes: sums of ln |(c, s)| and of r ln |(c, s)| */
} pc_rope_fit_acc;

pc_status pc_rope_fit_acc_init(pc_rope_fit_acc *a, int h, int amp);
void pc_rope_fit_acc_row(pc_rope_fit_acc *a, const double *c, const double *s);
pc_status pc_rope_fit_acc_end(pc_rope_fit_acc *a, double u_s, pc_rope_fit *f);
/* PART, made of pairs I0 .. I0 + PART->h - 1 of the same rows (a share of
 * the pairs), into A's: pairs do not mix, so the fit of A is the one the
 * rows give when all of its pairs are fed at once. */
void pc_rope_fit_acc_join(pc_rope_fit_acc *a, const pc_rope_fit_acc *part, int i0);
void pc_rope_fit_acc_free(pc_rope_fit_acc *a);
/* IMPL's rotation of (1, 0) in every pair at positions LO..LO+N-1 (D,
 * BASE, LAYOUT as the hook takes them): (A cos, A sin) of pair I at row R
 * into C[R h + I], S[R h + I].  0, or -1 when a call failed or faulted. */
int pc_rope_unit_rows(const pc_impl *impl, int d, double base, int layout, int64_t lo, size_t n,
                      double *c, double *s);
/* The position offset q of rows at position LO whose pair I holds the
 * phase atan2(S[I], C[I]), against the frequencies OMEGA (h pairs): the
 * rows are those of LO + q.  Unwrapped from the lowest frequency (coarse;
 * a start a whole period of it away tried when a step moves the offset by
 * more than a quarter turn) to the highest (fine), each step taken while
 * the offset is known to better than pi / (2 w); EPS the phase error of one
 * pair.  A whole number when within 0.01 of one; NAN when no start holds
 * at every pair. */
double pc_rope_fit_offset(const double *c, const double *s, const double *omega, int h, double lo,
                          double eps);
/* A table's base (pc_diagnosis.table_base, families/family.h): 1 when its
 * rows LO..HI fit a clean geometric schedule, *RAW that base and *BASE it
 * rounded to 3 significant digits (NaN when not within 0.1%); and the same
 * from the table's one read (pc_rope_table_points, a pc_points_fit of
 * families/family.h); table_base.c. */
int pc_rope_table_base(const pc_impl *impl, int d, int layout, int64_t lo, int64_t hi, double u_s,
                       double *base, double *raw);
struct pc_points_fit;
extern const struct pc_points_fit pc_rope_table_points;
/* The median amplitude of the pairs. */
double pc_rope_fit_amp(const pc_rope_fit *f);
/* The geometric base the frequencies fit (NaN: too few pairs), *RESID the
 * largest |ln w_i + (2i/d) ln B| of the resolved pairs. */
double pc_rope_fit_base(const pc_rope_fit *f, int d, double *resid);
/* The ratio B'/B of the base B' whose geometric change explains the
 * ratios r_i = w~_i / OMEGA_i (ln r_i = -(2i/d) ln(B'/B)): the median of
 * the per-pair estimates; *SHARE the share of resolved pairs it explains
 * within 1%. */
double pc_rope_fit_base_change(const pc_rope_fit *f, int d, const double *omega, double *share);
/* Share of the resolved pairs whose fitted frequency is within 1% of
 * OMEGA (d/2). */
double pc_rope_fit_explained(const pc_rope_fit *f, const double *omega);
/* B rounded to 3 significant digits when within 0.1%, else NaN. */
double pc_rope_round_base(double b);
/* Frequencies read as base B' (or as linear scaling by FACTOR over BASE,
 * LINEAR 1) that are BASE's own with the exponent 2i/d miscomputed: into
 * BUF what the exponent is (2i/(d - 2): a linspace; 0: integer division;
 * (2i + k)/d: an arange from k), "" when none is; exact identities, so
 * the reading's own check is this claim's. */
void pc_rope_exponent_note(double base, double v, int linear, int d, char *buf, size_t len);
/* One line naming the likely cause of a mismatch with the schedule whose
 * frequencies are OMEGA (d/2) and attention factor ATT (SCHED: a scaled
 * schedule, not the geometric one); empty when the fit finds none. */
void pc_rope_fit_cause(const pc_rope_fit *f, int d, double base, const double *omega, double att,
                       double u_s, int sched, char *buf, size_t len);

struct pc_acc_cfg;
/* xPos (xpos_cause.c): when CFG's schedule is xPos and the source's pair
 * norms are an xPos of another scale base, offset or sign, that cause
 * into BUF (1); else 0. */
int pc_rope_xpos_cause(const pc_impl *impl, const struct pc_acc_cfg *cfg, char *buf, size_t len);

/* The likely cause of a failed accuracy gate of IMPL under CFG (RoPE):
 * its fit against CFG's schedule; empty when none is found (likely.c). */
struct pc_acc_cfg;
struct pc_spec;
void pc_rope_likely_cause(const pc_impl *impl, const struct pc_spec *spec,
                          const struct pc_acc_cfg *cfg, char *buf, size_t len);
/* Under a strict class (CFG->strict: hf or cr), a failure the frequencies
 * account for (strict_freq.c): every pair whose angles leave what the
 * class allows has one binary32 frequency that reproduces its rows (the
 * fitted one, made exact), an ulp or more from each of the class's, and
 * the default class passes the rows.  1 with the cause (its pairs and
 * ulps measured) into TEXT and what shows it into EV; 0 otherwise. */
int pc_rope_strict_freq_cause(const pc_impl *impl, const struct pc_acc_cfg *cfg, char *text,
                              size_t tlen, char *ev, size_t elen);
/* After a default-class pass of a float32 table checked against a
 * config (CFG): when the hf class (--strict) fails the same rows, run
 * here, and its frequencies account for it (as above), that claim into
 * BUF ("" otherwise): a note pointing at --strict (strict_freq.c). */
void pc_rope_strict_pass_note(const pc_impl *impl, const struct pc_spec *spec,
                              const struct pc_acc_cfg *cfg, char *buf, size_t len);
/* When the fit F explains another layer type of the config CFG's schedule
 * came from ("this cache matches layer type sliding_attention ...: pass
 * --layer-type sliding_attention"), or its schedule over the whole head
 * instead of the rotary dims, say so before BUF's cause and make *ALT
 * (freed first) that schedule's frequencies and attention factor (d/2 + 1
 * values, malloc'd) for the ranking (rank.h); config_match.c. */
void pc_rope_config_match(const pc_rope_fit *f, const struct pc_acc_cfg *cfg, char *buf, size_t len,
                          double **alt);

/* A table whose columns are not the config's rotary dim, and what they
 * hold when the rows show it (slice_cause.c): an interleaved cache cut
 * with [..., :d/2] (half the rotary dim's columns, adjacent ones repeating
 * the first half of the rotary schedule's pairs), or the config's schedule
 * computed over the table's own columns (the whole head).  1 with the
 * cause into CAUSE, checked before the gate; 0 otherwise. */
struct pc_gate;
struct pc_rope_spec;
/* A table of one column a pair whose last columns are cos 1 and sin 0 at
 * every row read (identity: the non-rotary dims of a partial rotary):
 * 1 with what it holds and its rotary part's slice into CAUSE (beside
 * RS's rotary dim, the one given; RS NULL or 0: none); the slice to check
 * with its --rotary-dim, or (IDENTIFY) to identify.  0 otherwise, and
 * always where RS gives the rows positions of their own or several axes. */
int pc_rope_identity_cause(const pc_impl *impl, const struct pc_rope_spec *rs, int identify,
                           char *cause, size_t len);
int pc_rope_shape_cause(const struct pc_gate *g, const pc_impl *impl, char *cause, size_t len);

#endif

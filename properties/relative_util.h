/* relative_util.h (internal to properties/): shared pieces of the
 * relative-position properties (t5-*, alibi-*, txl-*): hook calls with
 * error messages, the exhaustive distance scans, case vectors.
 *
 * Shrinking discrete families.  T5 buckets and ALiBi slopes fail on sets of
 * distances (or head counts) that are not intervals: t5-round fails on the
 * upper half of each logarithmic bin, alibi-pow2 on every head count that
 * is not a power of two.  Greedy shrinking of one distance could stop on a
 * local minimum.  These properties therefore make the case a SCAN LIMIT
 * (K = R: every distance |j - i| <= R; N = every head count <= N) and report
 * the first failure in scan order: "some distance <= R fails" is monotone in
 * R, so the engine's shrinker (which tries R - 1) ends on the smallest R
 * that fails, and the reported distance is the smallest failing one. */
#ifndef PECHECK_PROPERTIES_RELATIVE_UTIL_H
#define PECHECK_PROPERTIES_RELATIVE_UTIL_H

#include "property.h"
#include "reference/relative.h"

/* The parameters the T5 properties use: HF's defaults (T5Config), both
 * variants (index 0 bidirectional, 1 causal). */
#define PC_RP_T5_NB PC_T5_HF_BUCKETS
#define PC_RP_T5_MD PC_T5_HF_MAXDIST
/* Scan radius drawn by the generators: up to 4 max_distance, so that every
 * exact, logarithmic and saturated bucket is visited (HF: 512). */
#define PC_RP_T5_RMAX (4 * PC_RP_T5_MD)

/* One scan of the implementation's buckets, both variants:
 * NEG[m][n] = bucket(-n), POS[m][n] = bucket(+n), n = 0..R, and the far
 * distances FARNEG/FARPOS = bucket(-+F). */
typedef struct pc_t5_scan {
    int64_t R, F;
    int32_t *neg[2], *pos[2];
    int32_t farneg[2], farpos[2];
} pc_t5_scan;

/* Runs the hook (one call per variant); 0 on success, else OC is filled as
 * an implementation error.  Free with pc_rp_t5_scan_free. */
int pc_rp_t5_scan(pc_prun *r, int64_t R, int64_t F, pc_t5_scan *s, pc_outcome *oc,
                  pc_err *err, pc_status *st);
void pc_rp_t5_scan_free(pc_t5_scan *s);
const char *pc_rp_t5_mode(int m);

/* Generator shared by the T5 scans: K = R in [0, RMAX], POS[0] = F a far
 * distance in [MD, 2^62] (log-uniform), shrunk toward MD. */
void pc_rp_t5_gen(pc_prun *r, pc_rng *g, pc_case *c);
int64_t pc_rp_t5_far_target(const pc_prun *r, const pc_case *c, int j);
int pc_rp_t5_valid(const pc_prun *r, const pc_case *c);
pc_status pc_rp_t5_setup(pc_prun *r, pc_outcome *oc);
/* setup of the ALiBi bias properties: skip sources without alibi_bias */
pc_status pc_rp_alibi_bias_setup(pc_prun *r, pc_outcome *oc);

/* The exact bucket (families/t5/t5_ref.c) of REL in variant M (0 bidirectional,
 * 1 causal) at the properties' parameters; the MPFR part (distances in
 * [max_exact, max_distance)) is computed once per process.  Returns -1 if
 * the reference failed (a bug of pecheck). */
int32_t pc_rp_t5_expected(int m, int64_t rel);

/* A T5 scan property: PRED(m, rel, got, scan, n, &expect) returns 1 when
 * the bucket GOT of REL (n = |REL|) in variant M is right; EXPECT is what it
 * should be (printed).  Elements are visited by n = 0..R, then variant,
 * negative before positive, then (FAR) the far distances -F, +F; the first
 * failure is reported. */
typedef int (*pc_rp_t5_pred)(int m, int64_t rel, int32_t got, const pc_t5_scan *s,
                             int64_t n, int32_t *expect);
pc_status pc_rp_t5_check(pc_prun *r, const pc_case *c, pc_outcome *oc, pc_err *err,
                         pc_rp_t5_pred pred, int far);
/* The counterexample: buckets got / exact near the failing distance. */
void pc_rp_t5_show(pc_prun *r, const pc_case *c, const pc_outcome *oc, FILE *f);

/* Fail OC at (mode M, distance REL): got GOT, expected EXP. */
void pc_rp_fail(pc_outcome *oc, int sub, double got, double expect, const char *fmt, ...)
    __attribute__((format(printf, 5, 6)));
void pc_rp_pass(pc_outcome *oc);

/* ALiBi hook calls (0 on success, else OC filled). */
int pc_rp_alibi_slopes(pc_prun *r, int heads, float *out, pc_outcome *oc);
int pc_rp_alibi_bias(pc_prun *r, int heads, const int64_t *qpos, size_t nq,
                     const int64_t *kpos, size_t nk, int causal, float *out,
                     pc_outcome *oc);
/* Largest head count the ALiBi generators draw (scan limit), and the
 * number of query/key positions of one bias case. */
#define PC_RP_ALIBI_HMAX 32
#define PC_RP_ALIBI_L 8

/* Transformer-XL: the case's inputs (q: NQ x D rows, k: NK x D rows, u, v,
 * wr: D x D) from its vectors, and the hook call. */
typedef struct pc_txl_in {
    int d;
    size_t nq, nk;
    float *q, *k, *u, *v, *wr;
} pc_txl_in;
int pc_rp_txl_inputs(pc_prun *r, const pc_case *c, size_t nq, size_t nk, pc_txl_in *in);
void pc_rp_txl_free(pc_txl_in *in);
int pc_rp_txl(pc_prun *r, const pc_txl_in *in, const int64_t *qpos, const int64_t *kpos,
              float *out, pc_outcome *oc);
/* Largest d of a Transformer-XL case (the MPFR reference costs O(d^2) per
 * score at 1024 bits): --d is clamped to it. */
#define PC_RP_TXL_DMAX 32

#endif

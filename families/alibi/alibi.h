/* alibi.h: the ALiBi family's own parts shared by its files: its encoding
 * spec (options.c), the tolerance class of slopes (slope_class.c), its .npy
 * tables (table.c) and their gate (gate.c), and identify (identify.c). */
#ifndef PECHECK_ALIBI_H
#define PECHECK_ALIBI_H

#include <stddef.h>
#include <stdint.h>
#include "families/family.h"
#include "reference/relative.h"

/* ---- the spec (options.c) -------------------------------------------- */

typedef struct pc_alibi_spec {
    int heads;              /* --heads or the config's head count; 0: none */
    int bias_max;           /* --alibi-bias-max or the config's alibi_bias_max; 8 */
    int heads_set, bias_max_set; /* given (replay lines carry them) */
    const char *config;     /* --hf-config or --alibi-config (NULL: none) */
    const char *config_opt; /* which of them: "hf-config" or "alibi-config" */
    char source[240];       /* where HEADS came from, for people */
} pc_alibi_spec;

extern const pc_spec_kind pc_alibi_spec_kind;
/* SPEC's ALiBi part (the defaults when SPEC is NULL or not ALiBi's). */
const pc_alibi_spec *pc_alibi_spec_of(const pc_spec *spec);

/* ---- the tolerance class of a slope (slope_class.c) -------------------- */

/* The relative bound BETA of slope H of HEADS against its exact value:
 *   strict: one ulp of the exact slope, ULP32 / |S| (a binary64
 *           evaluation rounded once to binary32, the paper's code);
 *   default: (1 + u0)^K (1 + 8u) - 1 with K = pc_alibi_power: a
 *           binary32 power of the ratio rounded to binary32, a pow within
 *           4 ulps, which MPT's 1 / pow with one more rounding stays
 *           within (docs/relative.md, "Slopes
 *           computed in binary32").
 * S: the exact slope (binary64), ULP32: the ulp of its binary32 rounding. */
double pc_alibi_slope_beta(int heads, int h, double s, double ulp32, int strict);
/* The bound of a value V = m (K) (a slope when K = 1, a bias at distance
 * K) under BETA, stored in a type of unit roundoff U_S (0: binary32 or
 * wider): |v - m K| <= |m K| ((1 + BETA)(1 + u)(1 + u_s) - 1), the
 * product's rounding u only when K != +-1. */
double pc_alibi_value_bound(double exact, double beta, int64_t k, double u_s);
/* The class's name, as the verdicts say it. */
const char *pc_alibi_class_name(int strict);

/* ---- tables (table.c) -------------------------------------------------- */

enum pc_alibi_form {
    PC_ALIBI_SLOPES = 0,    /* (H,): the slopes */
    PC_ALIBI_FULL = 1,      /* (H, nq, nk): -m_h |j - i| (the paper, MPT full=True) */
    PC_ALIBI_KEYS = 2       /* (H, 1, n): m_h (j - j0), the key position's line
                             * (BLOOM build_alibi_tensor: j0 = 0; MPT: j0 = n - 1);
                             * (H, n, n) with CAUSAL: the line on and below the
                             * diagonal (Baichuan's _gen_alibi_mask: m_h j) */
};

typedef struct pc_alibi_table {
    const char *path;
    int form;               /* enum pc_alibi_form */
    int heads;
    size_t nq, nk;          /* FULL: queries x keys; KEYS: 1 x n; SLOPES: 1 x 1 */
    int64_t key0;           /* KEYS: j0, the key whose bias is 0 */
    int causal;             /* (H, n, n) with -inf above the diagonal (a causal mask
                             * folded in): those entries must be -inf, the others
                             * are FULL's or KEYS' */
    int dtype;              /* storage (enum pc_dtype) */
    char dtype_note[120];
    char form_note[200];    /* how the form was found */
    const double *v;        /* the values, row-major as in the file (exact) */
    size_t count;
} pc_alibi_table;

extern const pc_table_reader pc_alibi_table_reader;
/* The ALiBi table behind IMPL, or NULL. */
const pc_alibi_table *pc_alibi_table_of(const pc_impl *impl);
/* Slope H of table T as the table holds it: the slope itself, or the
 * bias one key from j0 (KEYS) or from query 0 (FULL); NaN when the table
 * has no such element (a FULL table of one key). */
double pc_alibi_table_slope(const pc_alibi_table *t, int h);
/* The signed distance K of element (h, i, j) of T: its exact value is
 * K m_h (FULL: -|j - i|; KEYS: j - j0; SLOPES: 1). */
int64_t pc_alibi_table_k(const pc_alibi_table *t, size_t i, size_t j);

/* ---- the gate of a table (gate.c) ------------------------------------- */

pc_status pc_alibi_gate(pc_gate *g, const pc_impl *impl, const pc_family *fam);

/* ---- identify (identify.c) ------------------------------------------- */

/* The slopes of the libraries' formulations, computed exactly (MPFR):
 * the exact slope rounded once (the paper's get_slopes), BLOOM's
 * RN32(RN32(r)^K) (build_alibi_tensor: the ratio as a Python float, then
 * float32, raised with a correctly rounded pow), MPT's RN32(1 / RN32(2^m))
 * (gen_slopes). */
enum { PC_ALIBI_FORM_CR = 0, PC_ALIBI_FORM_BLOOM = 1, PC_ALIBI_FORM_MPT = 2 };
float pc_alibi_form_slope(int form, int heads, int bias_max, int h);

extern const pc_diagnosis pc_alibi_diagnosis;
/* The likely cause of a failed table gate under SPEC: what identify finds
 * and how it differs ("" when nothing explains the table). */
void pc_alibi_table_cause(const pc_alibi_table *t, const pc_spec *spec, int strict, char *buf,
                          size_t len);

#endif

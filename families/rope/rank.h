/* rank.h: the ranked diagnosis of a failed RoPE accuracy gate (rank.c).
 *
 * Each hypothesis about what the source computes (its values stored in
 * bfloat16, its angle or position held in low precision, the rows of
 * another position, sin and cos swapped, ...) predicts the source's
 * rotation of (1, 0) in every pair, A (cos, sin) of some angle; its
 * support is the share of the informative values it reproduces within a
 * binary32 kernel's error (docs/diagnosis.md).  The likely cause is the
 * best-supported one, with its evidence; the others follow it. */
#ifndef PECHECK_ROPE_RANK_H
#define PECHECK_ROPE_RANK_H

#include <stddef.h>
#include "families/spec.h"
#include "harness/sandbox/impl.h"

struct pc_acc_cfg;

#define PC_ROPE_CAUSES_MAX 32

typedef struct pc_rope_cause {
    double support;      /* share of the informative values it explains, in [0, 1] */
    int order;           /* on a tie, the lower first (the more specific) */
    char text[520];      /* the cause and its remedy, for people */
    char evidence[260];  /* what shows it */
} pc_rope_cause;

typedef struct pc_rope_causes {
    pc_rope_cause c[PC_ROPE_CAUSES_MAX];
    int n;
} pc_rope_causes;

/* A cause to OUT (nothing when full or TEXT is empty). */
void pc_rope_cause_add(pc_rope_causes *out, double support, int order, const char *text,
                       const char *evidence);
/* The hypotheses about IMPL's rotations under CFG (its spec SPEC) with
 * their support, added to OUT, and the schedule's account SCHED (fit.c's
 * words; "": none) with the support of ALT, the frequencies and attention
 * factor (d/2 + 1 values) identify finds (NULL: a fixed 0.6, below any
 * hypothesis that reproduces nine values in ten). */
void pc_rope_hypotheses(const pc_impl *impl, const pc_spec *spec, const struct pc_acc_cfg *cfg,
                        const char *sched, const double *alt, pc_rope_causes *out);
/* The causes ranked (support, then order) into BUF: the best on the first
 * line, then "  evidence: ...", then "  other candidates: ..." for those
 * with some support; "" when none has any. */
void pc_rope_causes_write(pc_rope_causes *cs, char *buf, size_t len);

#endif

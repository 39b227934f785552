/* fitmodel.h: the fitted model of what an implementation computes, per
 * (cos, sin) pair over the gate's positions, compared with the certified
 * schedule under aggregate bounds (docs/fitted-model.md):
 *
 *   effective frequency  the slope of the unwrapped phase residual
 *                        (implementation's angle minus pos * omega_i);
 *   phase offset         its mean (an effective position offset when
 *                        divided by omega_i);
 *   amplitude            the mean norm of the pair over A;
 *   DC offset            the mean of the pair minus the fitted rotation.
 *
 * A correct binary32 implementation keeps each within a bound derived from
 * its frequency, angle, evaluation and storage roundings; a wrong one
 * (rows for p+1, a wrong base or scaling, a constant added, a scaled norm,
 * a poor sin) moves one of them by far more, also where the element-wise
 * bound C u (1 + |theta|) no longer constrains anything. */
#ifndef PECHECK_FITMODEL_H
#define PECHECK_FITMODEL_H

#include <stddef.h>
#include <stdint.h>
#include "harness/sandbox/impl.h"
#include "harness/base/status.h"

struct pc_acc_cfg;
struct pc_fitp;

enum { PC_FITM_FREQ = 1, PC_FITM_OFFSET = 2, PC_FITM_AMP = 4, PC_FITM_DC = 8 };

typedef struct pc_fitm_pair {
    double omega;                 /* the schedule's frequency */
    double kappa;                 /* its phase constant (model.h; 0 for omega 1) */
    double freq_rel, freq_bound;  /* fitted relative frequency error, its bound */
    double freq_ulp;              /* the same in ulps of binary32 omega */
    double offset, offset_bound;  /* mean phase residual (rad), its bound */
    double amp, amp_bound;        /* mean |pair| / A, bound on |amp - 1| */
    double dc, dc_bound;          /* |DC offset| / A, its bound */
    int dc_checked;               /* the pair turns enough to tell a DC offset */
    int bad;                      /* PC_FITM_* over their bound */
} pc_fitm_pair;

typedef struct pc_fitm {
    int h;                        /* pairs */
    int64_t lo, hi;               /* positions fitted */
    double att;                   /* the schedule's attention factor A */
    double r_scale;               /* units of u of a factor per pair and position (xPos) */
    double u, u_s;                /* working and storage unit roundoffs */
    pc_fitm_pair *p;
    int bad;                      /* pairs with any PC_FITM_* over its bound */
    double worst;                 /* largest fitted/bound ratio */
} pc_fitm;

/* The fit's constants for CFG (its pairs' omega_i and kappa_i, A, u, u_s,
 * the range) into OUT.  PC_SKIP (NOTE says why) when the rows cannot be
 * fitted: a sampled run, fewer than 16 positions, more than PC_FIT_MAX_N;
 * PC_ENOMEM. */
/* The setup's note under a schedule whose rows hold several axes'
 * positions (merge, check_shard_fit.c, reads it back: it does not hold the
 * schedule). */
#define PC_FITM_AXES_NOTE "positions with several axes: the fitted model follows one position " \
    "a row (the rows are checked element by element)"
pc_status pc_fitm_setup(const struct pc_acc_cfg *cfg, pc_fitm *out, char *note, size_t len);
/* Judge F (set up) from SUMS, the sums of its whole range; -1 when SUMS
 * are not of F's range and pairs. */
int pc_fitm_judge(pc_fitm *f, const struct pc_fitp *sums);
/* A fit verdict V (check "fitted-model") of F judged, or skipped with NOTE
 * when F is NULL; the seconds are the caller's. */
struct pc_verdict;
void pc_fitm_verdict(const pc_fitm *f, const char *note, struct pc_verdict *v);
void pc_fitm_free(pc_fitm *f);

/* One line naming the worst finding of each kind, with the fitted numbers
 * and what they suggest; empty when every pair is within its bounds. */
void pc_fitm_summary(const pc_fitm *f, char *buf, size_t len);
/* Several lines: per kind the worst pair, the median effective position
 * offset, the bounds. */
void pc_fitm_details(const pc_fitm *f, char *buf, size_t len);

#endif

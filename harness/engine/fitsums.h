/* fitsums.h: the sums the fitted model is judged from (fitmodel.h,
 * docs/fitted-model.md), made by the accuracy engine block by block and
 * combined so that the result does not depend on how the positions were
 * split (threads, shards):
 *
 *   a BLOCK's sums (pc_fitb) are binary64 sums over its positions in
 *   position order, one per pair; the phase residual is unwrapped inside
 *   the block relative to its first position, each delta held as
 *   raw + 2 pi m with raw in [-pi, pi] (atan2's) and an integer m;
 *
 *   a RUN of consecutive positions (pc_fitp: a shard, the whole range)
 *   holds the exact sum (xsum.h) of its blocks' binary64 sums and the
 *   exact integer sums of m and q m (q: the position minus the run's
 *   first), m relative to the run's first position.  Two adjacent runs
 *   join by an integer offset computed from the first run's last raw value
 *   and last m and the second's first raw value, the only place the
 *   unwrap crosses a boundary; no rounding depends on the grouping, so
 *   any split gives the same bits. */
#ifndef PECHECK_FITSUMS_H
#define PECHECK_FITSUMS_H

#include <stddef.h>
#include <stdint.h>
#include "harness/base/xsum.h"

/* Exact integers (gcc and clang on every 64-bit target pecheck builds on). */
__extension__ typedef __int128 pc_i128;

/* The largest run the integer sums hold: |m| <= n - 1 after n positions (m
 * moves by at most 1 a position), so |sum m| < n^2 and |sum q m| < n^3,
 * and every term of pc_fitp_join is below 2 n^3 <= 2^121 < 2^127 for
 * n <= 2^40 positions (a run of 2^40 positions is far beyond any check). */
#define PC_FIT_MAX_N ((int64_t)1 << 40)

/* One pair over one block (binary64, accumulated in position order). */
typedef struct pc_fitb {
    double sd, sxd;     /* sum raw, sum x raw (x = p - pbar, the run's mean) */
    double samp;        /* sum |z| / A */
    double zr, zi;      /* sum z / A */
    double er, ei;      /* sum e^{i theta} */
    double first, last; /* raw of the first and the last position */
    int64_t sm, sqm;    /* sum m, sum q m (q = p minus the block's first) */
    int64_t mlast;      /* m of the last position */
} pc_fitb;

/* One pair over a run of consecutive positions (exact sums). */
typedef struct pc_fitp_pair {
    pc_xsum sd, sxd, samp, zr, zi, er, ei;
    pc_i128 sm, sqm;    /* sum m, sum q m (q = p minus the run's first) */
    double first, last;
    int64_t mlast;
} pc_fitp_pair;

typedef struct pc_fitp {
    int h;              /* pairs */
    int64_t start, n;   /* the run's first position and its count (0: empty) */
    pc_fitp_pair *p;
} pc_fitp;

/* One position's pairs (the engine's, harness/engine/accuracy.c). */
typedef struct pc_fit_row {
    const double *c, *s;   /* the pair z / A, per pair (H values each) */
    const double *ct, *st; /* e^{i theta}: cos and sin of the exact angle */
} pc_fit_row;

/* Start block sums B[0..H) at the block's first position. */
void pc_fitb_init(pc_fitb *b, int h);
/* Add position P (the K-th of its block) of ROW to B[0..H). */
void pc_fitb_add(pc_fitb *b, int h, const pc_fit_row *row, int64_t p, size_t k, double pbar);

/* An empty run of H pairs (NULL: out of memory). */
pc_fitp *pc_fitp_new(int h);
void pc_fitp_free(pc_fitp *f);
/* RUN += block B (H pairs) of N positions from P0, which must follow RUN. */
void pc_fitp_add_block(pc_fitp *run, const pc_fitb *b, int64_t p0, int64_t n);
/* A += B, B's run following A's; -1 (nothing changed) when it does not
 * follow, the pair counts differ or the run would exceed PC_FIT_MAX_N. */
int pc_fitp_join(pc_fitp *a, const pc_fitp *b);

/* The totals the fit needs (each exact sum rounded once): with x = p - pbar
 * over the run's N positions, sum delta and sum x delta of the unwrapped
 * residual (delta = raw + 2 pi m), and the plain sums. */
typedef struct pc_fit_tot {
    double sd, sxd, samp, zr, zi, er, ei;
} pc_fit_tot;
void pc_fitp_totals(const pc_fitp *f, int i, pc_fit_tot *t);

/* The mean position of LO..HI, as the fit's x = p - pbar takes it. */
static inline double pc_fitm_pbar(int64_t lo, int64_t hi)
{
    return 0.5 * ((double)lo + (double)hi);
}

#endif

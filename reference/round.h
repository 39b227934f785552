/* round.h: the certified rounding step of every Ziv loop in reference/.
 *
 * Given an approximation Y of an unknown real number z and a bound
 * |Y - z| <= 2^ERR_EXP, decide whether RN_binary32(z) and RN_binary64(z) are
 * determined, and if so store them.  Normal-range values use mpfr_can_round;
 * values near the subnormal or overflow range are decided by rounding both
 * ends of the enclosure [Y - 2^ERR_EXP, Y + 2^ERR_EXP] (rounding to nearest is
 * monotone, so equal ends prove the rounding). */
#ifndef PECHECK_ROUND_H
#define PECHECK_ROUND_H

#include <mpfr.h>
#include "reference.h"

/* Returns 1 when both roundings are determined (OUT filled), 0 otherwise
 * (the caller raises the working precision and tries again). */
int pc_round_certified(const mpfr_t y, mpfr_exp_t err_exp, pc_ref2 *out);

/* Precision ceiling of every Ziv loop.  Transcendental values of nonzero
 * algebraic arguments are never representable (Lindemann), so the loops
 * terminate; the ceiling turns a bug into an error instead of a hang. */
#define PC_ZIV_MAX_PREC 65536

#endif

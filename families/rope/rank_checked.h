/* rank_checked.h: the causes rank_checked.c names once their prediction
 * reproduces the rows held (rank_internal.h), and its checks of claims
 * made elsewhere. */
#ifndef PECHECK_ROPE_RANK_CHECKED_H
#define PECHECK_ROPE_RANK_CHECKED_H

#include "rank_internal.h"

/* The checked causes of K's rows added to OUT (positions floor(p/g) or
 * clamped, reciprocal frequencies, LongRoPE's factors multiplied in,
 * llama3's band edges mixed up, cos from a shifted sin, two bfloat16
 * roundings), and OUT's single-factor claims re-checked on the rows. */
void pc_rk_checked(const rk *k, pc_rope_causes *out);
/* Whether the positions held in a type of BITS significant bits is a
 * claim the rows allow: the positions that type holds exactly must give
 * the schedule's rows (RC_SHARE of their informative values). */
int pc_rk_pos_grid_holds(const rk *k, int bits);

#endif

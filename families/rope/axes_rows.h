/* axes_rows.h: the rows of a run's position ids as the RoPE properties
 * use them (axes_rows.c): rope-relative shifts along one axis, from a row
 * to the row whose positions are its own moved by s on that axis. */
#ifndef PECHECK_ROPE_AXES_ROWS_H
#define PECHECK_ROPE_AXES_ROWS_H

#include <stdint.h>
#include "properties/property.h"
#include "scaling.h"

/* The axes of R's schedule at width D (its frequencies made), NULL when
 * its rows have one position each. */
const pc_rope_axes *pc_rope_run_axes(pc_prun *r, int d);
/* The same of the frequencies R has made (NULL: none yet, or one
 * position a row). */
const pc_rope_axes *pc_rope_run_axes_made(const pc_prun *r);
/* The row whose positions are ROW's with S added on AXIS; -1: none. */
int64_t pc_rope_axes_shift(const pc_rope_axes *a, int64_t row, int axis, int64_t s);
/* A row M in [LO, HI] and an axis *AXIS with a row S = 1 further on it
 * (the first found from START), into *M; 0 when no row has one. */
int pc_rope_axes_shiftable(const pc_rope_axes *a, int64_t lo, int64_t hi, int64_t start,
                           int *axis, int64_t *m);

#endif

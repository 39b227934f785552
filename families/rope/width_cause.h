/* width_cause.h: a (n, cols) table whose columns are the rotary dim, read
 * as one column a pair (so twice the rotary dim): what its columns show,
 * checked before the gate refuses it (width_cause.c). */
#ifndef PECHECK_ROPE_WIDTH_CAUSE_H
#define PECHECK_ROPE_WIDTH_CAUSE_H

#include "harness/engine/gate.h"

/* PC_EINPUT with the checked message when IMPL is such a table (its
 * columns one frequency each, cos and sin in different layouts, or, when
 * neither is confirmed, what was observed); PC_OK otherwise. */
pc_status pc_rope_width_check(pc_gate *g, const pc_impl *impl);

#endif

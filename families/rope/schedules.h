/* schedules.h: the entry points of the schedule files, for scaling.c's
 * table of types (internal to families/rope/). */
#ifndef PECHECK_ROPE_SCHEDULES_H
#define PECHECK_ROPE_SCHEDULES_H

#include "scaling.h"

/* Decide the branches of P and fill P->model_c (after the defaults). */
pc_status pc_rope_prep_default(pc_rope_params *p, pc_err *err);
pc_status pc_rope_prep_linear(pc_rope_params *p, pc_err *err);
pc_status pc_rope_prep_dynamic(pc_rope_params *p, pc_err *err);
pc_status pc_rope_prep_yarn(pc_rope_params *p, pc_err *err);
pc_status pc_rope_prep_longrope(pc_rope_params *p, pc_err *err);
pc_status pc_rope_prep_llama3(pc_rope_params *p, pc_err *err);
pc_status pc_rope_prep_freqs(pc_rope_params *p, pc_err *err);

/* Attention factors as intervals (the point [1, 1] when exactly 1). */
void pc_rope_att_yarn(mpfi_ptr out, const pc_rope_params *p);
void pc_rope_att_longrope(mpfi_ptr out, const pc_rope_params *p);

/* The kinds with an attention factor. */
extern const pc_schedule_kind pc_kind_rope_yarn_att, pc_kind_rope_longrope_att;
/* Positions with several axes, without and with an attention factor. */
extern const pc_schedule_kind pc_kind_rope_axes, pc_kind_rope_axes_att;
/* The same over real coordinates (pc_rope_axes.coords). */
extern const pc_schedule_kind pc_kind_rope_coords, pc_kind_rope_coords_att;

/* A factor parameter: finite and >= 1 (omega_i stays in (0, 1], the
 * schedule contract), message naming NAME. */
pc_status pc_rope_need_factor(double v, const char *name, pc_err *err);

#endif

/* schedule_axes.c: a RoPE schedule over positions with several axes
 * (positions.c).  The kind maps row POS to the position of each pair's
 * axis (reference/schedule.h, position): the reference then rotates pair
 * i by that position times omega_i, certified as for one position.
 * omega_i is the type's own (M-RoPE: one schedule split into sections),
 * or, axial, base^(-2j/a_k) for pair j of an axis of a_k dims (FLUX's
 * EmbedND rope: theta^(-arange(0, dim, 2)/dim) per axis), evaluated as
 * the default schedule's, or (parity: Pixtral's vision RoPE) frequency
 * A l + k of one default schedule over all the axes' dims for pair l of
 * axis k of A; the attention factor and the precision model's
 * C are the type's. */
#include "schedules.h"

static void axial_iv(mpfi_ptr out, const pc_rope_params *p, int i)
{
    const pc_rope_axes *a = p->axes;
    if (a->parity) { /* frequency A l + k of the schedule over every axis' dims */
        int n_axes = 0, dim = 0;
        for (; n_axes < PC_ROPE_AXES_MAX && a->axes_dim[n_axes]; n_axes++) dim += a->axes_dim[n_axes];
        pc_iv_geometric(out, p->base, dim, n_axes * a->local[i] + a->axis[i]);
        return;
    }
    pc_iv_geometric(out, p->base, a->axes_dim[a->axis[i]], a->local[i]);
}

static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    const pc_rope_params *p = s->params;
    if (p->axes->axial) pc_iv_to_mpfr(out, axial_iv, p, i);
    else pc_rope_type_kind(p)->omega(out, s, d, i);
}

static int64_t position(const pc_schedule *s, int d, int64_t pos, int i)
{
    const pc_rope_axes *a = ((const pc_rope_params *)s->params)->axes;
    if (pos < 0 || pos >= a->n || i < 0 || i >= d / 2) return -1;
    return a->ids[pos * a->n_axes + a->axis[i]];
}

const pc_schedule_kind pc_kind_rope_axes = {
    "axes", pc_rope_check, omega, NULL, pc_rope_model_c, position, pc_rope_model_r, NULL
};
const pc_schedule_kind pc_kind_rope_axes_att = {
    "axes", pc_rope_check, omega, pc_rope_attention, pc_rope_model_c, position, pc_rope_model_r, NULL
};

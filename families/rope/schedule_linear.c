/* schedule_linear.c: linear scaling (position interpolation).
 * HF _compute_linear_scaling_rope_parameters:
 *   omega_i = base^(-2i/dim) / factor. */
#include <math.h>
#include "schedules.h"

static void omega_iv(mpfi_ptr out, const pc_rope_params *p, int i)
{
    pc_iv_geometric(out, p->base, p->dim, i);
    mpfi_div_d(out, out, p->factor);
}

static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    (void)d;
    pc_iv_to_mpfr(out, omega_iv, s->params, i);
}

/* C = max(C0(base) + 1, ggml + 3): HF divides by factor (one more
 * rounding), MLX's kernel multiplies its exp2 form by scale; llama.cpp multiplies ggml's angle by freq_scale = 1.0f /
 * factor, the factor a binary32 number (GGUF): the factor's rounding, the
 * reciprocal's, the product's (docs/schedules.md). */
pc_status pc_rope_prep_linear(pc_rope_params *p, pc_err *err)
{
    pc_status st = pc_rope_need_factor(p->factor, "factor", err);
    for (int i = 0; st == PC_OK && i < p->dim / 2; i++)
        p->model_c[i] = fmax(p->model_c[i] + 1.0, pc_rope_c_ggml(p, i) + 3.0);
    return st;
}

const pc_schedule_kind pc_kind_rope_linear = {
    "linear", pc_rope_check, omega, NULL, pc_rope_model_c, NULL, pc_rope_model_r, NULL, NULL,
    NULL, NULL
};

/* schedule_freqs.c: explicit per-pair frequency factors (llama.cpp's
 * rope_freqs tensor, ggml_rope_ext's freq_factors):
 *   omega_i = base^(-2i/dim) / ff_i. */
#include <math.h>
#include <stdio.h>
#include "schedules.h"

static void omega_iv(mpfi_ptr out, const pc_rope_params *p, int i)
{
    pc_iv_geometric(out, p->base, p->dim, i);
    mpfi_div_d(out, out, p->ff[i]);
}

static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    (void)d;
    pc_iv_to_mpfr(out, omega_iv, s->params, i);
}

/* C = max(C0(base), ggml) + 2: the factor rounded to binary32 (ggml holds
 * rope_freqs in float32) and the division, of HF's float32 frequency or of
 * ggml's cumulative-product angle (theta / ff, docs/schedules.md). */
pc_status pc_rope_prep_freqs(pc_rope_params *p, pc_err *err)
{
    if (!p->ff) return pc_seterr(err, PC_EINPUT, "rope_freqs: no frequency factors given");
    for (int i = 0; i < p->dim / 2; i++) {
        char name[48];
        snprintf(name, sizeof name, "rope_freqs[%d]", i);
        pc_status st = pc_rope_need_factor(p->ff[i], name, err);
        if (st != PC_OK) return st;
        p->model_c[i] = fmax(p->model_c[i], pc_rope_c_ggml(p, i)) + 2.0;
    }
    return PC_OK;
}

const pc_schedule_kind pc_kind_rope_freqs = {
    "rope_freqs", pc_rope_check, omega, NULL, pc_rope_model_c, NULL, pc_rope_model_r, NULL, NULL,
    NULL, NULL
};

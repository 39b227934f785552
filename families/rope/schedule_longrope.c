/* schedule_longrope.c: LongRoPE (Phi-3, Phi-3.5).  HF
 * _compute_longrope_parameters:
 *   ext = long_factor when the cache's sequence length > L0 (the original
 *   length), else short_factor (dim/2 numbers each);
 *   omega_i = 1 / (ext_i base^(2i/dim));
 *   A = attention_factor, else 1 when factor <= 1, else
 *   sqrt(1 + ln(factor) / ln(L0)); factor = rope_scaling.factor, or
 *   max_position_embeddings / L0 when the config gives
 *   original_max_position_embeddings (hf_config.c). */
#include <math.h>
#include <stdio.h>
#include "schedules.h"

static void omega_iv(mpfi_ptr out, const pc_rope_params *p, int i)
{
    pc_iv_geometric(out, p->base, p->dim, i);
    mpfi_div_d(out, out, p->ext[i]);
}

static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    (void)d;
    pc_iv_to_mpfr(out, omega_iv, s->params, i);
}

void pc_rope_att_longrope(mpfi_ptr out, const pc_rope_params *p)
{
    if (!(p->factor > 1.0)) { mpfi_set_ui(out, 1); return; }
    mpfi_t l;
    mpfi_init2(l, mpfi_get_prec(out));
    mpfi_set_d(out, p->factor);
    mpfi_log(out, out);
    mpfi_set_d(l, p->orig_max);
    mpfi_log(l, l);
    mpfi_div(out, out, l);
    mpfi_add_ui(out, out, 1);
    mpfi_sqrt(out, out);
    mpfi_clear(l);
}

/* C = max(P + 3, ggml + 2), P = pc_rope_c_pow (HF's, vLLM's and MLX-lm's
 * float32 base ** (arange(0, dim, 2) / dim)): HF rounds the factor to
 * binary32 (a float32 tensor), the product ext_i base^x and the reciprocal
 * (P counts one reciprocal: 2 more, and one of margin); llama.cpp
 * holds the factors as a float32 rope_freqs tensor (rope_factors_long,
 * rope_factors_short) and divides ggml's angle by it (docs/schedules.md). */
pc_status pc_rope_prep_longrope(pc_rope_params *p, pc_err *err)
{
    if (!p->ext)
        return pc_seterr(err, PC_EINPUT, "longrope needs rope_scaling.short_factor and long_factor");
    if (!(p->orig_max > 1.0) || !isfinite(p->orig_max))
        return pc_seterr(err, PC_EINPUT, "longrope needs original_max_position_embeddings > 1");
    if (!isfinite(p->factor) || !(p->factor > 0.0))
        return pc_seterr(err, PC_EINPUT, "longrope: factor must be a finite number > 0, got %g",
                         p->factor);
    for (int i = 0; i < p->dim / 2; i++) {
        char name[48];
        snprintf(name, sizeof name, "%s_factor[%d]", p->use_long ? "long" : "short", i);
        pc_status st = pc_rope_need_factor(p->ext[i], name, err);
        if (st != PC_OK) return st;
        p->model_c[i] = fmax(pc_rope_c_pow(p, i) + 3.0, pc_rope_c_ggml(p, i) + 2.0);
    }
    return PC_OK;
}

const pc_schedule_kind pc_kind_rope_longrope = {
    "longrope", pc_rope_check, omega, NULL, pc_rope_model_c, NULL, pc_rope_model_r, NULL, NULL,
    NULL, NULL
};
const pc_schedule_kind pc_kind_rope_longrope_att = {
    "longrope", pc_rope_check, omega, pc_rope_attention, pc_rope_model_c, NULL, pc_rope_model_r,
    NULL, NULL, NULL, NULL
};

/* schedule_dynamic.c: dynamic NTK scaling, for the sequence length the
 * cache was built for.  HF _compute_dynamic_ntk_parameters:
 *   L = max_position_embeddings, s = max(seq_len, L) (seq_len absent: L),
 *   base' = base * (factor s / L - (factor - 1))^(dim / (dim - 2)),
 *   omega_i = base'^(-2i/dim)
 *           = base^(-2i/dim) * t^(-2i/(dim-2)),  t = factor s / L - (factor - 1).
 * With rope_scaling.alpha (HunYuan; vLLM DynamicNTKAlphaRotaryEmbedding,
 * transformers HunYuanDenseV1RotaryEmbedding.__init__): t = alpha at every
 * length, base' = base alpha^(dim / (dim - 2)). */
#include <math.h>
#include "schedules.h"

static double seq_of(const pc_rope_params *p)
{
    return p->seq_len_set && p->seq_len > p->max_pos ? p->seq_len : p->max_pos;
}

/* t = factor (s / L - 1) + 1 >= 1 (s >= L, factor >= 1); with HunYuan's
 * alpha, t = alpha at every length */
static void t_iv(mpfi_ptr t, const pc_rope_params *p)
{
    if (p->ntk_alpha > 0) {
        mpfi_set_d(t, p->ntk_alpha);
        return;
    }
    mpfi_set_d(t, seq_of(p));
    mpfi_div_d(t, t, p->max_pos);
    mpfi_sub_ui(t, t, 1);
    mpfi_mul_d(t, t, p->factor);
    mpfi_add_ui(t, t, 1);
}

static void omega_iv(mpfi_ptr out, const pc_rope_params *p, int i)
{
    pc_iv_geometric(out, p->base, p->dim, i);
    if (i == 0 || p->dim == 2) return; /* t^0 = 1 */
    mpfi_t t;
    mpfi_init2(t, mpfi_get_prec(out));
    t_iv(t, p);
    /* t^(-2i/(dim-2)) = exp(-(2i/(dim-2)) ln t) */
    mpfi_log(t, t);
    mpfi_mul_ui(t, t, 2u * (unsigned)i);
    mpfi_div_ui(t, t, (unsigned)(p->dim - 2));
    mpfi_neg(t, t);
    mpfi_exp(t, t);
    mpfi_mul(out, out, t);
    mpfi_clear(t);
}

static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    (void)d;
    pc_iv_to_mpfr(out, omega_iv, s->params, i);
}

/* C = C0(base') + 1: the float32 code raises base' (a binary64 value,
 * rounded once more to binary32: relative error u in base' moves omega_i
 * by at most (2i/dim) u <= u). */
pc_status pc_rope_prep_dynamic(pc_rope_params *p, pc_err *err)
{
    if (p->dim < 4)
        return pc_seterr(err, PC_EINPUT, "dynamic scaling needs a rotary dim >= 4, got %d", p->dim);
    if (p->ntk_alpha > 0) { /* alpha >= 1 (hf_scaling.c): base' >= base */
        double base_eff = p->base * pow(p->ntk_alpha, (double)p->dim / (double)(p->dim - 2));
        for (int i = 0; i < p->dim / 2; i++) p->model_c[i] = pc_rope_c0(base_eff) + 1.0;
        return PC_OK;
    }
    pc_status st = pc_rope_need_factor(p->factor, "factor", err);
    if (st != PC_OK) return st;
    if (!(p->max_pos >= 1.0) || !isfinite(p->max_pos))
        return pc_seterr(err, PC_EINPUT, "dynamic scaling needs max_position_embeddings >= 1");
    double s = seq_of(p);
    double t = p->factor * s / p->max_pos - (p->factor - 1.0);
    double base_eff = p->base * pow(t, (double)p->dim / (double)(p->dim - 2));
    for (int i = 0; i < p->dim / 2; i++) p->model_c[i] = pc_rope_c0(base_eff) + 1.0;
    return PC_OK;
}

const pc_schedule_kind pc_kind_rope_dynamic = {
    "dynamic", pc_rope_check, omega, NULL, pc_rope_model_c, NULL, pc_rope_model_r, NULL, NULL,
    NULL, NULL
};

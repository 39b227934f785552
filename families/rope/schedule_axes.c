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
 * C are the type's.  Real coordinates (a ViT's patch coordinates: the
 * coords kinds) are handed to the reference as exact binary64 values
 * (coord); --rope-angle-scale S multiplies every omega_i, certified. */
#include <math.h>
#include <stdlib.h>
#include "schedules.h"
#include "harness/base/dtype.h"
#include "harness/base/half.h"

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

/* The type's (or the axes') omega_i into OUT, times the angle scale S =
 * K pi^PI (--rope-angle-scale) when there is one.  Unscaled: the type's
 * contract.  Scaled, at OUT's precision P: w~ (precision P + 8, relative
 * error < 4 * 2^-(P+8) = 2^-(P+6)), pi~ = RN_{P+8}(pi) (MPFR's const_pi,
 * 2^-(P+8)), the products w~ pi~ and that times K rounded at P + 8
 * (2^-(P+8) each; 2 pi~ is exact), then rounded to P (2^-P):
 *   |OUT - S omega| <= S omega ((1 + 2^-(P+6)) (1 + 2^-(P+8))^3 (1 + 2^-P) - 1)
 *                   <  1.03 * 2^-P * S omega  <  4 * 2^-P * S omega,
 * the schedule contract (reference/schedule.h). */
/* W (omega_i, relative error < 4 * 2^-P at W's precision P >= 64: the
 * schedule contract) rounded to nearest (ties to even) in the half type
 * DT, as a model holding inv_freq in it computes (ChatGLM-6B:
 * inv_freq.half() of the float32 1 / base^(2j/a)), certified: every point
 * within the contract's error of W, the exact omega_i among them, rounds
 * to the same half value when the interval's ends, taken outward to
 * binary32, do (rounding is monotonic); else NaN, which pc_rope_prepare
 * reports.  The half value is exact in W. */
static void round_stored(mpfr_ptr w, int dt)
{
    mpfr_t lo, hi;
    mpfr_inits2(mpfr_get_prec(w), lo, hi, (mpfr_ptr)0);
    mpfr_mul_d(lo, w, 1.0 - 0x1p-61, MPFR_RNDD); /* 4 * 2^-P <= 2^-62 < 2^-61 */
    mpfr_mul_d(hi, w, 1.0 + 0x1p-61, MPFR_RNDU);
    float a = mpfr_get_flt(lo, MPFR_RNDD), b = mpfr_get_flt(hi, MPFR_RNDU);
    float ra = pc_round_to(dt, a), rb = pc_round_to(dt, b);
    if (ra == rb) mpfr_set_flt(w, ra, MPFR_RNDN);
    else mpfr_set_nan(w);
    mpfr_clears(lo, hi, (mpfr_ptr)0);
}

static void omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    const pc_rope_params *p = s->params;
    mpfr_prec_t prec = mpfr_get_prec(out);
    mpfr_t w, c;
    if (p->scale_k > 0.0) mpfr_init2(w, prec + 8);
    mpfr_ptr dst = p->scale_k > 0.0 ? w : out;
    if (p->axes->axial) pc_iv_to_mpfr(dst, axial_iv, p, i);
    else pc_rope_type_kind(p)->omega(dst, s, d, i);
    if (p->freq_dtype == PC_DT_F16 || p->freq_dtype == PC_DT_BF16) round_stored(dst, p->freq_dtype);
    if (!(p->scale_k > 0.0)) return;
    if (p->scale_pi) {
        mpfr_init2(c, prec + 8);
        mpfr_const_pi(c, MPFR_RNDN);
        mpfr_mul(w, w, c, MPFR_RNDN);
        mpfr_clear(c);
    }
    if (p->scale_k != 1.0) mpfr_mul_d(w, w, p->scale_k, MPFR_RNDN);
    mpfr_set(out, w, MPFR_RNDN);
    mpfr_clear(w);
}

static int64_t position(const pc_schedule *s, int d, int64_t pos, int i)
{
    const pc_rope_axes *a = ((const pc_rope_params *)s->params)->axes;
    if (pos < 0 || pos >= a->n || i < 0 || i >= d / 2) return -1;
    return a->ids[pos * a->n_axes + a->axis[i]];
}

/* Real coordinates (positions.c): the pair's axis' coordinate of row POS,
 * exact; the integers of IDS otherwise (exact in binary64: <= 2^53). */
static double coord(const pc_schedule *s, int d, int64_t pos, int i)
{
    const pc_rope_axes *a = ((const pc_rope_params *)s->params)->axes;
    if (pos < 0 || pos >= a->n || i < 0 || i >= d / 2) return (double)NAN;
    return pc_rope_axes_x(a, pos, a->axis[i]);
}

/* omega_i = K pi exactly: an angle scale K pi (--rope-angle-scale Kpi)
 * over a pair whose frequency is base^0 = 1 exactly (the first pair of an
 * axial axis, or of the one schedule: a type whose omega_0 is 1). */
static int pi_ratio(const pc_schedule *s, int d, int i, double *r)
{
    const pc_rope_params *p = s->params;
    const pc_rope_axes *a = p->axes;
    if (!p->scale_pi || i < 0 || i >= d / 2) return 0;
    int n_axes = 0;
    while (n_axes < PC_ROPE_AXES_MAX && a->axes_dim[n_axes]) n_axes++;
    int one = a->axial ? (a->parity ? n_axes * a->local[i] + a->axis[i] == 0 : a->local[i] == 0)
                       : i == 0 && p->type == PC_ROPE_DEFAULT;
    if (one) *r = p->scale_k;
    return one;
}

const pc_schedule_kind pc_kind_rope_axes = {
    "axes", pc_rope_check, omega, NULL, pc_rope_model_c, position, pc_rope_model_r, NULL,
    pi_ratio, NULL, NULL
};
const pc_schedule_kind pc_kind_rope_axes_att = {
    "axes", pc_rope_check, omega, pc_rope_attention, pc_rope_model_c, position, pc_rope_model_r,
    NULL, pi_ratio, NULL, NULL
};
/* the same over real coordinates */
const pc_schedule_kind pc_kind_rope_coords = {
    "axes", pc_rope_check, omega, NULL, pc_rope_model_c, position, pc_rope_model_r, coord,
    pi_ratio, NULL, NULL
};
const pc_schedule_kind pc_kind_rope_coords_att = {
    "axes", pc_rope_check, omega, pc_rope_attention, pc_rope_model_c, position, pc_rope_model_r,
    coord, pi_ratio, NULL, NULL
};

/* ---- angles in float16 (--rope-angle-dtype f16) ---------------------------- */

/* A model run in float16 (ChatGLM-6B's RotaryEmbedding under .half():
 * t = arange(seq_len, dtype=float16), inv_freq.half(), the einsum in
 * float16) turns pair i at row pos by the float16 value
 *   theta = fl16(fl16(x) fl16(omega_i)),
 * x the pair's axis position: an exact binary64 (fl16 of a product of two
 * 11-bit numbers, rounded once: CUDA's half multiply computes it in float32,
 * where it is exact, then rounds).  The kind hands theta to the reference
 * as the pair's coordinate with omega_i = 1, so the certified values are
 * cos and sin of theta itself. */
pc_status pc_rope_half_angles_prepare(pc_rope_params *p, pc_err *err)
{
    int h = p->dim / 2;
    if (p->scale_k > 0.0 || p->type != PC_ROPE_DEFAULT || !p->axes)
        return pc_seterr(err, PC_EINPUT, "--rope-angle-dtype takes the plain schedule's angles "
                         "over --position-ids, without --rope-angle-scale or a rope_scaling");
    p->freq_dtype = PC_DT_F16; /* the angle's frequency is inv_freq.half()'s */
    p->omega_s = malloc((size_t)h * sizeof *p->omega_s);
    if (!p->omega_s) return pc_seterr(err, PC_ENOMEM, "out of memory");
    pc_schedule s = { &pc_kind_rope_axes, p->base, p };
    mpfr_t w;
    mpfr_init2(w, 64);
    pc_status st = PC_OK;
    for (int i = 0; i < h && st == PC_OK; i++) {
        omega(w, &s, p->dim, i);
        p->omega_s[i] = mpfr_get_d(w, MPFR_RNDN); /* a float16 value: exact */
        if (mpfr_nan_p(w))
            st = pc_seterr(err, PC_EINTERNAL, "omega_%d: its float16 rounding cannot be certified",
                           i);
    }
    mpfr_clear(w);
    return st;
}

static void one(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    (void)s; (void)d; (void)i;
    mpfr_set_ui(out, 1, MPFR_RNDN);
}

static double half_angle(const pc_schedule *s, int d, int64_t pos, int i)
{
    const pc_rope_params *p = s->params;
    const pc_rope_axes *a = p->axes;
    if (pos < 0 || pos >= a->n || i < 0 || i >= d / 2) return (double)NAN;
    float x = pc_round_to(PC_DT_F16, (float)pc_rope_axes_x(a, pos, a->axis[i]));
    return (double)pc_round_to(PC_DT_F16, x * (float)p->omega_s[i]); /* x omega exact in float */
}

static int64_t no_position(const pc_schedule *s, int d, int64_t pos, int i)
{
    (void)s; (void)d; (void)pos; (void)i;
    return -1;
}

const pc_schedule_kind pc_kind_rope_half_angles = {
    "axes", pc_rope_check, one, NULL, pc_rope_model_c, no_position, pc_rope_model_r, half_angle,
    NULL, NULL, "angle"
};

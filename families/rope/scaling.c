/* scaling.c: what the RoPE frequency schedules share (scaling.h): the
 * interval evaluation that certifies omega_i and the attention factor, the
 * decisions of pc_rope_prepare, the precision model's per-pair C. */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "scaling.h"
#include "schedules.h"
#include "harness/engine/model.h"

/* ---- interval evaluation ------------------------------------------------ */

void pc_iv_geometric(mpfi_ptr out, double base, int dim, int i)
{
    /* base^(-2i/dim) = exp(-(2i/dim) ln base); 2i and dim are exact
     * integers, every MPFI operation encloses its exact result */
    mpfi_set_d(out, base);
    mpfi_log(out, out);
    mpfi_mul_ui(out, out, 2u * (unsigned)i);
    mpfi_div_ui(out, out, (unsigned)dim);
    mpfi_neg(out, out);
    mpfi_exp(out, out);
}

/* 1 when X (a positive interval) has relative diameter <= 2^-(P+2). */
static int narrow(mpfi_srcptr x, mpfr_prec_t p)
{
    mpfr_t rel;
    mpfr_init2(rel, 64);
    mpfi_diam_rel(rel, x);
    int ok = mpfi_is_strictly_pos(x) && mpfr_cmp_ui_2exp(rel, 1, -(mpfr_exp_t)(p + 2)) <= 0;
    mpfr_clear(rel);
    return ok;
}

void pc_iv_to_mpfr(mpfr_ptr out, pc_iv_fn fn, const pc_rope_params *p, int i)
{
    mpfr_prec_t P = mpfr_get_prec(out);
    mpfi_t x;
    mpfi_init2(x, P + 32);
    for (mpfr_prec_t q = P + 32;; q += q / 2) {
        mpfi_set_prec(x, q);
        fn(x, p, i);
        /* the Ziv ceiling of reference/round.h: a bug, not a hang */
        if (narrow(x, P) || q > PC_ZIV_MAX_PREC) break;
    }
    /* the midpoint, rounded to P: within half the diameter of every point
     * of the interval, plus half an ulp; NaN when the ceiling was reached
     * (pc_rope_prepare evaluates every omega once and reports it) */
    if (narrow(x, P)) mpfi_mid(out, x);
    else mpfr_set_nan(out);
    mpfi_clear(x);
}

/* ---- the types ------------------------------------------------------------ */

typedef struct rope_type {
    const char *name;                 /* HF rope_type */
    const pc_schedule_kind *kind, *kind_att; /* without / with an attention factor */
    pc_status (*prepare)(pc_rope_params *p, pc_err *err);
    void (*att)(mpfi_ptr out, const pc_rope_params *p); /* NULL: A = 1 */
} rope_type;

static const rope_type types[] = {
    [PC_ROPE_DEFAULT]  = { "default", &pc_kind_rope_default, NULL, pc_rope_prep_default, NULL },
    [PC_ROPE_LINEAR]   = { "linear", &pc_kind_rope_linear, NULL, pc_rope_prep_linear, NULL },
    [PC_ROPE_DYNAMIC]  = { "dynamic", &pc_kind_rope_dynamic, NULL, pc_rope_prep_dynamic, NULL },
    [PC_ROPE_YARN]     = { "yarn", &pc_kind_rope_yarn, &pc_kind_rope_yarn_att, pc_rope_prep_yarn,
                           pc_rope_att_yarn },
    [PC_ROPE_LONGROPE] = { "longrope", &pc_kind_rope_longrope, &pc_kind_rope_longrope_att,
                           pc_rope_prep_longrope, pc_rope_att_longrope },
    [PC_ROPE_LLAMA3]   = { "llama3", &pc_kind_rope_llama3, NULL, pc_rope_prep_llama3, NULL },
    [PC_ROPE_FREQS]    = { "rope_freqs", &pc_kind_rope_freqs, NULL, pc_rope_prep_freqs, NULL },
};
#define NTYPES (int)(sizeof types / sizeof types[0])

const char *pc_rope_type_name(int type)
{
    return type >= 0 && type < NTYPES ? types[type].name : "?";
}

int pc_rope_type_of(const char *name)
{
    for (int t = 0; t < NTYPES; t++)
        if (!strcmp(name, types[t].name)) return t;
    return -1;
}

const pc_schedule_kind *pc_rope_type_kind(const pc_rope_params *p)
{
    const rope_type *t = &types[p->type];
    /* a type without an attention factor has one kind, whether or not
     * P's att_one is decided yet (--rope-angle-dtype prepares the float16
     * frequencies of M-RoPE sections before pc_rope_prepare decides it) */
    return p->att_one || !t->kind_att ? t->kind : t->kind_att;
}

pc_schedule pc_rope_schedule(const pc_rope_params *p)
{
    const pc_schedule_kind *k = pc_rope_type_kind(p);
    if (p->axes && p->angle_dtype) k = &pc_kind_rope_half_angles;
    else if (p->axes && p->axes->coords) k = p->att_one ? &pc_kind_rope_coords : &pc_kind_rope_coords_att;
    else if (p->axes) k = p->att_one ? &pc_kind_rope_axes : &pc_kind_rope_axes_att;
    else if (p->xpos_base > 0) k = p->att_one ? &pc_kind_rope_xpos : &pc_kind_rope_xpos_att;
    pc_schedule s = { k, p->base, p };
    return s;
}

/* ---- the attention factor ----------------------------------------------- */

static void att_iv(mpfi_ptr out, const pc_rope_params *p, int i)
{
    (void)i;
    types[p->type].att(out, p);
}

int pc_rope_attention(mpfr_ptr out, const pc_schedule *s, int d)
{
    (void)d;
    const pc_rope_params *p = s->params;
    if (p->att_given) {
        mpfr_set_d(out, p->attention_factor, MPFR_RNDN); /* precision >= 64: exact */
        return 1;
    }
    pc_iv_to_mpfr(out, att_iv, p, 0);
    return 0;
}

/* A in binary64 and whether it is exactly 1 (no attention factor). */
static pc_status decide_att(pc_rope_params *p, pc_err *err)
{
    p->att_d = 1.0;
    p->att_one = 1;
    if (p->att_given) {
        if (!(p->attention_factor > 0.0) || !isfinite(p->attention_factor))
            return pc_seterr(err, PC_EINPUT, "rope_scaling.attention_factor must be a finite "
                             "number > 0, got %g", p->attention_factor);
        p->att_d = p->attention_factor;
        p->att_one = p->attention_factor == 1.0;
        return PC_OK;
    }
    if (!types[p->type].att) return PC_OK;
    mpfi_t a;
    mpfi_init2(a, 128);
    types[p->type].att(a, p);
    /* exactly 1 only when the formula says so (factor <= 1, or equal
     * mscale and mscale_all_dim): the kinds' att functions return the
     * point interval [1, 1] then */
    mpfr_t lo, hi;
    mpfr_inits2(128, lo, hi, (mpfr_ptr)0);
    mpfi_get_left(lo, a);
    mpfi_get_right(hi, a);
    p->att_one = mpfr_cmp_ui(lo, 1) == 0 && mpfr_cmp_ui(hi, 1) == 0;
    mpfr_t m;
    mpfr_init2(m, 53);
    mpfi_mid(m, a);
    p->att_d = mpfr_get_d(m, MPFR_RNDN);
    mpfr_clears(lo, hi, m, (mpfr_ptr)0);
    mpfi_clear(a);
    return PC_OK;
}

/* ---- check, prepare, model ----------------------------------------------- */

double pc_rope_c0(double base_eff)
{
    return 2.0 * log(base_eff) + 4.0; /* docs/precision-model.md */
}

/* ggml's cumulative product (llama.cpp's CPU rope, ggml_rope_cache_init and
 * ggml_mrope_cache_init: theta = pos, then theta *= powf(base, -2/dim) once
 * a pair): the angle of pair I before the schedule's own steps carries
 * (3i + X_i + 1) u |theta| (docs/precision-model.md, "The phase constant";
 * 0 for pair 0).  0 for axial RoPE, which llama.cpp does not implement. */
double pc_rope_c_ggml(const pc_rope_params *p, int i)
{
    if (p->axes && p->axes->axial) return 0.0;
    return pc_model_kappa_form(PC_FORM_GGML, p->base, p->dim, i);
}

/* The float32 pow form (docs/precision-model.md, "The phase constant"):
 * fl(2i/dim) (relative u, hence X_i u in the frequency, unless 2i/dim is a
 * binary32 value), powf to PC_MODEL_POWF_ULPS ulps (CUDA's 4: 8u; a cache
 * built on the GPU), the reciprocal (u), the angle fl(pos w) (u), one u for
 * second-order terms: X_i + 11, or 11.  A base that
 * is not a binary32 value (torch rounds the Python scalar to the tensor's
 * float32) moves omega_i by (2i/dim) u more. */
double pc_rope_c_pow_at(double base, int dim, int i)
{
    double e = 2.0 * (double)i / (double)dim;
    float e32 = (float)(2 * i) / (float)dim;              /* torch's fl(2i/dim) */
    double k = 2.0 * PC_MODEL_POWF_ULPS + 3.0;
    double c = (double)e32 * (double)dim == 2.0 * (double)i ? k : e * log(base) + k;
    return (double)(float)base == base ? c : c + e;
}

double pc_rope_c_pow(const pc_rope_params *p, int i)
{
    return pc_rope_c_pow_at(p->base, p->dim, i);
}

/* Axial RoPE (FLUX's EmbedND, EVA-02, Pixtral, DINOv3's periods): each axis
 * the pow form over its own dims (Pixtral's parity: exponent A l + k of one
 * schedule over every axis' dims); FLUX computes in float64 (within it).
 * llama.cpp does not implement it. */
static double c_axial(const pc_rope_params *p, int i)
{
    const pc_rope_axes *a = p->axes;
    if (!a->parity) return pc_rope_c_pow_at(p->base, a->axes_dim[a->axis[i]], a->local[i]);
    int n_axes = 0, dim = 0;
    for (; n_axes < PC_ROPE_AXES_MAX && a->axes_dim[n_axes]; n_axes++) dim += a->axes_dim[n_axes];
    return pc_rope_c_pow_at(p->base, dim, n_axes * a->local[i] + a->axis[i]);
}

/* The type's C of pair I: axial RoPE its own (c_axial); M-RoPE over the
 * default schedule (HF's and vLLM's Qwen2-VL rotary embedding: the pow
 * form; llama.cpp's ggml_mrope_cache_init: ggml's cumulative product over
 * every pair) the larger of the two; otherwise the type's model_c. */
static double type_c(const pc_rope_params *p, int i)
{
    if (p->axes && p->axes->axial) return c_axial(p, i);
    if (p->axes && p->axes->n_axes > 1 && p->type == PC_ROPE_DEFAULT)
        return fmax(pc_rope_c_pow(p, i), pc_rope_c_ggml(p, i));
    return p->model_c ? p->model_c[i] : pc_rope_c0(p->base);
}

pc_status pc_rope_check(const pc_schedule *s, int d, pc_err *err)
{
    const pc_rope_params *p = s->params;
    if (!p) return pc_seterr(err, PC_EINTERNAL, "a RoPE schedule without parameters");
    pc_status st = pc_ref_check_params(d, p->base, err);
    if (st != PC_OK) return st;
    if (p->dim != d)
        return pc_seterr(err, PC_EINPUT, "the schedule's rotary dim %d is not the table's d %d",
                         p->dim, d);
    return PC_OK;
}

double pc_rope_model_c(const pc_schedule *s, int d, int i)
{
    const pc_rope_params *p = s->params;
    (void)d;
    double c = type_c(p, i);
    /* an angle scale S (--rope-angle-scale): the product S x one rounding,
     * and S itself rounded to binary32 unless it is a binary32 value (2 pi
     * never is; docs/precision-model.md) */
    if (p->scale_k > 0.0)
        c += 1.0 + (p->scale_pi || (double)(float)p->scale_k != p->scale_k ? 1.0 : 0.0);
    /* A != 1: A rounded to binary32 and one product (docs/schedules.md) */
    return p->att_one ? c : c + 2.0;
}

/* llama.cpp's rope_yarn multiplies cosf and sinf by its mscale, attn_factor
 * (1 + 0.1f logf(1 / freq_scale)) in binary32: within u + (3.25 t + 0.2) u
 * / (1 + t) of A = 1 + t, t = 0.1 ln factor (0.1f 0.25 u, logf 2 u, the
 * product u; logf of 1 / freq_scale, two roundings from the factor, 0.2 u
 * of t; the sum u), or, for a DeepSeek model's attn_factor 1.0f / (1.0f +
 * 0.1f logf(1.0f / freq_scale)), within u of A = 1; the product one u
 * more.  Beyond HF's fl(A) and product (pc_model_radial's 2 u where A !=
 * 1): at most 2 u for factors up to 1.8e6 ((3.25 t + 0.2)/(1 + t) <= 2 for
 * t <= 1.44); docs/schedules.md, "llama.cpp's formulation". */
double pc_rope_model_r(const pc_schedule *s, int d)
{
    const pc_rope_params *p = s->params;
    (void)d;
    double r = p->type == PC_ROPE_YARN && !(p->axes && p->axes->axial) ? 2.0 : 0.0;
    return r + pc_rope_xpos_r(p); /* xPos: docs/schedules.md */
}

/* Every omega_i once (64 bits): certified (not NaN: the interval became
 * narrow below the precision ceiling) and in (0, 1] (times the angle
 * scale where one is given: the fast paths take a pair only when its
 * omega is in [2^-900, 1], pc_fast_set). */
static pc_status evaluate_all(const pc_rope_params *p, pc_err *err)
{
    pc_schedule s = pc_rope_schedule(p);
    /* an angle scale S multiplies every omega_i (schedule_axes.c): up to
     * S, with pi's binary64 rounded up (3.1415926535897936 > pi) and a
     * margin over the roundings of this product and of the 64-bit omega */
    double top = p->scale_k > 0.0
        ? p->scale_k * (p->scale_pi ? 3.1415926535897936 : 1.0) * (1.0 + 0x1p-40) : 1.0;
    mpfr_t w;
    mpfr_init2(w, 64);
    pc_status st = PC_OK;
    for (int i = 0; i < p->dim / 2 && st == PC_OK; i++) {
        s.kind->omega(w, &s, p->dim, i);
        if (mpfr_nan_p(w))
            st = pc_seterr(err, PC_EINTERNAL, "%s schedule: omega_%d cannot be certified",
                           s.kind->name, i);
        else if (!(mpfr_sgn(w) > 0) || mpfr_cmp_d(w, top) > 0)
            st = pc_seterr(err, PC_EINPUT, "%s schedule: omega_%d = %g is outside (0, %g]",
                           s.kind->name, i, mpfr_get_d(w, MPFR_RNDN), top);
    }
    mpfr_clear(w);
    return st;
}

pc_status pc_rope_prepare(pc_rope_params *p, pc_err *err)
{
    if (p->type < 0 || p->type >= NTYPES)
        return pc_seterr(err, PC_EINPUT, "unknown rope type %d", p->type);
    pc_status st = pc_ref_check_params(p->dim, p->base, err);
    if (st != PC_OK) return st;
    free(p->model_c);
    p->model_c = malloc((size_t)(p->dim / 2) * sizeof *p->model_c);
    if (!p->model_c) return pc_seterr(err, PC_ENOMEM, "out of memory");
    for (int i = 0; i < p->dim / 2; i++) p->model_c[i] = pc_rope_c0(p->base);
    st = types[p->type].prepare(p, err);
    if (st == PC_OK) st = pc_rope_xpos_check(p, err);
    if (st == PC_OK) st = decide_att(p, err);
    if (st == PC_OK) st = evaluate_all(p, err);
    return st;
}

void pc_rope_params_free(pc_rope_params *p)
{
    if (!p) return;
    free(p->ext); free(p->ff); free(p->band); free(p->ramp); free(p->model_c); free(p->omega_s);
    p->omega_s = NULL;
    pc_rope_axes_free(p->axes);
    p->ext = p->ff = p->model_c = NULL;
    p->band = p->ramp = NULL;
    p->axes = NULL;
}

/* ---- the default schedule over the rotary dim ----------------------------- */

static void default_iv(mpfi_ptr out, const pc_rope_params *p, int i)
{
    pc_iv_geometric(out, p->base, p->dim, i);
}

static void default_omega(mpfr_ptr out, const pc_schedule *s, int d, int i)
{
    (void)d;
    pc_iv_to_mpfr(out, default_iv, s->params, i);
}

/* C = max(C0(base), ggml's 3i + X_i + 1): MLX's rope kernel (the exp2
 * form, C0 >= HF's and vLLM's pow form) and llama.cpp's cumulative product
 * (docs/schedules.md).  M-RoPE and axial RoPE take their own (type_c). */
pc_status pc_rope_prep_default(pc_rope_params *p, pc_err *err)
{
    (void)err;
    for (int i = 0; i < p->dim / 2; i++) p->model_c[i] = fmax(p->model_c[i], pc_rope_c_ggml(p, i));
    return PC_OK;
}

/* HF _compute_default_rope_parameters: inv_freq_i = base^(-2i/dim). */
const pc_schedule_kind pc_kind_rope_default = {
    "default", pc_rope_check, default_omega, NULL, pc_rope_model_c, NULL, pc_rope_model_r, NULL,
    NULL, NULL, NULL
};

pc_status pc_rope_need_factor(double v, const char *name, pc_err *err)
{
    if (!isfinite(v) || !(v >= 1.0))
        return pc_seterr(err, PC_EINPUT, "rope_scaling.%s must be a finite number >= 1, got %g "
                         "(pecheck's schedules keep every frequency <= 1)", name, v);
    return PC_OK;
}

void pc_rope_spec_free(pc_rope_spec *s)
{
    free(s->short_factor); free(s->long_factor); free(s->ff); free(s->ids); free(s->coords);
    s->short_factor = s->long_factor = s->ff = s->coords = NULL;
    s->ids = NULL;
    for (int k = 0; s->layers && k < s->n_layers; k++) pc_rope_spec_free(&s->layers[k]);
    free(s->layers);
    s->layers = NULL;
    s->n_layers = 0;
}

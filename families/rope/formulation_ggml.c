/* formulation_ggml.c: llama.cpp's CPU rope, emulated (formulation_ggml.h;
 * the derivation: docs/precision-model.md, "The ggml class").
 *
 * Followed: ggml-org/llama.cpp at 0049e3cb202d (ggml/src/ggml-cpu/ops.cpp
 * ggml_compute_forward_rope_flt, ggml_rope_cache_init,
 * ggml_mrope_cache_init, rope_yarn, rope_yarn_ramp; ggml/src/ggml.c
 * ggml_rope_yarn_corr_dims), and its converter's llama3 factors
 * (convert_hf_to_gguf.py LlamaModel.generate_extra_tensors, torch float32).
 * Pair i of a position p gets, in binary32,
 *     theta_scale = powf(freq_base, -2.0f / n_dims)
 *     theta = (float)p, then theta *= theta_scale after each pair
 *     theta_extrap = theta / ff_i                (rope_freqs; 1.0f without)
 *     theta_interp = freq_scale * theta_extrap   (freq_scale = 1.0f / factor)
 *     YaRN: mix = rope_yarn_ramp(low, high, 2i) (ext_factor 1),
 *           theta = theta_interp * (1 - mix) + theta_extrap * mix
 * so its angle is fl(p) * W_i * prod(1 + d_j), |d_j| <= u, over N_i
 * roundings (i products, the division, rope_yarn's), with W_i =
 * T^i / F_i * (S a_i + m_i) an exact real of binary32 values: T the
 * powf result (one of the two binary32 neighbours of the exact power: a
 * powf within one ulp), F_i the factor, S the scale, m_i the mix and a_i =
 * fl(1 - m_i).  M-RoPE (ggml_mrope_cache_init) multiplies each axis' theta
 * by theta_scale at every pair, so its pairs are the same.  The exact
 * powers and ratios are MPFR's at GG_PREC bits; the constants computed
 * without pow (the ramp, the scale) are the C float operations of the same
 * operands (the build has -ffp-contract=off, FLT_EVAL_METHOD 0), logf the
 * local libm's (ggml_rope_yarn_corr_dims floors and ceils its result, so
 * only a value within an ulp of an integer could tell libms apart). */
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include "formulation_ggml.h"
#include "formulation_hf.h"
#include "harness/base/dtype.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"

#define GG_PREC 256 /* bits of the exact factors: far below u^2 */
#define GG_FF_CANDS 2 /* the factors of a pair: the converter's two powf neighbours */

/* The binary32 constants of llama.cpp's parameters of a schedule. */
typedef struct gg_consts {
    float base, scale;        /* freq_base, freq_scale */
    int yarn;                 /* ext_factor 1 */
    float low, high;          /* ggml_rope_yarn_corr_dims */
    float factor, two_pi, old, lf, span, low_wl, high_wl; /* llama3's converter */
} gg_consts;

/* Why llama.cpp does not implement P's schedule (NULL: it does). */
static const char *no_code(const pc_rope_params *p)
{
    if (!p) return NULL;
    if (p->type == PC_ROPE_DYNAMIC) return p->ntk_alpha > 0 ? "dynamic scaling by alpha (HunYuan)"
                                                            : "dynamic NTK scaling";
    if (p->type == PC_ROPE_YARN && !p->truncate)
        return "YaRN with an untruncated correction range (ggml_rope_yarn_corr_dims always floors "
               "and ceils it)";
    if (p->axes && p->axes->axial) return "axial positions (--rope-axes-dim)";
    if (p->xpos_base > 0) return "xPos (torchscale)";
    if (p->scale_k != 0) return "an angle scale (--rope-angle-scale)";
    if (p->freq_dtype > PC_DT_F32 || p->angle_dtype > PC_DT_F32)
        return "half-precision frequencies or angles (--rope-freq-dtype, --rope-angle-dtype)";
    return NULL;
}

/* ggml_rope_yarn_corr_dim: n_dims * logf(n_ctx_orig / (n_rot * 2 * (float)M_PI)) / (2 * logf(base)) */
static float corr_dim(int n_dims, int n_ctx_orig, float n_rot, float base)
{
    return (float)n_dims * logf((float)n_ctx_orig / (n_rot * 2.0f * (float)M_PI))
           / (2.0f * logf(base));
}

static void consts_of(const pc_rope_params *p, double base, gg_consts *c)
{
    c->base = (float)(p ? p->base : base);
    c->scale = 1.0f;
    if (!p) return;
    /* llama.cpp: rope_freq_scale_train = 1.0f / rope.scaling.factor (linear, yarn) */
    if (p->type == PC_ROPE_LINEAR || p->type == PC_ROPE_YARN) c->scale = 1.0f / (float)p->factor;
    if (p->type == PC_ROPE_YARN) {
        int n = p->dim, L0 = (int)p->orig_max;
        float lo = floorf(corr_dim(n, L0, (float)p->beta_fast, c->base));
        float hi = ceilf(corr_dim(n, L0, (float)p->beta_slow, c->base));
        c->yarn = 1;
        c->low = lo > 0.0f ? lo : 0.0f;                       /* MAX(0, start) */
        c->high = hi < (float)(n - 1) ? hi : (float)(n - 1);  /* MIN(n_dims - 1, end) */
    }
    if (p->type == PC_ROPE_LLAMA3) {
        double L = p->orig_max, lf = p->low_freq_factor, hf = p->high_freq_factor;
        c->factor = (float)p->factor;
        c->two_pi = (float)(2 * M_PI);
        c->old = (float)L;
        c->lf = (float)lf;
        c->span = (float)(hf - lf);
        c->low_wl = (float)(L / lf);
        c->high_wl = (float)(L / hf);
    }
}

/* rope_yarn_ramp(low, high, 2i) * ext_factor (1): 1 - MIN(1, MAX(0, y)) */
static float yarn_mix(const gg_consts *c, int i)
{
    float y = ((float)i - c->low) / fmaxf(0.001f, c->high - c->low);
    return 1.0f - fminf(1.0f, fmaxf(0.0f, y));
}

/* llama3's factor as the converter computes it from G, torch's pow of pair
 * I's exponent: freq = 1.0 / G; wavelen = 2 * math.pi / freq (the
 * reciprocal times the float32 2 pi, torch's __rtruediv__); 1, factor or
 * 1 / ((1 - smooth) / factor + smooth), smooth = (old / wavelen - lf) / span. */
static float llama3_factor(const gg_consts *c, float g)
{
    float freq = 1.0f / g;
    float wl = 1.0f / freq * c->two_pi;
    if (wl < c->high_wl) return 1.0f;
    if (wl > c->low_wl) return c->factor;
    float smooth = (1.0f / wl * c->old - c->lf) / c->span;
    return 1.0f / ((1.0f - smooth) / c->factor + smooth);
}

/* Pair I's rope_freqs factors (F[0..GG_FF_CANDS), the last repeated where
 * there is one); their count. */
static int factors(const pc_rope_params *p, const gg_consts *c, int i, float f[GG_FF_CANDS])
{
    f[0] = f[1] = 1.0f;
    if (!p) return 1;
    if (p->type == PC_ROPE_FREQS) f[0] = f[1] = (float)p->ff[i];
    if (p->type == PC_ROPE_LONGROPE) f[0] = f[1] = (float)p->ext[i]; /* the GGUF's long or short factors */
    if (p->type != PC_ROPE_LLAMA3) return 1;
    float g[2];
    pc_rope_pow_cands(c->base, (float)(2 * i) / (float)p->dim, g); /* arange(0, dim, 2).float() / dim */
    f[0] = llama3_factor(c, g[0]);
    f[1] = llama3_factor(c, g[1]);
    return 2;
}

/* (X (1 + s u)^N - 1) / u for S = +1, (1 - X (1 - u)^N) / u for S = -1:
 * the relative distance, in units of u, of X with N roundings, rounded up. */
static double dist_u(mpfr_srcptr x, int n, int s)
{
    mpfr_t t, r;
    mpfr_inits2(GG_PREC, t, r, (mpfr_ptr)0);
    mpfr_set_d(t, 1.0 + s * PC_MODEL_U32, MPFR_RNDN); /* exact: 1 +- 2^-24 */
    mpfr_pow_ui(t, t, (unsigned long)n, MPFR_RNDN);
    mpfr_mul(r, x, t, MPFR_RNDN);
    mpfr_sub_ui(r, r, 1, MPFR_RNDN);
    if (s < 0) mpfr_neg(r, r, MPFR_RNDN);
    mpfr_mul_2si(r, r, 24, MPFR_RNDN);
    double v = mpfr_get_d(r, MPFR_RNDU);
    mpfr_clears(t, r, (mpfr_ptr)0);
    return v;
}

/* Pair I of candidate theta_scale T and factor F against the exact omega W. */
static void pair_of(const gg_consts *c, int i, float t, float f, mpfr_srcptr w, pc_rope_ggml_pair *o)
{
    mpfr_t x, m;
    mpfr_inits2(GG_PREC, x, m, (mpfr_ptr)0);
    int n = i + (f != 1.0f);                 /* the products; theta / ff */
    mpfr_set_flt(m, c->scale, MPFR_RNDN);    /* theta_interp = freq_scale * theta_extrap */
    if (c->yarn) {
        float mix = yarn_mix(c, i), a = 1.0f - mix;
        mpfr_mul_d(m, m, (double)a, MPFR_RNDN);  /* exact: 48 bits */
        mpfr_add_d(m, m, (double)mix, MPFR_RNDN);
        /* interp * (1 - mix) + extrap * mix: the scale, two products, the sum; none
         * where the mix is 1 (interp * 0 + extrap), the scale alone where it is 0 */
        n += mix == 1.0f ? 0 : mix == 0.0f ? (c->scale != 1.0f) : 3;
    } else {
        n += c->scale != 1.0f;
    }
    mpfr_set_flt(x, t, MPFR_RNDN);
    mpfr_pow_ui(x, x, (unsigned long)i, MPFR_RNDN);
    mpfr_div_d(x, x, (double)f, MPFR_RNDN);
    mpfr_mul(x, x, m, MPFR_RNDN);
    mpfr_div(x, x, w, MPFR_RNDN);             /* W_i / omega_i */
    o->k = fmax(o->k, fmax(dist_u(x, 0, 1), dist_u(x, 0, -1)));
    o->kappa = fmax(o->kappa, fmax(dist_u(x, n, 1), dist_u(x, n, -1)));
    o->n = n > o->n ? n : o->n;
    mpfr_clears(x, m, (mpfr_ptr)0);
}

int pc_rope_ggml_pairs(const pc_rope_params *p, double base, int d, pc_rope_ggml_pair *out,
                       char *why, size_t len)
{
    const char *nc = no_code(p);
    if (nc) {
        snprintf(why, len, "llama.cpp does not implement %s", nc);
        return -1;
    }
    int dim = p ? p->dim : d;
    gg_consts c = { 0 };
    consts_of(p, base, &c);
    float ts[2];
    pc_rope_pow_cands(c.base, -2.0f / (float)dim, ts); /* powf(freq_base, -2.0f/n_dims) */
    pc_schedule s = p ? (pc_schedule){ pc_rope_type_kind(p), p->base, p } : pc_schedule_geometric(base);
    mpfr_t w;
    mpfr_init2(w, GG_PREC);
    for (int i = 0; i < d / 2; i++) {
        float f[GG_FF_CANDS];
        int nf = factors(p, &c, i, f);
        s.kind->omega(w, &s, dim, i);
        out[i] = (pc_rope_ggml_pair){ 0.0, 0.0, 0 };
        for (int a = 0; a < 2; a++)
            for (int b = 0; b < nf; b++) pair_of(&c, i, ts[a], f[b], w, &out[i]);
    }
    mpfr_clear(w);
    return 0;
}

/* ---- the class of a run ------------------------------------------------- */

typedef struct gg_form {
    pc_acc_form form;
    double *kappa, *k;
} gg_form;

static gg_form *form_new(const pc_rope_params *p, double base, int d, char *why, size_t len)
{
    size_t h = (size_t)d / 2;
    gg_form *f = calloc(1, sizeof *f + h * (2 * sizeof(double) + sizeof(pc_rope_ggml_pair)));
    pc_rope_ggml_pair *pairs = f ? (pc_rope_ggml_pair *)(f + 1) : NULL;
    if (!f) { snprintf(why, len, "out of memory"); return NULL; }
    if (pc_rope_ggml_pairs(p, base, d, pairs, why, len) != 0) { free(f); return NULL; }
    f->kappa = (double *)(pairs + h);
    f->k = f->kappa + h;
    for (size_t i = 0; i < h; i++) {
        f->kappa[i] = pairs[i].kappa;
        f->k[i] = pairs[i].k;
    }
    /* no binary32 frequency a pair: the angle is a product of i roundings */
    f->form = (pc_acc_form){ "llama.cpp's CPU rope (ggml_rope_cache_init: theta *= powf(base, "
                             "-2/n_dims) pair by pair, rope_yarn, rope_freqs), each pair's binary32 "
                             "operations followed", f->kappa, f->k, NULL };
    return f;
}

pc_status pc_rope_ggml_apply(const pc_rope_params *p, pc_acc_cfg *cfg, void **own, pc_err *err)
{
    *own = NULL;
    if (p && p->dim != cfg->d)
        return pc_seterr(err, PC_EINPUT, "--formulation ggml: the schedule has %d dims, the run %d",
                         p->dim, cfg->d);
    char why[200];
    gg_form *f = form_new(p, cfg->base, cfg->d, why, sizeof why);
    if (!f) return pc_seterr(err, PC_EINPUT, "--formulation ggml: %s (use cr, or hf where transformers has code for it)", why);
    cfg->form = &f->form;
    *own = f;
    return PC_OK;
}

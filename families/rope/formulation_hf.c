/* formulation_hf.c: transformers' float32 frequency code, emulated
 * (formulation_hf.h; the derivation: docs/precision-model.md, "The hf
 * class: transformers' own float32 frequencies").
 *
 * Each torch float32 operation on the CPU is one IEEE binary32 operation
 * rounded to nearest, and the Python floats of the code are rounded to
 * binary32 before the operation takes them (a wrapped scalar takes the
 * tensor's dtype); `s / t` is `t.reciprocal() * s` (torch/_tensor.py
 * __rdiv__), `s ** t` is `tensor(s, float32) ** t` (__rpow__).  So each
 * step below is the C float operation of the same operands, in the same
 * order (the build has -ffp-contract=off and FLT_EVAL_METHOD 0: nothing
 * is fused or kept wider).  Checked bit for bit against the local PyTorch
 * (tests/rope_formulation.t).  Only pow is not correctly rounded (Sleef's
 * powf8_u10, glibc's powf at the tail of a vector: below 1 ulp): its
 * result is one of the two binary32 neighbours of the exact power of its
 * binary32 operands, and both are followed through the rest of the code. */
#include <math.h>
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include "formulation_hf.h"
#include "formulation_ggml.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"

#define HF_PREC 256 /* bits of the exact power and frequency: far below u^2 */

/* The binary32 constants of a schedule's code: its Python floats rounded
 * to binary32 where a float32 operation takes them. */
typedef struct hf_consts {
    float base[2];            /* the bases raised (dynamic: base' by two paths) */
    int nbase;
    float factor;
    float low, range;         /* yarn: low and high - low of the correction range */
    float two_pi, old, lf, span, low_wl, high_wl; /* llama3 */
} hf_consts;

void pc_rope_pow_cands(float b, float e, float c[2])
{
    mpfr_t x, y;
    mpfr_inits2(HF_PREC, x, y, (mpfr_ptr)0);
    mpfr_set_flt(x, b, MPFR_RNDN);
    mpfr_set_flt(y, e, MPFR_RNDN);
    int t = mpfr_pow(x, x, y, MPFR_RNDN);
    c[0] = mpfr_get_flt(x, MPFR_RNDD);
    c[1] = mpfr_get_flt(x, MPFR_RNDU);
    /* rounded onto a binary32 value that the exact power is not: the
     * exact power lies on the side the ternary value says */
    if (c[0] == c[1] && t > 0) c[0] = nextafterf(c[0], 0.0f);
    if (c[0] == c[1] && t < 0) c[1] = nextafterf(c[1], INFINITY);
    mpfr_clears(x, y, (mpfr_ptr)0);
}

/* yarn's ramp of pair I: clamp((arange(dim // 2) - low) / (high - low), 0, 1) */
static float yarn_ramp(const hf_consts *c, int i)
{
    float r = ((float)i - c->low) / c->range;
    return r < 0.0f ? 0.0f : r > 1.0f ? 1.0f : r;
}

/* llama3 (_compute_llama3_parameters) from INV = 1.0 / pow. */
static float llama3(const hf_consts *c, float inv)
{
    float wl = 1.0f / inv * c->two_pi;                 /* 2 * math.pi / inv_freq */
    float il = wl > c->low_wl ? inv / c->factor : inv; /* where(wavelen > low_freq_wavelen, ...) */
    float smooth = (1.0f / wl * c->old - c->lf) / c->span;
    float smoothed = (1.0f - smooth) * il / c->factor + smooth * il;
    int mid = !(wl < c->high_wl) && !(wl > c->low_wl);
    return mid ? smoothed : il;
}

/* omega_i of P's code from G, the value pow returned for pair I. */
static float hf_omega(const pc_rope_params *p, const hf_consts *c, int i, float g)
{
    switch (p ? p->type : PC_ROPE_DEFAULT) {
    case PC_ROPE_LINEAR:   return 1.0f / g / c->factor;  /* inv_freq /= factor */
    case PC_ROPE_LONGROPE: return 1.0f / ((float)p->ext[i] * g); /* 1.0 / (ext_factors * base**..) */
    case PC_ROPE_LLAMA3:   return llama3(c, 1.0f / g);
    case PC_ROPE_YARN: {
        float extrap = 1.0f / g, interp = 1.0f / (c->factor * g);
        float w = 1.0f - yarn_ramp(c, i);              /* inv_freq_extrapolation_factor */
        return interp * (1.0f - w) + extrap * w;
    }
    default:               return 1.0f / g;          /* default, dynamic */
    }
}

/* HF's correction dimension of R rotations (find_correction_dim), binary64 as Python. */
static double corr_dim(double r, int dim, double base, double L0)
{
    return (dim * log(L0 / (r * 2 * M_PI))) / (2 * log(base));
}

static void yarn_consts(const pc_rope_params *p, hf_consts *c)
{
    double lo = corr_dim(p->beta_fast, p->dim, p->base, p->orig_max);
    double hi = corr_dim(p->beta_slow, p->dim, p->base, p->orig_max);
    if (p->truncate) { lo = floor(lo); hi = ceil(hi); }
    lo = fmax(lo, 0.0);
    hi = fmin(hi, (double)(p->dim - 1));
    if (lo == hi) hi += 0.001;                         /* linear_ramp_factor */
    c->low = (float)lo;
    c->range = (float)(hi - lo);
}

/* Why transformers has no float32 code for P (NULL: it has). */
static const char *no_code(const pc_rope_params *p)
{
    if (!p) return NULL;
    if (p->type == PC_ROPE_FREQS) return "llama.cpp's rope_freqs factors";
    if (p->type == PC_ROPE_DYNAMIC && p->ntk_alpha > 0) return "dynamic scaling by alpha (HunYuan)";
    if (p->axes && p->axes->axial) return "axial positions (--rope-axes-dim)";
    if (p->xpos_base > 0) return "xPos (torchscale)";
    if (p->scale_k != 0) return "an angle scale (--rope-angle-scale)";
    return NULL;
}

/* dynamic's base' = base * (factor s / L - (factor - 1)) ** (dim / (dim - 2)),
 * s = max(seq_len, L), as transformers computes it: at initialisation
 * seq_len is a Python int and base' a binary64, rounded to binary32 by
 * pow; when the cache grows, seq_len is torch.max(position_ids) + 1, an
 * int64 tensor, and each step a binary32 tensor operation, the power of a
 * 0-dim tensor by a Python float computed in binary64 and rounded once
 * (both paths checked bit for bit against the local PyTorch). */
static void dynamic_bases(const pc_rope_params *p, hf_consts *c)
{
    double s = p->seq_len_set && p->seq_len > p->max_pos ? p->seq_len : p->max_pos;
    double ex = (double)p->dim / (double)(p->dim - 2);
    c->base[0] = (float)(p->base * pow(p->factor * s / p->max_pos - (p->factor - 1), ex));
    float t = (float)p->factor * (float)s / (float)p->max_pos - (float)(p->factor - 1);
    c->base[1] = (float)p->base * (float)pow((double)t, ex);
    c->nbase = c->base[1] != c->base[0] ? 2 : 1;
}

static void consts_of(const pc_rope_params *p, double base, hf_consts *c)
{
    c->base[0] = (float)(p ? p->base : base);
    c->nbase = 1;
    if (!p) return;
    c->factor = (float)p->factor;
    if (p->type == PC_ROPE_DYNAMIC) dynamic_bases(p, c);
    if (p->type == PC_ROPE_YARN) yarn_consts(p, c);
    if (p->type == PC_ROPE_LLAMA3) {
        double L = p->orig_max, lf = p->low_freq_factor, hf = p->high_freq_factor;
        c->two_pi = (float)(2 * M_PI);
        c->old = (float)L;
        c->lf = (float)lf;
        c->span = (float)(hf - lf);
        c->low_wl = (float)(L / lf);
        c->high_wl = (float)(L / hf);
    }
}

/* C ascending (insertion sort of four). */
static void sort4(float c[PC_ACC_FORM_CANDS])
{
    for (int a = 1; a < PC_ACC_FORM_CANDS; a++)
        for (int b = a; b > 0 && c[b] < c[b - 1]; b--) {
            float t = c[b];
            c[b] = c[b - 1];
            c[b - 1] = t;
        }
}

/* |CAND - W| / (u W) rounded up, W the exact omega (HF_PREC bits). */
static double rel_u(float cand, mpfr_srcptr w)
{
    mpfr_t t;
    mpfr_init2(t, HF_PREC);
    mpfr_set_flt(t, cand, MPFR_RNDN);
    mpfr_sub(t, t, w, MPFR_RNDN);
    mpfr_div(t, t, w, MPFR_RNDN);
    mpfr_abs(t, t, MPFR_RNDN);
    mpfr_mul_2si(t, t, 24, MPFR_RNDN);
    double k = mpfr_get_d(t, MPFR_RNDU);
    mpfr_clear(t);
    return k;
}

int pc_rope_hf_pairs(const pc_rope_params *p, double base, int d, pc_rope_hf_pair *out,
                     char *why, size_t len)
{
    const char *nc = no_code(p);
    if (nc) {
        snprintf(why, len, "transformers has no float32 frequency code for %s", nc);
        return -1;
    }
    int dim = p ? p->dim : d;
    hf_consts c = { 0 };
    consts_of(p, base, &c);
    pc_schedule s = p ? (pc_schedule){ pc_rope_type_kind(p), p->base, p } : pc_schedule_geometric(base);
    mpfr_t w;
    mpfr_init2(w, HF_PREC);
    for (int i = 0; i < d / 2; i++) {
        float e = (float)(2 * i) / (float)dim; /* arange(0, dim, 2).float() / dim */
        s.kind->omega(w, &s, dim, i);
        pc_rope_hf_pair *o = &out[i];
        o->k = 0.0;
        for (int b = 0; b < 2; b++) {
            float g[2];
            pc_rope_pow_cands(c.base[b < c.nbase ? b : 0], e, g);
            for (int j = 0; j < 2; j++) {
                o->cand[2 * b + j] = hf_omega(p, &c, i, g[j]);
                o->k = fmax(o->k, rel_u(o->cand[2 * b + j], w));
            }
        }
        sort4(o->cand);
        /* the angle fl(fl(p) w~): (1 + k u)(1 + u)^2 - 1 <= (k + 2) u + (2k + 2) u^2,
         * of which the model adds the position's u from 2^24 on (pc_model_phase) */
        o->kappa = o->k + 1.0 + (2.0 * o->k + 2.0) * 0x1p-24;
    }
    mpfr_clear(w);
    return 0;
}

/* ---- the class of a run ------------------------------------------------- */

typedef struct hf_form {
    pc_acc_form form;
    double *kappa, *k;
    float *cand;
} hf_form;

static hf_form *form_new(const pc_rope_params *p, double base, int d, char *why, size_t len)
{
    size_t h = (size_t)d / 2;
    hf_form *f = calloc(1, sizeof *f + h * (2 * sizeof(double) + sizeof(pc_rope_hf_pair))
                        + PC_ACC_FORM_CANDS * h * sizeof(float));
    pc_rope_hf_pair *pairs = f ? (pc_rope_hf_pair *)(f + 1) : NULL;
    if (!f) { snprintf(why, len, "out of memory"); return NULL; }
    if (pc_rope_hf_pairs(p, base, d, pairs, why, len) != 0) { free(f); return NULL; }
    f->kappa = (double *)(pairs + h);
    f->k = f->kappa + h;
    f->cand = (float *)(f->k + h);
    for (size_t i = 0; i < h; i++) {
        f->kappa[i] = pairs[i].kappa;
        f->k[i] = pairs[i].k;
        for (size_t j = 0; j < PC_ACC_FORM_CANDS; j++)
            f->cand[PC_ACC_FORM_CANDS * i + j] = pairs[i].cand[j];
    }
    f->form = (pc_acc_form){ "transformers' float32 frequency code of the schedule, each pair's "
                             "binary32 operations followed", f->kappa, f->k, f->cand };
    return f;
}

pc_status pc_rope_form_apply(const pc_rope_params *p, pc_acc_cfg *cfg, void **own, pc_err *err)
{
    *own = NULL;
    if (!cfg->strict || cfg->tol_abs >= 0) return PC_OK;
    if (cfg->formulation && cfg->strict == PC_CLASS_GGML) return pc_rope_ggml_apply(p, cfg, own, err);
    if (cfg->formulation && cfg->strict != PC_CLASS_HF) return PC_OK; /* cr: model.c's */
    if (p && p->dim != cfg->d)
        return pc_seterr(err, PC_EINPUT, "--formulation hf: the schedule has %d dims, the run %d",
                         p->dim, cfg->d);
    char why[160];
    hf_form *f = form_new(p, cfg->base, cfg->d, why, sizeof why);
    if (f) {
        cfg->strict = PC_CLASS_HF;
        cfg->form = &f->form;
        *own = f;
        return PC_OK;
    }
    if (cfg->formulation) return pc_seterr(err, PC_EINPUT, "--formulation hf: %s (use cr)", why);
    cfg->strict = PC_CLASS_STRICT; /* a bare --strict: cr, named in the output */
    return PC_OK;
}

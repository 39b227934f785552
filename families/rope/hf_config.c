/* hf_config.c: a RoPE schedule from what users have: a HuggingFace
 * config.json (rope_theta, rope_scaling with rope_type or the older type,
 * head_dim or hidden_size / num_attention_heads, partial_rotary_factor or
 * rotary_pct, max_position_embeddings, original_max_position_embeddings),
 * an inline rope_scaling object, llama.cpp's rope_freqs as a .npy, and
 * the options --base, --rotary-dim, --seq-len.  Field meanings follow
 * transformers' modeling_rope_utils.py (docs/schedules.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "scaling.h"
#include "harness/io/jsonread.h"
#include "harness/io/npy.h"

/* A number member KEY of OBJ: 1 found, 0 absent or null, -1 not a number. */
static int num(const pc_jnode *obj, const char *key, double *v)
{
    const pc_jnode *n = obj ? pc_jget(obj, key) : NULL;
    if (!n || n->type == PC_J_NULL) return 0;
    if (n->type != PC_J_NUM) return -1;
    errno = 0;
    *v = strtod(n->text, NULL);
    return isfinite(*v) ? 1 : -1;
}

static pc_status need_num(const pc_jnode *obj, const char *what, const char *key, double *v,
                          pc_err *err)
{
    int r = num(obj, key, v);
    if (r == 1) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "%s: %s %s", what, key,
                     r == 0 ? "is missing" : "is not a finite number");
}

static pc_status opt_num(const pc_jnode *obj, const char *what, const char *key, double *v,
                         double dflt, pc_err *err)
{
    int r = num(obj, key, v);
    if (r == 0) *v = dflt;
    if (r < 0) return pc_seterr(err, PC_EINPUT, "%s: %s is not a finite number", what, key);
    return PC_OK;
}

/* An array of numbers KEY of OBJ into a new array; PC_EINPUT naming it. */
static pc_status num_list(const pc_jnode *obj, const char *what, const char *key, double **out,
                          int *n, pc_err *err)
{
    const pc_jnode *a = pc_jget(obj, key);
    if (!a || a->type == PC_J_NULL)
        return pc_seterr(err, PC_EINPUT, "%s: %s is missing", what, key);
    if (a->type != PC_J_ARR || a->n == 0 || a->n > PC_D_MAX / 2)
        return pc_seterr(err, PC_EINPUT, "%s: %s must be a list of 1 to %d numbers", what, key,
                         PC_D_MAX / 2);
    double *v = malloc(a->n * sizeof *v);
    if (!v) return pc_seterr(err, PC_ENOMEM, "out of memory");
    for (size_t k = 0; k < a->n; k++) {
        const pc_jnode *e = &a->kids[k];
        v[k] = e->type == PC_J_NUM ? strtod(e->text, NULL) : (double)NAN;
        if (!isfinite(v[k])) {
            free(v);
            return pc_seterr(err, PC_EINPUT, "%s: %s[%zu] is not a finite number", what, key, k);
        }
    }
    *out = v;
    *n = (int)a->n;
    return PC_OK;
}

static const char *type_of(const pc_jnode *rs)
{
    const pc_jnode *t = pc_jget(rs, "rope_type");
    if (!t || t->type != PC_J_STR) t = pc_jget(rs, "type"); /* the older key */
    return t && t->type == PC_J_STR ? t->text : NULL;
}

/* The model-level fields: base, head dim, rotary dim, lengths. */
static pc_status read_model(pc_rope_spec *s, const pc_jnode *cfg, const char *what, pc_err *err)
{
    pc_rope_params *p = &s->p;
    double v;
    int r = num(cfg, "rope_theta", &v);
    if (r == 0) r = num(cfg, "rotary_emb_base", &v); /* GPT-NeoX */
    if (r < 0) return pc_seterr(err, PC_EINPUT, "%s: rope_theta is not a finite number", what);
    if (r == 1) { p->base = v; s->have_base = 1; }
    double hd = 0, hs, nh;
    if (num(cfg, "head_dim", &hd) != 1) {
        if (num(cfg, "hidden_size", &hs) == 1 && num(cfg, "num_attention_heads", &nh) == 1 && nh >= 1)
            hd = floor(hs / nh); /* HF: hidden_size // num_attention_heads */
        else
            return pc_seterr(err, PC_EINPUT, "%s: head_dim is missing (and so is hidden_size or "
                             "num_attention_heads)", what);
    }
    if (!(hd >= 2 && hd <= PC_D_MAX))
        return pc_seterr(err, PC_EINPUT, "%s: head_dim %g is out of range [2, %d]", what, hd, PC_D_MAX);
    s->head_dim = (int)hd;
    double prf = 1.0;
    if (num(cfg, "partial_rotary_factor", &prf) != 1 && num(cfg, "rotary_pct", &prf) != 1)
        prf = 1.0;
    if (!(prf > 0.0 && prf <= 1.0))
        return pc_seterr(err, PC_EINPUT, "%s: partial_rotary_factor %g is not in (0, 1]", what, prf);
    s->rotary_dim = (int)(hd * prf); /* HF: int(head_dim * partial_rotary_factor) */
    if (num(cfg, "max_position_embeddings", &v) == 1) p->max_pos = v;
    if (num(cfg, "original_max_position_embeddings", &v) == 1) p->orig_max = v;
    return PC_OK;
}

/* The rope_scaling object RS (NULL or null: the default schedule).
 * TOP_ORIG: the config's top-level original_max_position_embeddings (0:
 * none), which longrope uses (Phi-3). */
static pc_status read_scaling(pc_rope_spec *s, const pc_jnode *rs, const char *what,
                              double top_orig, pc_err *err)
{
    pc_rope_params *p = &s->p;
    if (!rs || rs->type == PC_J_NULL) { p->type = PC_ROPE_DEFAULT; return PC_OK; }
    if (rs->type != PC_J_OBJ)
        return pc_seterr(err, PC_EINPUT, "%s: rope_scaling must be an object or null", what);
    const char *name = type_of(rs);
    if (!name) return pc_seterr(err, PC_EINPUT, "%s: rope_scaling has no rope_type (or type)", what);
    p->type = pc_rope_type_of(name);
    if (p->type < 0 || p->type == PC_ROPE_FREQS)
        return pc_seterr(err, PC_EINPUT, "%s: unknown rope type '%s' (pecheck knows default, "
                         "linear, dynamic, yarn, longrope, llama3)", what, name);
    double v;
    pc_status st = PC_OK;
    /* lengths given inside rope_scaling (and, for --rope-scaling alone,
     * max_position_embeddings there too) */
    if (num(rs, "max_position_embeddings", &v) == 1) p->max_pos = v;
    int rs_orig = num(rs, "original_max_position_embeddings", &v) == 1;
    switch (p->type) {
    case PC_ROPE_DEFAULT:
        break;
    case PC_ROPE_LINEAR:
        st = need_num(rs, what, "factor", &p->factor, err);
        break;
    case PC_ROPE_DYNAMIC:
        st = need_num(rs, what, "factor", &p->factor, err);
        if (st == PC_OK && !(p->max_pos > 0))
            st = pc_seterr(err, PC_EINPUT, "%s: max_position_embeddings is missing (dynamic "
                           "scaling needs it)", what);
        break;
    case PC_ROPE_YARN:
        /* L0 = rope_scaling.original_max_position_embeddings or
         * max_position_embeddings; factor given, else their ratio */
        p->orig_max = rs_orig ? v : p->max_pos;
        if (!(p->orig_max > 0))
            return pc_seterr(err, PC_EINPUT, "%s: original_max_position_embeddings and "
                             "max_position_embeddings are missing (yarn needs one)", what);
        if (num(rs, "factor", &p->factor) != 1) {
            if (!(p->max_pos > 0))
                return pc_seterr(err, PC_EINPUT, "%s: factor is missing", what);
            p->factor = p->max_pos / p->orig_max;
        }
        st = opt_num(rs, what, "beta_fast", &p->beta_fast, 32.0, err);
        if (st == PC_OK) st = opt_num(rs, what, "beta_slow", &p->beta_slow, 1.0, err);
        if (st == PC_OK) st = opt_num(rs, what, "mscale", &p->mscale, 0.0, err);
        if (st == PC_OK) st = opt_num(rs, what, "mscale_all_dim", &p->mscale_all_dim, 0.0, err);
        if (st == PC_OK) {
            const pc_jnode *t = pc_jget(rs, "truncate");
            p->truncate = !(t && t->type == PC_J_FALSE);
        }
        break;
    case PC_ROPE_LONGROPE:
        /* Phi-3: a top-level original length sets L0 and factor =
         * max_position_embeddings / L0; else factor given and L0 =
         * rope_scaling's original length or max_position_embeddings */
        if (top_orig > 0 && p->max_pos > 0) {
            p->orig_max = top_orig;
            p->factor = p->max_pos / top_orig;
        } else {
            p->orig_max = rs_orig ? v : p->max_pos;
            if (num(rs, "factor", &p->factor) != 1)
                p->factor = p->max_pos > 0 && p->orig_max > 0 ? p->max_pos / p->orig_max : 1.0;
        }
        if (!(p->orig_max > 0))
            return pc_seterr(err, PC_EINPUT, "%s: original_max_position_embeddings is missing "
                             "(longrope needs it)", what);
        st = num_list(rs, what, "short_factor", &s->short_factor, &s->n_factor, err);
        if (st == PC_OK) {
            int nl = 0;
            st = num_list(rs, what, "long_factor", &s->long_factor, &nl, err);
            if (st == PC_OK && nl != s->n_factor)
                st = pc_seterr(err, PC_EINPUT, "%s: short_factor has %d numbers but long_factor %d",
                               what, s->n_factor, nl);
        }
        break;
    case PC_ROPE_LLAMA3:
        st = need_num(rs, what, "factor", &p->factor, err);
        if (st == PC_OK) st = need_num(rs, what, "low_freq_factor", &p->low_freq_factor, err);
        if (st == PC_OK) st = need_num(rs, what, "high_freq_factor", &p->high_freq_factor, err);
        if (st == PC_OK) st = need_num(rs, what, "original_max_position_embeddings", &p->orig_max, err);
        break;
    default:
        break;
    }
    if (st == PC_OK && (p->type == PC_ROPE_YARN || p->type == PC_ROPE_LONGROPE)) {
        int r = num(rs, "attention_factor", &p->attention_factor);
        if (r < 0) return pc_seterr(err, PC_EINPUT, "%s: attention_factor is not a finite number", what);
        p->att_given = r == 1;
    }
    return st;
}

static pc_status read_freqs(pc_rope_spec *s, const char *path, pc_err *err)
{
    pc_npy a = { 0 };
    pc_status st = pc_npy_read(path, &a, err);
    if (st == PC_EIO) st = PC_EINPUT;
    if (st != PC_OK) return st;
    if (a.rank != 1 || a.count > PC_D_MAX / 2 || a.dtype[1] != 'f') {
        pc_npy_free(&a);
        return pc_seterr(err, PC_EINPUT, "%s: rope_freqs must be a 1-D array of d/2 factors", path);
    }
    s->ff = a.data; /* ownership moves */
    s->n_factor = (int)a.count;
    s->p.type = PC_ROPE_FREQS;
    return PC_OK;
}

static pc_status parse_inline(pc_rope_spec *s, const char *text, double top_orig, pc_err *err)
{
    pc_jnode *rs = NULL;
    pc_status st = pc_jparse(text, strlen(text), "--rope-scaling", &rs, err);
    if (st == PC_OK) st = read_scaling(s, rs, "--rope-scaling", top_orig, err);
    pc_jfree(rs);
    return st;
}

pc_status pc_rope_spec_parse(pc_rope_spec *s, const pc_rope_opts *o, pc_err *err)
{
    memset(s, 0, sizeof *s);
    s->given = *o;
    s->p.base = o->base;
    pc_status st = PC_OK;
    double top_orig = 0;
    if (o->config) {
        pc_jnode *cfg = NULL;
        st = pc_jread_file(o->config, &cfg, err);
        if (st == PC_EIO) st = PC_EINPUT;
        if (st == PC_OK && cfg->type != PC_J_OBJ)
            st = pc_seterr(err, PC_EINPUT, "%s: a config must be a JSON object", o->config);
        if (st == PC_OK) st = read_model(s, cfg, o->config, err);
        top_orig = s->p.orig_max;
        if (st == PC_OK && !o->inline_json)
            st = read_scaling(s, pc_jget(cfg, "rope_scaling"), o->config, top_orig, err);
        pc_jfree(cfg);
        if (st != PC_OK) return st;
        if (o->base_set && s->have_base && o->base != s->p.base)
            return pc_seterr(err, PC_EINPUT, "--base %.17g disagrees with %s's rope_theta %.17g "
                             "(drop --base, or fix the config)", o->base, o->config, s->p.base);
    }
    if (o->inline_json) st = parse_inline(s, o->inline_json, top_orig, err);
    if (st == PC_OK && o->freqs_path) {
        if (o->inline_json || (o->config && s->p.type != PC_ROPE_DEFAULT))
            return pc_seterr(err, PC_EINPUT, "--rope-freqs replaces the frequency schedule: give it "
                             "without a rope_scaling");
        st = read_freqs(s, o->freqs_path, err);
    }
    if (st != PC_OK) return st;
    if (o->base_set) { s->p.base = o->base; s->have_base = 1; }
    if (o->rotary_dim) {
        if (s->head_dim && o->rotary_dim > s->head_dim)
            return pc_seterr(err, PC_EINPUT, "--rotary-dim %d exceeds %s's head_dim %d",
                             o->rotary_dim, o->config, s->head_dim);
        s->rotary_dim = o->rotary_dim;
    }
    s->p.seq_len = o->seq_len;
    s->p.seq_len_set = o->seq_len_set;
    snprintf(s->source, sizeof s->source, "%s%s%s", o->config ? o->config : "",
             o->config && o->inline_json ? " with " : "", o->inline_json ? "--rope-scaling" : "");
    if (o->freqs_path) snprintf(s->source, sizeof s->source, "--rope-freqs %.150s", o->freqs_path);
    return PC_OK;
}

void pc_rope_spec_free(pc_rope_spec *s)
{
    free(s->short_factor); free(s->long_factor); free(s->ff);
    s->short_factor = s->long_factor = s->ff = NULL;
}

static double *copy_list(const double *v, int n)
{
    double *c = malloc((size_t)n * sizeof *c);
    if (c) memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

pc_status pc_rope_instantiate(const pc_rope_spec *s, int d, double seq_default,
                              pc_rope_params *out, pc_err *err)
{
    *out = s->p;
    out->ext = out->ff = out->model_c = NULL;
    out->band = out->ramp = NULL;
    out->dim = d;
    if (s->rotary_dim && s->rotary_dim != d)
        return pc_seterr(err, PC_EINPUT, "the rotary dim is %d%s but the cache or --d has d = %d "
                         "(a RoPE cache holds the rotary dims only)", s->rotary_dim,
                         s->head_dim && s->rotary_dim < s->head_dim ? " (partial rotary)" : "", d);
    if (!out->seq_len_set && seq_default > 0) { out->seq_len = seq_default; out->seq_len_set = 1; }
    const double *list = NULL;
    if (out->type == PC_ROPE_LONGROPE) {
        out->use_long = out->seq_len_set && out->seq_len > out->orig_max;
        list = out->use_long ? s->long_factor : s->short_factor;
    } else if (out->type == PC_ROPE_FREQS) {
        list = s->ff;
    }
    if (list) {
        if (s->n_factor != d / 2)
            return pc_seterr(err, PC_EINPUT, "%s has %d frequency factors but d = %d needs %d",
                             s->source, s->n_factor, d, d / 2);
        double *c = copy_list(list, s->n_factor);
        if (!c) return pc_seterr(err, PC_ENOMEM, "out of memory");
        if (out->type == PC_ROPE_LONGROPE) out->ext = c;
        else out->ff = c;
    }
    pc_status st = pc_rope_prepare(out, err);
    if (st != PC_OK) pc_rope_params_free(out);
    return st;
}

void pc_rope_describe(const pc_rope_params *p, char *buf, size_t len)
{
    int n = snprintf(buf, len, "schedule %s, base %.17g, rotary dim %d", pc_rope_type_name(p->type),
                     p->base, p->dim);
    if (n < 0 || (size_t)n >= len) return;
    buf += n; len -= (size_t)n;
    switch (p->type) {
    case PC_ROPE_LINEAR:
        snprintf(buf, len, ", factor %g", p->factor); break;
    case PC_ROPE_DYNAMIC:
        snprintf(buf, len, ", factor %g, max_position_embeddings %g, sequence length %g", p->factor,
                 p->max_pos, p->seq_len_set && p->seq_len > p->max_pos ? p->seq_len : p->max_pos);
        break;
    case PC_ROPE_YARN:
        snprintf(buf, len, ", factor %g, original length %g, beta_fast %g, beta_slow %g%s, "
                 "attention factor %.17g", p->factor, p->orig_max, p->beta_fast, p->beta_slow,
                 p->truncate ? "" : ", not truncated", p->att_d);
        break;
    case PC_ROPE_LONGROPE:
        snprintf(buf, len, ", %s factors (sequence length %g %s original %g), attention factor %.17g",
                 p->use_long ? "long" : "short", p->seq_len_set ? p->seq_len : 0.0,
                 p->use_long ? ">" : "<=", p->orig_max, p->att_d);
        break;
    case PC_ROPE_LLAMA3:
        snprintf(buf, len, ", factor %g, low_freq_factor %g, high_freq_factor %g, original length %g",
                 p->factor, p->low_freq_factor, p->high_freq_factor, p->orig_max);
        break;
    case PC_ROPE_FREQS:
        snprintf(buf, len, ", per-pair frequency factors (rope_freqs)"); break;
    default:
        break;
    }
}

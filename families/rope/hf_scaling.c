/* hf_scaling.c: a config's scaling object, rope_scaling (rope_type or the
 * older type) or rope_parameters (transformers' newer layout, with
 * rope_theta and partial_rotary_factor inside), into a RoPE schedule
 * (hf_read.h).  Defaults and precedence follow transformers'
 * standardize_rope_params and _compute_*_parameters (modeling_rope_utils.py,
 * the rope_parameters release): the original length is the config's
 * top-level original_max_position_embeddings when it has one, else the
 * object's, else max_position_embeddings; a YaRN or LongRoPE factor left
 * out is max_position_embeddings over it.  The older names are read as
 * the models that wrote them meant: Qwen2-VL's "mrope" is the default
 * schedule with sections, Phi-3's "su" is LongRoPE.  docs/schedules.md. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hf_read.h"

/* Every key a scaling object may hold that pecheck understands: the
 * parameters of its types, and those known to leave the encoding as it is
 * (Nous YaRN's "finetuned": static YaRN, which is what HF computes). */
static const char *const known_keys[] = {
    "rope_type", "type", "factor", "original_max_position_embeddings", "max_position_embeddings",
    "attention_factor", "beta_fast", "beta_slow", "mscale", "mscale_all_dim", "truncate",
    "short_factor", "long_factor", "short_mscale", "long_mscale", "low_freq_factor",
    "high_freq_factor", "rope_theta", "partial_rotary_factor", "mrope_section",
    "mrope_interleaved", "finetuned", "alpha", NULL
};

static pc_status audit(const pc_jnode *rs, const char *what, pc_err *err)
{
    for (size_t k = 0; k < rs->n; k++) {
        const char *const *q = known_keys;
        while (*q && strcmp(*q, rs->keys[k])) q++;
        if (!*q)
            return pc_seterr(err, PC_EINPUT, "%s.%s is not understood by pecheck (the keys it "
                             "reads: docs/schedules.md): remove it if it has no effect on the "
                             "encoding", what, rs->keys[k]);
    }
    return PC_OK;
}

static pc_status need_num(const pc_jnode *obj, const char *what, const char *key, double *v,
                          pc_err *err)
{
    int r = pc_hf_num(obj, key, v);
    if (r == 1) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "%s.%s %s", what, key,
                     r == 0 ? "is missing" : "is not a finite number");
}

static pc_status opt_num(const pc_jnode *obj, const char *what, const char *key, double *v,
                         double dflt, pc_err *err)
{
    int r = pc_hf_num(obj, key, v);
    if (r == 0) *v = dflt;
    if (r < 0) return pc_seterr(err, PC_EINPUT, "%s.%s is not a finite number", what, key);
    return PC_OK;
}

/* An array of numbers KEY of OBJ into a new array; PC_EINPUT naming it. */
static pc_status num_list(const pc_jnode *obj, const char *what, const char *key, double **out,
                          int *n, pc_err *err)
{
    const pc_jnode *a = pc_jget(obj, key);
    if (!a || a->type == PC_J_NULL)
        return pc_seterr(err, PC_EINPUT, "%s.%s is missing", what, key);
    if (a->type != PC_J_ARR || a->n == 0 || a->n > PC_D_MAX / 2)
        return pc_seterr(err, PC_EINPUT, "%s.%s must be a list of 1 to %d numbers", what, key,
                         PC_D_MAX / 2);
    double *v = malloc(a->n * sizeof *v);
    if (!v) return pc_seterr(err, PC_ENOMEM, "out of memory");
    for (size_t k = 0; k < a->n; k++) {
        const pc_jnode *e = &a->kids[k];
        v[k] = e->type == PC_J_NUM ? strtod(e->text, NULL) : (double)NAN;
        if (!isfinite(v[k])) {
            free(v);
            return pc_seterr(err, PC_EINPUT, "%s.%s[%zu] is not a finite number", what, key, k);
        }
    }
    *out = v;
    *n = (int)a->n;
    return PC_OK;
}

/* The type name: rope_type, else the older type; the older names as
 * their models meant them. */
static int type_of(const pc_jnode *rs, const char *what, pc_err *err)
{
    const pc_jnode *t = pc_jget(rs, "rope_type");
    if (!t || t->type != PC_J_STR) t = pc_jget(rs, "type");
    const char *name = t && t->type == PC_J_STR ? t->text : "default"; /* HF's default */
    if (!strcmp(name, "mrope")) return PC_ROPE_DEFAULT;  /* Qwen2-VL: sections of the default */
    if (!strcmp(name, "su")) return PC_ROPE_LONGROPE;    /* Phi-3's first name of longrope */
    int type = pc_rope_type_of(name);
    if (type < 0 || type == PC_ROPE_FREQS)
        pc_seterr(err, PC_EINPUT, "%s: unknown rope type '%s' (pecheck knows default, linear, "
                  "dynamic, yarn, longrope, llama3, and the older mrope and su)", what, name);
    return type == PC_ROPE_FREQS ? -1 : type;
}

/* The original length L0 of yarn, longrope, llama3: the config's top-level
 * one (already in P->orig_max), else the object's, else max_position_embeddings. */
static void original_length(pc_rope_params *p, const pc_jnode *rs)
{
    double v;
    if (p->orig_max > 0) return;
    if (pc_hf_num(rs, "original_max_position_embeddings", &v) == 1) p->orig_max = v;
    else p->orig_max = p->max_pos;
}

static pc_status read_yarn(pc_rope_params *p, const pc_jnode *rs, const char *what, pc_err *err)
{
    original_length(p, rs);
    if (!(p->orig_max > 0))
        return pc_seterr(err, PC_EINPUT, "%s: original_max_position_embeddings and "
                         "max_position_embeddings are missing (yarn needs one)", what);
    if (pc_hf_num(rs, "factor", &p->factor) != 1) {
        if (!(p->max_pos > 0))
            return pc_seterr(err, PC_EINPUT, "%s.factor is missing", what);
        p->factor = p->max_pos / p->orig_max;
    }
    pc_status st = opt_num(rs, what, "beta_fast", &p->beta_fast, 32.0, err);
    if (st == PC_OK) st = opt_num(rs, what, "beta_slow", &p->beta_slow, 1.0, err);
    if (st == PC_OK) st = opt_num(rs, what, "mscale", &p->mscale, 0.0, err);
    if (st == PC_OK) st = opt_num(rs, what, "mscale_all_dim", &p->mscale_all_dim, 0.0, err);
    /* HF: `... or 32`, `... or 1`: a zero is the default */
    if (p->beta_fast == 0) p->beta_fast = 32.0;
    if (p->beta_slow == 0) p->beta_slow = 1.0;
    p->truncate = pc_hf_bool(rs, "truncate") != 0;
    return st;
}

static pc_status read_longrope(pc_rope_spec *s, const pc_jnode *rs, const char *what,
                               const char *model_type, pc_err *err)
{
    pc_rope_params *p = &s->p;
    original_length(p, rs);
    if (!(p->orig_max > 0))
        return pc_seterr(err, PC_EINPUT, "%s: original_max_position_embeddings is missing "
                         "(longrope needs it)", what);
    if (pc_hf_num(rs, "factor", &p->factor) != 1)
        p->factor = p->max_pos > 0 ? p->max_pos / p->orig_max : 1.0;
    pc_status st = num_list(rs, what, "short_factor", &s->short_factor, &s->n_factor, err);
    int nl = 0;
    if (st == PC_OK) st = num_list(rs, what, "long_factor", &s->long_factor, &nl, err);
    if (st == PC_OK && nl != s->n_factor)
        st = pc_seterr(err, PC_EINPUT, "%s: short_factor has %d numbers but long_factor %d",
                       what, s->n_factor, nl);
    /* PhiMoE's rotary takes short_mscale / long_mscale as the attention
     * factor; the generic longrope of other models does not read them */
    if (st == PC_OK && !strcmp(model_type, "phimoe")) {
        st = opt_num(rs, what, "short_mscale", &s->short_mscale, 0.0, err);
        if (st == PC_OK) st = opt_num(rs, what, "long_mscale", &s->long_mscale, 0.0, err);
    }
    return st;
}

static pc_status read_llama3(pc_rope_params *p, const pc_jnode *rs, const char *what, pc_err *err)
{
    original_length(p, rs);
    pc_status st = need_num(rs, what, "factor", &p->factor, err);
    if (st == PC_OK) st = need_num(rs, what, "low_freq_factor", &p->low_freq_factor, err);
    if (st == PC_OK) st = need_num(rs, what, "high_freq_factor", &p->high_freq_factor, err);
    if (st == PC_OK && !(p->orig_max > 0))
        st = pc_seterr(err, PC_EINPUT, "%s.original_max_position_embeddings is missing", what);
    return st;
}

/* The schedule's own parameters, by type. */
static pc_status read_type(pc_rope_spec *s, const pc_jnode *rs, const char *what,
                           const char *model_type, pc_err *err)
{
    pc_rope_params *p = &s->p;
    switch (p->type) {
    case PC_ROPE_LINEAR:
        return need_num(rs, what, "factor", &p->factor, err);
    case PC_ROPE_DYNAMIC: {
        /* HunYuan's alpha: its base at every length, factor and lengths
         * unread (vLLM get_rope takes alpha before factor) */
        int a = pc_hf_num(rs, "alpha", &p->ntk_alpha);
        if (a == 1 && !(p->ntk_alpha >= 1.0))
            return pc_seterr(err, PC_EINPUT, "%s.alpha must be >= 1 (dynamic NTK alpha), got %g",
                             what, p->ntk_alpha);
        if (a < 0) return pc_seterr(err, PC_EINPUT, "%s.alpha is not a finite number", what);
        if (a == 1) { p->factor = 1.0; return PC_OK; }
        pc_status st = need_num(rs, what, "factor", &p->factor, err);
        if (st == PC_OK && !(p->max_pos > 0))
            st = pc_seterr(err, PC_EINPUT, "%s: max_position_embeddings is missing (dynamic "
                           "scaling needs it)", what);
        return st;
    }
    case PC_ROPE_YARN: return read_yarn(p, rs, what, err);
    case PC_ROPE_LONGROPE: return read_longrope(s, rs, what, model_type, err);
    case PC_ROPE_LLAMA3: return read_llama3(p, rs, what, err);
    default: return PC_OK;
    }
}

/* M-RoPE: mrope_section (pairs of each axis) and the interleaved order. */
static pc_status read_sections(pc_rope_spec *s, const pc_jnode *rs, const char *what, pc_err *err)
{
    const pc_jnode *a = pc_jget(rs, "mrope_section");
    if (!a || a->type == PC_J_NULL) return PC_OK;
    if (a->type != PC_J_ARR || a->n < 1 || a->n > PC_ROPE_AXES_MAX)
        return pc_seterr(err, PC_EINPUT, "%s.mrope_section must be a list of 1 to %d numbers of "
                         "pairs", what, PC_ROPE_AXES_MAX);
    for (size_t k = 0; k < a->n; k++) {
        double v = a->kids[k].type == PC_J_NUM ? strtod(a->kids[k].text, NULL) : -1;
        if (!(v >= 0 && v <= PC_D_MAX / 2 && v == floor(v)))
            return pc_seterr(err, PC_EINPUT, "%s.mrope_section[%zu] must be a number of pairs "
                             "in [0, %d]", what, k, PC_D_MAX / 2);
        s->sections[k] = (int)v;
    }
    s->n_sections = (int)a->n;
    int il = pc_hf_bool(rs, "mrope_interleaved");
    if (il == -2)
        return pc_seterr(err, PC_EINPUT, "%s.mrope_interleaved must be true or false", what);
    s->sections_interleaved = il == 1;
    return PC_OK;
}

/* rope_parameters: its rope_theta and partial_rotary_factor replace the
 * model's (HF moves them there). */
static pc_status read_inner_model(pc_rope_spec *s, const pc_jnode *rs, const char *what,
                                  pc_err *err)
{
    double v;
    int r = pc_hf_num(rs, "rope_theta", &v);
    if (r < 0 || (r == 1 && !(v > 1.0)))
        return pc_seterr(err, PC_EINPUT, "%s.rope_theta must be a finite number > 1", what);
    if (r == 1) {
        s->p.base = v;
        s->have_base = 1;
        snprintf(s->base_from, sizeof s->base_from, "%.180s.rope_theta", what);
    }
    r = pc_hf_num(rs, "partial_rotary_factor", &v);
    if (r < 0 || (r == 1 && !(v > 0.0 && v <= 1.0)))
        return pc_seterr(err, PC_EINPUT, "%s.partial_rotary_factor is not in (0, 1]", what);
    if (r == 1 && s->head_dim) {
        s->rotary_dim = (int)floor(s->head_dim * v);
        if (s->rotary_dim % 2 || s->rotary_dim < 2)
            return pc_seterr(err, PC_EINPUT, "%s.partial_rotary_factor %g gives an odd or empty "
                             "rotary dim %d", what, v, s->rotary_dim);
    }
    return PC_OK;
}

static pc_status read_attention(pc_rope_params *p, const pc_jnode *rs, const char *what,
                                pc_err *err)
{
    if (p->type != PC_ROPE_YARN && p->type != PC_ROPE_LONGROPE) return PC_OK;
    int r = pc_hf_num(rs, "attention_factor", &p->attention_factor);
    if (r < 0) return pc_seterr(err, PC_EINPUT, "%s.attention_factor is not a finite number", what);
    p->att_given = r == 1;
    return PC_OK;
}

pc_status pc_hf_scaling(pc_rope_spec *s, const pc_jnode *rs, const char *what,
                        const char *model_type, pc_err *err)
{
    pc_rope_params *p = &s->p;
    if (!rs || rs->type == PC_J_NULL) { p->type = PC_ROPE_DEFAULT; return PC_OK; }
    if (rs->type != PC_J_OBJ)
        return pc_seterr(err, PC_EINPUT, "%s must be an object or null", what);
    pc_status st = audit(rs, what, err);
    if (st != PC_OK) return st;
    p->type = type_of(rs, what, err);
    if (p->type < 0) return PC_EINPUT;
    double v;
    /* lengths inside the object (with --rope-scaling alone, max_position_embeddings too) */
    if (pc_hf_num(rs, "max_position_embeddings", &v) == 1) p->max_pos = v;
    st = read_inner_model(s, rs, what, err);
    if (st == PC_OK) st = read_type(s, rs, what, model_type ? model_type : "", err);
    if (st == PC_OK) st = read_attention(p, rs, what, err);
    if (st == PC_OK) st = read_sections(s, rs, what, err);
    return st;
}

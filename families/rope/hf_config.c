/* hf_config.c: a RoPE schedule from what users have: a HuggingFace
 * config.json (read by hf_model.c, hf_scaling.c, hf_layers.c: the base,
 * dims, lengths, layout, scaling object and layer types of the published
 * configs), an inline rope_scaling object, llama.cpp's rope_freqs as a
 * .npy, and the options --base, --rotary-dim, --seq-len, --layer-type.
 * Field meanings follow transformers' modeling_rope_utils.py
 * (docs/schedules.md). */
#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hf_read.h"
#include "harness/io/npy.h"
#include "harness/base/dtype.h"

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

static pc_status parse_inline(pc_rope_spec *s, const char *text, pc_err *err)
{
    pc_jnode *rs = NULL;
    pc_status st = pc_jparse(text, strlen(text), "--rope-scaling", &rs, err);
    if (st == PC_OK) st = pc_hf_scaling(s, rs, "--rope-scaling", s->model_type, err);
    pc_jfree(rs);
    return st;
}

/* The config file of O: with --tower vision its vision_config
 * (hf_vision.c), else its model fields, then its encodings by layer type
 * (the one --layer-type names becomes S); the scaling object is left to
 * --rope-scaling when given (it replaces the config's). */
static pc_status parse_config(pc_rope_spec *s, const pc_rope_opts *o, pc_err *err)
{
    pc_jnode *cfg = NULL;
    pc_status st = pc_jread_file(o->config, &cfg, err);
    if (st == PC_EIO) st = PC_EINPUT;
    if (st == PC_OK && cfg->type != PC_J_OBJ)
        st = pc_seterr(err, PC_EINPUT, "%s: a config must be a JSON object", o->config);
    pc_hf_doc doc;
    if (st == PC_OK) pc_hf_doc_open(&doc, o->config, cfg);
    if (st == PC_OK && o->tower_vision) {
        st = pc_hf_vision(s, &doc, err);
        pc_jfree(cfg);
        return st;
    }
    if (st == PC_OK) st = pc_hf_audit(&doc, err);
    if (st == PC_OK) st = pc_hf_model(s, &doc, err);
    if (st == PC_OK && !o->inline_json) st = pc_hf_layers(s, &doc, o->layer_type, err);
    pc_jfree(cfg);
    return st;
}

/* --tower vision: the config's vision_config gives the axes and the
 * schedule, the patches' positions are the user's. */
static pc_status check_tower(const pc_rope_opts *o, pc_err *err)
{
    static const char *const names[] = { "rope-scaling", "rope-freqs", "layer-type",
                                          "rope-sections", "mrope-interleaved", "rope-axes-dim",
                                          "rope-axes-parity", "rotary-dim" };
    const int given[] = { o->inline_json != NULL, o->freqs_path != NULL, o->layer_type != NULL,
                          o->sections != NULL, o->sections_interleaved, o->axes_dim != NULL,
                          o->axes_parity, o->rotary_dim != 0 };
    if (!o->tower_vision) return PC_OK;
    if (!o->config)
        return pc_seterr(err, PC_EINPUT, "--tower vision reads the vision_config of a model's "
                         "config: give --hf-config config.json");
    for (size_t k = 0; k < sizeof names / sizeof names[0]; k++)
        if (given[k])
            return pc_seterr(err, PC_EINPUT, "--tower vision: the axes and the schedule come "
                             "from %s's vision_config: drop --%s", o->config, names[k]);
    return PC_OK;
}

/* The vision tower's patches: two positions each, given by the user. */
static pc_status check_tower_ids(const pc_rope_spec *s, const pc_rope_opts *o, pc_err *err)
{
    if (!o->tower_vision || o->ids_path) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "--tower vision: the vision tower of %s is 2-D (RoPE over "
                     "each patch's two positions): give --position-ids POS.npy, int64 of shape "
                     "(n, 2), row r the positions of the cache's row r: %s", o->config,
                     s->tower_ids);
}

static pc_status check_options(const pc_rope_spec *s, const pc_rope_opts *o, pc_err *err)
{
    if (o->layer_type && !o->config)
        return pc_seterr(err, PC_EINPUT, "--layer-type names a layer type of the model's config: "
                         "give --hf-config config.json");
    if (o->layer_type && o->inline_json)
        return pc_seterr(err, PC_EINPUT, "--layer-type picks one of the config's encodings; "
                         "--rope-scaling replaces them: give one of the two");
    if (o->config && o->base_set && s->have_base && o->base != s->p.base)
        return pc_seterr(err, PC_EINPUT, "--base %.17g disagrees with the config's base %.17g (%s): "
                         "drop --base, or fix the config", o->base, s->p.base, s->base_from);
    return PC_OK;
}

pc_status pc_rope_spec_parse(pc_rope_spec *s, const pc_rope_opts *o, pc_err *err)
{
    memset(s, 0, sizeof *s);
    s->given = *o;
    s->p.base = o->base;
    s->layout = -1;
    pc_status st = check_options(s, o, err);
    if (st == PC_OK) st = check_tower(o, err);
    if (st == PC_OK && o->config) st = parse_config(s, o, err);
    if (st == PC_OK) st = check_options(s, o, err);
    if (st == PC_OK) st = check_tower_ids(s, o, err);
    if (st == PC_OK && o->inline_json) st = parse_inline(s, o->inline_json, err);
    if (st == PC_OK && o->freqs_path) {
        if (o->inline_json || (o->config && s->p.type != PC_ROPE_DEFAULT))
            return pc_seterr(err, PC_EINPUT, "--rope-freqs replaces the frequency schedule: give it "
                             "without a rope_scaling");
        st = read_freqs(s, o->freqs_path, err);
    }
    if (st == PC_OK) st = pc_rope_axes_read(s, o, err);
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
    snprintf(s->source, sizeof s->source, "%s%s%s%s%s%s", o->config ? o->config : "",
             o->config && o->inline_json ? " with " : "", o->inline_json ? "--rope-scaling" : "",
             s->layer[0] ? ", layer type " : "", s->layer, o->tower_vision ? ", vision tower" : "");
    if (o->freqs_path) snprintf(s->source, sizeof s->source, "--rope-freqs %.150s", o->freqs_path);
    return PC_OK;
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
    out->axes = NULL;
    out->omega_s = NULL;
    out->dim = d;
    if (out->xpos_base > 0) { /* torchscale: min_pos = -(length + offset) // 2, rows 0..n-1 */
        int64_t n = (int64_t)seq_default;
        if (!out->xpos_q0_set) out->xpos_q0 = -((n + 1) / 2); /* floor(-n / 2) */
        int64_t a = llabs(out->xpos_q0), b = llabs(n - 1 + out->xpos_q0);
        out->xpos_qmax = a > b ? a : b;
    }
    if (s->rotary_dim && s->rotary_dim != d)
        return pc_seterr(err, PC_EINPUT, "the rotary dim is %d%s but the cache or --d has d = %d "
                         "(a RoPE cache holds the rotary dims only; a cache of one column a pair, "
                         "(n, d/2), reads as d = twice its columns)%s", s->rotary_dim,
                         s->head_dim && s->rotary_dim < s->head_dim ? " (partial rotary)" : "", d,
                         s->tower_ids && d == s->tower_text_head ? ": d is the text model's head "
                         "dim, not the vision tower's (a cache built with the text model's "
                         "head_dim?)" : "");
    /* with position ids, the sequence is as long as its largest position
     * (HF: max(position_ids) + 1) */
    if (s->ids) seq_default = (double)s->max_id + 1.0;
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
    /* PhiMoE: the attention factor of the factors in force */
    double ms = out->use_long ? s->long_mscale : s->short_mscale;
    if (out->type == PC_ROPE_LONGROPE && !out->att_given && ms > 0) {
        out->attention_factor = ms;
        out->att_given = 1;
    }
    out->from = s;
    pc_status st = pc_rope_axes_new(s, d, &out->axes, err);
    if (st == PC_OK && out->angle_dtype) st = pc_rope_half_angles_prepare(out, err);
    if (st == PC_OK) st = pc_rope_prepare(out, err);
    if (st != PC_OK) pc_rope_params_free(out);
    if (st == PC_EINPUT && s->source[0] && strncmp(err->msg, s->source, strlen(s->source))) {
        char m[PC_ERR_LEN]; /* the file or option the bad value came from, first */
        snprintf(m, sizeof m, "%s", err->msg);
        pc_seterr(err, st, "%s: %.400s", s->source, m);
    }
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
        if (p->ntk_alpha > 0) {
            snprintf(buf, len, ", alpha %g (base' = base alpha^(dim/(dim-2)) = %.9g)", p->ntk_alpha,
                     p->base * pow(p->ntk_alpha, (double)p->dim / (double)(p->dim - 2)));
            break;
        }
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
    if (p->scale_k > 0.0) {
        size_t u = strlen(buf);
        if (p->scale_pi && p->scale_k == 1.0) snprintf(buf + u, len - u, ", angles times pi");
        else if (p->scale_pi) snprintf(buf + u, len - u, ", angles times %.17gpi", p->scale_k);
        else snprintf(buf + u, len - u, ", angles times %.17g", p->scale_k);
    }
    if (p->freq_dtype == PC_DT_F16 || p->freq_dtype == PC_DT_BF16) {
        size_t u = strlen(buf);
        snprintf(buf + u, len - u, ", frequencies rounded to %s (inv_freq held in it)",
                 p->freq_dtype == PC_DT_F16 ? "float16" : "bfloat16");
    }
    if (p->angle_dtype) {
        size_t u = strlen(buf);
        snprintf(buf + u, len - u, ", angles float16 values fl16(fl16(x) fl16(omega_i)) (the "
                 "model run in half precision)");
    }
    size_t u0 = strlen(buf);
    if (p->xpos_base > 0 && u0 < len) /* the factor of schedule_xpos.c */
        snprintf(buf + u0, len - u0, "; xPos: pair i times zeta_i^(%s(p %+lld)/%g), zeta_i = "
                 "(2i + 0.4 d)/(1.4 d)%s", p->xpos_down ? "-" : "", (long long)p->xpos_q0,
                 p->xpos_base, p->xpos_down ? " (downscale: the keys')" : "");
    if (p->from && p->from->ids) {
        size_t u = strlen(buf);
        if (u + 2 < len) {
            snprintf(buf + u, len - u, "; ");
            pc_rope_axes_describe(p->from, buf + u + 2, len - u - 2);
        }
    }
}

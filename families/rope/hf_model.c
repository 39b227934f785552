/* hf_model.c: the model-level RoPE fields of a HuggingFace config.json
 * (hf_read.h): which part of the file is the text model, what is not
 * understood or not RoPE, the base, the head and rotary dims, the lengths,
 * and the pair layout of the model's code.
 *
 * The names are those of the published configs (transformers'
 * configuration_*.py with their attribute_map aliases, and the models'
 * own code for ChatGLM, InternLM and OLMo's first release); the layout is
 * the one each model's modeling code applies (rotate_half: half;
 * rotate_every_two, view_as_complex of consecutive pairs: interleaved).
 * docs/schedules.md, "Configs", lists them. */
#include <ctype.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hf_read.h"
#include "harness/base/dtype.h"

/* ---- numbers and members -------------------------------------------------- */

int pc_hf_num(const pc_jnode *obj, const char *key, double *v)
{
    const pc_jnode *n = obj && obj->type == PC_J_OBJ ? pc_jget(obj, key) : NULL;
    if (!n || n->type == PC_J_NULL) return 0;
    if (n->type != PC_J_NUM) return -1;
    *v = strtod(n->text, NULL);
    return isfinite(*v) ? 1 : -1;
}

int pc_hf_num_any(const pc_jnode *obj, const char *const *keys, double *v, const char **which)
{
    for (; *keys; keys++) {
        int r = pc_hf_num(obj, *keys, v);
        *which = *keys;
        if (r != 0) return r;
    }
    return 0;
}

int pc_hf_bool(const pc_jnode *obj, const char *key)
{
    const pc_jnode *n = obj && obj->type == PC_J_OBJ ? pc_jget(obj, key) : NULL;
    if (!n || n->type == PC_J_NULL) return -1;
    if (n->type == PC_J_TRUE) return 1;
    if (n->type == PC_J_FALSE) return 0;
    return -2;
}

static const char *str_of(const pc_jnode *obj, const char *key)
{
    const pc_jnode *n = obj && obj->type == PC_J_OBJ ? pc_jget(obj, key) : NULL;
    return n && n->type == PC_J_STR ? n->text : NULL;
}

/* ---- the model types ---------------------------------------------------------- */

/* What a model type's code implies when its config leaves it out: the
 * pair layout of its rotary code (-1: not known), and the defaults of its
 * configuration class for keys its published configs omit (0: none). */
typedef struct model_kind {
    const char *type;
    int layout;
    double rope_theta, head_dim, heads;
} model_kind;

static const model_kind kinds[] = {
    /* half: rotate_half (cat(freqs, freqs)) */
    { "llama", 1, 0, 0, 0 }, { "mistral", 1, 0, 0, 0 }, { "mixtral", 1, 0, 0, 0 },
    { "mistral3", 1, 0, 0, 0 }, { "qwen2", 1, 0, 0, 0 }, { "qwen2_moe", 1, 0, 0, 0 },
    { "qwen3", 1, 0, 0, 0 }, { "qwen3_moe", 1, 0, 0, 0 }, { "qwen2_vl", 1, 0, 0, 0 },
    { "qwen2_5_vl", 1, 0, 0, 0 }, { "qwen2_vl_text", 1, 0, 0, 0 }, { "qwen2_5_vl_text", 1, 0, 0, 0 },
    { "qwen3_vl", 1, 0, 0, 0 }, { "qwen3_vl_text", 1, 0, 0, 0 },
    { "gemma", 1, 0, 256, 0 }, { "gemma2", 1, 0, 256, 0 },
    /* Gemma3TextConfig: rope_theta 1e6, head_dim 256, 8 heads (the 4b and
     * larger checkpoints' text_config leaves them out) */
    { "gemma3_text", 1, 1e6, 256, 8 }, { "gemma3", 1, 1e6, 256, 8 },
    { "phi", 1, 0, 0, 0 }, { "phi3", 1, 0, 0, 0 }, { "phimoe", 1, 0, 0, 0 },
    { "gpt_neox", 1, 0, 0, 0 }, { "falcon", 1, 0, 0, 0 }, { "RefinedWeb", 1, 0, 0, 0 },
    { "RefinedWebModel", 1, 0, 0, 0 }, { "stablelm", 1, 0, 0, 0 }, { "stablelm_epoch", 1, 0, 0, 0 },
    { "olmo", 1, 0, 0, 0 }, { "olmo2", 1, 0, 0, 0 }, { "hf_olmo", 1, 0, 0, 0 },
    { "internlm", 1, 0, 0, 0 }, { "internlm2", 1, 0, 0, 0 }, { "gpt_oss", 1, 0, 0, 0 },
    /* interleaved: rotate_every_two or complex pairs (2i, 2i+1) */
    { "gptj", 0, 0, 0, 0 }, { "codegen", 0, 0, 0, 0 }, { "chatglm", 0, 0, 0, 0 },
    { "glm", 0, 0, 0, 0 }, { "glm4", 0, 0, 0, 0 }, { "cohere", 0, 0, 0, 0 },
    { "cohere2", 0, 0, 0, 0 }, { "deepseek_v2", 0, 0, 0, 0 }, { "deepseek_v3", 0, 0, 0, 0 },
    /* Llama4TextConfig: rope_theta 500000, head_dim 128 */
    { "llama4_text", 0, 500000.0, 128, 0 }, { "llama4", 0, 500000.0, 128, 0 },
};

static const model_kind *kind_of(const char *type)
{
    for (size_t k = 0; type && k < sizeof kinds / sizeof kinds[0]; k++)
        if (!strcmp(type, kinds[k].type)) return &kinds[k];
    return NULL;
}

void pc_hf_doc_open(pc_hf_doc *doc, const char *path, const pc_jnode *root)
{
    const pc_jnode *tc = pc_jget(root, "text_config");
    doc->path = path;
    doc->root = root;
    doc->text = tc && tc->type == PC_J_OBJ ? tc : root;
    doc->text_what = doc->text == root ? "" : "text_config.";
    const char *mt = str_of(doc->text, "model_type");
    if (!mt) mt = str_of(root, "model_type");
    doc->model_type = mt ? mt : "";
}

/* ---- what is not understood, or not RoPE ------------------------------------ */

/* The keys of a text model that name a RoPE parameter and that pecheck
 * reads (or knows to have no effect on the encoding: which layers skip
 * RoPE, the precision its own code computes in). */
static const char *const known_keys[] = {
    "rope_theta", "rope_scaling", "rope_parameters", "rope_local_base_freq",
    "rotary_emb_base", "rotary_pct", "rotary_dim", "rotary", "rope_ratio",
    "partial_rotary_factor", "rope_pct", "qk_rope_head_dim", "rope_interleave",
    "original_rope",           /* ChatGLM: its one rotary implementation */
    "rope",                    /* OLMo's first release: RoPE on */
    "rope_full_precision",     /* OLMo: cos/sin in float32 (what pecheck checks) */
    "no_rope_layers", "no_rope_layer_interval", /* Llama 4: layers without RoPE */
    NULL
};

/* KEY names a RoPE parameter: it contains "rope" or "rotary". */
static int ropeish(const char *key)
{
    char low[64];
    size_t n = 0;
    for (; key[n] && n + 1 < sizeof low; n++) low[n] = (char)tolower((unsigned char)key[n]);
    low[n] = '\0';
    return strstr(low, "rope") || strstr(low, "rotary");
}

static int known(const char *key)
{
    for (const char *const *k = known_keys; *k; k++)
        if (!strcmp(key, *k)) return 1;
    return 0;
}

/* position_embedding_type's RoPE values and the pair layout each names:
 * "rope" and "rotary" say nothing of it; "rope_gptj" (Cohere2's config,
 * and TensorRT-LLM's name for GPT-J's rotate_every_two) rotates pairs
 * (2i, 2i + 1); "rope_gpt_neox" rotate_half's (i, i + d/2). */
static const struct { const char *name; int layout; } rope_pe[] = {
    { "rope", -1 }, { "rotary", -1 }, { "rope_gptj", 0 }, { "rope_gpt_neox", 1 },
};

/* The index in rope_pe of PE, or -1. */
static int rope_pe_at(const char *pe)
{
    for (int k = 0; pe && k < (int)(sizeof rope_pe / sizeof rope_pe[0]); k++)
        if (!strcmp(pe, rope_pe[k].name)) return k;
    return -1;
}

static pc_status not_rope(const pc_hf_doc *doc, pc_err *err)
{
    const pc_jnode *t = doc->text;
    const char *pe = str_of(t, "position_embedding_type");
    if (pc_hf_bool(t, "alibi") == 1)
        return pc_seterr(err, PC_EINPUT, "%s: %salibi is true: this model's positions are ALiBi, "
                         "not RoPE (pecheck --family alibi)", doc->path, doc->text_what);
    if (pe && rope_pe_at(pe) < 0)
        return pc_seterr(err, PC_EINPUT, "%s: %sposition_embedding_type is '%s': this model does "
                         "not use RoPE", doc->path, doc->text_what, pe);
    const char *flags[] = { "rotary", "rope" };
    for (int k = 0; k < 2; k++) {
        int b = pc_hf_bool(t, flags[k]);
        if (b == 0)
            return pc_seterr(err, PC_EINPUT, "%s: %s%s is false: this model has no rotary "
                             "embedding", doc->path, doc->text_what, flags[k]);
        if (b == -2 && !(k == 0 && pc_jget(t, "rotary")->type == PC_J_OBJ))
            return pc_seterr(err, PC_EINPUT, "%s: %s%s must be true or false%s", doc->path,
                             doc->text_what, flags[k], k ? "" : " (or InternLM's object)");
    }
    return PC_OK;
}

pc_status pc_hf_audit(const pc_hf_doc *doc, pc_err *err)
{
    const pc_jnode *t = doc->text;
    for (size_t k = 0; k < t->n; k++) {
        const char *key = t->keys[k];
        if (ropeish(key) && !known(key))
            return pc_seterr(err, PC_EINPUT, "%s: %s%s is not understood by pecheck (a RoPE "
                             "parameter it does not read; docs/schedules.md lists the keys it "
                             "reads): remove it if it has no effect on the encoding, or describe "
                             "the schedule with --rope-scaling", doc->path, doc->text_what, key);
    }
    return not_rope(doc, err);
}

/* ---- the base -------------------------------------------------------------- */

/* InternLM's first release: "rotary": {"base", "type", "scaling_factor"}. */
static const pc_jnode *internlm_rotary(const pc_hf_doc *doc)
{
    const pc_jnode *r = pc_jget(doc->text, "rotary");
    return r && r->type == PC_J_OBJ ? r : NULL;
}

static pc_status read_base(pc_rope_spec *s, const pc_hf_doc *doc, pc_err *err)
{
    static const char *const keys[] = { "rope_theta", "rotary_emb_base", NULL };
    const pc_jnode *t = doc->text, *rot = internlm_rotary(doc);
    const model_kind *mk = kind_of(doc->model_type);
    const char *which;
    double v;
    int r = pc_hf_num_any(t, keys, &v, &which);
    if (r == 0 && rot) { r = pc_hf_num(rot, "base", &v); which = "rotary.base"; }
    for (int k = 0; r == 0 && keys[k]; k++) {
        const pc_jnode *n = pc_jget(t, keys[k]);
        if (n && n->type == PC_J_NULL) /* transformers' rotary init cannot raise null to a power */
            return pc_seterr(err, PC_EINPUT, "%s: %s%s is null: write the model's base there "
                             "(or remove the key for transformers' default)", doc->path,
                             doc->text_what, keys[k]);
    }
    if (r < 0)
        return pc_seterr(err, PC_EINPUT, "%s: %s%s is not a finite number", doc->path,
                         doc->text_what, which);
    if (r == 1 && !(v > 1.0))
        return pc_seterr(err, PC_EINPUT, "%s: %s%s must be a finite number > 1, got %.17g",
                         doc->path, doc->text_what, which, v);
    if (r == 1) {
        snprintf(s->base_from, sizeof s->base_from, "%s%s of %.120s", doc->text_what, which,
                 doc->path);
    } else if (mk && mk->rope_theta > 0) {
        v = mk->rope_theta;
        snprintf(s->base_from, sizeof s->base_from, "the default rope_theta of model_type %s "
                 "(%.100s has none)", mk->type, doc->path);
    } else {
        v = 10000.0; /* transformers' default_theta, and the original RoPE's base */
        snprintf(s->base_from, sizeof s->base_from, "transformers' default rope_theta 10000 "
                 "(%.120s has none)", doc->path);
    }
    /* ChatGLM: base = 10000 * rope_ratio (its RotaryEmbedding) */
    double ratio;
    int rr = pc_hf_num(t, "rope_ratio", &ratio);
    if (rr < 0 || (rr == 1 && !(ratio > 0)))
        return pc_seterr(err, PC_EINPUT, "%s: %srope_ratio must be a finite number > 0",
                         doc->path, doc->text_what);
    if (rr == 1) {
        v *= ratio;
        size_t l = strlen(s->base_from);
        snprintf(s->base_from + l, sizeof s->base_from - l, " times rope_ratio %g", ratio);
    }
    s->p.base = v;
    s->have_base = 1;
    return PC_OK;
}

/* ---- the dims -------------------------------------------------------------- */

static pc_status head_dim_of(const pc_hf_doc *doc, double *hd, pc_err *err)
{
    static const char *const heads_k[] = { "num_attention_heads", "n_head", "n_heads",
                                           "num_heads", NULL };
    static const char *const hidden_k[] = { "hidden_size", "n_embd", "d_model", NULL };
    const pc_jnode *t = doc->text;
    const model_kind *mk = kind_of(doc->model_type);
    const char *w;
    double hs, nh;
    if (pc_hf_num(t, "head_dim", hd) == 1 || pc_hf_num(t, "kv_channels", hd) == 1) return PC_OK;
    /* a configuration class's own head_dim attribute wins over
     * hidden_size // heads (HF: getattr(config, "head_dim", ...)) */
    if (mk && mk->head_dim > 0) { *hd = mk->head_dim; return PC_OK; }
    int rh = pc_hf_num_any(t, hidden_k, &hs, &w), rn = pc_hf_num_any(t, heads_k, &nh, &w);
    if (rn == 0 && mk && mk->heads > 0) { nh = mk->heads; rn = 1; }
    if (rh == 1 && rn == 1 && nh >= 1) {
        *hd = floor(hs / nh); /* HF: hidden_size // num_attention_heads */
        return PC_OK;
    }
    return pc_seterr(err, PC_EINPUT, "%s: %shead_dim is missing (and so is hidden_size or "
                     "num_attention_heads, or their names n_embd, n_head)", doc->path,
                     doc->text_what);
}

static pc_status check_dim(const pc_hf_doc *doc, const char *what, double v, pc_err *err)
{
    if (v >= 2 && v <= PC_D_MAX && v == floor(v)) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "%s: %s %g is out of range [2, %d]", doc->path, what, v,
                     PC_D_MAX);
}

/* The rotary dim of a head of HD dims. */
static pc_status rotary_of(const pc_hf_doc *doc, double hd, double *rot, pc_err *err)
{
    static const char *const pct_k[] = { "partial_rotary_factor", "rotary_pct", "rope_pct", NULL };
    const pc_jnode *t = doc->text;
    const char *w;
    double v;
    *rot = hd;
    if (pc_hf_num(t, "qk_rope_head_dim", &v) == 1) { *rot = v; return PC_OK; } /* MLA's rope slice */
    if (pc_hf_num(t, "rotary_dim", &v) == 1) { *rot = v; return PC_OK; }       /* GPT-J: in dims */
    int r = pc_hf_num_any(t, pct_k, &v, &w);
    if (r < 0 || (r == 1 && !(v > 0.0 && v <= 1.0)))
        return pc_seterr(err, PC_EINPUT, "%s: %s%s is not in (0, 1]", doc->path, doc->text_what, w);
    if (r == 1) *rot = floor(hd * v); /* HF: int(head_dim * partial_rotary_factor) */
    /* ChatGLM-6B's position_encoding_2d rotates both halves (glm_2d); the
     * later ChatGLM's RotaryEmbedding(rotary_dim // 2) rotates half of each head */
    else if (!strcmp(doc->model_type, "chatglm") && pc_hf_bool(t, "position_encoding_2d") != 1)
        *rot = floor(hd / 2);
    return PC_OK;
}

static pc_status read_dims(pc_rope_spec *s, const pc_hf_doc *doc, pc_err *err)
{
    const pc_jnode *t = doc->text;
    double hd, rot, nope;
    pc_status st = head_dim_of(doc, &hd, err);
    if (st == PC_OK) st = rotary_of(doc, hd, &rot, err);
    /* MLA (DeepSeek): the query head is the rope slice and the rest */
    if (st == PC_OK && pc_hf_num(t, "qk_rope_head_dim", &rot) == 1
        && pc_hf_num(t, "qk_nope_head_dim", &nope) == 1)
        hd = rot + nope;
    if (st == PC_OK) st = check_dim(doc, "head_dim", hd, err);
    if (st == PC_OK) st = check_dim(doc, "the rotary dim", rot, err);
    if (st != PC_OK) return st;
    if ((long)rot % 2)
        return pc_seterr(err, PC_EINPUT, "%s: the rotary dim %g is odd", doc->path, rot);
    if (rot > hd)
        return pc_seterr(err, PC_EINPUT, "%s: the rotary dim %g exceeds the head dim %g",
                         doc->path, rot, hd);
    s->head_dim = (int)hd;
    s->rotary_dim = (int)rot;
    return PC_OK;
}

/* ---- lengths and layout ------------------------------------------------------ */

static void read_lengths(pc_rope_spec *s, const pc_hf_doc *doc)
{
    static const char *const max_k[] = { "max_position_embeddings", "n_positions", "seq_length",
                                         "max_sequence_length", NULL };
    const char *w;
    double v;
    if (pc_hf_num_any(doc->text, max_k, &v, &w) == 1) s->p.max_pos = v;
    if (pc_hf_num(doc->text, "original_max_position_embeddings", &v) == 1) s->p.orig_max = v;
}

static void read_layout(pc_rope_spec *s, const pc_hf_doc *doc)
{
    const model_kind *mk = kind_of(doc->model_type);
    int il = pc_hf_bool(doc->text, "rope_interleave"); /* DeepSeek-V3: default true */
    s->layout = mk ? mk->layout : -1;
    if (il >= 0 && mk && mk->layout == 0) {
        s->layout = il ? 0 : 1;
        snprintf(s->layout_why, sizeof s->layout_why, "rope_interleave %s of model_type %s",
                 il ? "true" : "false", mk->type);
    } else if (mk) {
        snprintf(s->layout_why, sizeof s->layout_why, "model_type %s rotates %s", mk->type,
                 mk->layout ? "(i, i + d/2) (rotate_half)" : "(2i, 2i + 1) (interleaved pairs)");
    }
    const char *pe = str_of(doc->text, "position_embedding_type");
    int k = rope_pe_at(pe);
    if (k >= 0 && rope_pe[k].layout >= 0 && il < 0) { /* the config's own word on the pairs */
        s->layout = rope_pe[k].layout;
        snprintf(s->layout_why, sizeof s->layout_why, "position_embedding_type %s rotates %s",
                 pe, s->layout ? "(i, i + d/2) (rotate_half)" : "(2i, 2i + 1) (interleaved pairs)");
    }
    snprintf(s->model_type, sizeof s->model_type, "%s", doc->model_type);
}

/* ChatGLM-6B (model_type chatglm, position_encoding_2d true; THUDM's
 * modeling_chatglm.py): q1, q2 = q.chunk(2), q1 rotated by position_ids
 * and q2 by block_position_ids, each with rotate_half of its own half and
 * one RotaryEmbedding(hidden_size // (num_attention_heads * 2)) whose
 * inv_freq is .half(): axial dims hd/2, hd/2 over ids (position,
 * block position), each half in a half layout of its own, the
 * frequencies float16's. */
static pc_status glm_2d(pc_rope_spec *s, const pc_hf_doc *doc, pc_err *err)
{
    int on = strcmp(doc->model_type, "chatglm") ? -1 : pc_hf_bool(doc->text, "position_encoding_2d");
    if (on == -2)
        return pc_seterr(err, PC_EINPUT, "%s: position_encoding_2d must be true or false",
                         doc->path);
    if (on != 1) return PC_OK;
    if (s->head_dim % 4)
        return pc_seterr(err, PC_EINPUT, "%s: position_encoding_2d splits the head dim %d in two "
                         "halves of whole pairs: it must be a multiple of 4", doc->path,
                         s->head_dim);
    s->axes_dim[0] = s->axes_dim[1] = s->head_dim / 2;
    s->n_axes_dim = 2;
    s->axes_halves = 1;
    s->p.freq_dtype = PC_DT_F16;
    s->layout = 1;
    snprintf(s->layout_why, sizeof s->layout_why, "position_encoding_2d of model_type chatglm "
             "rotates each half of the head with rotate_half (i, i + d/4) of its own");
    s->axes_from = "ChatGLM-6B's position_encoding_2d";
    s->tower_ids = "the rows' (position_ids, block_position_ids), get_position_ids' two rows "
                   "transposed";
    snprintf(s->tower_note, sizeof s->tower_note, "position_encoding_2d (ChatGLM-6B): head dim %d, "
             "axial dims %d,%d over position ids (position, block position), each half in a half "
             "layout of its own, inv_freq float16 (RotaryEmbedding's .half())", s->head_dim,
             s->head_dim / 2, s->head_dim / 2);
    return PC_OK;
}

pc_status pc_hf_model(pc_rope_spec *s, const pc_hf_doc *doc, pc_err *err)
{
    pc_status st = read_base(s, doc, err);
    if (st == PC_OK) st = read_dims(s, doc, err);
    if (st != PC_OK) return st;
    read_lengths(s, doc);
    read_layout(s, doc);
    return glm_2d(s, doc, err);
}

/* hf_vision.c: the vision tower of a HuggingFace config (--tower vision,
 * hf_read.h): the 2-D RoPE of a vision encoder as axial RoPE over each
 * patch's two positions.
 *
 * Each kind is what its own modeling code computes (transformers 4.57):
 *   Qwen2-VL, Qwen2.5-VL, Qwen3-VL (modeling_qwen2_vl.py and its copies):
 *     VisionRotaryEmbedding(head_dim // 2) of theta 10000, a constant of
 *     the code; rot_pos_emb: per patch (h, w), [h inv_freq | w inv_freq]
 *     over dim = head_dim / 2, then cat(freqs, freqs) with rotate_half:
 *     axial dims head_dim/2, head_dim/2, ids (row, column), half layout.
 *     head_dim: Qwen2-VL embed_dim // num_heads, the others hidden_size //
 *     num_heads (Qwen2-VL's hidden_size is the merger's output width).
 *   Llama 4 (modeling_llama4.py, Llama4VisionRotaryEmbedding): freq_dim =
 *     hidden_size // num_attention_heads // 2, rope_freq = theta^(-2j /
 *     freq_dim) for j < freq_dim / 2, patch idx at x = idx % side + 1,
 *     y = idx // side + 1, the class token's angle 0; cat(x rope_freq,
 *     y rope_freq) per complex pair (2i, 2i + 1): axial dims freq_dim,
 *     freq_dim, ids (x, y) = (column + 1, row + 1), (0, 0) for the class
 *     token, interleaved layout.
 *   Pixtral (modeling_pixtral.py, PixtralRotaryEmbedding): freqs =
 *     theta^(-2m / head_dim), the rows on freqs[::2], the columns on
 *     freqs[1::2], cat(freqs, freqs) with rotate_half: axial dims
 *     head_dim/2, head_dim/2 by parity, ids (row, column), half layout.
 * A SigLIP or CLIP tower (Gemma 3, LLaVA) adds learned absolute position
 * embeddings and has no RoPE: exit 2 saying so.  docs/schedules.md,
 * "Configs". */
#include <math.h>
#include <stdio.h>
#include <string.h>
#include "hf_read.h"

typedef struct vision_kind {
    const char *type;        /* vision_config's model_type, else the file's */
    const char *code;        /* the rotary code the tower runs */
    const char *hidden, *heads; /* head dim = HIDDEN // HEADS (keys of vision_config) */
    int head_key;            /* vision_config.head_dim first (PixtralVisionConfig) */
    int theta_key;           /* rope_theta read (default 10000); 0: the code's constant 10000 */
    int layout;              /* 1: rotate_half (i, i + d/2); 0: complex pairs (2i, 2i + 1) */
    int parity;              /* one schedule, the axes alternating (Pixtral) */
    const char *ids;         /* the two columns of --position-ids, for people */
    const char *no_rope;     /* non-NULL: the tower's positions, which are not RoPE */
} vision_kind;

/* "(row, column)": rot_pos_emb's (hpos, wpos), Pixtral's (h, w) */
#define ROW_COL "(row, column) of each patch"
static const vision_kind kinds[] = {
    { "qwen2_vl", "Qwen2-VL's VisionRotaryEmbedding(head_dim // 2)", "embed_dim", "num_heads",
      0, 0, 1, 0, ROW_COL, NULL },
    { "qwen2_5_vl", "Qwen2.5-VL's Qwen2_5_VisionRotaryEmbedding(head_dim // 2)", "hidden_size",
      "num_heads", 0, 0, 1, 0, ROW_COL, NULL },
    { "qwen3_vl", "Qwen3-VL's Qwen3VLVisionRotaryEmbedding(head_dim // 2)", "hidden_size",
      "num_heads", 0, 0, 1, 0, ROW_COL, NULL },
    { "qwen3_vl_moe", "Qwen3-VL's Qwen3VLMoeVisionRotaryEmbedding(head_dim // 2)", "hidden_size",
      "num_heads", 0, 0, 1, 0, ROW_COL, NULL },
    { "llama4_vision_model", "Llama4VisionRotaryEmbedding", "hidden_size", "num_attention_heads",
      0, 1, 0, 0, "(x + 1, y + 1) = (column + 1, row + 1) of each patch, (0, 0) for the class "
      "token", NULL },
    { "pixtral", "PixtralRotaryEmbedding (rows on freqs[::2], columns on freqs[1::2])",
      "hidden_size", "num_attention_heads", 1, 1, 1, 1, ROW_COL, NULL },
    { "siglip_vision_model", NULL, NULL, NULL, 0, 0, 0, 0, NULL,
      "learned absolute position embeddings (SigLIP's position_embedding)" },
    { "siglip2_vision_model", NULL, NULL, NULL, 0, 0, 0, 0, NULL,
      "learned absolute position embeddings (SigLIP 2's position_embedding)" },
    { "clip_vision_model", NULL, NULL, NULL, 0, 0, 0, 0, NULL,
      "learned absolute position embeddings (CLIP's position_embedding)" },
};

static const char *str_of(const pc_jnode *obj, const char *key)
{
    const pc_jnode *n = obj && obj->type == PC_J_OBJ ? pc_jget(obj, key) : NULL;
    return n && n->type == PC_J_STR ? n->text : NULL;
}

/* The kind of vision config VC: its model_type, else the file's (Qwen2-VL
 * and Qwen2.5-VL write none in vision_config); Llama 4's file type names
 * its vision model too. */
static const vision_kind *kind_of(const pc_hf_doc *doc, const pc_jnode *vc, const char **type)
{
    const char *t = str_of(vc, "model_type");
    if (!t) t = str_of(doc->root, "model_type");
    if (t && !strcmp(t, "llama4")) t = "llama4_vision_model";
    *type = t ? t : "";
    for (size_t k = 0; t && k < sizeof kinds / sizeof kinds[0]; k++)
        if (!strcmp(t, kinds[k].type)) return &kinds[k];
    return NULL;
}

/* The vision_config of DOC, or PC_EINPUT naming the file and the key. */
static pc_status open_tower(const pc_hf_doc *doc, const pc_jnode **vc, pc_err *err)
{
    const pc_jnode *v = pc_jget(doc->root, "vision_config");
    *vc = v;
    if (!v || v->type == PC_J_NULL)
        return pc_seterr(err, PC_EINPUT, "%s: --tower vision reads vision_config, which this "
                         "config has not (a text-only model): drop --tower vision", doc->path);
    if (v->type != PC_J_OBJ)
        return pc_seterr(err, PC_EINPUT, "%s: vision_config must be an object", doc->path);
    return PC_OK;
}

/* A key of vision config VC that names a RoPE parameter the kind's code
 * does not read: not understood (the check would ignore it). */
static pc_status audit(const pc_hf_doc *doc, const pc_jnode *vc, const vision_kind *vk,
                       pc_err *err)
{
    for (size_t k = 0; k < vc->n; k++) {
        const char *key = vc->keys[k];
        int ropeish = strstr(key, "rope") || strstr(key, "rotary");
        int read = vk->theta_key && (!strcmp(key, "rope_theta") || !strcmp(key, "rope_parameters"));
        if (ropeish && !read)
            return pc_seterr(err, PC_EINPUT, "%s: vision_config.%s is not understood by pecheck: "
                             "%s does not read it (docs/schedules.md, \"Configs\")", doc->path,
                             key, vk->code);
    }
    const pc_jnode *rp = pc_jget(vc, "rope_parameters");
    if (!rp || rp->type == PC_J_NULL) return PC_OK;
    const char *rt = str_of(rp, "rope_type");
    for (size_t k = 0; rp->type == PC_J_OBJ && k < rp->n; k++)
        if (strcmp(rp->keys[k], "rope_type") && strcmp(rp->keys[k], "rope_theta"))
            return pc_seterr(err, PC_EINPUT, "%s: vision_config.rope_parameters.%s is not "
                             "understood by pecheck (%s reads rope_theta alone)", doc->path,
                             rp->keys[k], vk->code);
    if (rp->type != PC_J_OBJ || (rt && strcmp(rt, "default")))
        return pc_seterr(err, PC_EINPUT, "%s: vision_config.rope_parameters must be an object of "
                         "rope_type default (%s scales nothing)", doc->path, vk->code);
    return PC_OK;
}

/* The base: rope_theta (or rope_parameters.rope_theta) where the code
 * reads it, else 10000 (the configuration classes' default, and the
 * constant of Qwen's VisionRotaryEmbedding). */
static pc_status read_base(pc_rope_spec *s, const pc_hf_doc *doc, const pc_jnode *vc,
                           const vision_kind *vk, pc_err *err)
{
    double v = 10000.0;
    const char *which = "rope_theta";
    int r = 0;
    if (vk->theta_key) {
        r = pc_hf_num(pc_jget(vc, "rope_parameters"), "rope_theta", &v);
        if (r != 0) which = "rope_parameters.rope_theta";
        double top = 0.0;
        int rt = r < 0 ? 0 : pc_hf_num(vc, "rope_theta", &top);
        if (r == 0) { r = rt; which = "rope_theta"; if (rt == 1) v = top; }
        else if (r == 1 && rt == 1 && top != v)
            /* both keys read, both bases possible: which one the model's
             * code takes depends on its transformers version, so neither
             * is assumed */
            return pc_seterr(err, PC_EINPUT, "%s: vision_config.rope_theta (%.17g) and "
                             "vision_config.rope_parameters.rope_theta (%.17g) disagree: pecheck "
                             "reads both and will not choose one (make them equal)",
                             doc->path, top, v);
        else if (r == 1 && rt < 0) { r = rt; which = "rope_theta"; }
    }
    if (r < 0 || (r == 1 && !(v > 1.0)))
        return pc_seterr(err, PC_EINPUT, "%s: vision_config.%s must be a finite number > 1",
                         doc->path, which);
    if (r == 1)
        snprintf(s->base_from, sizeof s->base_from, "vision_config.%s of %.120s", which, doc->path);
    else if (vk->theta_key)
        snprintf(s->base_from, sizeof s->base_from, "the default rope_theta 10000 of the %s "
                 "vision config (%.100s's vision_config has none)", vk->type, doc->path);
    else
        snprintf(s->base_from, sizeof s->base_from, "theta 10000, a constant of %s (no key "
                 "of vision_config sets it)", vk->code);
    s->p.base = v;
    s->have_base = 1;
    return PC_OK;
}

/* The head dim: vision_config.head_dim (Pixtral), else HIDDEN // HEADS
 * (HF's integer division); WHAT says which keys gave it. */
static pc_status read_head(const pc_hf_doc *doc, const pc_jnode *vc, const vision_kind *vk,
                           int *hd, char *what, size_t len, pc_err *err)
{
    double h, hs, nh;
    if (vk->head_key && pc_hf_num(vc, "head_dim", &h) == 1) {
        snprintf(what, len, "vision_config.head_dim %g", h);
    } else if (pc_hf_num(vc, vk->hidden, &hs) == 1 && pc_hf_num(vc, vk->heads, &nh) == 1
               && nh >= 1) {
        h = floor(hs / nh);
        snprintf(what, len, "vision_config.%s %g // %s %g", vk->hidden, hs, vk->heads, nh);
    } else {
        return pc_seterr(err, PC_EINPUT, "%s: vision_config.%s and vision_config.%s are needed "
                         "(the head dim of %s is %s // %s)%s", doc->path, vk->hidden, vk->heads,
                         vk->code, vk->hidden, vk->heads, vk->head_key ? ", or head_dim" : "");
    }
    /* two axes of head_dim / 2 dims each, of whole pairs: head_dim % 4 == 0 */
    if (!(h >= 4 && h <= PC_D_MAX) || fmod(h, 4.0) != 0.0)
        return pc_seterr(err, PC_EINPUT, "%s: the vision head dim %g (%s) is not a multiple of "
                         "4 in [4, %d]: %s then does not give each of the two axes head_dim / 4 "
                         "pairs, which --rope-axes-dim cannot express", doc->path, h, what,
                         PC_D_MAX, vk->code);
    *hd = (int)h;
    return PC_OK;
}

static void describe(pc_rope_spec *s, const vision_kind *vk, const char *type, const char *head)
{
    int a = s->head_dim / 2;
    snprintf(s->layout_why, sizeof s->layout_why, "%s rotates %s", vk->type,
             vk->layout ? "(i, i + d/2) (rotate_half)" : "(2i, 2i + 1) (complex pairs)");
    snprintf(s->tower_note, sizeof s->tower_note, "the vision tower (vision_config, model_type "
             "%.40s): %.90s, head dim %d from %.100s, axial dims %d,%d%s over position ids %.110s",
             type, vk->code, s->head_dim, head, a, a, vk->parity ? " by parity" : "", vk->ids);
    snprintf(s->model_type, sizeof s->model_type, "%s", type);
}

/* The text model's base and head dim into S (left 0 when the text model
 * does not read): a cache built with them is named so. */
static void text_model(pc_rope_spec *s, const pc_hf_doc *doc)
{
    pc_rope_spec t;
    pc_err e;
    memset(&t, 0, sizeof t);
    if (pc_hf_model(&t, doc, &e) != PC_OK) return;
    s->tower_text_base = t.p.base;
    s->tower_text_head = t.head_dim;
}

pc_status pc_hf_vision(pc_rope_spec *s, const pc_hf_doc *doc, pc_err *err)
{
    const pc_jnode *vc;
    const char *type;
    pc_status st = open_tower(doc, &vc, err);
    if (st != PC_OK) return st;
    const vision_kind *vk = kind_of(doc, vc, &type);
    if (!vk)
        return pc_seterr(err, PC_EINPUT, "%s: vision_config of model_type '%s' is not known to "
                         "pecheck (it reads the vision towers of qwen2_vl, qwen2_5_vl, qwen3_vl, "
                         "llama4, pixtral): describe it with --base, --rope-axes-dim and "
                         "--position-ids", doc->path, type);
    if (vk->no_rope)
        return pc_seterr(err, PC_EINPUT, "%s: vision_config (model_type %s): the vision tower "
                         "uses no RoPE: its positions are %s", doc->path, type, vk->no_rope);
    char head[160];
    st = audit(doc, vc, vk, err);
    if (st == PC_OK) st = read_base(s, doc, vc, vk, err);
    if (st == PC_OK) st = read_head(doc, vc, vk, &s->head_dim, head, sizeof head, err);
    if (st != PC_OK) return st;
    s->rotary_dim = s->head_dim;
    s->axes_dim[0] = s->axes_dim[1] = s->head_dim / 2;
    s->n_axes_dim = 2;
    s->axes_parity = vk->parity;
    s->layout = vk->layout;
    s->p.type = PC_ROPE_DEFAULT;
    s->tower_ids = vk->ids;
    text_model(s, doc);
    describe(s, vk, type, head);
    return PC_OK;
}

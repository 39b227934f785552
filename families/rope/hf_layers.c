/* hf_layers.c: the encodings of a config by layer type (hf_read.h).
 *
 * Hybrid models rotate their layer types differently: Gemma 3's sliding
 * layers use rope_local_base_freq with the default schedule and its full
 * layers rope_theta with rope_scaling (Gemma3TextModel's rotary_emb_local
 * and rotary_emb); transformers' newer layout nests rope_parameters by
 * layer type ({"full_attention": {...}, "sliding_attention": {...}}, a
 * null one having no RoPE).  Each becomes a whole spec in S->layers; the
 * one --layer-type names (HF's names: layer_types), else full_attention,
 * else the first, becomes S.  A config with one encoding for all its
 * layers (Gemma 2, gpt-oss) keeps S as read. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "hf_read.h"

static double *dup_list(const double *v, int n)
{
    if (!v) return NULL;
    double *c = malloc((size_t)n * sizeof *c);
    if (c) memcpy(c, v, (size_t)n * sizeof *c);
    return c;
}

pc_status pc_rope_spec_copy(pc_rope_spec *dst, const pc_rope_spec *src, pc_err *err)
{
    *dst = *src;
    dst->layers = NULL;
    dst->n_layers = 0;
    dst->ids = NULL; /* the position ids stay the top spec's */
    dst->coords = NULL;
    dst->n_ids = 0;
    dst->short_factor = dup_list(src->short_factor, src->n_factor);
    dst->long_factor = dup_list(src->long_factor, src->n_factor);
    dst->ff = dup_list(src->ff, src->n_factor);
    if ((src->short_factor && !dst->short_factor) || (src->long_factor && !dst->long_factor)
        || (src->ff && !dst->ff)) {
        pc_rope_spec_free(dst);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    return PC_OK;
}

/* ---- the scaling of one encoding ------------------------------------------- */

/* InternLM's first release: "rotary": {"base", "type": origin|dynamic,
 * "scaling_factor"} (its InternLMDynamicNTKScalingRotaryEmbedding is HF's
 * dynamic NTK with factor scaling_factor, default 1). */
static pc_status internlm_rotary(pc_rope_spec *s, const pc_jnode *r, const char *path, pc_err *err)
{
    for (size_t k = 0; k < r->n; k++)
        if (strcmp(r->keys[k], "base") && strcmp(r->keys[k], "type")
            && strcmp(r->keys[k], "scaling_factor"))
            return pc_seterr(err, PC_EINPUT, "%s: rotary.%s is not understood by pecheck", path,
                             r->keys[k]);
    const pc_jnode *t = pc_jget(r, "type");
    const char *type = t && t->type == PC_J_STR ? t->text : "origin";
    if (!strcmp(type, "origin")) { s->p.type = PC_ROPE_DEFAULT; return PC_OK; }
    if (strcmp(type, "dynamic"))
        return pc_seterr(err, PC_EINPUT, "%s: rotary.type '%s' is not understood by pecheck "
                         "(origin or dynamic)", path, type);
    s->p.type = PC_ROPE_DYNAMIC;
    s->p.factor = 1.0;
    if (pc_hf_num(r, "scaling_factor", &s->p.factor) < 0)
        return pc_seterr(err, PC_EINPUT, "%s: rotary.scaling_factor is not a finite number", path);
    if (!(s->p.max_pos > 0))
        return pc_seterr(err, PC_EINPUT, "%s: max_position_embeddings is missing (dynamic "
                         "scaling needs it)", path);
    return PC_OK;
}

/* The one scaling object of a config with one encoding: rope_parameters
 * (flat), else rope_scaling, else InternLM's rotary object. */
static pc_status read_single(pc_rope_spec *s, const pc_hf_doc *doc, pc_err *err)
{
    const pc_jnode *rp = pc_jget(doc->text, "rope_parameters");
    const pc_jnode *rs = pc_jget(doc->text, "rope_scaling");
    const pc_jnode *rot = pc_jget(doc->text, "rotary");
    char what[300];
    const char *key = rp && rp->type != PC_J_NULL ? "rope_parameters" : "rope_scaling";
    snprintf(what, sizeof what, "%s: %s%s", doc->path, doc->text_what, key);
    if ((!rp || rp->type == PC_J_NULL) && (!rs || rs->type == PC_J_NULL) && rot
        && rot->type == PC_J_OBJ)
        return internlm_rotary(s, rot, doc->path, err);
    return pc_hf_scaling(s, rp && rp->type != PC_J_NULL ? rp : rs, what, doc->model_type, err);
}

/* ---- the encodings by layer type ------------------------------------------- */

/* rope_parameters nested by layer type: an object of objects (or nulls). */
static int nested(const pc_jnode *rp)
{
    if (!rp || rp->type != PC_J_OBJ || rp->n == 0) return 0;
    for (size_t k = 0; k < rp->n; k++)
        if (rp->kids[k].type != PC_J_OBJ && rp->kids[k].type != PC_J_NULL) return 0;
    return 1;
}

/* A new encoding NAME: MODEL's fields, its scaling RS (WHAT for messages). */
static pc_status add_layer(pc_rope_spec *s, const pc_rope_spec *model, const char *name,
                           const pc_jnode *rs, const char *what, const char *mt, pc_err *err)
{
    if (s->n_layers >= PC_ROPE_LAYERS_MAX)
        return pc_seterr(err, PC_EINPUT, "%s: more than %d layer types", what, PC_ROPE_LAYERS_MAX);
    pc_rope_spec *l = &s->layers[s->n_layers];
    pc_status st = pc_rope_spec_copy(l, model, err);
    if (st != PC_OK) return st;
    s->n_layers++;
    snprintf(l->layer, sizeof l->layer, "%s", name);
    return pc_hf_scaling(l, rs, what, mt, err);
}

static pc_status read_nested(pc_rope_spec *s, const pc_rope_spec *model, const pc_jnode *rp,
                             const pc_hf_doc *doc, pc_err *err)
{
    pc_status st = PC_OK;
    for (size_t k = 0; k < rp->n && st == PC_OK; k++) {
        char what[300];
        snprintf(what, sizeof what, "%s: %srope_parameters.%s", doc->path, doc->text_what,
                 rp->keys[k]);
        if (rp->kids[k].type == PC_J_NULL) { /* a layer type without RoPE */
            size_t l = strlen(s->layers_note);
            snprintf(s->layers_note + l, sizeof s->layers_note - l, "%s%s (no RoPE)",
                     l ? ", " : "", rp->keys[k]);
            continue;
        }
        st = add_layer(s, model, rp->keys[k], &rp->kids[k], what, doc->model_type, err);
    }
    return st;
}

/* Gemma 3's older layout: sliding layers rope_local_base_freq (default
 * 10000, Gemma3TextConfig) with the default schedule, full layers
 * rope_theta with rope_scaling. */
static pc_status read_local(pc_rope_spec *s, const pc_rope_spec *model, double local,
                            const pc_hf_doc *doc, pc_err *err)
{
    pc_rope_spec *full = &s->layers[0];
    pc_status st = pc_rope_spec_copy(full, model, err);
    if (st != PC_OK) return st;
    s->n_layers = 1;
    snprintf(full->layer, sizeof full->layer, "full_attention");
    st = read_single(full, doc, err);
    if (st != PC_OK) return st;
    pc_rope_spec *slide = &s->layers[1];
    st = pc_rope_spec_copy(slide, model, err);
    if (st != PC_OK) return st;
    s->n_layers = 2;
    snprintf(slide->layer, sizeof slide->layer, "sliding_attention");
    slide->p.type = PC_ROPE_DEFAULT;
    slide->p.base = local;
    slide->have_base = 1;
    snprintf(slide->base_from, sizeof slide->base_from, "%srope_local_base_freq of %.120s",
             doc->text_what, doc->path);
    return PC_OK;
}

/* The local base of Gemma 3's sliding layers; 0: the config has no local
 * encoding. */
static pc_status local_base(const pc_hf_doc *doc, double *local, pc_err *err)
{
    int r = pc_hf_num(doc->text, "rope_local_base_freq", local);
    if (r < 0 || (r == 1 && !(*local > 1.0)))
        return pc_seterr(err, PC_EINPUT, "%s: %srope_local_base_freq must be a finite number > 1",
                         doc->path, doc->text_what);
    if (r == 0)
        *local = !strcmp(doc->model_type, "gemma3_text") || !strcmp(doc->model_type, "gemma3")
                 ? 10000.0 : 0.0;
    return PC_OK;
}

/* ---- choosing one -------------------------------------------------------------- */

/* "linear, factor 8, base 1e+06" */
static void short_desc(const pc_rope_spec *l, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s, base %.9g", pc_rope_type_name(l->p.type), l->p.base);
    if (n > 0 && (size_t)n < len && l->p.type != PC_ROPE_DEFAULT && l->p.type != PC_ROPE_FREQS)
        snprintf(buf + n, len - (size_t)n, ", factor %g", l->p.factor);
}

/* WANT in the config's layer_types list. */
static int listed(const pc_hf_doc *doc, const char *want)
{
    const pc_jnode *lt = pc_jget(doc->text, "layer_types");
    for (size_t k = 0; lt && lt->type == PC_J_ARR && k < lt->n; k++)
        if (lt->kids[k].type == PC_J_STR && !strcmp(lt->kids[k].text, want)) return 1;
    return 0;
}

static int index_of(const pc_rope_spec *s, const char *want)
{
    for (int k = 0; k < s->n_layers; k++)
        if (!strcmp(s->layers[k].layer, want)) return k;
    return -1;
}

static void write_note(pc_rope_spec *s, int chosen, const char *path, int asked)
{
    char nope[200], desc[120];
    snprintf(nope, sizeof nope, "%.190s", s->layers_note);
    size_t l = (size_t)snprintf(s->layers_note, sizeof s->layers_note, "%.150s describes %d "
                                "encodings by layer type: ", path, s->n_layers);
    for (int k = 0; k < s->n_layers && l < sizeof s->layers_note; k++) {
        short_desc(&s->layers[k], desc, sizeof desc);
        l += (size_t)snprintf(s->layers_note + l, sizeof s->layers_note - l, "%s%s (%s%s)",
                              k ? ", " : "", s->layers[k].layer, desc,
                              k == chosen ? "; checked" : "");
    }
    if (l < sizeof s->layers_note)
        snprintf(s->layers_note + l, sizeof s->layers_note - l, "%s%s; %s", nope[0] ? ", " : "",
                 nope, asked ? "chosen by --layer-type" : "--layer-type NAME checks another");
}

/* S becomes its layer K (its layers kept). */
static pc_status choose(pc_rope_spec *s, int k, const char *path, int asked, pc_err *err)
{
    pc_rope_spec pick;
    pc_status st = pc_rope_spec_copy(&pick, &s->layers[k], err);
    if (st != PC_OK) return st;
    pc_rope_spec *layers = s->layers;
    int n = s->n_layers;
    char note[sizeof s->layers_note];
    memcpy(note, s->layers_note, sizeof note);
    s->layers = NULL;
    s->n_layers = 0;
    pc_rope_spec_free(s);
    *s = pick;
    s->layers = layers;
    s->n_layers = n;
    memcpy(s->layers_note, note, sizeof note);
    write_note(s, k, path, asked);
    return PC_OK;
}

static pc_status select_layer(pc_rope_spec *s, const pc_hf_doc *doc, const char *want, pc_err *err)
{
    if (s->n_layers == 1) { /* one with RoPE, the others NoPE */
        if (want && strcmp(want, s->layers[0].layer))
            return pc_seterr(err, PC_EINPUT, "--layer-type %s: %s has RoPE only on %s (%s)", want,
                             doc->path, s->layers[0].layer, s->layers_note);
        return choose(s, 0, doc->path, want != NULL, err);
    }
    int k = want ? index_of(s, want) : index_of(s, "full_attention");
    if (want && k < 0) {
        char names[200] = "";
        for (int j = 0; j < s->n_layers; j++)
            snprintf(names + strlen(names), sizeof names - strlen(names), "%s%s", j ? ", " : "",
                     s->layers[j].layer);
        return pc_seterr(err, PC_EINPUT, "--layer-type %s: %s has the layer types %s", want,
                         doc->path, names);
    }
    return choose(s, k < 0 ? 0 : k, doc->path, want != NULL, err);
}

pc_status pc_hf_layers(pc_rope_spec *s, const pc_hf_doc *doc, const char *want, pc_err *err)
{
    const pc_jnode *rp = pc_jget(doc->text, "rope_parameters");
    double local = 0;
    pc_status st = local_base(doc, &local, err);
    if (st != PC_OK) return st;
    if (!nested(rp) && !(local > 0)) { /* one encoding for every layer */
        st = read_single(s, doc, err);
        if (st == PC_OK && want && !listed(doc, want))
            st = pc_seterr(err, PC_EINPUT, "--layer-type %s: %s has one encoding for all its "
                           "layers and no layer type %s in layer_types", want, doc->path, want);
        if (st == PC_OK && want) snprintf(s->layer, sizeof s->layer, "%s", want);
        return st;
    }
    pc_rope_spec model;
    st = pc_rope_spec_copy(&model, s, err);
    if (st != PC_OK) return st;
    s->layers = calloc(PC_ROPE_LAYERS_MAX, sizeof *s->layers);
    if (!s->layers) st = pc_seterr(err, PC_ENOMEM, "out of memory");
    if (st == PC_OK)
        st = nested(rp) ? read_nested(s, &model, rp, doc, err) : read_local(s, &model, local, doc, err);
    pc_rope_spec_free(&model);
    if (st == PC_OK && s->n_layers == 0)
        st = pc_seterr(err, PC_EINPUT, "%s: every layer type of rope_parameters is null (no "
                       "RoPE)", doc->path);
    if (st == PC_OK) st = select_layer(s, doc, want, err);
    return st;
}

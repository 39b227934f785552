/* hf_read.h: the parts of the HuggingFace config reader (internal to
 * families/rope/): a config file's text model (hf_model.c), its scaling
 * object, rope_scaling or rope_parameters (hf_scaling.c), its encodings
 * by layer type (hf_layers.c), and its vision tower (hf_vision.c).  Field
 * meanings follow transformers' modeling_rope_utils.py and each model's
 * configuration and modeling code (docs/schedules.md, "Configs"). */
#ifndef PECHECK_ROPE_HF_READ_H
#define PECHECK_ROPE_HF_READ_H

#include "scaling.h"
#include "harness/io/jsonread.h"

/* A config file being read. */
typedef struct pc_hf_doc {
    const char *path;         /* for messages */
    const pc_jnode *root;     /* the file's object */
    const pc_jnode *text;     /* its text model: text_config when there is one, else ROOT */
    const char *text_what;    /* "" or "text_config." (messages name the key with it) */
    const char *model_type;   /* the text model's model_type, else the root's; "" none */
} pc_hf_doc;

/* ---- numbers and members (hf_model.c) ------------------------------------ */

/* A number member KEY of OBJ: 1 found, 0 absent or null, -1 not a finite number. */
int pc_hf_num(const pc_jnode *obj, const char *key, double *v);
/* The first of the KEYS (NULL-terminated) OBJ has as a number: 1 found
 * (*WHICH names it), 0 none, -1 one is not a finite number (*WHICH names it). */
int pc_hf_num_any(const pc_jnode *obj, const char *const *keys, double *v, const char **which);
/* A boolean member: 1 true, 0 false, -1 absent or null, -2 not a boolean. */
int pc_hf_bool(const pc_jnode *obj, const char *key);

/* ---- the model (hf_model.c) ---------------------------------------------- */

/* DOC over ROOT (PATH for messages): the text model and the model type. */
void pc_hf_doc_open(pc_hf_doc *doc, const char *path, const pc_jnode *root);
/* Refuse what pecheck does not understand or what is not RoPE: a key of
 * the text model that names a RoPE parameter pecheck does not read, a
 * model whose positions are ALiBi or absolute, rotary turned off. */
pc_status pc_hf_audit(const pc_hf_doc *doc, pc_err *err);
/* The model-level fields into S: the base (rope_theta and its older
 * names, ChatGLM's rope_ratio, the model type's default), the head dim and
 * the rotary dim (head_dim, kv_channels, hidden_size / heads and their
 * older names; partial_rotary_factor, rotary_pct, rope_pct, rotary_dim,
 * qk_rope_head_dim), the lengths, the pair layout of the model's code. */
pc_status pc_hf_model(pc_rope_spec *s, const pc_hf_doc *doc, pc_err *err);

/* ---- the scaling object (hf_scaling.c) ----------------------------------- */

/* The scaling object RS (rope_scaling or rope_parameters; NULL or null:
 * the default schedule) into S's schedule, WHAT naming it in messages;
 * MODEL_TYPE (may be "") selects model-specific keys.  Its rope_theta and
 * partial_rotary_factor (rope_parameters) replace the model's. */
pc_status pc_hf_scaling(pc_rope_spec *s, const pc_jnode *rs, const char *what,
                        const char *model_type, pc_err *err);

/* ---- the vision tower (hf_vision.c) -------------------------------------- */

/* The RoPE of DOC's vision_config (--tower vision) into S: the base, the
 * head dim, two axial axes of head_dim / 2 dims (by parity for Pixtral),
 * the pair layout, S->tower_note and S->tower_ids.  PC_EINPUT naming the
 * file and key: no vision_config, a tower of another kind or without
 * RoPE, a key the tower's code does not read, a head dim the axes cannot
 * split. */
pc_status pc_hf_vision(pc_rope_spec *s, const pc_hf_doc *doc, pc_err *err);

/* ---- the layer types (hf_layers.c) --------------------------------------- */

/* The encodings DOC describes by layer type (Gemma-2/3 rope_local_base_freq,
 * rope_parameters nested by layer type), from S (the model-level fields
 * read) into S->layers, then S made the one WANT names (--layer-type; NULL:
 * full_attention, else the first).  One encoding for every layer: S is
 * left as it is (WANT must then be one of the config's layer_types). */
pc_status pc_hf_layers(pc_rope_spec *s, const pc_hf_doc *doc, const char *want, pc_err *err);

/* A deep copy of SRC into DST (its arrays duplicated, its layers and
 * position ids not). */
pc_status pc_rope_spec_copy(pc_rope_spec *dst, const pc_rope_spec *src, pc_err *err);

#endif

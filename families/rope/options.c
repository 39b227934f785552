/* options.c: the RoPE family's encoding spec (options.h). */
#include <stdint.h>
#include <stdlib.h>
#include <stdio.h>
#include <string.h>
#include "options.h"
#include "formulation_hf.h"
#include "families/family.h"
#include "families/spec_sched.h"
#include "harness/base/parse.h"
#include "harness/base/suggest.h"
#include "harness/engine/accuracy.h"

/* ---- the options -------------------------------------------------------- */

static pc_status check_seq_len(const char *v, pc_err *err)
{
    int64_t x;
    return pc_parse_i64("--seq-len", v, 1, PC_POS_MAX, &x, err);
}

static pc_status check_rotary_dim(const char *v, pc_err *err)
{
    int64_t x;
    pc_status st = pc_parse_i64("--rotary-dim", v, 2, PC_D_MAX, &x, err);
    if (st == PC_OK && x % 2)
        return pc_seterr(err, PC_EINPUT, "--rotary-dim: must be even, got %s", v);
    return st;
}

static pc_status check_layer_type(const char *v, pc_err *err)
{
    size_t n = strlen(v);
    if (n == 0 || n >= 48 || strspn(v, "abcdefghijklmnopqrstuvwxyz0123456789_") != n)
        return pc_seterr(err, PC_EINPUT, "--layer-type: expected a layer type name such as "
                         "full_attention or sliding_attention, got '%s'", v);
    return PC_OK;
}

/* "a,b,c": up to PC_ROPE_AXES_MAX numbers separated by commas (read by
 * positions.c, which names the option in its messages). */
static pc_status check_sections(const char *v, pc_err *err)
{
    size_t n = strlen(v);
    if (n == 0 || strspn(v, "0123456789,") != n || v[0] == ',' || v[n - 1] == ',')
        return pc_seterr(err, PC_EINPUT, "expected numbers separated by commas (16,24,24), got "
                         "'%s'", v);
    return PC_OK;
}

static pc_status check_angle_scale(const char *v, pc_err *err)
{
    double k;
    int pi;
    return pc_rope_scale_parse(v, &k, &pi, err);
}

/* f16 or bf16: the type a model holds its frequencies in */
static pc_status check_freq_dtype(const char *v, pc_err *err)
{
    if (!strcmp(v, "f16") || !strcmp(v, "bf16")) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "--rope-freq-dtype: expected f16 (float16, ChatGLM-6B's "
                     "inv_freq.half()) or bf16, got '%s'", v);
}

static pc_status check_angle_dtype(const char *v, pc_err *err)
{
    if (!strcmp(v, "f16")) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "--rope-angle-dtype: expected f16 (the angle computed in "
                     "float16, ChatGLM-6B under .half()), got '%s'", v);
}

/* text or vision (did you mean one of them?) */
static pc_status check_tower(const char *v, pc_err *err)
{
    if (!strcmp(v, "text") || !strcmp(v, "vision")) return PC_OK;
    pc_suggest sg;
    char hint[96];
    pc_suggest_init(&sg, v);
    pc_suggest_add_list(&sg, "text vision");
    return pc_seterr(err, PC_EINPUT, "--tower: expected text or vision, got '%s'%s", v,
                     pc_suggest_text(&sg, "--tower ", hint, sizeof hint));
}

static pc_status check_xpos(const char *v, pc_err *err)
{
    double x;
    pc_status st = pc_parse_double("--rope-xpos", v, &x, err);
    if (st == PC_OK && !(x >= 1.0 && x <= 1e300)) /* 1e300: q / B stays a normal binary64 */
        return pc_seterr(err, PC_EINPUT, "--rope-xpos: the scale base must be a number in [1, "
                         "1e300] (torchscale's scale_base, 512), got %s", v);
    return st;
}

static pc_status check_xpos_offset(const char *v, pc_err *err)
{
    int64_t x;
    return pc_parse_i64("--rope-xpos-offset", v, -PC_POS_MAX, PC_POS_MAX, &x, err);
}

static const pc_option options[] = {
    { "hf-config", "config.json", "RoPE: the model's HuggingFace config (rope_theta, "
      "rope_scaling, head_dim, partial_rotary_factor, lengths): the reference follows its "
      "frequency schedule (docs/schedules.md)", NULL, 1 },
    { "rope-scaling", "JSON", "RoPE: an HF rope_scaling object inline, e.g. "
      "'{\"rope_type\":\"linear\",\"factor\":8}' (replaces the config's)", NULL, 0 },
    { "rope-freqs", "F.npy", "RoPE: per-pair frequency factors (llama.cpp rope_freqs): omega_i "
      "= base^(-2i/d) / F[i]", NULL, 1 },
    { "seq-len", "L", "RoPE: the sequence length a dynamic or longrope cache was built for; "
      "default: a table's last position + 1", check_seq_len, 0 },
    { "rotary-dim", "R", "RoPE: the rotary dim when it is below the head dim (partial rotary); "
      "the cache holds R dims", check_rotary_dim, 0 },
    { "position-ids", "POS.npy", "RoPE: the positions of the rows, shape (n,) or (n, A): "
      "row r (of a table, or of --positions) is rotated by POS[r]; with A axes each pair follows "
      "one (--rope-sections, --rope-axes-dim, a config's mrope_section).  Integers (int64), or "
      "real coordinates (float32, float64: a ViT's interpolated grid, DINOv3's [-1, 1]), each "
      "certified at its exact stored value; a row with no position (cls, register) is 0 on "
      "every axis", NULL, 1 },
    { "rope-angle-scale", "S", "RoPE: the angle is S x omega_i (DINOv3's 2 pi): a number, or "
      "pi, 2pi (Kpi: K times MPFR's pi, certified); with --position-ids", check_angle_scale,
      0 },
    { "rope-sections", "a,b,c", "RoPE: M-RoPE (Qwen2-VL's mrope_section), the pairs of each "
      "position axis in turn: 16,24,24 (a config's mrope_section by default)",
      check_sections, 0 },
    { "mrope-interleaved", "", "RoPE: the sections in the newer Qwen-VL order "
      "(mrope_interleaved): pair j follows axis j mod 3 while j < 3 times its section", NULL, 0 },
    { "rope-axes-dim", "a,b", "RoPE: axial RoPE (FLUX's axes_dim, a 2-D ViT): the dims of each "
      "axis in turn, pair j of an axis of a dims with frequency base^(-2j/a)", check_sections,
      0 },
    { "rope-axes-parity", "", "RoPE: with --rope-axes-dim, the axes share one schedule over "
      "all their dims by parity, axis k of A taking frequencies k, k + A, ...: Pixtral's vision "
      "RoPE (freqs[::2] for the rows, freqs[1::2] for the columns)", NULL, 0 },
    { "rope-axes-halves", "", "RoPE: with --rope-axes-dim, an (n, d) cache holds each axis' "
      "dims in a half layout of its own, [cos(p w) cos(p w) | cos(b w) cos(b w)]: ChatGLM-6B's "
      "2-D RoPE (position_encoding_2d: rotate_half within each half of the head); read as the "
      "half layout", NULL, 0 },
    { "rope-freq-dtype", "f16|bf16", "RoPE: with --position-ids, each frequency omega_i is "
      "rounded to nearest in this type before the angle is taken (certified): a model holding "
      "inv_freq in half precision, ChatGLM-6B's RotaryEmbedding (inv_freq.half())",
      check_freq_dtype, 0 },
    { "rope-angle-dtype", "f16", "RoPE: with --position-ids, each angle a float16 value, "
      "fl16(fl16(x) fl16(omega_i)): a model run in float16 (t, inv_freq and their product in "
      "half: ChatGLM-6B under .half()); cos and sin of that angle certified", check_angle_dtype,
      0 },
    { "tower", "text|vision", "RoPE: the part of --hf-config read: text (default; "
      "text_config when there is one) or vision (vision_config: the vision encoder's 2-D RoPE, "
      "Qwen2-VL, Qwen2.5-VL, Qwen3-VL, Llama 4, Pixtral; needs --position-ids of shape (n, 2))",
      check_tower, 0 },
    { "rope-xpos", "B", "RoPE: xPos (torchscale's XPOS, scale_base B = 512): pair i's cos and "
      "sin at position p times zeta_i^((p + q0)/B), zeta_i = (2i + 0.4 d)/(1.4 d); q0 is "
      "torchscale's centring floor(-n/2), n the rows' last position + 1 (a decode step's table: "
      "--pos-start at its offset); layout interleaved unless --layout (docs/schedules.md)",
      check_xpos, 0 },
    { "rope-xpos-offset", "Q0", "RoPE: with --rope-xpos, the exponent's position offset q0 "
      "(default torchscale's floor(-n/2); lucidrains' rotary-embedding-torch and x-transformers "
      "centre by -(n // 2), which differs for odd n; 0: no centring)", check_xpos_offset, 0 },
    { "rope-xpos-downscale", "", "RoPE: with --rope-xpos, the keys' factor zeta_i^(-(p + q0)/B) "
      "(torchscale's downscale=True)", NULL, 0 },
    { "layer-type", "NAME", "RoPE: the layer type whose encoding is checked when the config has "
      "several (HF's layer_types names: sliding_attention, full_attention); default "
      "full_attention, and the output lists the others", check_layer_type, 0 },
};

/* ---- the spec ----------------------------------------------------------- */

const pc_rope_spec *pc_rope_spec_of(const pc_spec *spec)
{
    return spec && spec->family->spec == &pc_rope_spec_kind ? spec->own : NULL;
}

/* --rope-xpos and its options into S's parameters; torchscale's XPOS
 * rotates pairs (2i, 2i+1) (duplicate_interleave, rotate_every_two), so
 * the layout is interleaved unless --layout says otherwise. */
static void xpos_apply(pc_rope_spec *s, const pc_rope_opts *ro, pc_spec *spec)
{
    if (!ro->xpos) return;
    s->p.xpos_base = strtod(ro->xpos, NULL);
    s->p.xpos_q0_set = ro->xpos_offset != NULL;
    s->p.xpos_q0 = ro->xpos_offset ? strtoll(ro->xpos_offset, NULL, 10) : 0;
    s->p.xpos_down = ro->xpos_down;
    if (s->layout < 0) {
        s->layout = 0;
        snprintf(s->layout_why, sizeof s->layout_why, "torchscale's XPOS rotates pairs (2i, 2i+1) "
                 "(duplicate_interleave)");
    }
    if (spec->layout < 0) spec->layout = s->layout;
}

/* Each axis' dims in a half layout of their own (S->axes_halves): the
 * table's reader takes the axes' dims as its column blocks, and the pairs
 * are those of the half layout it reads them into. */
static pc_status halves_apply(const pc_rope_spec *s, pc_spec *spec, pc_err *err)
{
    if (!s->axes_halves) return PC_OK;
    if (spec->layout == 0)
        return pc_seterr(err, PC_EINPUT, "--layout interleaved: each axis' dims in a half layout "
                         "of its own (%s) are rotate_half's pairs, read in the half layout: "
                         "drop --layout", s->axes_from ? s->axes_from : "--rope-axes-halves");
    memcpy(spec->col_blocks, s->axes_dim, (size_t)s->n_axes_dim * sizeof *spec->col_blocks);
    spec->n_col_blocks = s->n_axes_dim;
    if (spec->layout < 0) {
        spec->layout = 1;
        snprintf(spec->layout_from, sizeof spec->layout_from, "each axis' dims in a half "
                 "layout of its own (%.150s)", s->axes_from ? s->axes_from : "--rope-axes-halves");
    }
    return PC_OK;
}

/* GIVEN's schedule options into SPEC->own (left NULL when none is given);
 * a config's rope_theta becomes SPEC's base (BASE_FROM says so), its
 * rotary dim SPEC's d. */
static pc_status resolve(const pc_given *g, pc_spec *spec, pc_err *err)
{
    const char *seq = pc_given_value(g, "seq-len"), *rot = pc_given_value(g, "rotary-dim");
    pc_rope_opts ro = { pc_given_value(g, "hf-config"), pc_given_value(g, "rope-scaling"),
                        pc_given_value(g, "rope-freqs"), spec->base, spec->base_set,
                        rot ? (int)strtol(rot, NULL, 10) : 0, seq ? strtod(seq, NULL) : 0.0,
                        seq != NULL, pc_given_value(g, "layer-type"),
                        pc_given_value(g, "position-ids"), pc_given_value(g, "rope-sections"),
                        pc_given_value(g, "mrope-interleaved") != NULL,
                        pc_given_value(g, "rope-axes-dim"),
                        pc_given_value(g, "rope-axes-parity") != NULL,
                        pc_given_value(g, "rope-angle-scale"), 0,
                        pc_given_value(g, "rope-xpos"), pc_given_value(g, "rope-xpos-offset"),
                        pc_given_value(g, "rope-xpos-downscale") != NULL,
                        pc_given_value(g, "rope-axes-halves") != NULL,
                        pc_given_value(g, "rope-freq-dtype"), pc_given_value(g, "rope-angle-dtype") };
    const char *tower = pc_given_value(g, "tower");
    ro.tower_vision = tower && !strcmp(tower, "vision");
    spec->own = NULL;
    if (!ro.config && !ro.inline_json && !ro.freqs_path && !ro.rotary_dim && !ro.seq_len_set
        && !ro.layer_type && !ro.ids_path && !ro.sections && !ro.axes_dim
        && !ro.sections_interleaved && !ro.axes_parity && !ro.angle_scale && !ro.tower_vision
        && !ro.xpos && !ro.xpos_offset && !ro.xpos_down && !ro.axes_halves && !ro.freq_dtype
        && !ro.angle_dtype)
        return PC_OK;
    if (!ro.xpos && (ro.xpos_offset || ro.xpos_down))
        return pc_seterr(err, PC_EINPUT, "--rope-xpos-offset and --rope-xpos-downscale need "
                         "--rope-xpos B (the scale base)");
    pc_rope_spec *s = calloc(1, sizeof *s);
    if (!s) return pc_seterr(err, PC_ENOMEM, "out of memory");
    pc_status st = pc_rope_spec_parse(s, &ro, err);
    if (st != PC_OK) {
        pc_rope_spec_free(s);
        free(s);
        return st;
    }
    if (s->have_base && !spec->base_set) {
        spec->base = s->p.base; /* BASE_SET stays --base's */
        spec->base_own = 1;
        snprintf(spec->base_from, sizeof spec->base_from, "%s", s->base_from);
    } else
        s->p.base = spec->base;
    if (s->rotary_dim && !spec->d_set) { spec->d = s->rotary_dim; spec->d_known = 1; }
    xpos_apply(s, &ro, spec);
    spec->model_layout = s->layout;
    snprintf(spec->model_layout_why, sizeof spec->model_layout_why, "%s", s->layout_why);
    /* a vision tower's code pairs q and k one way and permutes nothing
     * (hf_vision.c): a cache of the other layout pairs the wrong dims, so
     * the tower's layout is checked as if given with --layout (a text
     * model's is only noted: DeepSeek-V3 permutes q and k to its cache) */
    if (ro.tower_vision && spec->layout < 0 && s->layout >= 0) {
        spec->layout = s->layout;
        snprintf(spec->layout_from, sizeof spec->layout_from, "the vision tower's: %.180s",
                 s->layout_why);
    }
    spec->rows = s->ids ? s->n_ids : 0; /* the rows of the position ids */
    spec->own = s;
    return halves_apply(s, spec, err);
}

static void release(pc_spec *spec)
{
    pc_rope_spec *s = spec->own;
    if (s) pc_rope_spec_free(s);
    free(s);
    spec->own = NULL;
}

static int scheduled(const pc_spec *spec)
{
    return spec->own != NULL;
}

/* The parameters of SPEC's schedule for CFG's d (the sequence length
 * defaults to CFG's last position + 1). */
static pc_status schedule(const pc_spec *spec, pc_acc_cfg *cfg, pc_spec_sched *hold, pc_err *err)
{
    const pc_rope_spec *s = spec->own;
    if (!s) return pc_rope_form_apply(NULL, cfg, &hold->form_own, err);
    if (s->ids && (cfg->pos_lo < 0 || cfg->pos_hi >= s->n_ids))
        return pc_seterr(err, PC_EINPUT, "--position-ids %s has %lld rows but positions %lld..%lld "
                         "are checked (a table's rows, or --positions: rows 0..%lld)",
                         s->given.ids_path, (long long)s->n_ids, (long long)cfg->pos_lo,
                         (long long)cfg->pos_hi, (long long)s->n_ids - 1);
    pc_rope_params *p = calloc(1, sizeof *p);
    if (!p) return pc_seterr(err, PC_ENOMEM, "out of memory");
    pc_status st = pc_rope_instantiate(s, cfg->d, (double)cfg->pos_hi + 1.0, p, err);
    if (st != PC_OK) { free(p); return st; }
    hold->s = pc_rope_schedule(p);
    hold->s.params = p;
    hold->own = p;
    hold->set = 1;
    char desc[400];
    pc_rope_describe(p, desc, sizeof desc);
    /* the vision tower has no layer types: its note takes their place */
    const char *more = s->tower_note[0] ? s->tower_note : s->layers_note;
    snprintf(hold->note, sizeof hold->note, "%.390s (%.200s)%s%.120s%s%.600s", desc,
             s->source[0] ? s->source : "options", s->layout_why[0] ? "; " : "", s->layout_why,
             more[0] ? "; " : "", more);
    cfg->sched = &hold->s;
    cfg->sched_note = hold->note;
    cfg->base = p->base;
    return pc_rope_form_apply(p, cfg, &hold->form_own, err);
}

static void sched_release(pc_spec_sched *hold)
{
    pc_rope_params *p = hold->own;
    if (p) pc_rope_params_free(p);
    free(p);
    hold->own = NULL;
}

static void args(const pc_spec *spec, char *buf, size_t len)
{
    const pc_rope_spec *s = spec->own;
    size_t u = strlen(buf);
    if (!s || u >= len) return;
    const pc_rope_opts *o = &s->given;
    if (o->config) u += (size_t)snprintf(buf + u, len - u, " --hf-config %s", o->config);
    if (o->inline_json && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-scaling '%s'", o->inline_json);
    if (o->freqs_path && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-freqs %s", o->freqs_path);
    if (o->seq_len_set && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --seq-len %.17g", o->seq_len);
    if (o->rotary_dim && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rotary-dim %d", o->rotary_dim);
    if (o->layer_type && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --layer-type %s", o->layer_type);
    if (o->ids_path && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --position-ids %s", o->ids_path);
    if (o->sections && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-sections %s", o->sections);
    if (o->sections_interleaved && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --mrope-interleaved");
    if (o->axes_dim && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-axes-dim %s", o->axes_dim);
    if (o->axes_parity && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-axes-parity");
    if (o->angle_scale && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-angle-scale %s", o->angle_scale);
    if (o->axes_halves && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-axes-halves");
    if (o->freq_dtype && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-freq-dtype %s", o->freq_dtype);
    if (o->angle_dtype && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-angle-dtype %s", o->angle_dtype);
    if (o->tower_vision && u < len) u += (size_t)snprintf(buf + u, len - u, " --tower vision");
    if (o->xpos && u < len) u += (size_t)snprintf(buf + u, len - u, " --rope-xpos %s", o->xpos);
    if (o->xpos_offset && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --rope-xpos-offset %s", o->xpos_offset);
    if (o->xpos_down && u < len) snprintf(buf + u, len - u, " --rope-xpos-downscale");
}

const pc_spec_kind pc_rope_spec_kind = {
    .options = options, .n_options = sizeof options / sizeof options[0],
    .resolve = resolve, .release = release,
    .schedule = schedule, .sched_release = sched_release,
    .scheduled = scheduled, .args = args
};

/* options.c: the T5 family's encoding spec (families/spec.h): the bucket
 * parameters of T5Attention._relative_position_bucket (HF transformers):
 * --num-buckets, --max-distance, --causal (bidirectional=False, the
 * decoder's), or the model's config.json (--hf-config, which every family
 * with a config reads, or --t5-config, T5's alone: T5Config's
 * relative_attention_num_buckets, relative_attention_max_distance,
 * is_decoder).  HF's defaults (T5Config's): 32 buckets, max distance 128. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "t5.h"
#include "harness/base/parse.h"
#include "harness/io/jsonread.h"

static pc_status check_buckets(const char *v, pc_err *err)
{
    int64_t x;
    return pc_parse_i64("--num-buckets", v, 2, PC_T5_BUCKETS_MAX, &x, err);
}

static pc_status check_distance(const char *v, pc_err *err)
{
    int64_t x;
    return pc_parse_i64("--max-distance", v, 2, PC_T5_DIST_MAX, &x, err);
}

static const pc_option options[] = {
    { "num-buckets", "N", "T5: relative_attention_num_buckets (default 32, HF's)", check_buckets,
      0 },
    { "max-distance", "D", "T5: relative_attention_max_distance (default 128, HF's)",
      check_distance, 0 },
    /* one name in the help: the attention family's line says both */
    { "causal", "", "T5: causal buckets (bidirectional=False, the decoder's); default: both "
      "for the properties, bidirectional for a table", NULL, 0 },
    { "hf-config", "config.json", "T5: its relative_attention_num_buckets (default 32), "
      "relative_attention_max_distance (default 128) and is_decoder (true: causal buckets), as "
      "T5Config reads them", NULL, 1 },
    { "t5-config", "config.json", "T5: --hf-config for T5 alone (relative_attention_num_buckets, "
      "relative_attention_max_distance, is_decoder)", NULL, 1 },
};

static const pc_t5_spec defaults = { PC_T5_HF_BUCKETS, PC_T5_HF_MAXDIST, -1, 0, 0, 0, 0, NULL,
                                     NULL, "" };

const pc_t5_spec *pc_t5_spec_of(const pc_spec *spec)
{
    if (spec && spec->family->spec == &pc_t5_spec_kind && spec->own) return spec->own;
    return &defaults;
}

/* CFG (of PATH, given as --OPT) is a T5 model's: it has one of T5Config's
 * bucket keys, or a model_type of the T5 models (t5, mt5, umt5, longt5,
 * ...); a config without them (a RoPE model's) would check HF's defaults
 * under another model's name. */
static pc_status t5_model(const pc_jnode *cfg, const char *path, const char *opt, pc_err *err)
{
    static const char *const keys[] = { "relative_attention_num_buckets",
                                        "relative_attention_max_distance", "is_decoder" };
    for (size_t k = 0; k < sizeof keys / sizeof keys[0]; k++)
        if (pc_jget(cfg, keys[k])) return PC_OK;
    const pc_jnode *mt = pc_jget(cfg, "model_type");
    if (mt && mt->type == PC_J_STR && strstr(mt->text, "t5")) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "--%s %s: not a T5 model's config (no "
                     "relative_attention_num_buckets, relative_attention_max_distance or "
                     "is_decoder, model_type %.40s): give the T5 model's config.json, or the "
                     "bucket parameters (--num-buckets, --max-distance, --causal)", opt, path,
                     mt && mt->type == PC_J_STR ? mt->text : "none");
}

static pc_status read_config(pc_t5_spec *s, const char *path, pc_err *err)
{
    pc_jnode *cfg = NULL;
    pc_status st = pc_jread_file(path, &cfg, err);
    if (st == PC_EIO) st = PC_EINPUT;
    if (st == PC_OK && cfg->type != PC_J_OBJ)
        st = pc_seterr(err, PC_EINPUT, "%s: a config must be a JSON object", path);
    if (st == PC_OK) st = t5_model(cfg, path, s->config_opt, err);
    int set; /* a key left out keeps T5Config's default (DEFAULTS) */
    if (st == PC_OK)
        st = pc_jget_int(cfg, "relative_attention_num_buckets", path, 2, PC_T5_BUCKETS_MAX,
                         &s->num_buckets, &set, err);
    if (st == PC_OK)
        st = pc_jget_int(cfg, "relative_attention_max_distance", path, 2, PC_T5_DIST_MAX,
                         &s->max_distance, &set, err);
    const pc_jnode *dec = st == PC_OK ? pc_jget(cfg, "is_decoder") : NULL;
    if (dec && dec->type != PC_J_TRUE && dec->type != PC_J_FALSE && dec->type != PC_J_NULL)
        st = pc_seterr(err, PC_EINPUT, "%s: is_decoder must be true or false", path);
    else if (dec && dec->type != PC_J_NULL) {
        s->mode = dec->type == PC_J_TRUE;
        s->mode_config = 1;
    }
    snprintf(s->source, sizeof s->source, "%.200s", path);
    pc_jfree(cfg);
    return st;
}

static pc_status resolve(const pc_given *g, pc_spec *spec, pc_err *err)
{
    const char *nb = pc_given_value(g, "num-buckets"), *md = pc_given_value(g, "max-distance");
    const char *causal = pc_given_value(g, "causal"), *cfg = pc_given_value(g, "t5-config");
    const char *opt = "t5-config";
    if (!cfg && (cfg = pc_given_value(g, "hf-config"))) opt = "hf-config"; /* T5's name wins */
    spec->own = NULL;
    if (!nb && !md && !causal && !cfg) return PC_OK;
    pc_t5_spec *s = malloc(sizeof *s);
    if (!s) return pc_seterr(err, PC_ENOMEM, "out of memory");
    *s = defaults;
    s->config = cfg;
    s->config_opt = opt;
    snprintf(s->source, sizeof s->source, "options");
    pc_status st = cfg ? read_config(s, cfg, err) : PC_OK;
    if (nb) { s->num_buckets = (int)strtol(nb, NULL, 10); s->buckets_set = 1; }
    if (md) { s->max_distance = (int)strtol(md, NULL, 10); s->distance_set = 1; }
    if (causal) { s->mode = 1; s->causal_set = 1; s->mode_config = 0; }
    if (st == PC_OK) {
        pc_err e;
        int ok = pc_t5_check_params(s->mode != 1, s->num_buckets, s->max_distance, &e) == PC_OK
                 && (s->mode != -1 || pc_t5_check_params(0, s->num_buckets, s->max_distance,
                                                         &e) == PC_OK);
        if (!ok) st = pc_seterr(err, PC_EINPUT, "T5 buckets (%s): %s", s->source, e.msg);
    }
    if (st != PC_OK) { free(s); return st; }
    spec->own = s;
    return PC_OK;
}

static void args(const pc_spec *spec, char *buf, size_t len)
{
    const pc_t5_spec *s = spec->own;
    size_t u = strlen(buf);
    if (!s || u >= len) return;
    if (s->config)
        u += (size_t)snprintf(buf + u, len - u, " --%s %s", s->config_opt, s->config);
    if (s->buckets_set && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --num-buckets %d", s->num_buckets);
    if (s->distance_set && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --max-distance %d", s->max_distance);
    if (s->causal_set && u < len) snprintf(buf + u, len - u, " --causal");
}

const pc_spec_kind pc_t5_spec_kind = {
    .options = options, .n_options = sizeof options / sizeof options[0],
    .resolve = resolve, .release = pc_spec_free_own, .args = args
};

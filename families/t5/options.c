/* options.c: the T5 family's encoding spec (families/spec.h): the bucket
 * parameters of T5Attention._relative_position_bucket (HF transformers):
 * --num-buckets, --max-distance, --causal (bidirectional=False, the
 * decoder's), or a model's config.json (--t5-config:
 * relative_attention_num_buckets, relative_attention_max_distance,
 * is_decoder).  HF's defaults: 32 buckets, max distance 128. */
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
    { "t5-config", "config.json", "T5: a model's config (relative_attention_num_buckets, "
      "relative_attention_max_distance, is_decoder)", NULL, 1 },
};

static const pc_t5_spec defaults = { PC_T5_HF_BUCKETS, PC_T5_HF_MAXDIST, -1, 0, 0, 0, NULL, "" };

const pc_t5_spec *pc_t5_spec_of(const pc_spec *spec)
{
    if (spec && spec->family->spec == &pc_t5_spec_kind && spec->own) return spec->own;
    return &defaults;
}

static pc_status read_config(pc_t5_spec *s, const char *path, pc_err *err)
{
    pc_jnode *cfg = NULL;
    pc_status st = pc_jread_file(path, &cfg, err);
    if (st == PC_EIO) st = PC_EINPUT;
    if (st == PC_OK && cfg->type != PC_J_OBJ)
        st = pc_seterr(err, PC_EINPUT, "%s: a config must be a JSON object", path);
    if (st == PC_OK && !pc_jget(cfg, "relative_attention_num_buckets"))
        st = pc_seterr(err, PC_EINPUT, "%s: no relative_attention_num_buckets (not a T5 "
                       "config?)", path);
    int set;
    if (st == PC_OK)
        st = pc_jget_int(cfg, "relative_attention_num_buckets", path, 2, PC_T5_BUCKETS_MAX,
                         &s->num_buckets, &set, err);
    if (st == PC_OK)
        st = pc_jget_int(cfg, "relative_attention_max_distance", path, 2, PC_T5_DIST_MAX,
                         &s->max_distance, &set, err);
    const pc_jnode *dec = st == PC_OK ? pc_jget(cfg, "is_decoder") : NULL;
    if (dec && dec->type != PC_J_TRUE && dec->type != PC_J_FALSE && dec->type != PC_J_NULL)
        st = pc_seterr(err, PC_EINPUT, "%s: is_decoder must be true or false", path);
    else if (dec && dec->type != PC_J_NULL)
        s->mode = dec->type == PC_J_TRUE;
    snprintf(s->source, sizeof s->source, "%.200s", path);
    pc_jfree(cfg);
    return st;
}

static pc_status resolve(const pc_given *g, pc_spec *spec, pc_err *err)
{
    const char *nb = pc_given_value(g, "num-buckets"), *md = pc_given_value(g, "max-distance");
    const char *causal = pc_given_value(g, "causal"), *cfg = pc_given_value(g, "t5-config");
    spec->own = NULL;
    if (!nb && !md && !causal && !cfg) return PC_OK;
    pc_t5_spec *s = malloc(sizeof *s);
    if (!s) return pc_seterr(err, PC_ENOMEM, "out of memory");
    *s = defaults;
    s->config = cfg;
    snprintf(s->source, sizeof s->source, "options");
    pc_status st = cfg ? read_config(s, cfg, err) : PC_OK;
    if (nb) { s->num_buckets = (int)strtol(nb, NULL, 10); s->buckets_set = 1; }
    if (md) { s->max_distance = (int)strtol(md, NULL, 10); s->distance_set = 1; }
    if (causal) { s->mode = 1; s->causal_set = 1; }
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
    if (s->config) u += (size_t)snprintf(buf + u, len - u, " --t5-config %s", s->config);
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

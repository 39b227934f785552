/* options.c: the ALiBi family's encoding spec (families/spec.h): the head
 * count a run checks besides its scan (--heads), MPT's alibi_bias_max
 * (--alibi-bias-max), and the model's config.json that gives both
 * (--hf-config, which every family with a config reads, or --alibi-config,
 * ALiBi's alone: BLOOM's n_head, MPT's n_heads and
 * attn_config.alibi_bias_max, num_attention_heads of the others). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alibi.h"
#include "harness/base/parse.h"
#include "harness/io/jsonread.h"

static pc_status check_heads(const char *v, pc_err *err)
{
    int64_t x;
    return pc_parse_i64("--heads", v, 1, PC_ALIBI_HEADS_MAX, &x, err);
}

static pc_status check_bias_max(const char *v, pc_err *err)
{
    int64_t x;
    return pc_parse_i64("--alibi-bias-max", v, 1, PC_ALIBI_BIAS_MAX_MAX, &x, err);
}

static const pc_option options[] = {
    { "heads", "H", "ALiBi: a head count to check besides the properties' scan (1..4096; a "
      "table's own is its shape's)", check_heads, 0 },
    { "alibi-bias-max", "B", "ALiBi: the slopes' bias maximum, m_h = 2^(-B(h+1)/C) (MPT's "
      "alibi_bias_max; default 8, the paper's)", check_bias_max, 0 },
    { "hf-config", "config.json", "ALiBi: its head count (BLOOM's n_head, MPT's n_heads, "
      "num_attention_heads) and MPT's attn_config.alibi_bias_max", NULL, 1 },
    { "alibi-config", "config.json", "ALiBi: --hf-config for ALiBi alone (BLOOM n_head, MPT "
      "n_heads and attn_config.alibi_bias_max, num_attention_heads)", NULL, 1 },
};

static const pc_alibi_spec defaults = { 0, PC_ALIBI_PAPER_BIAS_MAX, 0, 0, NULL, NULL, "" };

const pc_alibi_spec *pc_alibi_spec_of(const pc_spec *spec)
{
    if (spec && spec->family->spec == &pc_alibi_spec_kind && spec->own) return spec->own;
    return &defaults;
}

/* CFG (of PATH, given as --OPT) does not say its model has no ALiBi:
 * Falcon's alibi, MPT's attn_config.alibi false (a RoPE model's). */
static pc_status alibi_model(const pc_jnode *cfg, const char *path, const char *opt, pc_err *err)
{
    const pc_jnode *a = pc_jget(cfg, "alibi"), *ac = pc_jget(cfg, "attn_config");
    const char *key = a && a->type == PC_J_FALSE ? "alibi" : NULL;
    if (!key && ac && ac->type == PC_J_OBJ && (a = pc_jget(ac, "alibi")) && a->type == PC_J_FALSE)
        key = "attn_config.alibi";
    if (!key) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "--%s %s: %s is false: this model's positions are not ALiBi "
                     "(give an ALiBi model's config, or --heads)", opt, path, key);
}

/* The head count and bias maximum of config PATH into S (the keys it has). */
static pc_status read_config(pc_alibi_spec *s, const char *path, pc_err *err)
{
    pc_jnode *cfg = NULL;
    pc_status st = pc_jread_file(path, &cfg, err);
    if (st == PC_EIO) st = PC_EINPUT;
    if (st == PC_OK && cfg->type != PC_J_OBJ)
        st = pc_seterr(err, PC_EINPUT, "%s: a config must be a JSON object", path);
    if (st == PC_OK) st = alibi_model(cfg, path, s->config_opt, err);
    static const char *const head_keys[] = { "n_head", "n_heads", "num_attention_heads" };
    const char *found = NULL;
    int set = 0;
    for (size_t k = 0; st == PC_OK && !found && k < 3; k++)
        if ((st = pc_jget_int(cfg, head_keys[k], path, 1, PC_ALIBI_HEADS_MAX, &s->heads, &set,
                              err)) == PC_OK && set)
            found = head_keys[k];
    if (st == PC_OK && !found)
        st = pc_seterr(err, PC_EINPUT, "--%s %s: no head count (n_head, n_heads or "
                       "num_attention_heads): give the ALiBi model's config, or --heads",
                       s->config_opt, path);
    if (st == PC_OK)
        st = pc_jget_int(pc_jget(cfg, "attn_config"), "alibi_bias_max", path, 1,
                         PC_ALIBI_BIAS_MAX_MAX, &s->bias_max, &set, err);
    if (st == PC_OK) snprintf(s->source, sizeof s->source, "%s of %.200s", found, path);
    pc_jfree(cfg);
    return st;
}

static pc_status resolve(const pc_given *g, pc_spec *spec, pc_err *err)
{
    const char *h = pc_given_value(g, "heads"), *b = pc_given_value(g, "alibi-bias-max");
    const char *cfg = pc_given_value(g, "alibi-config"), *opt = "alibi-config";
    if (!cfg && (cfg = pc_given_value(g, "hf-config"))) opt = "hf-config"; /* ALiBi's name wins */
    spec->own = NULL;
    if (!h && !b && !cfg) return PC_OK;
    pc_alibi_spec *s = malloc(sizeof *s);
    if (!s) return pc_seterr(err, PC_ENOMEM, "out of memory");
    *s = defaults;
    s->config = cfg;
    s->config_opt = opt;
    pc_status st = cfg ? read_config(s, cfg, err) : PC_OK;
    if (st == PC_OK && h) {
        s->heads = (int)strtol(h, NULL, 10);
        s->heads_set = 1;
        snprintf(s->source, sizeof s->source, "--heads");
    }
    if (st == PC_OK && b) {
        s->bias_max = (int)strtol(b, NULL, 10);
        s->bias_max_set = 1;
    }
    if (st != PC_OK) { free(s); return st; }
    spec->own = s;
    return PC_OK;
}

static void args(const pc_spec *spec, char *buf, size_t len)
{
    const pc_alibi_spec *s = spec->own;
    size_t u = strlen(buf);
    if (!s || u >= len) return;
    if (s->config)
        u += (size_t)snprintf(buf + u, len - u, " --%s %s", s->config_opt, s->config);
    if (s->heads_set && u < len) u += (size_t)snprintf(buf + u, len - u, " --heads %d", s->heads);
    if (s->bias_max_set && u < len)
        snprintf(buf + u, len - u, " --alibi-bias-max %d", s->bias_max);
}

const pc_spec_kind pc_alibi_spec_kind = {
    .options = options, .n_options = sizeof options / sizeof options[0],
    .resolve = resolve, .release = pc_spec_free_own, .args = args
};

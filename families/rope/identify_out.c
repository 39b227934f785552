/* identify_out.c: an identified schedule (identify.h) as pecheck's
 * certified parameters, as HF's rope_scaling JSON, and in words. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fit.h"
#include "identify.h"

pc_status pc_rope_ident_params(const pc_rope_ident *id, pc_rope_params *p, pc_err *err)
{
    memset(p, 0, sizeof *p);
    p->type = id->type; p->dim = id->d; p->base = id->base;
    p->factor = id->factor;
    p->orig_max = id->orig_max; p->max_pos = id->max_pos;
    p->seq_len = id->seq_len; p->seq_len_set = id->seq_len > 0;
    p->beta_fast = id->beta_fast > 0 ? id->beta_fast : 32;  /* HF's defaults: 32, 1 */
    p->beta_slow = id->beta_slow > 0 ? id->beta_slow : 1;
    p->truncate = !id->no_truncate;
    p->low_freq_factor = id->lf; p->high_freq_factor = id->hf;
    /* only yarn and longrope take a given attention factor (HF) */
    p->attention_factor = id->att;
    p->att_given = id->att_given && (id->type == PC_ROPE_YARN || id->type == PC_ROPE_LONGROPE);
    if (id->type == PC_ROPE_LONGROPE) {
        p->ext = malloc((size_t)(id->d / 2) * sizeof *p->ext);
        if (!p->ext) return pc_seterr(err, PC_ENOMEM, "out of memory");
        memcpy(p->ext, id->ext, (size_t)(id->d / 2) * sizeof *p->ext);
    }
    pc_status st = pc_rope_prepare(p, err);
    if (st != PC_OK) pc_rope_params_free(p);
    return st;
}

static size_t put_factors(const pc_rope_ident *id, char *buf, size_t len, size_t at, const char *key)
{
    int n = snprintf(buf + at, at < len ? len - at : 0, ",\"%s\":[", key);
    at += n > 0 ? (size_t)n : 0;
    for (int i = 0; i < id->d / 2 && at < len; i++) {
        n = snprintf(buf + at, len - at, "%s%.9g", i ? "," : "", id->ext[i]);
        at += n > 0 ? (size_t)n : 0;
    }
    n = snprintf(buf + at, at < len ? len - at : 0, "]");
    return at + (n > 0 ? (size_t)n : 0);
}

/* HF's betas (32, 1), which a rope_scaling object leaves out. */
static int default_betas(const pc_rope_ident *id)
{
    return !(id->beta_fast > 0) || (id->beta_fast == 32 && id->beta_slow == 1);
}

void pc_rope_ident_json(const pc_rope_ident *id, char *buf, size_t len)
{
    size_t at = 0;
    int n = 0;
    buf[0] = '\0';
    switch (id->type) {
    case PC_ROPE_DEFAULT: snprintf(buf, len, "null"); return;
    case PC_ROPE_LINEAR:
        n = snprintf(buf, len, "{\"rope_type\":\"linear\",\"factor\":%.9g", id->factor); break;
    case PC_ROPE_DYNAMIC:
        n = snprintf(buf, len, "{\"rope_type\":\"dynamic\",\"factor\":%.9g,\"max_position_embeddings\":%.0f",
                     id->factor, id->max_pos); break;
    case PC_ROPE_YARN:
        n = snprintf(buf, len, "{\"rope_type\":\"yarn\",\"factor\":%.9g,\"original_max_position_embeddings\":%.0f",
                     id->factor, id->orig_max);
        if (n > 0 && (size_t)n < len && !default_betas(id))
            n += snprintf(buf + n, len - (size_t)n, ",\"beta_fast\":%.17g,\"beta_slow\":%.17g",
                          id->beta_fast, id->beta_slow);
        if (n > 0 && (size_t)n < len && id->no_truncate)
            n += snprintf(buf + n, len - (size_t)n, ",\"truncate\":false");
        break;
    case PC_ROPE_LLAMA3:
        n = snprintf(buf, len, "{\"rope_type\":\"llama3\",\"factor\":%.9g,\"low_freq_factor\":%.9g,"
                     "\"high_freq_factor\":%.9g,\"original_max_position_embeddings\":%.0f",
                     id->factor, id->lf, id->hf, id->orig_max); break;
    case PC_ROPE_LONGROPE:
        n = snprintf(buf, len, "{\"rope_type\":\"longrope\",\"factor\":1,\"original_max_position_embeddings\":%.0f",
                     id->orig_max);
        at = n > 0 ? (size_t)n : 0;
        at = put_factors(id, buf, len, at, "short_factor");
        at = put_factors(id, buf, len, at, "long_factor");
        n = 0;
        break;
    default: snprintf(buf, len, "null"); return;
    }
    at += n > 0 ? (size_t)n : 0;
    if (at < len && id->att_given && (id->type == PC_ROPE_YARN || id->type == PC_ROPE_LONGROPE)) {
        n = snprintf(buf + at, len - at, ",\"attention_factor\":%.9g", id->att);
        at += n > 0 ? (size_t)n : 0;
    }
    if (at < len) snprintf(buf + at, len - at, "}");
}

void pc_rope_ident_describe(const pc_rope_ident *id, char *buf, size_t len)
{
    int n = snprintf(buf, len, "%s, base %.9g", pc_rope_type_name(id->type), id->base);
    size_t at = n > 0 ? (size_t)n : 0;
    if (at >= len) return;
    switch (id->type) {
    case PC_ROPE_LINEAR: snprintf(buf + at, len - at, ", factor %.9g", id->factor); break;
    case PC_ROPE_DYNAMIC:
        snprintf(buf + at, len - at, ", factor %.9g, max_position_embeddings %.0f, sequence length %.0f",
                 id->factor, id->max_pos, id->seq_len); break;
    case PC_ROPE_YARN: {
        char betas[64] = "";
        if (!default_betas(id))
            snprintf(betas, sizeof betas, "beta_fast %g, beta_slow %g, ", id->beta_fast, id->beta_slow);
        snprintf(buf + at, len - at, ", factor %.9g, original_max_position_embeddings %.0f, "
                 "%sattention factor %.9g", id->factor, id->orig_max, betas, id->att);
        break;
    }
    case PC_ROPE_LLAMA3:
        snprintf(buf + at, len - at, ", factor %.9g, low_freq_factor %.9g, high_freq_factor %.9g, "
                 "original_max_position_embeddings %.0f", id->factor, id->lf, id->hf, id->orig_max);
        break;
    case PC_ROPE_LONGROPE:
        snprintf(buf + at, len - at, ", factors %.4g..%.4g, attention factor %.9g", id->ext[0],
                 id->ext[id->d / 2 - 1], id->att); break;
    default: break;
    }
}

void pc_rope_ident_json_write(pc_json *j, const char *key, const pc_rope_ident *id)
{
    if (id->type == PC_ROPE_DEFAULT) { pc_json_str(j, key, NULL); return; }
    pc_json_obj(j, key);
    pc_json_str(j, "rope_type", pc_rope_type_name(id->type));
    pc_json_num(j, "factor", id->type == PC_ROPE_LONGROPE ? 1.0 : id->factor);
    if (id->type == PC_ROPE_DYNAMIC) pc_json_num(j, "max_position_embeddings", id->max_pos);
    if (id->type == PC_ROPE_LLAMA3) {
        pc_json_num(j, "low_freq_factor", id->lf);
        pc_json_num(j, "high_freq_factor", id->hf);
    }
    if (id->type == PC_ROPE_YARN || id->type == PC_ROPE_LLAMA3 || id->type == PC_ROPE_LONGROPE)
        pc_json_num(j, "original_max_position_embeddings", id->orig_max);
    if (id->type == PC_ROPE_YARN && !default_betas(id)) {
        pc_json_num(j, "beta_fast", id->beta_fast);
        pc_json_num(j, "beta_slow", id->beta_slow);
    }
    for (int k = 0; id->type == PC_ROPE_LONGROPE && k < 2; k++) {
        pc_json_arr(j, k ? "long_factor" : "short_factor");
        for (int i = 0; i < id->d / 2; i++) pc_json_num(j, NULL, id->ext[i]);
        pc_json_end(j);
    }
    if (id->att_given && (id->type == PC_ROPE_YARN || id->type == PC_ROPE_LONGROPE))
        pc_json_num(j, "attention_factor", id->att);
    pc_json_end(j);
}

/* "NAME V" into X and "NAME W" into Y when V and W differ (relatively
 * beyond 10^-6: above binary32 formulation noise on a fitted value, below
 * any released parameter change). */
static void diff_one(char *x, char *y, size_t len, const char *name, double v, double w)
{
    if (fabs(v - w) <= 1e-6 * fmax(fabs(v), fabs(w))) return;
    size_t lx = strlen(x), ly = strlen(y);
    snprintf(x + lx, len - lx, "%s%s %.9g", lx ? ", " : "", name, v);
    snprintf(y + ly, len - ly, "%s%s %.9g", ly ? ", " : "", name, w);
}

void pc_rope_ident_diff(const pc_rope_ident *id, const pc_rope_params *used, double used_base,
                        double used_att, char *buf, size_t len)
{
    char x[400] = "", y[400] = "";
    int type = used ? used->type : PC_ROPE_DEFAULT;
    buf[0] = '\0';
    if (id->type != type) {
        pc_rope_ident_describe(id, x, sizeof x);
        char why[320] = "";
        if (id->type == PC_ROPE_LINEAR && type == PC_ROPE_DEFAULT && id->base == used_base)
            pc_rope_exponent_note(id->base, id->factor, 1, id->d, why, sizeof why);
        snprintf(buf, len, "this cache matches %s%s%s; the check used %s, base %.9g", x,
                 id->att_given && id->type != PC_ROPE_YARN && id->type != PC_ROPE_LONGROPE
                 ? " with an attention factor" : "", why, pc_rope_type_name(type), used_base);
        return;
    }
    diff_one(x, y, sizeof x, "base", id->base, used_base);
    if (used && type != PC_ROPE_DEFAULT && type != PC_ROPE_LONGROPE)
        diff_one(x, y, sizeof x, "factor", id->factor, used->factor);
    if (used && type == PC_ROPE_LLAMA3) {
        diff_one(x, y, sizeof x, "low_freq_factor", id->lf, used->low_freq_factor);
        diff_one(x, y, sizeof x, "high_freq_factor", id->hf, used->high_freq_factor);
    }
    if (used && (type == PC_ROPE_LLAMA3 || type == PC_ROPE_YARN))
        diff_one(x, y, sizeof x, "original length", id->orig_max, used->orig_max);
    if (used && type == PC_ROPE_DYNAMIC)
        diff_one(x, y, sizeof x, "max_position_embeddings", id->max_pos, used->max_pos);
    /* the norm only when it is not the identified schedule's own (within
     * the storage's noise, identify.c) */
    if (id->att_given) diff_one(x, y, sizeof x, "attention factor", id->att, used_att);
    if (x[0])
        snprintf(buf, len, "this cache matches %s with %s; the check used %s",
                 pc_rope_type_name(id->type), x, y);
}

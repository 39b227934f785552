/* config_match.c: what else in the model's config a failing cache matches
 * (fit.h, pc_rope_config_match): another of the config's layer types
 * (pc_rope_params.from, its layers), or the schedule computed over the
 * whole head instead of the rotary dims (partial rotary, DeepSeek's rope
 * slice), each evaluated and compared with the cache's fitted frequencies
 * and amplitude. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "fit.h"
#include "scaling.h"
#include "harness/engine/accuracy.h"
#include "reference/reference.h"

/* The first F->h pairs of L's schedule at width D (>= 2 F->h) and its
 * attention factor (F->h + 1 values, malloc'd) when they explain F: 90% of
 * the resolved pairs within 1%, and the pairs' norm within 1% of the
 * attention factor; NULL otherwise. */
static double *matches(const pc_rope_fit *f, const pc_rope_spec *l, int d, double seq)
{
    pc_rope_params p;
    pc_err e;
    int ok = 0;
    if (pc_rope_instantiate(l, d, seq, &p, &e) != PC_OK) return NULL;
    pc_freqs *fr = pc_freqs_new(d, pc_rope_schedule(&p));
    double *w = malloc(((size_t)f->h + 1) * sizeof *w);
    if (fr && w && d / 2 >= f->h) {
        for (int i = 0; i < f->h; i++) w[i] = pc_freqs_omega(fr, i);
        w[f->h] = pc_freqs_attention(fr);
        double amp = pc_rope_fit_amp(f);
        ok = pc_rope_fit_explained(f, w) >= 0.9
             && (!isfinite(amp) || fabs(amp / w[f->h] - 1.0) < 0.01);
    }
    if (!ok) {
        free(w);
        w = NULL;
    }
    pc_freqs_free(fr);
    pc_rope_params_free(&p);
    return w;
}

/* WHAT, then BUF's cause after it. */
static void put_first(char *buf, size_t len, const char *what)
{
    char rest[960];
    snprintf(rest, sizeof rest, "%s", buf);
    snprintf(buf, len, "%s%s%s", what, rest[0] ? "; " : "", rest);
}

/* Another layer type of S explains F: its line into LINE, its frequencies
 * (matches) returned; NULL when none does. */
static double *other_layer(const pc_rope_fit *f, const pc_rope_spec *s, int d, double seq,
                           char *line, size_t len)
{
    for (int k = 0; k < s->n_layers; k++) {
        const pc_rope_spec *l = &s->layers[k];
        double *w = strcmp(l->layer, s->layer) ? matches(f, l, d, seq) : NULL;
        if (!w) continue;
        snprintf(line, len, "this cache matches layer type %s of %s (%s, base %.9g), not %s, the "
                 "one checked: pass --layer-type %s", l->layer, s->given.config,
                 pc_rope_type_name(l->p.type), l->p.base, s->layer, l->layer);
        return w;
    }
    return NULL;
}

/* S's schedule over its whole head (HEAD_DIM > the rotary dim D) explains
 * F: its line into LINE, its frequencies (matches) returned; else NULL. */
static double *whole_head(const pc_rope_fit *f, const pc_rope_spec *s, int d, double seq,
                          char *line, size_t len)
{
    if (!(s->head_dim > d) || s->n_factor) return NULL; /* per-pair factors fix the width */
    pc_rope_spec whole = *s;
    whole.rotary_dim = s->head_dim;
    whole.layers = NULL;
    whole.n_layers = 0;
    double *w = matches(f, &whole, s->head_dim, seq);
    if (!w) return NULL;
    snprintf(line, len, "the cache's frequencies are the schedule's over the whole head (%d dims) "
             "on the %d rotary dims: computed over the head dim, not the rotary dim (%s)", s->head_dim,
             d, s->head_dim && !strncmp(s->model_type, "deepseek", 8)
                ? "qk_rope_head_dim: DeepSeek's rope slice"
                : "rotary_dim, partial_rotary_factor or rotary_pct: partial rotary");
    return w;
}

void pc_rope_config_match(const pc_rope_fit *f, const pc_acc_cfg *cfg, char *buf, size_t len,
                          double **alt)
{
    const pc_rope_params *used = cfg->sched ? cfg->sched->params : NULL;
    const pc_rope_spec *s = used ? used->from : NULL;
    char line[400];
    if (!s) return;
    double seq = (double)cfg->pos_hi + 1.0;
    double *w = s->n_layers > 1 ? other_layer(f, s, cfg->d, seq, line, sizeof line) : NULL;
    if (!w) w = whole_head(f, s, cfg->d, seq, line, sizeof line);
    if (!w) return;
    put_first(buf, len, line);
    free(*alt);
    *alt = w;
}

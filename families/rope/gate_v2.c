/* gate_v2.c: the accuracy gate of a RoPE kernel behind plugin ABI version 2
 * (pecheck_rope_v2, include/pecheck_plugin.h; docs/plugins.md "ABI v2").
 *
 * The kernel is called as it runs in a model: in place on a [tokens, heads,
 * head_dim] tensor with strides, in f32, f16 and bf16, with the schedule's
 * binary64 frequencies and attention factor.  The accuracy engine
 * (harness/engine/accuracy.c) drives it through an adapter, a pc_impl whose rope
 * hook builds each block's tensor, calls the kernel and widens one head
 * per token back to binary32; verdicts "accuracy" and "passthrough" of
 * layout "LAYOUT, DTYPE":
 *   - token t is position POS[t]; its head (POS[t] mod V2_HEADS) holds the
 *     engine's input row in its rotary dims (rounded to the dtype by the
 *     engine, cfg.input_dtype) and is the row the engine checks against
 *     the certified reference; the other heads and every pass-through dim
 *     hold their own seeded values, so over consecutive positions every
 *     head is checked and data read from the wrong head or token shows;
 *   - f16 and bf16 outputs are held, in the default class, to the bound of
 *     a kernel computing in the half dtype (its cos/sin cache, products and
 *     sum each rounded: flash-attn, vLLM, HF eager), under --strict to the
 *     storage model of half-precision tables (values computed in binary32,
 *     rounded once); both derived in docs/schedules.md;
 *   - every element that is not a rotary element of the view (pass-through
 *     dims, the padding between heads and between tokens) must come back
 *     bit-identical: the "passthrough" verdict. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate_v2.h"
#include "fit.h"
#include "options.h"
#include "scaling.h"
#include "options.h"
#include "harness/engine/acc_verdict.h"
#include "harness/engine/gate_owner.h"
#include "harness/base/half.h"
#include "harness/base/rng.h"
#include "harness/sandbox/v2args.h"
#include "harness/sandbox/served.h"
#include "families/spec_sched.h"

/* The tensor the kernel gets: 3 heads (odd: neither one head nor a power
 * of two, which kernels tend to assume), 2 elements of padding after each
 * head and 5 after each token's heads (so that a kernel that takes the
 * tensor as contiguous reads and writes the padding and the wrong head). */
#define V2_HEADS 3
#define V2_PAD_HEAD 2
#define V2_PAD_TOKEN 5


struct pc_rope_v2_ctx {
    const pc_impl *plugin;
    int head_dim, rotary, dtype;   /* dtype: PECHECK_DTYPE_* */
    int64_t st_tok, st_head;
    const double *freqs;
    double att;
    const char *sched, *json;
    const pc_rope_axes *axes;      /* position ids of several axes (NULL: one a row) */
    int *pair_axis;                /* rotary/2: each pair's axis (all 0 without AXES) */
    uint64_t seed;
    pthread_mutex_t mu;            /* guards what follows */
    pc_adapter_fault fault;        /* what a faulted call met (gate.h) */
    int calls;                     /* calls that returned 0 */
    uint64_t n_kept, n_bad;        /* elements that must come back unchanged, and changed */
    int has_bad;                   /* the first changed one, in (pos, head, dim) order */
    int64_t bad_pos;
    int bad_head, bad_dim;         /* head -1: padding, dim = offset in the token */
    uint32_t bad_got, bad_want;
    /* what the context owns (pc_rope_v2_ctx_new) */
    pc_acc_cfg cfg;                /* the run's configuration, its schedule in HOLD */
    pc_spec_sched hold;
    double *own_freqs;
    char *own_json;
    /* a served kernel that takes cos and sin (harness/sandbox/served.h):
     * the schedule's certified values, one call at a time */
    pc_freqs *cs_freqs;
    pthread_mutex_t cs_mu;
};
typedef pc_rope_v2_ctx v2_ctx;

static int sel_head(int64_t pos)
{
    return (int)(((pos % V2_HEADS) + V2_HEADS) % V2_HEADS);
}

static size_t index_of(const v2_ctx *c, size_t t, int h, int j)
{
    return t * (size_t)c->st_tok + (size_t)h * (size_t)c->st_head + (size_t)j;
}

/* The tensor of N tokens: padding, then each head's values; MASK marks
 * the rotary elements (the ones the kernel may change). */
static void fill(const v2_ctx *c, const int64_t *pos, size_t n, const float *x,
                 unsigned char *buf, unsigned char *mask, size_t span, float *row)
{
    int dt = pc_v2_dt(c->dtype);
    uint32_t pad = pc_v2_pad_bits(c->dtype);
    for (size_t k = 0; k < span; k++) pc_v2_put_bits(buf, c->dtype, k, pad);
    memset(mask, 0, span);
    for (size_t t = 0; t < n; t++)
        for (int h = 0; h < V2_HEADS; h++) {
            /* each head its own stream of the seed: 0x9E37... is 2^64 / phi */
            pc_normal_row(c->seed ^ (0x9E3779B97F4A7C15u * (uint64_t)(h + 1)), (uint64_t)pos[t],
                          c->head_dim, row);
            for (int j = 0; j < c->head_dim; j++) {
                size_t k = index_of(c, t, h, j);
                float v = j < c->rotary && h == sel_head(pos[t]) ? x[t * (size_t)c->rotary + (size_t)j]
                                                                : pc_round_to(dt, row[j]);
                pc_v2_put(buf, c->dtype, k, v);
                mask[k] = j < c->rotary;
            }
        }
}

/* Where element K (not rotary) lies: token, head (-1: padding), dim. */
static void locate(const v2_ctx *c, size_t n, size_t k, size_t *t, int *h, int *j)
{
    *t = k / (size_t)c->st_tok;
    if (*t >= n) *t = n - 1;
    size_t off = k - *t * (size_t)c->st_tok;
    size_t hh = off / (size_t)c->st_head, jj = off - hh * (size_t)c->st_head;
    if (hh < V2_HEADS && jj < (size_t)c->head_dim) { *h = (int)hh; *j = (int)jj; return; }
    *h = -1;
    *j = (int)off;
}

/* Compare every element outside the rotary dims with what was passed. */
static void check_kept(v2_ctx *c, const int64_t *pos, size_t n, const unsigned char *buf,
                       const unsigned char *orig, const unsigned char *mask, size_t span)
{
    uint64_t kept = 0, bad = 0;
    int found = 0, bh = 0, bj = 0;
    int64_t bp = 0;
    uint32_t bg = 0, bw = 0;
    for (size_t k = 0; k < span; k++) {
        if (mask[k]) continue;
        kept++;
        uint32_t g = pc_v2_bits(buf, c->dtype, k), w = pc_v2_bits(orig, c->dtype, k);
        if (g == w) continue;
        bad++;
        if (!found) {
            size_t t;
            locate(c, n, k, &t, &bh, &bj);
            bp = pos[t]; bg = g; bw = w; found = 1;
        }
    }
    pthread_mutex_lock(&c->mu);
    c->calls++;
    c->n_kept += kept;
    c->n_bad += bad;
    if (found && (!c->has_bad || bp < c->bad_pos)) {
        c->has_bad = 1; c->bad_pos = bp; c->bad_head = bh; c->bad_dim = bj;
        c->bad_got = bg; c->bad_want = bw;
    }
    pthread_mutex_unlock(&c->mu);
}

/* The positions of the engine's N rows POS (position ids: rows of the
 * ids, N x A into AX, their first axis into P1; else the rows are the
 * positions); 0, or -1 for a row the ids do not have. */
static int positions_of(const v2_ctx *c, const int64_t *pos, size_t n, int64_t *p1, int64_t *ax)
{
    const pc_rope_axes *a = c->axes;
    for (size_t t = 0; t < n; t++) {
        if (a && (pos[t] < 0 || pos[t] >= a->n)) return -1;
        for (int k = 0; k < (a ? a->n_axes : 1); k++)
            ax[t * (size_t)(a ? a->n_axes : 1) + (size_t)k] = a ? a->ids[pos[t] * a->n_axes + k]
                                                                 : pos[t];
        p1[t] = ax[t * (size_t)(a ? a->n_axes : 1)];
    }
    return 0;
}

/* The certified A cos and A sin (reference.h) of the pairs of rows POS
 * (the engine's, which the schedule maps to each pair's position), then
 * the served kernel's call with them. */
static int call_with_cos_sin(v2_ctx *c, const int64_t *pos, const pecheck_rope_args *a,
                             pc_fault *f)
{
    size_t n = a->n_tokens, h = (size_t)c->rotary / 2;
    float *cs = malloc(2 * n * h * sizeof *cs), *row = malloc(2 * h * sizeof *row);
    int rc = PC_HOOK_FAULTED;
    f->faulted = 0;
    snprintf(f->cause, sizeof f->cause, "out of memory for the certified cos and sin");
    pthread_mutex_lock(&c->cs_mu);
    size_t t = 0;
    for (; cs && row && t < n; t++) { /* row: sin in [0, h), cos in [h, 2h) */
        if (pc_ref_sincos_row32(c->cs_freqs, pos[t], 1, row) != PC_OK) break;
        memcpy(cs + t * h, row + h, h * sizeof *row);
        memcpy(cs + (n + t) * h, row, h * sizeof *row);
    }
    pthread_mutex_unlock(&c->cs_mu);
    if (cs && row && t < n)
        snprintf(f->cause, sizeof f->cause, "the certified cos and sin of position %lld could "
                 "not be computed", (long long)pos[t]);
    else if (cs && row) rc = pc_served_rope(c->plugin, f, a, cs, cs + n * h);
    free(cs);
    free(row);
    return rc;
}

/* The adapter's rope hook (impl.h): the engine's N rows of D = rotary dim. */
int pc_rope_v2_hook(void *vctx, const int64_t *pos, size_t n, int d, double base, int layout,
                   const float *x, float *out)
{
    v2_ctx *c = vctx;
    (void)base;
    if (d != c->rotary || n == 0) return 1;
    size_t es = pc_v2_esize(c->dtype);
    size_t span = pc_v2_rope_span(n, V2_HEADS, c->st_tok, c->st_head, c->head_dim);
    int na = c->axes ? c->axes->n_axes : 1;
    unsigned char *buf = malloc(span * es), *orig = malloc(span * es), *mask = malloc(span);
    float *row = malloc((size_t)c->head_dim * sizeof *row);
    int64_t *p1 = malloc(n * sizeof *p1), *pax = malloc(n * (size_t)na * sizeof *pax);
    int rc = 1;
    if (!buf || !orig || !mask || !row || !p1 || !pax || positions_of(c, pos, n, p1, pax)) goto done;
    fill(c, pos, n, x, buf, mask, span, row);
    memcpy(orig, buf, span * es);
    pecheck_rope_args a = {
        sizeof a, p1, n, V2_HEADS, c->head_dim, c->rotary, layout, c->st_tok, c->st_head,
        c->dtype, c->dtype, buf, buf, c->freqs, c->att, c->sched, c->json, pax, na, c->pair_axis
    };
    pc_fault f;
    rc = c->cs_freqs ? call_with_cos_sin(c, pos, &a, &f) : pc_served_is(c->plugin)
       ? pc_served_rope(c->plugin, &f, &a, NULL, NULL) : pc_rope_v2_call(c->plugin, &f, &a);
    if (f.faulted || rc == PC_V2_REFUSED) {
        pthread_mutex_lock(&c->mu);
        pc_adapter_fault_note(&c->fault, f.cause, pos[0]);
        pthread_mutex_unlock(&c->mu);
        rc = rc ? rc : PC_HOOK_FAULTED;
        goto done;
    }
    if (rc != 0) goto done;
    for (size_t t = 0; t < n; t++)
        for (int j = 0; j < d; j++)
            out[t * (size_t)d + (size_t)j] = pc_v2_value(buf, c->dtype,
                                                     index_of(c, t, sel_head(pos[t]), j));
    check_kept(c, pos, n, buf, orig, mask, span);
done:
    free(buf); free(orig); free(mask); free(row); free(p1); free(pax);
    return rc;
}

/* ---- the schedule for kernels that compute their own frequencies ----- */

static void json_list(FILE *f, const char *key, const double *v, int n)
{
    fprintf(f, ", \"%s\": [", key);
    for (int i = 0; i < n; i++) fprintf(f, "%s%.17g", i ? ", " : "", v[i]);
    fprintf(f, "]");
}

/* P as HF's rope_scaling object plus rope_theta (docs/plugins.md); NULL P:
 * the default schedule of BASE.  Malloc'd, NULL when out of memory. */
static char *schedule_json(const pc_rope_params *p, double base)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    int type = p ? p->type : PC_ROPE_DEFAULT;
    fprintf(f, "{\"rope_type\": \"%s\", \"rope_theta\": %.17g", pc_rope_type_name(type),
            p ? p->base : base);
    if (type != PC_ROPE_DEFAULT && type != PC_ROPE_FREQS) fprintf(f, ", \"factor\": %.17g", p->factor);
    if (type == PC_ROPE_DYNAMIC || type == PC_ROPE_LONGROPE)
        fprintf(f, ", \"max_position_embeddings\": %.17g", p->max_pos);
    if (type == PC_ROPE_DYNAMIC && p->ntk_alpha > 0)
        fprintf(f, ", \"alpha\": %.17g", p->ntk_alpha);
    if (type == PC_ROPE_YARN || type == PC_ROPE_LONGROPE || type == PC_ROPE_LLAMA3)
        fprintf(f, ", \"original_max_position_embeddings\": %.17g", p->orig_max);
    if ((type == PC_ROPE_DYNAMIC || type == PC_ROPE_LONGROPE) && p->seq_len_set)
        fprintf(f, ", \"seq_len\": %.17g", p->seq_len);
    if (type == PC_ROPE_YARN)
        fprintf(f, ", \"beta_fast\": %.17g, \"beta_slow\": %.17g, \"mscale\": %.17g, "
                "\"mscale_all_dim\": %.17g, \"truncate\": %s", p->beta_fast, p->beta_slow,
                p->mscale, p->mscale_all_dim, p->truncate ? "true" : "false");
    if (type == PC_ROPE_YARN || type == PC_ROPE_LONGROPE)
        fprintf(f, ", \"attention_factor\": %.17g", p->att_d);
    if (type == PC_ROPE_LONGROPE && p->ext)
        json_list(f, p->use_long ? "long_factor" : "short_factor", p->ext, p->dim / 2);
    if (type == PC_ROPE_LLAMA3)
        fprintf(f, ", \"low_freq_factor\": %.17g, \"high_freq_factor\": %.17g",
                p->low_freq_factor, p->high_freq_factor);
    if (type == PC_ROPE_FREQS && p->ff) json_list(f, "freq_factors", p->ff, p->dim / 2);
    fprintf(f, "}");
    if (fclose(f) != 0) { free(buf); return NULL; }
    return buf;
}

/* ---- the gate ---------------------------------------------------------- */

/* The head dim and the rotary dim: the rotary dim from --rotary-dim or the
 * config (else --d), the head dim from --d when given, else the config's,
 * else the rotary dim. */
pc_status pc_rope_v2_dims(const pc_spec *spec, int *head_dim, int *rotary, pc_err *err)
{
    const pc_rope_spec *s = pc_rope_spec_of(spec);
    *rotary = s && s->rotary_dim ? s->rotary_dim : spec->d;
    *head_dim = spec->d_set ? spec->d : s && s->head_dim ? s->head_dim : *rotary;
    if (*head_dim < *rotary)
        return pc_seterr(err, PC_EINPUT, "the rotary dim %d exceeds the head dim %d", *rotary,
                         *head_dim);
    if (*head_dim % 2)
        return pc_seterr(err, PC_EINPUT, "the head dim %d is odd", *head_dim);
    return PC_OK;
}

/* The engine's configuration of one (dtype, layout) run. */
static void v2_cfg(const pc_gate *g, int rotary, int dtype, int layout, pc_acc_cfg *cfg)
{
    pc_gate_cfg_spec(g, layout, cfg);
    const pc_rope_spec *s = pc_rope_spec_of(g->spec);
    if (s && s->ids) { /* the rows of the position ids are the run's */
        cfg->pos_lo = 0;
        cfg->pos_hi = s->n_ids - 1;
    }
    cfg->d = rotary;
    cfg->dtype = dtype == PECHECK_DTYPE_F32 ? g->run->dtype : pc_v2_dt(dtype);
    cfg->storage = dtype != PECHECK_DTYPE_F32;
    cfg->half_arith = cfg->storage && !g->run->strict;
    cfg->input_dtype = pc_v2_dt(dtype);
}

/* What a run's outcome says beyond the engine: a fault of the kernel, a
 * struct too small for it. */
static void v2_outcome(const v2_ctx *c, const pc_impl *impl, const pc_acc_cfg *cfg,
                       pc_acc_result *res)
{
    if (pc_adapter_fault_apply(&c->fault, res)) return; /* the kernel's fault */
    if (res->status == PC_SKIP && res->impl_rc == PECHECK_V2_ARGS_TOO_SMALL) {
        snprintf(res->note, sizeof res->note, "%.60s returned PECHECK_V2_ARGS_TOO_SMALL: it "
                 "needs members of pecheck_rope_args that this pecheck's (%zu bytes) lacks "
                 "(built against a newer pecheck_plugin.h)", impl->name,
                 sizeof(pecheck_rope_args));
    } else if (res->status == PC_SKIP && res->impl_rc) {
        snprintf(res->note, sizeof res->note, "%.60s returned %d for %s, layout %s, head dim %d, "
                 "rotary dim %d: not supported by the kernel", impl->name, res->impl_rc,
                 pc_v2_dtype_name(c->dtype), pc_layout_name(cfg->layout), c->head_dim, c->rotary);
    }
}

static void kept_verdict(const v2_ctx *c, const pc_acc_result *res, int dtype, int layout,
                         pc_verdict *v)
{
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "changed elements");
    /* a failed call ends the run: the calls other threads made past it
     * depend on timing, so the counts are judged only when all completed */
    if (res->status == PC_SKIP || res->faulted || res->impl_rc || c->calls == 0) {
        v->status = PC_SKIP;
        snprintf(v->summary, sizeof v->summary, "not checked: the %s calls did not complete (see "
                 "accuracy [%s, %s])", pc_v2_dtype_name(dtype), pc_layout_name(layout), pc_v2_dtype_name(dtype));
        return;
    }
    v->measured = (double)c->n_bad;
    v->status = c->n_bad ? PC_FAIL : PC_OK;
    const char *what = c->head_dim > c->rotary ? "pass-through dims and padding" : "padding";
    if (!c->n_bad) {
        snprintf(v->summary, sizeof v->summary, "%llu elements of the %s (head dim %d, rotary "
                 "dim %d, %d heads, strides %lld, %lld) came back bit-identical",
                 (unsigned long long)c->n_kept, what, c->head_dim, c->rotary, V2_HEADS,
                 (long long)c->st_tok, (long long)c->st_head);
        return;
    }
    int w = dtype == PECHECK_DTYPE_F32 ? 8 : 4;
    if (c->bad_head >= 0)
        snprintf(v->summary, sizeof v->summary, "%llu of %llu %s changed; first at pos=%lld "
                 "head=%d dim=%d (a pass-through dim, rotary dim %d): got 0x%0*x, passed 0x%0*x",
                 (unsigned long long)c->n_bad, (unsigned long long)c->n_kept, what,
                 (long long)c->bad_pos, c->bad_head, c->bad_dim, c->rotary, w, c->bad_got, w,
                 c->bad_want);
    else
        snprintf(v->summary, sizeof v->summary, "%llu of %llu %s changed; first at pos=%lld: "
                 "padding element %d of the token (outside every head's view: strides "
                 "%lld, %lld not followed?): got 0x%0*x, passed 0x%0*x",
                 (unsigned long long)c->n_bad, (unsigned long long)c->n_kept, what,
                 (long long)c->bad_pos, c->bad_dim, (long long)c->st_tok, (long long)c->st_head,
                 w, c->bad_got, w, c->bad_want);
}

typedef struct v2_run {
    pc_gate *g;
    const pc_impl *impl;
    const pc_family *fam;
    int head_dim, rotary;
} v2_run;

/* The binary64 frequencies and attention factor of CFG's schedule. */
static pc_status v2_freqs(const pc_acc_cfg *cfg, double *freqs, double *att, pc_err *err)
{
    pc_schedule s = cfg->sched ? *cfg->sched : pc_schedule_geometric(cfg->base);
    pc_freqs *f = pc_freqs_new(cfg->d, s);
    if (!f) return pc_seterr(err, PC_EINPUT, "cannot compute the frequencies for d = %d", cfg->d);
    for (int i = 0; i < cfg->d / 2; i++) freqs[i] = pc_freqs_omega(f, i);
    *att = pc_freqs_attention(f);
    pc_freqs_free(f);
    return PC_OK;
}

/* The certified frequencies of C's schedule, for the cos and sin a served
 * kernel takes. */
static pc_status cos_sin_freqs(v2_ctx *c, pc_err *err)
{
    pc_schedule s = c->cfg.sched ? *c->cfg.sched : pc_schedule_geometric(c->cfg.base);
    if (!(c->cs_freqs = pc_freqs_new(c->cfg.d, s)))
        return pc_seterr(err, PC_EINPUT, "cannot compute the frequencies for d = %d", c->cfg.d);
    return PC_OK;
}

/* Under --strict, a half-precision failure within the default class's
 * bound of a kernel computing in the dtype (docs/schedules.md): the
 * kernel rounds more than once; say so in BUF (left empty otherwise). */
static void strict_why(const pc_acc_cfg *cfg, const pc_acc_result *res, char *buf, size_t len)
{
    if (!cfg->strict || !cfg->storage || cfg->tol_abs >= 0 || res->status != PC_FAIL
        || res->faulted || res->m.n_nonfinite)
        return;
    pc_acc_cfg dflt = *cfg;
    dflt.strict = 0;
    dflt.half_arith = 1;
    const pc_witness *w = &res->m.worst;
    double b = pc_accuracy_bound_at(&dflt, w);
    if (b < 0 || w->err > b) return;
    const char *dt = pc_dtype_name(cfg->dtype);
    snprintf(buf, len, "more than one rounding to %s: |err| %.3g is within %.3g, the bound of a "
             "kernel whose cos/sin cache, products and sum are each rounded to %s (flash-attn, "
             "vLLM, HF eager), which the default class holds; --strict allows binary32 values "
             "rounded once", dt, w->err, b, dt);
}

static pc_status v2_verdicts(v2_run *r, v2_ctx *c, const pc_acc_cfg *cfg, pc_acc_result *res,
                             int dtype)
{
    char where[24], context[2600], likely[1800] = "";
    v2_outcome(c, r->impl, cfg, res);
    pc_impl ad = { 0 };
    if (res->status == PC_FAIL && !res->faulted && res->m.n_nonfinite)
        snprintf(likely, sizeof likely, "NaN or Inf outputs: the padding between heads and "
                 "tokens holds NaNs, so the kernel read outside its view (strides %lld, %lld "
                 "not followed?) or produced them itself", (long long)c->st_tok,
                 (long long)c->st_head);
    else
        strict_why(cfg, res, likely, sizeof likely);
    if (res->status == PC_FAIL && !res->faulted && !likely[0]) {
        ad.name = r->impl->name;
        ad.ctx = c;
        ad.rope = pc_rope_v2_hook;
        pc_rope_likely_cause(&ad, r->g->spec, cfg, likely, sizeof likely);
    }
    snprintf(where, sizeof where, "%s, %s", pc_layout_name(cfg->layout), pc_v2_dtype_name(dtype));
    pc_verdict *v = pc_gate_verdict(r->g, r->impl, r->fam->name, "accuracy", where);
    if (!v) return pc_gate_oom(r->g);
    snprintf(context, sizeof context, "ABI v2: pecheck_rope_v2 in place on [tokens, %d heads, "
             "head dim %d], rotary dim %d, strides %lld, %lld (elements), %s%s%s%s", V2_HEADS,
             r->head_dim, r->rotary, (long long)c->st_tok, (long long)c->st_head,
             pc_v2_dtype_name(dtype), cfg->sched_note ? "\nschedule: " : "",
             cfg->sched_note ? cfg->sched_note : "", likely[0] ? "\nlikely cause: " : "");
    if (likely[0]) {
        size_t l = strlen(context);
        snprintf(context + l, sizeof context - l, "%s", likely);
    }
    pc_acc_verdict(r->impl, cfg, res, res->faulted ? res->note : NULL, context, v);
    if (likely[0]) /* its first line: the best-supported cause */
        pc_verdict_add_cause(v, likely);
    v = pc_gate_verdict(r->g, r->impl, r->fam->name, "passthrough", where);
    if (!v) return pc_gate_oom(r->g);
    kept_verdict(c, res, dtype, cfg->layout, v);
    return PC_OK;
}

pc_status pc_rope_v2_ctx_new(const pc_impl *impl, const pc_spec *spec, const pc_acc_cfg *cfg,
                             int head_dim, int dtype, uint64_t seed, pc_rope_v2_ctx **out,
                             pc_err *err)
{
    int rotary = cfg->d;
    v2_ctx *c = calloc(1, sizeof *c);
    if (!c) return pc_seterr(err, PC_ENOMEM, "out of memory");
    c->cfg = *cfg;
    pthread_mutex_init(&c->mu, NULL);
    pthread_mutex_init(&c->cs_mu, NULL);
    *out = c;
    pc_status st = pc_spec_schedule(spec, &c->cfg, &c->hold, err);
    if (st != PC_OK) return st;
    const pc_rope_params *p = c->hold.set ? c->hold.own : NULL;
    c->axes = p ? p->axes : NULL;
    c->pair_axis = calloc((size_t)rotary / 2, sizeof *c->pair_axis);
    c->own_freqs = malloc((size_t)rotary / 2 * sizeof *c->own_freqs);
    if (!c->pair_axis || !c->own_freqs) return pc_seterr(err, PC_ENOMEM, "out of memory");
    for (int i = 0; c->axes && i < rotary / 2; i++) c->pair_axis[i] = c->axes->axis[i];
    st = v2_freqs(&c->cfg, c->own_freqs, &c->att, err);
    if (st == PC_OK && pc_served_wants_cos_sin(impl)) st = cos_sin_freqs(c, err);
    if (st == PC_OK && !(c->own_json = schedule_json(p, c->cfg.base)))
        st = pc_seterr(err, PC_ENOMEM, "out of memory");
    c->plugin = impl;
    c->head_dim = head_dim;
    c->rotary = rotary;
    c->dtype = dtype;
    c->st_head = head_dim + V2_PAD_HEAD;
    c->st_tok = V2_HEADS * c->st_head + V2_PAD_TOKEN;
    c->freqs = c->own_freqs;
    c->sched = pc_rope_type_name(p ? p->type : PC_ROPE_DEFAULT);
    c->json = c->own_json;
    c->seed = seed;
    return st;
}

const pc_acc_cfg *pc_rope_v2_ctx_cfg(const pc_rope_v2_ctx *c)
{
    return &c->cfg;
}

void pc_rope_v2_ctx_free(pc_rope_v2_ctx *c)
{
    if (!c) return;
    pthread_mutex_destroy(&c->mu);
    pthread_mutex_destroy(&c->cs_mu);
    if (c->cs_freqs) pc_freqs_free(c->cs_freqs);
    free(c->own_freqs);
    free(c->own_json);
    free(c->pair_axis);
    pc_spec_sched_release(&c->hold);
    free(c);
}

/* One dtype and layout: the engine through the adapter, then its two
 * verdicts. */
static pc_status v2_one(v2_run *r, int dtype, int layout)
{
    pc_acc_cfg cfg;
    v2_cfg(r->g, r->rotary, dtype, layout, &cfg);
    v2_ctx *c = NULL;
    pc_status st = pc_rope_v2_ctx_new(r->impl, r->g->spec, &cfg, r->head_dim, dtype,
                                      r->g->run->seed, &c, r->g->err);
    if (st == PC_OK) {
        pc_impl hooks = { .ctx = c, .rope = pc_rope_v2_hook };
        pc_acc_result res;
        st = pc_gate_run_adapter(r->impl, r->fam, &hooks, &c->cfg, &res, r->g->err);
        if (st == PC_OK) st = v2_verdicts(r, c, &c->cfg, &res, dtype);
    }
    pc_rope_v2_ctx_free(c);
    return st;
}

/* One dtype and layout's two verdicts; in a shard, made whole by the
 * shards that own them (harness/engine/gate_owner.h). */
static pc_status v2_group(v2_run *r, int dtype, int layout)
{
    static const char *const checks[2] = { "accuracy", "passthrough" };
    int first = r->g->vs->n;
    char where[24];
    snprintf(where, sizeof where, "%s, %s", pc_layout_name(layout), pc_v2_dtype_name(dtype));
    pc_status st = pc_gate_owns(r->g, 2) ? v2_one(r, dtype, layout)
                 : pc_gate_elsewhere(r->g, r->impl, r->fam->name, checks, 2, where);
    return st == PC_OK ? pc_gate_owned(r->g, first, 2) : st;
}

pc_status pc_rope_gate_v2(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    v2_run r = { g, impl, fam, 0, 0 };
    pc_status st = pc_rope_v2_dims(g->spec, &r.head_dim, &r.rotary, g->err);
    static const int dtypes[3] = { PECHECK_DTYPE_F32, PECHECK_DTYPE_F16, PECHECK_DTYPE_BF16 };
    int layouts[2] = { 0, 1 }, nl = 2;
    if (g->spec->layout >= 0) { layouts[0] = g->spec->layout; nl = 1; }
    int only = pc_served_dtype(impl); /* a served kernel takes one dtype */
    for (int k = 0; k < 3 && st == PC_OK; k++)
        for (int l = 0; l < nl && st == PC_OK && (only < 0 || only == dtypes[k]); l++)
            st = v2_group(&r, dtypes[k], layouts[l]);
    return st;
}

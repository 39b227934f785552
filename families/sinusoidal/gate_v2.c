/* gate_v2.c: the accuracy gate of a sinusoidal kernel behind plugin ABI
 * version 2 (pecheck_sinusoidal_v2, include/pecheck_plugin.h;
 * docs/plugins.md "ABI v2").
 *
 * For each dtype (f32, f16, bf16) and layout, the accuracy engine
 * (harness/engine/accuracy.c) drives the kernel through an adapter, a pc_impl
 * whose sinusoidal hook calls it on rows of stride D + V2_PAD (padding
 * between rows) and widens the rows to binary32:
 *   - "accuracy [LAYOUT, DTYPE]": every element against the certified
 *     reference; f16 and bf16 outputs under the storage model (binary32
 *     values rounded once, acc_block.c element_bound with |pair| = 1,
 *     docs/schedules.md), f32 under the binary32 model;
 *   - "padding [LAYOUT, DTYPE]": the elements between rows come back
 *     bit-identical. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate_v2.h"
#include "harness/engine/acc_verdict.h"
#include "harness/engine/gate_owner.h"
#include "harness/sandbox/v2args.h"
#include "families/spec_sched.h"

/* 3 elements of padding after each row: odd, so a kernel that ignores
 * the stride writes into the padding and shifts the following rows. */
#define V2_PAD 3

typedef struct s2_ctx {
    const pc_impl *plugin;
    int d, dtype;
    int64_t stride;
    const double *freqs;
    double base;
    const char *json;
    pthread_mutex_t mu;       /* guards what follows */
    pc_adapter_fault fault;        /* what a faulted call met (gate.h) */
    int calls;
    uint64_t n_kept, n_bad;
    int has_bad;
    int64_t bad_pos;          /* the row before the first changed padding element */
    int bad_off;
    uint32_t bad_got;
} s2_ctx;

/* The padding after each of the N rows must hold the pattern still. */
static void check_padding(s2_ctx *c, const int64_t *pos, size_t n, const unsigned char *buf)
{
    uint32_t pad = pc_v2_pad_bits(c->dtype);
    uint64_t bad = 0;
    int found = 0, off = 0;
    int64_t bp = 0;
    uint32_t bg = 0;
    for (size_t r = 0; r + 1 < n; r++)
        for (int k = c->d; k < (int)c->stride; k++) {
            uint32_t g = pc_v2_bits(buf, c->dtype, r * (size_t)c->stride + (size_t)k);
            if (g == pad) continue;
            if (!bad) { found = 1; bp = pos[r]; off = k - c->d; bg = g; }
            bad++;
        }
    pthread_mutex_lock(&c->mu);
    c->calls++;
    c->n_kept += (uint64_t)(n - 1) * (uint64_t)(c->stride - c->d);
    c->n_bad += bad;
    if (found && (!c->has_bad || bp < c->bad_pos)) {
        c->has_bad = 1; c->bad_pos = bp; c->bad_off = off; c->bad_got = bg;
    }
    pthread_mutex_unlock(&c->mu);
}

/* The adapter's sinusoidal hook (impl.h). */
static int s2_sinusoidal(void *vctx, const int64_t *pos, size_t n, int d, double base,
                         int layout, float *out)
{
    s2_ctx *c = vctx;
    (void)base;
    if (d != c->d || n == 0) return 1;
    size_t span = pc_v2_rope_span(n, 1, c->stride, 0, d);
    unsigned char *buf = malloc(span * pc_v2_esize(c->dtype));
    if (!buf) return 1;
    for (size_t k = 0; k < span; k++) pc_v2_put_bits(buf, c->dtype, k, pc_v2_pad_bits(c->dtype));
    pecheck_sinusoidal_args a = { sizeof a, pos, n, d, layout, c->stride, c->dtype, buf,
                                  c->freqs, c->base, "default", c->json };
    pc_fault f;
    int rc = pc_sinusoidal_v2_call(c->plugin, &f, &a);
    if (f.faulted || rc == PC_V2_REFUSED) {
        pthread_mutex_lock(&c->mu);
        pc_adapter_fault_note(&c->fault, f.cause, pos[0]);
        pthread_mutex_unlock(&c->mu);
        free(buf);
        return rc ? rc : PC_HOOK_FAULTED;
    }
    if (rc == 0) {
        for (size_t r = 0; r < n; r++)
            for (int j = 0; j < d; j++)
                out[r * (size_t)d + (size_t)j] = pc_v2_value(buf, c->dtype,
                                                            r * (size_t)c->stride + (size_t)j);
        check_padding(c, pos, n, buf);
    }
    free(buf);
    return rc;
}

static void s2_outcome(const s2_ctx *c, const pc_impl *impl, const pc_acc_cfg *cfg,
                       pc_acc_result *res)
{
    if (pc_adapter_fault_apply(&c->fault, res)) return; /* the kernel's fault */
    if (res->status == PC_SKIP && res->impl_rc) {
        snprintf(res->note, sizeof res->note, "%.60s returned %d%s for %s, layout %s, d %d: not "
                 "supported by the kernel", impl->name, res->impl_rc,
                 res->impl_rc == PECHECK_V2_ARGS_TOO_SMALL ? " (PECHECK_V2_ARGS_TOO_SMALL: "
                 "built against a newer pecheck_plugin.h)" : "", pc_v2_dtype_name(c->dtype),
                 pc_layout_name(cfg->layout), c->d);
    }
}

static void padding_verdict(const s2_ctx *c, const pc_acc_result *res, pc_verdict *v)
{
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "changed elements");
    /* a failed call ends the run: the calls other threads made past it
     * depend on timing, so the counts are judged only when all completed */
    if (res->status == PC_SKIP || res->faulted || res->impl_rc || c->calls == 0) {
        v->status = PC_SKIP;
        snprintf(v->summary, sizeof v->summary, "not checked: the %s calls did not complete "
                 "(see accuracy)", pc_v2_dtype_name(c->dtype));
        return;
    }
    v->measured = (double)c->n_bad;
    v->status = c->n_bad ? PC_FAIL : PC_OK;
    int w = c->dtype == PECHECK_DTYPE_F32 ? 8 : 4;
    if (!c->n_bad)
        snprintf(v->summary, sizeof v->summary, "%llu padding elements between rows (stride "
                 "%lld, d %d) came back bit-identical", (unsigned long long)c->n_kept,
                 (long long)c->stride, c->d);
    else
        snprintf(v->summary, sizeof v->summary, "%llu of %llu padding elements between rows "
                 "changed (stride %lld, d %d not followed?); first after pos=%lld, element %d "
                 "of the padding: got 0x%0*x, passed 0x%0*x", (unsigned long long)c->n_bad,
                 (unsigned long long)c->n_kept, (long long)c->stride, c->d,
                 (long long)c->bad_pos, c->bad_off, w, c->bad_got, w,
                 pc_v2_pad_bits(c->dtype));
}

typedef struct s2_run {
    pc_gate *g;
    const pc_impl *impl;
    const pc_family *fam;
} s2_run;

static pc_status s2_verdicts(s2_run *r, s2_ctx *c, const pc_acc_cfg *cfg, pc_acc_result *res)
{
    char where[24], context[200];
    s2_outcome(c, r->impl, cfg, res);
    snprintf(where, sizeof where, "%s, %s", pc_layout_name(cfg->layout),
             pc_v2_dtype_name(c->dtype));
    snprintf(context, sizeof context, "ABI v2: pecheck_sinusoidal_v2, rows of d %d at stride %lld "
             "(elements), %s", c->d, (long long)c->stride, pc_v2_dtype_name(c->dtype));
    pc_verdict *v = pc_gate_verdict(r->g, r->impl, r->fam->name, "accuracy", where);
    if (!v) return pc_gate_oom(r->g);
    pc_acc_verdict(r->impl, cfg, res, res->faulted ? res->note : NULL, context, v);
    v = pc_gate_verdict(r->g, r->impl, r->fam->name, "padding", where);
    if (!v) return pc_gate_oom(r->g);
    padding_verdict(c, res, v);
    return PC_OK;
}

static pc_status s2_one(s2_run *r, int dtype, int layout)
{
    const pc_spec *spec = r->g->spec;
    pc_acc_cfg cfg;
    pc_gate_cfg_spec(r->g, layout, &cfg);
    cfg.dtype = dtype == PECHECK_DTYPE_F32 ? r->g->run->dtype : pc_v2_dt(dtype);
    cfg.storage = dtype != PECHECK_DTYPE_F32;
    /* the spec's schedule (--preset, --freq-shift): the kernel is handed
     * its frequencies and held to its reference */
    pc_spec_sched hold;
    pc_status st = pc_spec_schedule(spec, &cfg, &hold, r->g->err);
    if (st != PC_OK) return st;
    double *freqs = malloc((size_t)spec->d / 2 * sizeof *freqs);
    pc_freqs *f = freqs ? pc_freqs_new(spec->d, cfg.sched ? *cfg.sched
                                                          : pc_schedule_geometric(spec->base))
                        : NULL;
    char json[96];
    if (!f) {
        free(freqs);
        pc_spec_sched_release(&hold);
        return pc_seterr(r->g->err, PC_ENOMEM, "out of memory");
    }
    for (int i = 0; i < spec->d / 2; i++) freqs[i] = pc_freqs_omega(f, i);
    pc_freqs_free(f);
    snprintf(json, sizeof json, "{\"rope_type\": \"default\", \"rope_theta\": %.17g}", spec->base);
    s2_ctx c;
    memset(&c, 0, sizeof c);
    c.plugin = r->impl;
    c.d = spec->d;
    c.dtype = dtype;
    c.stride = spec->d + V2_PAD;
    c.freqs = freqs;
    c.base = spec->base;
    c.json = json;
    pthread_mutex_init(&c.mu, NULL);
    pc_impl hooks = { .ctx = &c, .sinusoidal = s2_sinusoidal };
    pc_acc_result res;
    st = pc_gate_run_adapter(r->impl, r->fam, &hooks, &cfg, &res, r->g->err);
    if (st == PC_OK) st = s2_verdicts(r, &c, &cfg, &res);
    pthread_mutex_destroy(&c.mu);
    free(freqs);
    pc_spec_sched_release(&hold);
    return st;
}

/* One dtype and layout's two verdicts; in a shard, made whole by the
 * shards that own them (harness/engine/gate_owner.h). */
static pc_status s2_group(s2_run *r, int dtype, int layout)
{
    static const char *const checks[2] = { "accuracy", "padding" };
    int first = r->g->vs->n;
    char where[24];
    snprintf(where, sizeof where, "%s, %s", pc_layout_name(layout), pc_v2_dtype_name(dtype));
    pc_status st = pc_gate_owns(r->g, 2) ? s2_one(r, dtype, layout)
                 : pc_gate_elsewhere(r->g, r->impl, r->fam->name, checks, 2, where);
    return st == PC_OK ? pc_gate_owned(r->g, first, 2) : st;
}

pc_status pc_sinusoidal_gate_v2(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    s2_run r = { g, impl, fam };
    static const int dtypes[3] = { PECHECK_DTYPE_F32, PECHECK_DTYPE_F16, PECHECK_DTYPE_BF16 };
    int layouts[2] = { 0, 1 }, nl = 2;
    if (g->spec->layout >= 0) { layouts[0] = g->spec->layout; nl = 1; }
    pc_status st = PC_OK;
    for (int k = 0; k < 3 && st == PC_OK; k++)
        for (int l = 0; l < nl && st == PC_OK; l++) st = s2_group(&r, dtypes[k], layouts[l]);
    return st;
}

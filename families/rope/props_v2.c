/* props_v2.c: the RoPE properties of a kernel behind plugin ABI version 2
 * alone (pecheck_rope_v2, no pecheck_rope_f32): an adapter whose rope hook
 * calls the kernel as the accuracy gate does (gate_v2.c: the row written
 * into one head of a strided [tokens, 3 heads, d] tensor, the kernel
 * called in place with the frequencies and attention factor of the spec's
 * schedule, the head read back widened to binary32).
 *
 * The calls are made in the first dtype the kernel takes, tried in this
 * order: --dtype when it names f16 or bf16, then f32, f16, bf16; the
 * properties' bounds are then that dtype's (pc_prop_params.dtype: u = 2^-24,
 * 2^-11, 2^-8), their vectors values of it, and in f16 or bf16 the element
 * bound the gate's default class gives a kernel computing in the dtype
 * (half_arith; --strict: values rounded once).  A kernel that takes none
 * of them (its return code for each dtype and layout) skips every property
 * saying so. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "gate_v2.h"
#include "families/family.h"
#include "harness/sandbox/v2args.h"
#include "harness/sandbox/served.h"
#include "properties/params.h"

/* Contexts kept, one per (d, base) the properties call with: a case's d,
 * and the smaller ones shrinking tries (halving from PC_D_MAX: 13). */
#define PROPS_V2_CTX_MAX 64

typedef struct props_v2 {
    pc_impl impl;                  /* the adapter: first, the pointer handed out */
    const pc_impl *plugin;
    const pc_spec *spec;
    int dtype;                     /* PECHECK_DTYPE_* of the calls */
    int head_dim, rotary;          /* the spec's (pc_rope_v2_dims): rows of ROTARY dims
                                    * in heads of HEAD_DIM */
    int64_t pos_lo, pos_hi;
    uint64_t seed;
    pthread_mutex_t mu;            /* guards N, BY and ERR */
    pc_err err;                    /* why the last context could not be made */
    int n;
    struct { int d; double base; pc_rope_v2_ctx *c; } by[PROPS_V2_CTX_MAX];
} props_v2;

/* The context of (D, BASE), made on first use; NULL when it cannot be. */
static pc_rope_v2_ctx *ctx_of(props_v2 *a, int d, double base)
{
    pc_rope_v2_ctx *c = NULL;
    pthread_mutex_lock(&a->mu);
    for (int k = 0; k < a->n && !c; k++)
        if (a->by[k].d == d && a->by[k].base == base) c = a->by[k].c;
    if (!c && a->n >= PROPS_V2_CTX_MAX)
        pc_seterr(&a->err, PC_EINTERNAL, "more than %d widths or bases", PROPS_V2_CTX_MAX);
    else if (!c) {
        pc_acc_cfg cfg;
        memset(&cfg, 0, sizeof cfg);
        cfg.family = "rope";
        cfg.d = d;
        cfg.base = base;
        cfg.pos_lo = a->pos_lo;
        cfg.pos_hi = a->pos_hi;
        cfg.dtype = pc_v2_dt(a->dtype);
        int head_dim = d == a->rotary ? a->head_dim : d; /* the pass-through dims' */
        if (pc_rope_v2_ctx_new(a->plugin, a->spec, &cfg, head_dim, a->dtype, a->seed, &c,
                               &a->err) != PC_OK) {
            pc_rope_v2_ctx_free(c);
            c = NULL;
        } else {
            a->by[a->n].d = d;
            a->by[a->n].base = base;
            a->by[a->n++].c = c;
        }
    }
    pthread_mutex_unlock(&a->mu);
    return c;
}

static int hook(void *vctx, const int64_t *pos, size_t n, int d, double base, int layout,
                const float *x, float *out)
{
    pc_rope_v2_ctx *c = ctx_of(vctx, d, base);
    return c ? pc_rope_v2_hook(c, pos, n, d, base, layout, x, out) : 1;
}

static void close_v2(pc_impl *impl)
{
    props_v2 *a = (props_v2 *)impl;
    if (!a) return;
    for (int k = 0; k < a->n; k++) pc_rope_v2_ctx_free(a->by[k].c);
    pthread_mutex_destroy(&a->mu);
    free(a);
}

/* One call of the properties' kind in A's dtype: a row of PAR->d at the
 * first position, in LAYOUT; the kernel's return code (0: taken). */
static int probe(props_v2 *a, const pc_prop_params *par, int layout)
{
    float *x = calloc((size_t)par->d, sizeof *x), *out = calloc((size_t)par->d, sizeof *out);
    int rc = 1;
    if (x && out) {
        x[0] = 1.0f;
        rc = hook(a, &par->pos_lo, 1, par->d, par->base, layout, x, out);
    }
    free(x);
    free(out);
    return rc;
}

/* A kernel's return code RC, as include/pecheck_plugin.h names it. */
static void rc_text(int rc, char *buf, size_t len)
{
    if (rc == PECHECK_V2_UNSUPPORTED) snprintf(buf, len, "PECHECK_V2_UNSUPPORTED");
    else if (rc == PECHECK_V2_ARGS_TOO_SMALL) snprintf(buf, len, "PECHECK_V2_ARGS_TOO_SMALL");
    else snprintf(buf, len, "%d", rc);
}

/* A's dtype: the first that a call in a layout the properties may use
 * takes (or that faults: the properties report it); WHY lists the return
 * codes when none does, or says why no call could be made. */
static int pick_dtype(props_v2 *a, const pc_prop_params *par, char *why, size_t len)
{
    a->err.msg[0] = '\0';
    int order[4] = { 0, PECHECK_DTYPE_F32, PECHECK_DTYPE_F16, PECHECK_DTYPE_BF16 }, n = 0;
    if (par->dtype_set && par->dtype == PC_DT_F16) order[n++] = PECHECK_DTYPE_F16;
    if (par->dtype_set && par->dtype == PC_DT_BF16) order[n++] = PECHECK_DTYPE_BF16;
    int first = par->layout >= 0 ? par->layout : 0, last = par->layout >= 0 ? par->layout : 1;
    size_t u = (size_t)snprintf(why, len, "%.60s takes no call of the properties "
                                "(pecheck_rope_v2 returned", a->plugin->name);
    const char *sep = " ";
    int small = 0;
    int only = pc_served_dtype(a->plugin); /* a served kernel takes one dtype */
    for (int k = n ? 0 : 1; k < 4; k++) {
        if (k > 0 && n && order[k] == order[0]) continue; /* --dtype's, tried first */
        if (only >= 0 && order[k] != only) continue;
        a->dtype = order[k];
        for (int l = first; l <= last; l++) {
            int rc = probe(a, par, l);
            if (rc == 0 || rc == PC_HOOK_FAULTED) return 1;
            if (a->err.msg[0]) { /* no call made: not the kernel's answer */
                snprintf(why, len, "the properties' calls of pecheck_rope_v2 cannot be made: %s",
                         a->err.msg);
                return 0;
            }
            char code[40];
            rc_text(rc, code, sizeof code);
            small |= rc == PECHECK_V2_ARGS_TOO_SMALL;
            if (u < len)
                u += (size_t)snprintf(why + u, len - u, "%s%s for %s %s", sep, code,
                                      pc_v2_dtype_name(order[k]), pc_layout_name(l));
            sep = ", ";
        }
        for (int j = 0; j < a->n; j++) pc_rope_v2_ctx_free(a->by[j].c); /* of that dtype */
        a->n = 0;
    }
    if (u < len)
        snprintf(why + u, len - u, ")%s", small ? ": it needs members of pecheck_rope_args that "
                 "this pecheck's lacks (built against a newer pecheck_plugin.h)" : "");
    return 0;
}

static pc_status open_v2(const pc_impl *impl, pc_prop_params *par, pc_impl **out, char *why,
                         size_t len, pc_err *err)
{
    props_v2 *a = calloc(1, sizeof *a);
    *out = NULL;
    if (!a) return pc_seterr(err, PC_ENOMEM, "out of memory");
    pthread_mutex_init(&a->mu, NULL);
    a->plugin = impl;
    a->spec = par->spec;
    a->pos_lo = par->pos_lo;
    a->pos_hi = par->pos_hi;
    a->seed = par->seed;
    a->impl.name = impl->name;
    a->impl.description = impl->description;
    a->impl.family_hint = "rope";
    a->impl.expect_pass = 1;
    a->impl.ctx = a;
    a->impl.rope = hook;
    a->impl.pos_bounded = impl->pos_bounded; /* a kernel that serves some positions only */
    a->impl.pos_min = impl->pos_min;
    a->impl.pos_max = impl->pos_max;
    pc_status st = pc_rope_v2_dims(par->spec, &a->head_dim, &a->rotary, err);
    if (st != PC_OK) {
        close_v2(&a->impl);
        return st;
    }
    par->d = a->rotary; /* the properties' rows: the rotary dims */
    if (!pick_dtype(a, par, why, len)) {
        close_v2(&a->impl);
        return PC_SKIP;
    }
    par->dtype = pc_v2_dt(a->dtype); /* the properties' bounds: the calls' dtype */
    par->input_dtype = par->dtype;   /* and their vectors, the tensor's values */
    /* a half dtype: the gate's default class, a kernel computing in it
     * (--strict: binary32 values rounded once) */
    par->half_arith = par->dtype != PC_DT_F32 && !par->strict;
    static const char *const via[3] = {
        "through pecheck_rope_v2 (no pecheck_rope_f32), in place on f32 tensors",
        "through pecheck_rope_v2 (no pecheck_rope_f32), in place on f16 tensors, the vectors "
        "rounded to f16",
        "through pecheck_rope_v2 (no pecheck_rope_f32), in place on bf16 tensors, the vectors "
        "rounded to bf16" };
    par->via = via[a->dtype == PECHECK_DTYPE_F16 ? 1 : a->dtype == PECHECK_DTYPE_BF16 ? 2 : 0];
    *out = &a->impl;
    return PC_OK;
}

const pc_props_v2 pc_rope_props_v2 = { .open = open_v2, .close = close_v2 };

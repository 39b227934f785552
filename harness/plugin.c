/* plugin.c: the dlopen loader of the plugin ABI (include/pecheck_plugin.h). */
#include <dlfcn.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "isolate.h"
#include "plugin.h"
#include "../families/family.h"

typedef int (*sin_fn)(const int64_t *, size_t, int, double, int, float *);
typedef int (*rope_fn)(const int64_t *, size_t, int, double, int, const float *, float *);
typedef int64_t (*maxlen_fn)(void);
typedef int (*learned_fn)(const int64_t *, size_t, int, float *);
typedef int (*att_fn)(size_t, int, const float *, const float *, const float *, const float *,
                      int, float *);
typedef int (*t5_bucket_fn)(const int64_t *, size_t, int, int, int, int32_t *);
typedef int (*t5_bias_fn)(const float *, int, int, int, int, const int64_t *, size_t,
                          const int64_t *, size_t, float *);
typedef int (*alibi_slopes_fn)(int, float *);
typedef int (*alibi_bias_fn)(int, const int64_t *, size_t, const int64_t *, size_t, int, float *);
typedef int (*txl_fn)(size_t, size_t, int, double, int, const float *, const float *,
                      const float *, const float *, const float *, const int64_t *,
                      const int64_t *, float *);

#define PLUGIN_MAGIC 0x91C6u

typedef struct plugin {
    pc_impl raw;          /* direct calls (used inside the isolated child) */
    unsigned magic;
    void *handle;
    char *path;           /* what dlopen got (./ added to a bare name) */
    char *name;           /* the path as given: the implementation's name */
    char description[256];
    sin_fn sinusoidal;
    rope_fn rope;
    maxlen_fn max_len;
    learned_fn learned;
    att_fn attention;
    t5_bucket_fn t5_bucket;
    t5_bias_fn t5_bias;
    alibi_slopes_fn alibi_slopes;
    alibi_bias_fn alibi_bias;
    txl_fn txl_score;
    pc_impl *wrapped;     /* what pc_plugin_open hands out */
} plugin;

static int r_sin(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    return ((plugin *)ctx)->sinusoidal(pos, n, d, base, layout, out);
}
static int r_rope(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                  const float *x, float *out)
{
    return ((plugin *)ctx)->rope(pos, n, d, base, layout, x, out);
}
static int64_t r_maxlen(void *ctx) { return ((plugin *)ctx)->max_len(); }
static int r_learned(void *ctx, const int64_t *pos, size_t n, int d, float *out)
{
    return ((plugin *)ctx)->learned(pos, n, d, out);
}
static int r_att(void *ctx, size_t n, int d, const float *x, const float *wq, const float *wk,
                 const float *wv, int causal, float *out)
{
    return ((plugin *)ctx)->attention(n, d, x, wq, wk, wv, causal, out);
}

static int r_t5_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                       int num_buckets, int max_distance, int32_t *out)
{
    return ((plugin *)ctx)->t5_bucket(rel, n, bidirectional, num_buckets, max_distance, out);
}
static int r_t5_bias(void *ctx, const float *emb, int heads, int bidirectional, int num_buckets,
                     int max_distance, const int64_t *qpos, size_t nq, const int64_t *kpos,
                     size_t nk, float *out)
{
    return ((plugin *)ctx)->t5_bias(emb, heads, bidirectional, num_buckets, max_distance, qpos,
                                    nq, kpos, nk, out);
}
static int r_alibi_slopes(void *ctx, int heads, float *out)
{
    return ((plugin *)ctx)->alibi_slopes(heads, out);
}
static int r_alibi_bias(void *ctx, int heads, const int64_t *qpos, size_t nq, const int64_t *kpos,
                        size_t nk, int causal, float *out)
{
    return ((plugin *)ctx)->alibi_bias(heads, qpos, nq, kpos, nk, causal, out);
}
static int r_txl(void *ctx, size_t nq, size_t nk, int d, double base, int layout, const float *q,
                 const float *k, const float *u, const float *v, const float *wr,
                 const int64_t *qpos, const int64_t *kpos, float *out)
{
    return ((plugin *)ctx)->txl_score(nq, nk, d, base, layout, q, k, u, v, wr, qpos, kpos, out);
}

/* The load probe, run in a child: dlopen, dlsym, pecheck_abi_version().
 * rc 0: SCRATCH holds the version in decimal; 1: dlopen failed; 2: no
 * pecheck_abi_version; SCRATCH holds dlerror's text. */
static int probe(void *arg, char *scratch)
{
    const char *path = arg;
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(scratch, PC_ISO_SCRATCH, "%s", e ? e : "dlopen failed");
        return 1;
    }
    dlerror();
    void *sym = dlsym(h, "pecheck_abi_version");
    if (!sym) {
        const char *e = dlerror();
        snprintf(scratch, PC_ISO_SCRATCH, "%s", e ? e : "undefined symbol: pecheck_abi_version");
        return 2;
    }
    int (*version)(void);
    memcpy(&version, &sym, sizeof version); /* object pointer to function pointer (POSIX) */
    snprintf(scratch, PC_ISO_SCRATCH, "%d", version());
    return 0;
}

static void *sym(void *h, const char *name)
{
    dlerror();
    return dlsym(h, name);
}

#define FN(dst, h, name) do { void *p_ = sym(h, name); memcpy(&(dst), &p_, sizeof p_); } while (0)

pc_status pc_plugin_open(const char *path, long timeout_ms, pc_impl **out, pc_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return pc_seterr(err, PC_EINPUT, "--plugin: empty path");
    /* dlopen searches the library path for a name without '/': ./ keeps it a file */
    size_t len = strlen(path) + 3;
    char *p = malloc(len);
    if (!p) return pc_seterr(err, PC_ENOMEM, "out of memory");
    snprintf(p, len, "%s%s", strchr(path, '/') ? "" : "./", path);

    char scratch[PC_ISO_SCRATCH];
    int rc = 0;
    pc_err perr = { "" };
    pc_status st = pc_isolate_run("dlopen + pecheck_abi_version", timeout_ms, probe, p, &rc,
                                  scratch, &perr);
    if (st == PC_FAIL) {
        st = pc_seterr(err, PC_EINPUT, "%s: the plugin failed while loading: %s", path, perr.msg);
        free(p);
        return st;
    }
    if (st != PC_OK) {
        st = pc_seterr(err, st, "%s: %s", path, perr.msg);
        free(p);
        return st;
    }
    scratch[PC_ISO_SCRATCH - 1] = '\0';
    if (rc == 1 || rc == 2) {
        st = pc_seterr(err, PC_EINPUT, rc == 1 ? "%s: cannot load plugin: %s"
                       : "%s: not a pecheck plugin (pecheck_abi_version is required): %s",
                       path, scratch);
        free(p);
        return st;
    }
    long version = strtol(scratch, NULL, 10);
    if (rc != 0 || version != PECHECK_ABI_VERSION) {
        st = pc_seterr(err, PC_EINPUT, "%s: plugin ABI version %ld, but this pecheck implements "
                       "version %d (include/pecheck_plugin.h)", path, version, PECHECK_ABI_VERSION);
        free(p);
        return st;
    }

    plugin *pl = calloc(1, sizeof *pl);
    if (!pl) { free(p); return pc_seterr(err, PC_ENOMEM, "out of memory"); }
    pl->magic = PLUGIN_MAGIC;
    pl->path = p;
    pl->name = strdup(path);
    if (!pl->name) { free(p); free(pl); return pc_seterr(err, PC_ENOMEM, "out of memory"); }
    pl->handle = dlopen(p, RTLD_NOW | RTLD_LOCAL);
    if (!pl->handle) {
        const char *e = dlerror();
        st = pc_seterr(err, PC_EINPUT, "%s: cannot load plugin: %s", path, e ? e : "dlopen failed");
        free(pl->name); free(p); free(pl);
        return st;
    }
    FN(pl->sinusoidal, pl->handle, "pecheck_sinusoidal_f32");
    FN(pl->rope, pl->handle, "pecheck_rope_f32");
    FN(pl->max_len, pl->handle, "pecheck_learned_max_len");
    FN(pl->learned, pl->handle, "pecheck_learned_f32");
    FN(pl->attention, pl->handle, "pecheck_attention_f32");
    FN(pl->t5_bucket, pl->handle, "pecheck_t5_bucket");
    FN(pl->t5_bias, pl->handle, "pecheck_t5_bias");
    FN(pl->alibi_slopes, pl->handle, "pecheck_alibi_slopes");
    FN(pl->alibi_bias, pl->handle, "pecheck_alibi_bias");
    FN(pl->txl_score, pl->handle, "pecheck_txl_score");
    if (!pl->max_len != !pl->learned) {
        st = pc_seterr(err, PC_EINPUT, "%s: exports %s but not %s (the learned family needs both)",
                       path, pl->learned ? "pecheck_learned_f32" : "pecheck_learned_max_len",
                       pl->learned ? "pecheck_learned_max_len" : "pecheck_learned_f32");
        pc_plugin_close(&pl->raw);
        return st;
    }
    snprintf(pl->description, sizeof pl->description, "plugin (ABI v%d):%s%s%s%s%s%s%s%s%s",
             PECHECK_ABI_VERSION, pl->sinusoidal ? " sinusoidal" : "", pl->rope ? " rope" : "",
             pl->learned ? " learned" : "", pl->attention ? " attention" : "",
             pl->t5_bucket ? " t5_bucket" : "", pl->t5_bias ? " t5_bias" : "",
             pl->alibi_slopes ? " alibi_slopes" : "", pl->alibi_bias ? " alibi_bias" : "",
             pl->txl_score ? " txl_score" : "");
    pc_impl *r = &pl->raw;
    r->name = pl->name;
    r->description = pl->description;
    r->expect_pass = 1;
    r->ctx = pl;
    r->sinusoidal = pl->sinusoidal ? r_sin : NULL;
    r->rope = pl->rope ? r_rope : NULL;
    r->learned_max_len = pl->max_len ? r_maxlen : NULL;
    r->learned = pl->learned ? r_learned : NULL;
    r->attention = pl->attention ? r_att : NULL;
    r->t5_bucket = pl->t5_bucket ? r_t5_bucket : NULL;
    r->t5_bias = pl->t5_bias ? r_t5_bias : NULL;
    r->alibi_slopes = pl->alibi_slopes ? r_alibi_slopes : NULL;
    r->alibi_bias = pl->alibi_bias ? r_alibi_bias : NULL;
    r->txl_score = pl->txl_score ? r_txl : NULL;
    const pc_family *fam = pc_family_of_impl(r); /* the first family it provides */
    r->family_hint = fam ? fam->name : "none";
    pl->wrapped = pc_isolate_wrap(r, timeout_ms);
    if (!pl->wrapped) {
        pc_plugin_close(r);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    *out = pl->wrapped;
    return PC_OK;
}

static plugin *plugin_of(const pc_impl *impl)
{
    const pc_impl *raw = pc_isolate_is(impl) ? pc_isolate_inner(impl) : impl;
    if (!raw || !raw->ctx || raw->ctx != (const void *)raw) return NULL;
    plugin *pl = raw->ctx;
    return pl->magic == PLUGIN_MAGIC ? pl : NULL;
}

int pc_plugin_is(const pc_impl *impl)
{
    return plugin_of(impl) != NULL;
}

void pc_plugin_close(pc_impl *impl)
{
    plugin *pl = plugin_of(impl);
    if (!pl) return;
    pc_isolate_free(pl->wrapped);
    if (pl->handle) dlclose(pl->handle);
    free(pl->path);
    free(pl->name);
    free(pl);
}

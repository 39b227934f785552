/* plugin.c: an implementation under test from a shared library that
 * follows the plugin ABI (include/pecheck_plugin.h); its entry points run
 * out of pecheck's process (host.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness/sandbox/host.h"
#include "harness/sandbox/host_seal.h"
#include "plugin.h"
#include "families/family.h"

#define PLUGIN_MAGIC 0x91C6u

typedef struct plugin {
    pc_impl impl;         /* first: what pc_plugin_open hands out */
    unsigned magic;
    char *name;           /* the path as given: the implementation's name */
    char description[512];
} plugin;

/* The hooks of the pc_impl, for a caller that calls IMPL->NAME directly
 * rather than pc_call_NAME (hook.h): a fault reads as PC_HOOK_FAULTED, an
 * error return without its cause. */
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT)                                   \
    static RET direct_##NAME(void *ctx PC_PARAMS(ARGS))                        \
    {                                                                          \
        pc_fault fault;                                                        \
        RET r = pc_host_##NAME(ctx, &fault PC_NAMES(ARGS));                    \
        return fault.faulted ? (RET)PC_HOOK_FAULTED : r;                       \
    }
#include "harness/sandbox/hooks.def"
#undef PC_HOOK

/* "plugin (ABI v1): sinusoidal rope ...": the version it reported */
static void describe(const pc_host *h, int version, char *buf, size_t len)
{
    int w = snprintf(buf, len, "plugin (ABI v%d):", version);
    for (int k = 0; k < PC_HOOK_N && w > 0 && (size_t)w < len; k++)
        if (k != PC_HOOK_abi_version && k != PC_HOOK_learned_max_len && pc_host_has(h, (pc_hook_id)k))
            w += snprintf(buf + w, len - (size_t)w, " %s", pc_hook_name((pc_hook_id)k));
}

/* The budget of the plugin's faults (host.h): the time limit of a call
 * for each family the plugin provides, so that a plugin that hangs once in
 * each (a time-out costs one time limit, and that entry point is not
 * called again) is stopped no sooner than without a budget, while crashes
 * and exits, which cost the time the calls took, stop within the same
 * time. */
static void set_budget(pc_host *h, long timeout_ms)
{
    int n = 0;
    for (size_t k = 0; k < pc_family_count(); k++) {
        const pc_family *fam = pc_family_at(k);
        n += (fam->hooks[0] && pc_host_has(h, fam->hooks[0])) ||
             (fam->hooks[1] && pc_host_has(h, fam->hooks[1]));
    }
    pc_host_set_fault_budget(h, (double)(timeout_ms > 0 ? timeout_ms : 1) * (n > 0 ? n : 1));
}

/* Exit 2 when nothing could be checked: none of the entry points of the
 * table is exported (a misspelt name, or a C++ kernel without extern "C"). */
static pc_status check_some(const pc_host *h, const char *name, pc_err *err)
{
    for (int k = 0; k < PC_HOOK_N; k++)
        if (k != PC_HOOK_abi_version && pc_host_has(h, (pc_hook_id)k)) return PC_OK;
    char expected[512] = "";
    int w = 0;
    for (int k = 0; k < PC_HOOK_N && w >= 0 && (size_t)w < sizeof expected; k++)
        if (k != PC_HOOK_abi_version)
            w += snprintf(expected + w, sizeof expected - (size_t)w, "%s%s", w ? ", " : "",
                          pc_hook_symbol((pc_hook_id)k));
    char mangled[128];
    pc_host_mangled(h, mangled, sizeof mangled);
    if (mangled[0])
        return pc_seterr(err, PC_EINPUT, "%s: exports no entry point that pecheck checks, but a "
                         "C++-mangled one (%s): declare the entry points extern \"C\" (including "
                         "include/pecheck_plugin.h does); expected any of: %s",
                         name, mangled, expected);
    return pc_seterr(err, PC_EINPUT, "%s: exports no entry point that pecheck checks, nothing "
                     "to check (a misspelt name?); expected any of: %s", name, expected);
}

pc_status pc_plugin_open(const char *path, const pc_host_limits *lim, pc_impl **out,
                         pc_err *err)
{
    *out = NULL;
    if (!path || !*path)
        return pc_seterr(err, PC_EINPUT, "--plugin: empty path");
    /* dlopen searches the library path for a name without '/': ./ keeps it a file */
    size_t len = strlen(path) + 3;
    char *p = malloc(len);
    if (!p) return pc_seterr(err, PC_ENOMEM, "out of memory");
    snprintf(p, len, "%s%s", strchr(path, '/') ? "" : "./", path);
    pc_host *h = NULL;
    int version = -1;
    pc_status st = pc_host_open(p, path, lim, &h, &version, err);
    free(p);
    if (st != PC_OK) return st;
    if (version < PECHECK_ABI_VERSION_MIN || version > PECHECK_ABI_VERSION) {
        pc_host_close(h);
        return pc_seterr(err, PC_EINPUT, "%s: plugin ABI version %d, but this pecheck implements "
                         "versions %d to %d (include/pecheck_plugin.h)", path, version,
                         PECHECK_ABI_VERSION_MIN, PECHECK_ABI_VERSION);
    }
    int has_len = pc_host_has(h, PC_HOOK_learned_max_len), has_lut = pc_host_has(h, PC_HOOK_learned);
    if (has_len != has_lut) {
        st = pc_seterr(err, PC_EINPUT, "%s: exports %s but not %s (the learned family needs both)",
                       path, pc_hook_symbol(has_lut ? PC_HOOK_learned : PC_HOOK_learned_max_len),
                       pc_hook_symbol(has_lut ? PC_HOOK_learned_max_len : PC_HOOK_learned));
        pc_host_close(h);
        return st;
    }
    st = check_some(h, path, err);
    plugin *pl = st == PC_OK ? calloc(1, sizeof *pl) : NULL;
    if (pl) pl->name = strdup(path);
    if (st == PC_OK && (!pl || !pl->name)) st = pc_seterr(err, PC_ENOMEM, "out of memory");
    if (st != PC_OK) {
        if (pl) free(pl->name);
        free(pl);
        pc_host_close(h);
        return st;
    }
    pl->magic = PLUGIN_MAGIC;
    set_budget(h, lim->timeout_ms);
    describe(h, version, pl->description, sizeof pl->description);
    pc_impl *r = &pl->impl;
    r->name = pl->name;
    r->description = pl->description;
    r->expect_pass = 1;
    r->ctx = h;
    r->host = h;
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) \
    r->NAME = pc_host_has(h, PC_HOOK_##NAME) ? direct_##NAME : NULL;
#include "harness/sandbox/hooks.def"
#undef PC_HOOK
    const pc_family *fam = pc_family_of_impl(r); /* the first family it provides */
    r->family_hint = fam ? fam->name : "none";
    *out = r;
    return PC_OK;
}

static plugin *plugin_of(const pc_impl *impl)
{
    plugin *pl = (plugin *)(void *)impl;
    return impl && impl->host && pl->magic == PLUGIN_MAGIC ? pl : NULL;
}

size_t pc_plugin_output(const pc_impl *impl, char *buf, size_t len)
{
    plugin *pl = plugin_of(impl);
    if (len) buf[0] = '\0';
    return pl ? pc_host_output(pl->impl.host, buf, len) : 0;
}

int pc_plugin_is(const pc_impl *impl)
{
    return plugin_of(impl) != NULL;
}

void pc_plugin_stop(pc_impl *impl)
{
    plugin *pl = plugin_of(impl);
    if (pl) pc_host_stop(pl->impl.host);
}

void pc_plugin_seal(const pc_impl *impl, char *buf, size_t len)
{
    plugin *pl = plugin_of(impl);
    if (len) buf[0] = '\0';
    if (pl)
        pc_host_seal_describe(pc_host_landlock_abi(pl->impl.host), pc_host_network(pl->impl.host),
                              buf, len);
}

void pc_plugin_close(pc_impl *impl)
{
    plugin *pl = plugin_of(impl);
    if (!pl) return;
    pc_host_close(pl->impl.host);
    free(pl->name);
    free(pl);
}

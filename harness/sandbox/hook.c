/* hook.c: the hook table's names and the calls that report faults
 * (hook.h). */
#include <stddef.h>
#include "host.h"
#include "hook.h"

static const char *const symbols[PC_HOOK_N] = {
#define PC_ENTRY(NAME, SYMBOL, RET, ARGS, AT) #SYMBOL,
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) #SYMBOL,
#include "hooks.def"
#undef PC_ENTRY
#undef PC_HOOK
};

static const char *const names[PC_HOOK_N] = {
#define PC_ENTRY(NAME, SYMBOL, RET, ARGS, AT) #NAME,
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) #NAME,
#include "hooks.def"
#undef PC_ENTRY
#undef PC_HOOK
};

const char *pc_hook_symbol(pc_hook_id h)
{
    return (unsigned)h < PC_HOOK_N ? symbols[h] : NULL;
}

const char *pc_hook_name(pc_hook_id h)
{
    return (unsigned)h < PC_HOOK_N ? names[h] : NULL;
}

int pc_hook_present(const pc_impl *impl, pc_hook_id h)
{
    switch (h) {
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) case PC_HOOK_##NAME: return impl->NAME != NULL;
#include "hooks.def"
#undef PC_HOOK
    default: return 0;
    }
}

int pc_impl_hosts(const pc_impl *impl)
{
    return impl->host ? pc_host_count(impl->host) : 1;
}

/* A plugin's hooks take the host as their context (plugin.c). */
void pc_impl_on_host(const pc_impl *impl, int k, pc_impl *out)
{
    *out = *impl;
    if (impl->host) out->host = out->ctx = pc_host_at(impl->host, k);
}

/* A built-in or a table runs in pecheck's process and never faults; a
 * plugin's call goes to its host (host.h). */
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT)                                   \
    RET pc_call_##NAME(const pc_impl *impl, pc_fault *fault PC_PARAMS(ARGS))   \
    {                                                                          \
        if (impl->host)                                                        \
            return pc_host_##NAME(impl->host, fault PC_NAMES(ARGS));           \
        fault->faulted = 0;                                                    \
        fault->cause[0] = '\0';                                                \
        return impl->NAME(impl->ctx PC_NAMES(ARGS));                           \
    }
#include "hooks.def"
#undef PC_HOOK

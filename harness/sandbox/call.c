/* call.c: calling an implementation's hooks, with faults as values
 * (call.h): in pecheck's process for a built-in or a table, through its
 * plugin host for a plugin (host.h). */
#include <stddef.h>
#include "call.h"
#include "host.h"

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

/* call.h: calling an implementation's hooks, with faults as values.
 *
 * pc_call_NAME(IMPL, &FAULT, arguments...) calls hook NAME of hooks.def
 * (e.g. pc_call_sinusoidal(impl, &f, pos, n, d, base, layout, out)) and
 * returns what the hook returned.  FAULT says whether this call faulted:
 * for a plugin (IMPL->host set) a crash, exit, hang, write outside OUT or a
 * dead plugin host; FAULT->cause then names it, and the return value and
 * OUT mean nothing.  A built-in or table call never faults.  Each call
 * reports its own fault: nothing is recorded for a later reader, so a crash
 * cannot be read as the implementation's error return ("layout not
 * supported") by any caller. */
#ifndef PECHECK_CALL_H
#define PECHECK_CALL_H

#include "hook.h"
#include "impl.h"

/* The plugin hosts IMPL's calls may be spread over (host.h): 1 for a
 * built-in or a table. */
int pc_impl_hosts(const pc_impl *impl);

/* *OUT: IMPL with its calls going to host K of its pool (K modulo
 * pc_impl_hosts); a copy of IMPL itself for a built-in or a table. */
void pc_impl_on_host(const pc_impl *impl, int k, pc_impl *out);

#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) \
    RET pc_call_##NAME(const pc_impl *impl, pc_fault *fault PC_PARAMS(ARGS));
#include "hooks.def"
#undef PC_HOOK

#endif

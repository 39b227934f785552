/* hook.h: calling an implementation's hooks, with faults as values.
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
#ifndef PECHECK_HOOK_H
#define PECHECK_HOOK_H

#include "impl.h"
#include "harness/base/status.h"

/* The entry points of hooks.def in table order: PC_HOOK_abi_version,
 * PC_HOOK_sinusoidal, ..., PC_HOOK_N. */
typedef enum pc_hook_id {
#define PC_ENTRY(NAME, SYMBOL, RET, ARGS, AT) PC_HOOK_##NAME,
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) PC_HOOK_##NAME,
#include "hooks.def"
#undef PC_ENTRY
#undef PC_HOOK
    PC_HOOK_N
} pc_hook_id;

/* The exported symbol (hooks.def's SYMBOL) and the hook's name
 * ("sinusoidal") of entry point H; NULL outside the table. */
const char *pc_hook_symbol(pc_hook_id h);
const char *pc_hook_name(pc_hook_id h);

/* Is hook H (not PC_HOOK_abi_version) present in IMPL? */
int pc_hook_present(const pc_impl *impl, pc_hook_id h);

/* What a plugin's hook returns when called directly (IMPL->NAME rather
 * than pc_call_NAME) and the call faulted: an arbitrary value a plugin is
 * unlikely to return; only pc_fault tells a fault apart. */
#define PC_HOOK_FAULTED (-31337)

/* The outcome of one call beyond its return value. */
typedef struct pc_fault {
    int faulted;              /* the call did not return normally */
    char cause[PC_ERR_LEN];   /* e.g. "SIGSEGV in pecheck_... at pos=0..255 (...)" */
} pc_fault;

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

/* hook.h: the hook table (hooks.def) by id, symbol and name, and the fault
 * a call can end in.  Calling a hook: call.h. */
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

#endif

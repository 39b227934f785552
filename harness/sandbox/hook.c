/* hook.c: the hook table's names and the calls that report faults
 * (hook.h). */
#include <stddef.h>
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

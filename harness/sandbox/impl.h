/* impl.h: one implementation under test, whatever its source.
 *
 * Built-ins (impl/), plugins (dlopen) and .npy tables all fill this struct;
 * the comparison engine and the properties see only these hooks.  The hooks
 * mirror the plugin ABI (include/pecheck_plugin.h) plus a context pointer;
 * they are listed once, in hooks.def.
 * A NULL hook means the family is not provided (reported as skipped).
 * Hooks return 0 on success, nonzero for an error of the implementation. */
#ifndef PECHECK_IMPL_H
#define PECHECK_IMPL_H

#include <stddef.h>
#include <stdint.h>
#include "pecheck_plugin.h"
#include "hookgen.h"

typedef struct pc_impl pc_impl;
struct pc_impl {
    const char *name;
    const char *description;  /* one line, for `pecheck list` */
    const char *family_hint;  /* family it is meant for: "sinusoidal", ... */
    int expect_pass;          /* 1 for a correct built-in, 0 for a known-bad one */
    const char *flaw;         /* known-bad: what is wrong, for explanations */
    void *ctx;                /* owned by the source (plugin handle, table) */

    /* Positions the source can serve, inclusive, when POS_BOUNDED (a .npy
     * table knows its rows; one row at position 0 is 0..0); otherwise
     * unlimited.  Properties draw positions from this range. */
    int64_t pos_min, pos_max;
    int pos_bounded;
    /* Set for a source whose hooks run out of pecheck's process (a plugin):
     * pc_call_NAME (hook.h) then goes through it, so that a crash comes
     * back as a fault.  NULL for built-ins and tables. */
    struct pc_host *host;

    /* The hooks, one per entry of hooks.def, each
     *   RET (*NAME)(void *ctx, the entry point's arguments);
     * e.g. int (*sinusoidal)(void *ctx, const int64_t *pos, size_t n, int d,
     *                        double base, int layout, float *out);
     * plus the built-in-only `angles` (hooks.def). */
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) RET (*NAME)(void *ctx PC_PARAMS(ARGS));
#define PC_HOOK_LOCAL(NAME, RET, ARGS) RET (*NAME)(void *ctx PC_PARAMS(ARGS));
#include "hooks.def"
#undef PC_HOOK
#undef PC_HOOK_LOCAL
};

/* The built-in implementations (impl/registry.c). */
const pc_impl *pc_builtin_find(const char *name);
size_t pc_builtin_count(void);
const pc_impl *pc_builtin_at(size_t k);

#endif

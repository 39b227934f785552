/* sources.c: resolve the implementations named on the command line. */
#include <string.h>
#include "sources.h"

static pc_status add(pc_sources *s, const pc_impl *impl, pc_err *err)
{
    if (s->n >= PC_MAX_IMPLS)
        return pc_seterr(err, PC_EINPUT, "too many implementations (at most %d)", PC_MAX_IMPLS);
    s->impl[s->n++] = impl;
    return PC_OK;
}

pc_status pc_sources_open(const pc_opts *o, const char *family, pc_sources *s, pc_err *err)
{
    memset(s, 0, sizeof *s);
    pc_status st = PC_OK;
    for (int k = 0; k < o->n_impls && st == PC_OK; k++) {
        if (!strcmp(o->impls[k], "all")) {
            for (size_t b = 0; b < pc_builtin_count() && st == PC_OK; b++) {
                const pc_impl *impl = pc_builtin_at(b);
                if (!family || !strcmp(family, "all") || !strcmp(impl->family_hint, family))
                    st = add(s, impl, err);
            }
            continue;
        }
        const pc_impl *impl = pc_builtin_find(o->impls[k]);
        if (!impl)
            st = pc_seterr(err, PC_EINPUT, "unknown implementation '%s' (see `pecheck list`)",
                           o->impls[k]);
        else
            st = add(s, impl, err);
    }
    if (st == PC_OK && (o->n_plugins > 0 || o->n_tables > 0))
        st = pc_seterr(err, PC_EINPUT, "--plugin and --table are not supported yet");
    if (st == PC_OK && s->n == 0)
        st = pc_seterr(err, PC_EINPUT, "no implementation given (use --impl NAME; see `pecheck list`)");
    if (st != PC_OK)
        pc_sources_close(s);
    return st;
}

void pc_sources_close(pc_sources *s)
{
    s->n = 0;
    s->n_owned = 0;
}

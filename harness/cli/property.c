/* property.c: the command line's options as the property engine's
 * parameters (harness/cli/property.h). */
#include <stdlib.h>
#include <string.h>
#include "property.h"
#include "properties/property.h"
#include "families/family.h"

const char *pc_regress_path(const pc_opts *o)
{
    const char *p = o->regressions;
    if (!p) p = getenv("PECHECK_REGRESSIONS");
    if (!p || !*p) p = ".pecheck-regressions";
    return strcmp(p, "off") ? p : NULL;
}

void pc_prop_params_from_opts(pc_prop_params *p, const pc_opts *o, const pc_spec *spec)
{
    memset(p, 0, sizeof *p);
    p->spec = spec;
    p->d = spec->d;
    p->base = spec->base;
    p->layout = spec->layout;
    p->dtype = o->dtype;
    p->dtype_set = o->dtype_set;
    p->tol_abs = o->tol_abs;
    /* the class the accuracy gate runs (acc_opts.c): a named formulation
     * is its strict class */
    p->strict = o->formulation ? o->formulation : o->strict;
    p->formulation = o->formulation != 0;
    p->pos_lo = o->pos_lo;
    p->pos_hi = o->pos_hi;
    p->seed = o->seed;
    p->cases = o->cases;
    p->replay_set = o->replay_set;
    p->replay = o->replay;
    p->regressions = pc_regress_path(o);
    p->table_sin = o->table_sin;
    p->properties = o->properties;
    p->n_properties = o->n_properties;
    p->threads = o->threads;
}

pc_status pc_properties_run(const pc_impl *impl, const pc_spec *spec, const pc_opts *o,
                            pc_verdicts *out, pc_err *err)
{
    pc_prop_params par;
    pc_prop_params_from_opts(&par, o, spec);
    return pc_properties_run_with(impl, spec->family->name, &par, out, err);
}

pc_status pc_property_run_one(const pc_property *p, const pc_impl *impl, const pc_spec *spec,
                              const pc_opts *o, pc_verdict *v, pc_err *err)
{
    pc_prop_params par;
    pc_prop_params_from_opts(&par, o, spec);
    return pc_property_run(p, impl, spec->family->name, &par, v, err);
}

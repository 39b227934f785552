/* family.c: a learned position table E[pos], pos < max_len: the lookup
 * contract (gate.c) and the properties. */
#include "families/family.h"
#include "gate.h"
#include "harness/sandbox/call.h"

extern const pc_impl pc_impl_learned_table, pc_impl_learned_clamp;
extern const pc_diagnosis pc_learned_diagnosis; /* identify.c */
static const pc_impl *const builtins[] = { &pc_impl_learned_table, &pc_impl_learned_clamp };

static int provides(const pc_impl *impl)
{
    return impl->learned != NULL && impl->learned_max_len != NULL;
}

/* A crash reads as no rows: the lookups then fault and say why. */
static int64_t max_len(const pc_impl *impl)
{
    pc_fault fault;
    int64_t v = pc_call_learned_max_len(impl, &fault);
    return fault.faulted ? -1 : v;
}

extern const pc_property pc_prop_unique, pc_prop_learned_range, pc_prop_extrapolation;
static const pc_property *const properties[] = {
    &pc_prop_unique, &pc_prop_learned_range, &pc_prop_extrapolation
};

const pc_family pc_family_learned = {
    .name = "learned", .title = "learned table", .hooks = { PC_HOOK_learned },
    .flags = PC_FAM_REPORTED | PC_FAM_TABLES, /* a table: E.npy, row r = position r */
    .provides = provides, .gate = pc_learned_gate, .max_len = max_len,
    .properties = properties, .n_properties = sizeof properties / sizeof properties[0],
    .builtins = builtins, .n_builtins = sizeof builtins / sizeof builtins[0],
    .diagnosis = &pc_learned_diagnosis
};

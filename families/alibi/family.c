/* family.c: ALiBi linear biases (docs/relative.md): checked by the
 * properties against the exact slopes and biases (alibi_ref.c); a .npy
 * table of slopes or biases (table.c) by its gate (gate.c) too. */
#include "alibi.h"

extern const pc_impl pc_impl_alibi_paper, pc_impl_alibi_pow2, pc_impl_alibi_f16,
    pc_impl_alibi_cache_offset, pc_impl_alibi_no_abs;
static const pc_impl *const builtins[] = {
    &pc_impl_alibi_paper, &pc_impl_alibi_pow2, &pc_impl_alibi_f16, &pc_impl_alibi_cache_offset,
    &pc_impl_alibi_no_abs
};

static int provides(const pc_impl *impl)
{
    return impl->alibi_slopes != NULL || impl->alibi_bias != NULL || pc_alibi_table_of(impl);
}

static const char *const plots[] = { "alibi_bias", NULL };

extern const pc_property pc_prop_alibi_slopes, pc_prop_alibi_linear, pc_prop_alibi_relative,
    pc_prop_alibi_decay;
static const pc_property *const properties[] = {
    &pc_prop_alibi_slopes, &pc_prop_alibi_linear, &pc_prop_alibi_relative,
    &pc_prop_alibi_decay
};

const pc_family pc_family_alibi = {
    .name = "alibi", .title = "ALiBi", .hooks = { PC_HOOK_alibi_slopes, PC_HOOK_alibi_bias },
    .flags = PC_FAM_PROPS_PROBE | PC_FAM_TABLES, .provides = provides, .gate = pc_alibi_gate,
    .properties = properties, .n_properties = sizeof properties / sizeof properties[0],
    .plots = plots, .builtins = builtins, .n_builtins = sizeof builtins / sizeof builtins[0],
    .spec = &pc_alibi_spec_kind, .diagnosis = &pc_alibi_diagnosis,
    .table = &pc_alibi_table_reader
};

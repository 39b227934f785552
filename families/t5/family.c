/* family.c: T5 relative-position buckets and bias (docs/relative.md):
 * checked by the properties against the exact buckets (t5_ref.c); a .npy
 * table of buckets (table.c) by its gate (gate.c). */
#include "t5.h"

extern const pc_impl pc_impl_t5_hf, pc_impl_t5_round, pc_impl_t5_max_exact, pc_impl_t5_no_clamp,
    pc_impl_t5_swapped, pc_impl_t5_full_buckets, pc_impl_t5_bias_cache;
static const pc_impl *const builtins[] = {
    &pc_impl_t5_hf, &pc_impl_t5_round, &pc_impl_t5_max_exact, &pc_impl_t5_no_clamp,
    &pc_impl_t5_swapped, &pc_impl_t5_full_buckets, &pc_impl_t5_bias_cache
};

static int provides(const pc_impl *impl)
{
    return impl->t5_bucket != NULL || impl->t5_bias != NULL || pc_t5_table_of(impl);
}

static const char *const plots[] = { "t5_buckets", NULL };

extern const pc_property pc_prop_t5_reference, pc_prop_t5_exact, pc_prop_t5_monotone,
    pc_prop_t5_saturate, pc_prop_t5_symmetric, pc_prop_t5_bias_relative;
static const pc_property *const properties[] = {
    &pc_prop_t5_reference, &pc_prop_t5_exact, &pc_prop_t5_monotone, &pc_prop_t5_saturate,
    &pc_prop_t5_symmetric, &pc_prop_t5_bias_relative
};

const pc_family pc_family_t5 = {
    .name = "t5", .title = "T5 buckets", .hooks = { PC_HOOK_t5_bucket, PC_HOOK_t5_bias },
    .flags = PC_FAM_PROPS_PROBE | PC_FAM_TABLES, .provides = provides, .gate = pc_t5_gate,
    .properties = properties, .n_properties = sizeof properties / sizeof properties[0],
    .plots = plots, .builtins = builtins, .n_builtins = sizeof builtins / sizeof builtins[0],
    .spec = &pc_t5_spec_kind, .diagnosis = &pc_t5_diagnosis, .table = &pc_t5_table_reader
};

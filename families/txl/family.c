/* family.c: Transformer-XL relative attention scores (docs/relative.md):
 * checked by the properties alone, against the exact score (txl_ref.c). */
#include "families/family.h"

extern const pc_impl pc_impl_txl_f32, pc_impl_txl_absolute;
static const pc_impl *const builtins[] = { &pc_impl_txl_f32, &pc_impl_txl_absolute };

static int provides(const pc_impl *impl) { return impl->txl_score != NULL; }

extern const pc_property pc_prop_txl_relative, pc_prop_txl_segment, pc_prop_txl_reference;
static const pc_property *const properties[] = {
    &pc_prop_txl_relative, &pc_prop_txl_segment, &pc_prop_txl_reference
};

const pc_family pc_family_txl = {
    .name = "txl", .title = "Transformer-XL", .hooks = { PC_HOOK_txl_score },
    .flags = PC_FAM_PROPS_PROBE, .provides = provides,
    .properties = properties, .n_properties = sizeof properties / sizeof properties[0],
    .builtins = builtins, .n_builtins = sizeof builtins / sizeof builtins[0]
};

/* family.c: single-head attention softmax(QK^T/sqrt d)V: against the
 * interval reference (attention_ref.h) in gate.c, and the properties. */
#include "families/family.h"
#include "gate.h"

extern const pc_impl pc_impl_attention_f32, pc_impl_attention_sinpe, pc_impl_attention_nocausal;
static const pc_impl *const builtins[] = {
    &pc_impl_attention_f32, &pc_impl_attention_sinpe, &pc_impl_attention_nocausal
};

static int provides(const pc_impl *impl) { return impl->attention != NULL; }

static const char *const plots[] = { "attention_equivariance", NULL };

extern const pc_property pc_prop_equivariance;
static const pc_property *const properties[] = {
    &pc_prop_equivariance
};

const pc_family pc_family_attention = {
    .name = "attention", .title = "attention", .hooks = { PC_HOOK_attention },
    .flags = PC_FAM_REPORTED, .provides = provides, .gate = pc_attention_gate,
    .properties = properties, .n_properties = sizeof properties / sizeof properties[0],
    .plots = plots, .builtins = builtins, .n_builtins = sizeof builtins / sizeof builtins[0],
    .spec = &pc_attention_spec_kind
};

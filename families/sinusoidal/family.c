/* family.c: the sinusoidal family, PE(pos)_{2i} = sin(pos omega_i),
 * PE(pos)_{2i+1} = cos(pos omega_i) (or the half layout): certified
 * element-wise against reference/sincos.c. */
#include "families/family.h"
#include "harness/engine/gate.h"
#include "gate_v2.h"
#include "harness/sandbox/call.h"
#include "sin_spec.h"
#include "sin_ident.h"

extern const pc_impl pc_impl_torch_exp, pc_impl_torch_pow, pc_impl_double_angle,
    pc_impl_bf16_positions, pc_impl_sin_only, pc_impl_cos_shifted,
    pc_impl_rotate_recurrence, pc_impl_plus_1e4, pc_impl_ring_slot;
static const pc_impl *const builtins[] = {
    &pc_impl_torch_exp, &pc_impl_torch_pow, &pc_impl_double_angle, &pc_impl_bf16_positions,
    &pc_impl_sin_only, &pc_impl_cos_shifted, &pc_impl_rotate_recurrence, &pc_impl_plus_1e4,
    &pc_impl_ring_slot
};

static int provides(const pc_impl *impl)
{
    return impl->sinusoidal != NULL || impl->sinusoidal_v2 != NULL;
}

/* ABI v2 kernels are gated through pecheck_sinusoidal_v2 (dtypes,
 * strides); the version 1 entry point, when there is one, serves the
 * properties. */
static pc_status gate(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    const pc_sin_spec *s = pc_sin_spec_of(g->spec);
    if (s && s->t) return pc_sin_timestep_gate(g, impl, fam);
    if (s && s->grid_h) return pc_sin_grid_gate(g, impl, fam);
    if (impl->sinusoidal_v2) return pc_sinusoidal_gate_v2(g, impl, fam);
    return pc_gate_accuracy(g, impl, fam);
}

static int call(const pc_impl *impl, pc_fault *fault, const int64_t *pos, size_t n, int d,
                double base, int layout, const float *x, float *out)
{
    (void)x;
    return pc_call_sinusoidal(impl, fault, pos, n, d, base, layout, out);
}

static pc_status ref(pc_freqs *f, int64_t pos, int layout, const float *x,
                     float *out32, double *out64)
{
    (void)x;
    return pc_ref_sinusoidal_row(f, pos, layout, out32, out64);
}

static pc_status export_row(pc_freqs *f, int64_t pos, int layout, int d,
                            float *out32, double *out64)
{
    (void)d;
    return pc_ref_sinusoidal_row(f, pos, layout, out32, out64);
}

static const pc_rows rows = {
    .input = 0, .call = call, .ref = ref, .export_row = export_row, .export_pairs = 0,
    .model = "A*((R*u+min(kappa_i*u*|theta|,2))*(1+u_s)+u_s)", .pair_name = "(sin, cos)"
};

static const char *const plots[] = { "dot_product", "pe_matrix", NULL };

extern const pc_property pc_prop_unique, pc_prop_linear_shift, pc_prop_dot_distance,
    pc_prop_pair_norm, pc_prop_extrapolation, pc_prop_accuracy;
static const pc_property *const properties[] = {
    &pc_prop_unique, &pc_prop_linear_shift, &pc_prop_dot_distance, &pc_prop_pair_norm,
    &pc_prop_extrapolation, &pc_prop_accuracy
};

const pc_family pc_family_sinusoidal = {
    .name = "sinusoidal", .title = "sinusoidal", .hooks = { PC_HOOK_sinusoidal, PC_HOOK_sinusoidal_v2 },
    .flags = PC_FAM_REPORTED | PC_FAM_TABLES,
    .provides = provides, .rows = &rows, .gate = gate,
    .properties = properties, .n_properties = sizeof properties / sizeof properties[0],
    .plots = plots, .builtins = builtins, .n_builtins = sizeof builtins / sizeof builtins[0],
    .spec = &pc_sin_spec_kind, .diagnosis = &pc_sin_diagnosis
};

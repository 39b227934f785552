/* family.c: rotary position embedding (RoPE): each pair of an input vector
 * rotated by pos omega_i; certified element-wise against reference/sincos.c
 * (pc_ref_rope_row: the exact rotated vector rounded once). */
#include "families/family.h"
#include "harness/engine/gate.h"
#include "gate_v2.h"
#include "fit.h"
#include "options.h"
#include "width_cause.h"
#include "harness/sandbox/call.h"
#include "harness/sources/table.h"
#include "harness/formats/verdict.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

extern const pc_diagnosis pc_rope_diagnosis;
extern const pc_props_v2 pc_rope_props_v2; /* props_v2.c */

extern const pc_impl pc_impl_rope_polar, pc_impl_rope_half, pc_impl_rope_ggml,
    pc_impl_rope_bf16_cache, pc_impl_rope_mixed_layout;
static const pc_impl *const builtins[] = {
    &pc_impl_rope_polar, &pc_impl_rope_half, &pc_impl_rope_ggml, &pc_impl_rope_bf16_cache,
    &pc_impl_rope_mixed_layout
};

static int provides(const pc_impl *impl) { return impl->rope != NULL || impl->rope_v2 != NULL; }

/* ABI v2 kernels are gated through pecheck_rope_v2 (it carries the
 * schedule, dtypes and partial rotary); the version 1 entry point, when
 * there is one, serves the properties, else pecheck_rope_v2 does
 * (props_v2.c). */
/* Position ids (--position-ids) give the rows of a table, or the rows of
 * an ABI v2 kernel's positions array; an entry point taking one position a
 * row cannot be given them: a skip saying so. */
static pc_status axes_skip(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    pc_verdict *v = pc_gate_verdict(g, impl, fam->name, "accuracy", "");
    if (!v) return pc_gate_oom(g);
    v->status = PC_SKIP;
    snprintf(v->summary, sizeof v->summary, "not checked: %s takes one position a row; position "
             "ids (--position-ids) are checked on a table's rows or through pecheck_rope_v2",
             impl->name);
    return PC_OK;
}

/* ABI v2 hands a kernel integer positions (pos_axes, int64): real
 * coordinates are checked on a table's rows. */
static pc_status coords_skip(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    pc_verdict *v = pc_gate_verdict(g, impl, fam->name, "accuracy", "");
    if (!v) return pc_gate_oom(g);
    v->status = PC_SKIP;
    snprintf(v->summary, sizeof v->summary, "not checked: %s takes integer positions "
             "(pecheck_rope_v2's pos_axes); the real coordinates of --position-ids are checked "
             "on a table's rows", impl->name);
    return PC_OK;
}

/* A table whose columns are not the rotary dim, with what they hold
 * checked against its rows (CAUSE, slice_cause.c): a failed verdict naming
 * it, and the family's other checks not run (g->family_done: they need
 * the rotary dim's schedule, which the table cannot be held to).  The
 * cache is the config's mistake's, not the user's: exit 1.  A shard
 * refuses it (exit 2) as before: its verdicts are merged by index. */
static pc_status shape_verdict(pc_gate *g, const pc_impl *impl, const pc_family *fam,
                               const char *cause)
{
    const pc_table_info *t = pc_table_info_of(impl);
    if (g->shard) return pc_seterr(g->err, PC_EINPUT, "%s: %s", t->path, cause);
    pc_verdict *v = pc_gate_verdict(g, impl, fam->name, "accuracy", "");
    if (!v) return pc_gate_oom(g);
    v->status = PC_FAIL;
    /* the file's columns (an (n, d/2) cache has one a pair); without a
     * rotary dim, identity columns (slice_cause.c) are the cause */
    const pc_rope_spec *s = pc_rope_spec_of(g->spec);
    int cols = t->full_width ? t->d : t->d / 2;
    if (s && s->rotary_dim)
        snprintf(v->summary, sizeof v->summary, "the cache's %d columns are not the config's "
                 "rotary dim: not checked against its schedule", cols);
    else
        snprintf(v->summary, sizeof v->summary, "the cache's %d columns are not all rotary "
                 "dims: not checked against a schedule", cols);
    pc_verdict_add_cause(v, cause);
    size_t n = strlen(cause) + 32;
    if ((v->details = malloc(n))) snprintf(v->details, n, "likely cause: %s", cause);
    g->family_done = 1;
    return PC_OK;
}

static pc_status gate(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    const pc_rope_spec *s = pc_rope_spec_of(g->spec);
    if (s && s->ids && !impl->rope_v2 && !impl->pos_bounded) return axes_skip(g, impl, fam);
    if (s && s->coords && impl->rope_v2) return coords_skip(g, impl, fam);
    if (impl->rope_v2) return pc_rope_gate_v2(g, impl, fam);
    char cause[1024];
    if (pc_rope_shape_cause(g, impl, cause, sizeof cause)) return shape_verdict(g, impl, fam, cause);
    pc_status st = pc_rope_width_check(g, impl);
    return st != PC_OK ? st : pc_gate_accuracy(g, impl, fam);
}

static int call(const pc_impl *impl, pc_fault *fault, const int64_t *pos, size_t n, int d,
                double base, int layout, const float *x, float *out)
{
    return pc_call_rope(impl, fault, pos, n, d, base, layout, x, out);
}

/* The exported cache: (cos, sin) of every pair, whatever the layout. */
static pc_status export_row(pc_freqs *f, int64_t pos, int layout, int d,
                            float *out32, double *out64)
{
    (void)layout;
    if (out32) return pc_ref_sincos_row32(f, pos, 2, out32); /* (cos, sin) pairs */
    pc_status st = PC_OK;
    for (int i = 0; i < d / 2 && st == PC_OK; i++) {
        pc_ref2 s, c;
        st = pc_ref_sincos(f, pos, i, &s, &c);
        out64[2 * i] = c.f64;
        out64[2 * i + 1] = s.f64;
    }
    return st;
}

static const pc_rows rows = {
    .input = 1, .call = call, .ref = pc_ref_rope_row, .export_row = export_row,
    .export_pairs = 1, .model = "|pair|*A*((R*u+min(kappa_i*u*|theta|,2))*(1+u_s)+u_s)", .pair_name = "rotated"
};

static const char *const plots[] = { "rope_decay", "rope_shift", NULL };

extern const pc_property pc_prop_unique, pc_prop_rope_relative, pc_prop_rope_norm, pc_prop_decay,
    pc_prop_extrapolation, pc_prop_accuracy;
static const pc_property *const properties[] = {
    &pc_prop_unique, &pc_prop_rope_relative, &pc_prop_rope_norm, &pc_prop_decay,
    &pc_prop_extrapolation,
    &pc_prop_accuracy
};

const pc_family pc_family_rope = {
    .name = "rope", .title = "RoPE", .hooks = { PC_HOOK_rope, PC_HOOK_rope_v2 },
    .flags = PC_FAM_REPORTED | PC_FAM_TABLES | PC_FAM_CLASS_COMPUTED,
    .provides = provides, .rows = &rows, .gate = gate,
    .properties = properties, .n_properties = sizeof properties / sizeof properties[0],
    .plots = plots, .builtins = builtins, .n_builtins = sizeof builtins / sizeof builtins[0],
    .spec = &pc_rope_spec_kind, .diagnosis = &pc_rope_diagnosis, .props_v2 = &pc_rope_props_v2
};

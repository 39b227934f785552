/* acc_opts.c: pc_acc_cfg_from_opts (acc_opts.h). */
#include <string.h>
#include "acc_opts.h"
#include "families/family.h"

void pc_acc_run_from_opts(const pc_opts *o, pc_acc_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->dtype = o->dtype;
    cfg->pos_lo = o->pos_lo;
    cfg->pos_hi = o->pos_hi;
    cfg->seed = o->seed;
    cfg->tol_abs = o->tol_abs;
    /* a named formulation is its class; a bare --strict is cr until the
     * family names its own (RoPE: hf, families/rope/options.c) */
    cfg->strict = o->formulation ? o->formulation : o->strict;
    cfg->formulation = o->formulation != 0;
    cfg->max_abs_err = o->max_abs_err;
    cfg->quiet = o->quiet;
    cfg->threads = o->threads;
}

void pc_acc_cfg_from_opts(const pc_opts *o, const pc_spec *spec, int layout, pc_acc_cfg *cfg)
{
    pc_acc_run_from_opts(o, cfg);
    cfg->family = spec->family->name;
    cfg->d = spec->d;
    cfg->base = spec->base;
    cfg->base_from = spec->base_from;
    cfg->layout = layout;
}

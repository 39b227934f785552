/* acc_opts.c: pc_acc_cfg_from_opts (acc_opts.h). */
#include <string.h>
#include "acc_opts.h"

void pc_acc_cfg_from_opts(const pc_opts *o, const char *family, int layout, pc_acc_cfg *cfg)
{
    memset(cfg, 0, sizeof *cfg);
    cfg->family = family;
    cfg->d = o->d;
    cfg->base = o->base;
    cfg->layout = layout;
    cfg->dtype = o->dtype;
    cfg->pos_lo = o->pos_lo;
    cfg->pos_hi = o->pos_hi;
    cfg->seed = o->seed;
    cfg->tol_abs = o->tol_abs;
    cfg->strict = o->strict;
    cfg->max_abs_err = o->max_abs_err;
    cfg->quiet = o->quiet;
    cfg->threads = o->threads;
}

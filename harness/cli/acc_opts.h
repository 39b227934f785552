/* acc_opts.h: the accuracy engine's configuration (accuracy.h) from the
 * command's options (opts.h), the part `pecheck accuracy`, check's gate
 * (gate.c) and the ABI v2 gates (families/NAME/gate_v2.c) share. */
#ifndef PECHECK_ACC_OPTS_H
#define PECHECK_ACC_OPTS_H

#include "harness/engine/accuracy.h"
#include "opts.h"

/* CFG cleared, then FAMILY's run on LAYOUT with O's d, base, dtype,
 * positions, seed, tolerance (--tol-abs, --strict, --max-abs-err),
 * --quiet and --threads; the rest (shards, schedule, storage, input
 * dtype) is the caller's. */
void pc_acc_cfg_from_opts(const pc_opts *o, const char *family, int layout, pc_acc_cfg *cfg);

#endif

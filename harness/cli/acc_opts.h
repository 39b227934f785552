/* acc_opts.h: the accuracy engine's configuration (accuracy.h) from the
 * command's options (opts.h), the part `pecheck accuracy`, check's gate
 * (gate.c) and the ABI v2 gates (families/NAME/gate_v2.c) share. */
#ifndef PECHECK_ACC_OPTS_H
#define PECHECK_ACC_OPTS_H

#include "harness/engine/accuracy.h"
#include "opts.h"

/* CFG cleared, then O's dtype, positions, seed, tolerance (--tol-abs,
 * --strict, --max-abs-err), --quiet and --threads: the run's options (a
 * gate's pc_gate.run); the family, width, base and layout are the spec's,
 * the rest (shards, schedule, storage, input dtype) the caller's. */
void pc_acc_run_from_opts(const pc_opts *o, pc_acc_cfg *cfg);
/* The same with SPEC's family, width and base, on LAYOUT. */
void pc_acc_cfg_from_opts(const pc_opts *o, const pc_spec *spec, int layout, pc_acc_cfg *cfg);

#endif

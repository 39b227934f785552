/* demo.h: the demonstration family "demo" (test build only): the binary32
 * angles pos * omega_i an implementation uses, from its `angles` hook
 * alone.  It exists to exercise docs/architecture.md's "add a family"
 * recipe; build/pecheck never contains it (tests/family_demo.t). */
#ifndef PECHECK_DEMO_H
#define PECHECK_DEMO_H

#include <stdint.h>
#include "reference/reference.h"

/* pos * omega_i of schedule S for dimension D, correctly rounded to
 * binary32 (demo_ref.c); PC_EINTERNAL past the precision ceiling. */
pc_status pc_demo_ref_angle(pc_schedule s, int d, int i, int64_t pos, float *out);

#endif

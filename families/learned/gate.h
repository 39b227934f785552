/* gate.h: the learned family's gate in `pecheck check` (gate.c). */
#ifndef PECHECK_LEARNED_GATE_H
#define PECHECK_LEARNED_GATE_H

#include "harness/engine/gate.h"

pc_status pc_learned_gate(pc_gate *g, const pc_impl *impl, const pc_family *fam);

#endif

/* gate.h: the attention family's gate in `pecheck check` (gate.c). */
#ifndef PECHECK_ATTENTION_GATE_H
#define PECHECK_ATTENTION_GATE_H

#include "harness/engine/gate.h"

pc_status pc_attention_gate(pc_gate *g, const pc_impl *impl, const pc_family *fam);

#endif

/* gate.h: the attention family's gate in `pecheck check` (gate.c) and its
 * spec (options.c). */
#ifndef PECHECK_ATTENTION_GATE_H
#define PECHECK_ATTENTION_GATE_H

#include "harness/engine/gate.h"

pc_status pc_attention_gate(pc_gate *g, const pc_impl *impl, const pc_family *fam);

/* The family's spec (options.c): --causal. */
extern const pc_spec_kind pc_attention_spec_kind;
/* SPEC (the attention family's) asks for the causal variant only. */
int pc_attention_causal(const pc_spec *spec);

#endif

/* gate_v2.h: the accuracy gate of a RoPE kernel behind plugin ABI version 2
 * (gate_v2.c). */
#ifndef PECHECK_ROPE_GATE_V2_H
#define PECHECK_ROPE_GATE_V2_H

#include "harness/engine/gate.h"

/* For each dtype (f32, f16, bf16) and layout: the verdicts "accuracy"
 * (every rotated element against the certified reference) and
 * "passthrough" (every other element bit-identical), of layout
 * "LAYOUT, DTYPE". */
pc_status pc_rope_gate_v2(pc_gate *g, const pc_impl *impl, const pc_family *fam);

#endif

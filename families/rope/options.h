/* options.h: the RoPE family's encoding spec (families/spec.h): its options
 * (--hf-config, --rope-scaling, --rope-freqs, --seq-len, --rotary-dim), read
 * into a pc_rope_spec (scaling.h, the config reader in hf_config.c), and
 * the frequency schedule it gives the accuracy engine. */
#ifndef PECHECK_ROPE_OPTIONS_H
#define PECHECK_ROPE_OPTIONS_H

#include "families/spec.h"
#include "scaling.h"

extern const pc_spec_kind pc_rope_spec_kind;

/* The RoPE schedule of SPEC (NULL when its options give none). */
const pc_rope_spec *pc_rope_spec_of(const pc_spec *spec);

#endif

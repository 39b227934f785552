/* rope_v2_decode: the ABI v2 half-precision kernel of rope_v2.h with
 * FLAW_DECODE: a call of one token (a decode step) rotates it by its
 * position + 1, an off-by-one that batched calls never show. */
#define FLAW FLAW_DECODE
#include "rope_v2.h"

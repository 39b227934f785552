/* rope_v2_passthrough: the ABI v2 half-precision kernel of rope_v2.h with FLAW_PASSTHROUGH. */
#define FLAW FLAW_PASSTHROUGH
#include "rope_v2.h"

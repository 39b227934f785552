/* rope_v2_noatt: the ABI v2 half-precision kernel of rope_v2.h with FLAW_NO_ATT. */
#define FLAW FLAW_NO_ATT
#include "rope_v2.h"

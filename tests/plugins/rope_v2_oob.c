/* rope_v2_oob: the ABI v2 half-precision kernel of rope_v2.h with FLAW_OOB. */
#define FLAW FLAW_OOB
#include "rope_v2.h"

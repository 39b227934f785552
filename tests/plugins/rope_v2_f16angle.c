/* rope_v2_f16angle: the ABI v2 half-precision kernel of rope_v2.h with FLAW_F16_ANGLE. */
#define FLAW FLAW_F16_ANGLE
#include "rope_v2.h"

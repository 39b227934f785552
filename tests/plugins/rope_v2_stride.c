/* rope_v2_stride: the ABI v2 half-precision kernel of rope_v2.h with FLAW_STRIDE. */
#define FLAW FLAW_STRIDE
#include "rope_v2.h"

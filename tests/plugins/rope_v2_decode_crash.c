/* rope_v2_decode_crash: the ABI v2 half-precision kernel of rope_v2.h with
 * FLAW_DECODE_CRASH: a call of one token (a decode step) dies of SIGSEGV;
 * batched calls are correct. */
#define FLAW FLAW_DECODE_CRASH
#include "rope_v2.h"

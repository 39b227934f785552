/* rope_v2_form_base: the vLLM-style kernel of rope_v2_forms.h with the frequencies of a base 1% too large. */
#define FORM FORM_VLLM
#define FORM_FLAW FLAW_BASE
#include "rope_v2_forms.h"

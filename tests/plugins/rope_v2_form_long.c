/* rope_v2_form_long: the vLLM-style kernel of rope_v2_forms.h with cos and sin 5% too long. */
#define FORM FORM_VLLM
#define FORM_FLAW FLAW_LONG
#include "rope_v2_forms.h"

/* rope_v2_form_vllm: the ABI v2 kernel of rope_v2_forms.h with FORM_VLLM. */
#define FORM FORM_VLLM
#include "rope_v2_forms.h"

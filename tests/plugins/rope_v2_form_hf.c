/* rope_v2_form_hf: the ABI v2 kernel of rope_v2_forms.h with FORM_HF. */
#define FORM FORM_HF
#include "rope_v2_forms.h"

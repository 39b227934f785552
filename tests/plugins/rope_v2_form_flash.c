/* rope_v2_form_flash: the ABI v2 kernel of rope_v2_forms.h with FORM_FLASH. */
#define FORM FORM_FLASH
#include "rope_v2_forms.h"

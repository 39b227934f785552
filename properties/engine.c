/* engine.c: placeholder until the property engine lands: no properties. */
#include "../harness/property.h"

pc_status pc_properties_run(const pc_impl *impl, const char *family, const pc_opts *o,
                            pc_verdicts *out, pc_err *err)
{
    (void)impl; (void)family; (void)o; (void)out; (void)err;
    return PC_OK;
}

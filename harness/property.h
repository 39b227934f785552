/* property.h: the property engine's entry point used by `pecheck check`.
 * (The engine and the catalogue live in properties/.) */
#ifndef PECHECK_PROPERTY_H
#define PECHECK_PROPERTY_H

#include "impl.h"
#include "opts.h"
#include "verdict.h"

/* Run the properties selected by O (all by default; O->properties filters)
 * that apply to FAMILY on IMPL, appending one verdict per property. */
pc_status pc_properties_run(const pc_impl *impl, const char *family, const pc_opts *o,
                            pc_verdicts *out, pc_err *err);

#endif

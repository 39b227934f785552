/* property.h: the property engine's entry point used by `pecheck check`,
 * `pecheck explain` and the report.  (The engine and the catalogue live in
 * properties/; the engine reads a pc_prop_params, never the command line's
 * options: pc_prop_params_from_opts makes one from them.) */
#ifndef PECHECK_PROPERTY_H
#define PECHECK_PROPERTY_H

#include <stdint.h>
#include "harness/sandbox/impl.h"
#include "opts.h"
#include "properties/params.h"
#include "harness/formats/verdict.h"

/* The parameters O asks for, of the family whose encoding is SPEC.  The
 * regression file is O->regressions, else $PECHECK_REGRESSIONS, else
 * .pecheck-regressions; "off" is none.  P points into O (the property
 * names) and at SPEC: both must outlive P. */
void pc_prop_params_from_opts(pc_prop_params *p, const pc_opts *o, const pc_spec *spec);
/* The regression file O names (as above; NULL: off). */
const char *pc_regress_path(const pc_opts *o);

/* The properties of SPEC's family on IMPL with the parameters O asks for. */
pc_status pc_properties_run(const pc_impl *impl, const pc_spec *spec, const pc_opts *o,
                            pc_verdicts *out, pc_err *err);
/* Property P of SPEC's family on IMPL into V (pc_property_run) with the
 * parameters O asks for. */
struct pc_property;
pc_status pc_property_run_one(const struct pc_property *p, const pc_impl *impl,
                              const pc_spec *spec, const pc_opts *o, pc_verdict *v, pc_err *err);

#endif

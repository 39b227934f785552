/* property.h: the property engine's entry point used by `pecheck check`,
 * `pecheck explain` and the report.  (The engine and the catalogue live in
 * properties/; the engine reads a pc_prop_params, never the command line's
 * options: pc_prop_params_from_opts makes one from them.) */
#ifndef PECHECK_PROPERTY_H
#define PECHECK_PROPERTY_H

#include <stdint.h>
#include "impl.h"
#include "opts.h"
#include "verdict.h"

/* What one run of the property engine needs. */
typedef struct pc_prop_params {
    /* the encoding */
    int d;                   /* model dimension */
    double base;             /* frequency base */
    int layout;              /* 0 interleaved, 1 half, -1: probe the implementation */
    int dtype;               /* storage type of the precision model (enum pc_dtype) */
    int dtype_set;           /* DTYPE was chosen (the replay command names it) */
    double tol_abs;          /* absolute tolerance; < 0: the precision model */
    int causal;              /* attention: causal mask */
    /* the cases */
    int64_t pos_lo, pos_hi;  /* positions the cases draw from (inclusive) */
    uint64_t seed;           /* run seed: case I of property P has seed hash(seed, P, I) */
    long cases;              /* generated cases per property */
    int replay_set;          /* run only the case of seed REPLAY */
    uint64_t replay;
    const char *regressions; /* the regression file; NULL: none */
    const char *table_sin;   /* the sin table of a split table source (replay command) */
    /* the selection: names of properties ("all"); none: the default set */
    const char *const *properties;
    int n_properties;
    int gate_outside;        /* the caller runs the accuracy gate: never the catalogue's "accuracy" */
    const void *rope;        /* the RoPE frequency schedule of the options (pc_opts.rope; NULL: none) */
} pc_prop_params;

/* The parameters O asks for.  The regression file is O->regressions, else
 * $PECHECK_REGRESSIONS, else .pecheck-regressions; "off" is none.  P points
 * into O (the property names): O must outlive P. */
void pc_prop_params_from_opts(pc_prop_params *p, const pc_opts *o);

/* Run the properties selected by PAR (all by default; PAR->properties
 * filters) that apply to FAMILY on IMPL, appending one verdict per property. */
pc_status pc_properties_run_with(const pc_impl *impl, const char *family,
                                 const pc_prop_params *par, pc_verdicts *out, pc_err *err);
/* The same with the parameters O asks for. */
pc_status pc_properties_run(const pc_impl *impl, const char *family, const pc_opts *o,
                            pc_verdicts *out, pc_err *err);

#endif

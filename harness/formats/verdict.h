/* verdict.h: the result of one check (the accuracy gate or one property) on
 * one implementation and family.  `pecheck check` collects verdicts and the
 * output formats (text, json, tap, junit) print them; the report reads them. */
#ifndef PECHECK_VERDICT_H
#define PECHECK_VERDICT_H

#include <stdint.h>
#include "harness/base/status.h"

typedef struct pc_verdict {
    char check[48];        /* "accuracy", "unique", "linear-shift", ... */
    char family[24];       /* "sinusoidal", "rope", "learned", "attention", ... */
    char impl[160];        /* implementation name (built-in, plugin path, table path) */
    char layout[24];       /* "interleaved", "half" or ""; ABI v2 RoPE: "half, f16" */
    pc_status status;      /* PC_OK pass, PC_FAIL fail, PC_SKIP skipped */
    double measured;       /* the measured quantity ... */
    double bound;          /* ... and the bound it was held to */
    char measured_what[64];/* what MEASURED is, e.g. "max |err|/bound" */
    uint64_t seed;
    double seconds;
    /* a command that ended in an error before it had verdicts (exit 2 or
     * 3): its name ("check"), this verdict standing for the run; "" else */
    char command[24];
    char summary[1024];    /* one line: expected vs measured, or why skipped */
    /* what the check was held to (the family's spec: its schedule and
     * parameters, the base and where it came from), one line; "": nothing
     * the spec decides (a skip, a table's own values) */
    char against[1200];    /* long enough for a config path named three times (a layer type, its base) */
    /* a layout the source declines at its first call (an accuracy skip):
     * folded into its sibling layout's verdict when that one was checked
     * (pc_verdicts_fold_declined) */
    int declined;
    char *details;         /* multi-line text (witness, counterexample, cause); malloc'd or NULL */
    char *json;            /* a JSON object (witness / counterexample); malloc'd or NULL */
} pc_verdict;

typedef struct pc_verdicts {
    pc_verdict *v;
    int n, cap;
} pc_verdicts;

/* Append a zeroed verdict; NULL when out of memory. */
pc_verdict *pc_verdicts_add(pc_verdicts *vs);
void pc_verdicts_free(pc_verdicts *vs);
/* A layout a source does not hold is not a verdict of its own: each
 * DECLINED verdict (layout "interleaved" or "half") whose implementation,
 * family and check have a verdict of the other layout that was checked is
 * removed, and that verdict's summary says which layout the source holds.
 * A declined layout without such a sibling stays (a skip). */
void pc_verdicts_fold_declined(pc_verdicts *vs);
/* "; likely cause: CAUSE" (its first line) at the end of V's summary,
 * whole: when the summary cannot hold both, the summary before it is cut
 * at a space and marked " [...]" (the details keep every word), and a
 * cause longer than half the summary is itself cut there. */
void pc_verdict_add_cause(pc_verdict *v, const char *cause);
/* PC_FAIL if any verdict failed, else PC_OK. */
pc_status pc_verdicts_status(const pc_verdicts *vs);

#endif

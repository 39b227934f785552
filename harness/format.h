/* format.h: print a list of verdicts (pecheck check) in one of four formats.
 *
 *   text   one line per passing or skipped check; failures in compiler-error
 *          style ("IMPL: FAMILY CHECK [LAYOUT]: error: SUMMARY") followed by
 *          the indented details; a summary line.
 *   json   {"tool", "version", "status", "counts", "results": [...]}; each
 *          result has check, family, implementation, layout, status,
 *          measured, measured_what, bound, seed, seconds, summary, details
 *          and "data" (the verdict's own JSON object: witness,
 *          counterexample), null where absent.
 *   tap    TAP version 14: the plan, "ok N - IMPL FAMILY CHECK [LAYOUT]",
 *          "not ok N - ..." with a YAML diagnostic block (message, severity,
 *          measured, bound, seed, witness as a literal block, data as a
 *          JSON string), "# SKIP reason" for skipped checks.  When the
 *          environment's TAP_VERSION (set by Test::Harness for the tests it
 *          runs) says the harness reads only TAP 13, the version line says
 *          13: the rest is valid TAP 13 too.
 *   junit  the Jenkins xunit junit-10.xsd shape: <testsuites> with one
 *          <testsuite name tests failures errors skipped time> per
 *          implementation, <testcase classname=FAMILY name=CHECK time>
 *          holding <failure message type>details</failure> or
 *          <skipped message/>.
 * Text fields are escaped for each format (JSON strings, YAML, XML with
 * characters XML 1.0 forbids replaced by '?'). */
#ifndef PECHECK_FORMAT_H
#define PECHECK_FORMAT_H

#include <stdio.h>
#include "verdict.h"

/* FORMAT is an enum pc_format value (opts.h). */
void pc_format_write(FILE *f, int format, const pc_verdicts *vs);

#endif

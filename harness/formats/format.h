/* format.h: the result model and the table of output formats.
 *
 * Every command that reports verdicts (check, accuracy, merge) hands a
 * pc_result to one format of the table; nothing else prints a result.
 * Adding a format: one file defining a pc_format (harness/fmt_NAME.c) and
 * its line in the table of format.c; `--format NAME` then works in every
 * command.
 *
 *   text   check: "PASS  TITLE: SUMMARY; checked against AGAINST" and
 *          "SKIP  TITLE: SUMMARY" lines;
 *          a failure "FAIL  TITLE: error: SUMMARY" (TITLE: "IMPL FAMILY CHECK
 *          [LAYOUT]") followed by the indented details (not when brief); at
 *          the end "failed (N):" with the title of each failure, and the
 *          counts with the run's seed.  A seed other than the run's that the
 *          details do not give is printed under them.  A gate (accuracy,
 *          merge): each implementation's report.
 *   json   check: {"tool", "version", "status", "counts", "results": [...]};
 *          each result has check, family, implementation, layout, status,
 *          measured, measured_what, bound, seed, seconds, summary, against
 *          (what it was checked against; null for a skip), details and
 *          "data" (the verdict's own JSON object: witness, counterexample),
 *          null where absent.  A gate: {"tool", "version",
 *          the fields of the one implementation's result} or {"tool",
 *          "version", "status", "results": [fields...]}.
 *   tap    TAP version 13 (14 when asked for: the same lines): the plan, "ok N - IMPL FAMILY CHECK [LAYOUT]",
 *          "not ok N - ..." with a YAML diagnostic block (message, severity,
 *          measured, bound, against, seed, witness as a literal block, data
 *          as a YAML flow mapping: the JSON object on one line), "# SKIP
 *          reason" for skipped checks.
 *   junit  the Jenkins xunit junit-10.xsd shape: <testsuites> with one
 *          <testsuite name tests failures errors skipped time> per
 *          implementation, <testcase classname="pecheck.IMPL.FAMILY"
 *          name="CHECK [LAYOUT]" time> (IMPL: the source's file name, every
 *          character but letters, digits, '_' and '-' made '_'; " (N)" after
 *          the name of the N-th verdict of the same pair: the pair is unique
 *          in the file) holding <failure message type>against and
 *          details</failure> or <skipped message/>; a run that ended in an
 *          error: classname "pecheck.COMMAND", name "run (exit N)", the
 *          command and its message.
 * Text fields are escaped for each format (JSON strings, YAML, XML with
 * characters XML 1.0 forbids replaced by '?'). */
#ifndef PECHECK_FORMAT_H
#define PECHECK_FORMAT_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "verdict.h"

/* --format: an index into the table of formats; the first four */
enum pc_format_index { PC_FMT_TEXT = 0, PC_FMT_JSON, PC_FMT_TAP, PC_FMT_JUNIT };

/* What a command found. */
typedef struct pc_result {
    const pc_verdicts *vs;
    /* 0: checks (pecheck check).  1: a gate (accuracy, merge): one verdict
     * per implementation, its details the gate's report and its json the
     * gate's fields (accuracy.h: pc_accuracy_print_text, _json_fields). */
    int gate;
    int single;  /* a gate of one implementation: its fields at the top (json) */
    int brief;   /* text: one line per check (--quiet), no details */
    int has_seed;
    uint64_t seed; /* the run's seed: text prints it once, at the end */
    int tap_version; /* tap: the version line, 13 or 14 (0: 13, PC_TAP_VERSION) */
} pc_result;

/* TAP's version line when none is asked for: 13, the newest that every
 * mainstream consumer reads (Test::Harness before 3.48, Debian 12's prove
 * among them, reports "TAP version 14" as a parse error and fails a passing
 * run); the output is the same for 14 (--tap-version 14). */
#define PC_TAP_VERSION 13

typedef struct pc_format {
    const char *name;
    void (*write)(FILE *f, const pc_result *r);
} pc_format;

/* The index of the format named NAME, or -1. */
int pc_format_find(const char *name);
/* Format K of the table (K as pc_format_find returns; enum pc_format_index in
 * opts.h names the first four), or NULL past the end. */
const pc_format *pc_format_at(int k);
/* "text, json, tap or junit" */
void pc_format_names(char *buf, size_t len);

/* Write R (or the verdicts VS of a check) in format FORMAT (text when
 * FORMAT is not in the table). */
void pc_format_result(FILE *f, int format, const pc_result *r);
void pc_format_write(FILE *f, int format, const pc_verdicts *vs);
/* The same with the TAP version line TAP_VERSION (0: PC_TAP_VERSION). */
void pc_format_write_tap(FILE *f, int format, const pc_verdicts *vs, int tap_version);

/* ---- for the writers (fmt_*.c) ---- */
typedef struct pc_counts { int pass, fail, skip, other; double seconds; } pc_counts;
pc_counts pc_format_count(const pc_verdict *v, int n);
/* "pass", "fail", "skip", "error" */
const char *pc_format_status_word(pc_status s);
/* "IMPL FAMILY CHECK [LAYOUT]" */
/* Control bytes of S (newline, tab, escape, DEL) replaced by '?' in place. */
void pc_format_controls(char *s);
void pc_format_title(char *buf, size_t len, const pc_verdict *v);
/* TEXT line by line, each line after INDENT */
void pc_format_indented(FILE *f, const char *text, const char *indent);

#endif

/* cli.h: the subcommands of the pecheck CLI.  Each returns an exit code
 * (PC_EXIT_*), prints its result on stdout and errors on stderr. */
#ifndef PECHECK_CLI_H
#define PECHECK_CLI_H

#include <stdio.h>
#include "opts.h"
#include "harness/base/status.h"

typedef struct pc_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;   /* one line of synopsis */
    const char *summary; /* one line of what it does */
    const char *options; /* the options it accepts (PC_OPTS_*), for its help page */
} pc_command;

/* The options each command accepts, in help-page order: the one list both
 * the parser (pc_opts_parse's ALLOWED) and `pecheck help COMMAND` read;
 * "spec" stands for every family's encoding options (families/spec.h). */
#define PC_OPTS_LIST      "family"
#define PC_OPTS_ACCURACY  "impl plugin table table-sin family spec max-pos positions pos-start dtype " \
                          "tol-abs strict formulation max-abs-err seed format tap-version output quiet timeout-ms plugin-mem-mb plugin-cpu-s plugin-hosts plugin-writable plugin-network threads shard"
#define PC_OPTS_CHECK     "impl plugin table table-sin family spec max-pos positions pos-start dtype " \
                          "tol-abs strict formulation max-abs-err seed format tap-version output quiet timeout-ms plugin-mem-mb plugin-cpu-s plugin-hosts plugin-writable plugin-network cases " \
                          "property replay regressions threads shard serve serve-targets serve-dtype serve-cos-sin"
#define PC_OPTS_REFERENCE "family spec positions max-pos out dtype quiet threads"
#define PC_OPTS_EXPLAIN   "d base seed cases max-pos positions"
#define PC_OPTS_MERGE     "format tap-version output quiet regressions"
#define PC_OPTS_DEMO      "d base max-pos positions seed quiet"
#define PC_OPTS_IDENTIFY  "impl plugin table table-sin family spec max-pos positions pos-start dtype format " \
                          "output quiet timeout-ms plugin-mem-mb plugin-cpu-s plugin-hosts plugin-writable plugin-network"
#define PC_OPTS_REPORT    "impl plugin table table-sin pos-start spec max-pos positions seed strict formulation timeout-ms " \
                          "plugin-mem-mb plugin-cpu-s plugin-hosts plugin-writable plugin-network quiet out"

/* Print the options of ALLOWED (space-separated names), one a line with its
 * argument, meaning and default (harness/cli/help.c).  Returns the number of
 * names without documentation (0 in a correct build; tests check it). */
int pc_help_options(FILE *f, const char *allowed);
/* TEXT word-wrapped to 100 columns, continuation lines indented by INDENT;
 * the cursor stands at column FIRST_COL.  Ends the line. */
void pc_help_wrap(FILE *f, const char *text, int indent, int first_col);

/* Print "pecheck: MSG" on stderr and return PC_EXIT_USAGE (or the exit code
 * of STATUS). */
int pc_cli_fail(pc_status status, const pc_err *err);
/* The same, after writing O's TAP or JUnit --output with one test in error
 * (IMPL "pecheck", FAMILY COMMAND, CHECK "run") holding the message, so that
 * CI shows the cause, not a missing file (harness/cli/fail_output.c).  JSON and
 * text outputs are not written: no partial result. */
int pc_cli_fail_output(const char *command, const pc_opts *o, pc_status status, const pc_err *err);
int pc_exit_code(pc_status status);

/* What `pecheck check` runs on each source (cmd_check.c): its options, each
 * family's spec, and in a shard the record of how each verdict was made. */
struct pc_gate;
struct pc_shard_rec;
struct pc_impl;
struct pc_family;
struct pc_verdicts;
typedef struct pc_check_ctx {
    const pc_opts *o;
    const pc_specs *specs;
    struct pc_shard_rec *rec;    /* check --shard K/N; NULL: not sharded */
} pc_check_ctx;
/* Everything `pecheck check` runs on IMPL: a table's own checks, then for
 * each family it provides (only WANT when not NULL) the family's gate and
 * every property that applies, as verdicts in G->vs.  `pecheck demo` calls
 * it on every built-in. */
pc_status pc_check_impl(struct pc_gate *g, const pc_check_ctx *cr, const struct pc_impl *impl,
                        const struct pc_family *want);
/* Nothing checked is an error, not a pass: PC_EINPUT naming what did not
 * apply when every verdict of VS was skipped or a --property of O ran on
 * nothing (check, and merge of check shards); LAYOUT is --layout's (-1:
 * none). */
pc_status pc_check_require(const pc_opts *o, int layout, const struct pc_verdicts *vs,
                           pc_err *err);
/* VS in O's format on O's output (--quiet: text has one line per check);
 * with --output, the text report goes to stderr too, so that a CI log shows
 * what failed (the file is for tools). */
pc_status pc_check_report(const pc_opts *o, const struct pc_verdicts *vs, pc_err *err);

int pc_cmd_list(int argc, char **argv);
int pc_cmd_accuracy(int argc, char **argv);
int pc_cmd_check(int argc, char **argv);
int pc_cmd_reference(int argc, char **argv);
int pc_cmd_demo(int argc, char **argv);
int pc_cmd_merge(int argc, char **argv);
int pc_cmd_report(int argc, char **argv);
int pc_cmd_explain(int argc, char **argv);
int pc_cmd_identify(int argc, char **argv);

#endif

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
 * the parser (pc_opts_parse's ALLOWED) and `pecheck help COMMAND` read. */
#define PC_OPTS_LIST      "family"
#define PC_OPTS_ACCURACY  "impl plugin table table-sin family d base hf-config rope-scaling rope-freqs seq-len rotary-dim layout max-pos positions pos-start dtype " \
                          "tol-abs strict max-abs-err seed format output quiet timeout-ms plugin-mem-mb plugin-cpu-s plugin-hosts threads shard"
#define PC_OPTS_CHECK     "impl plugin table table-sin family d base hf-config rope-scaling rope-freqs seq-len rotary-dim layout max-pos positions pos-start dtype " \
                          "tol-abs strict max-abs-err seed causal format output quiet timeout-ms plugin-mem-mb plugin-cpu-s plugin-hosts cases " \
                          "property replay regressions threads shard"
#define PC_OPTS_REFERENCE "family d base hf-config rope-scaling rope-freqs seq-len rotary-dim layout positions max-pos out dtype quiet threads"
#define PC_OPTS_EXPLAIN   "d base seed cases max-pos positions"
#define PC_OPTS_MERGE     "format output quiet regressions"
#define PC_OPTS_DEMO      "d base max-pos positions seed quiet"
#define PC_OPTS_IDENTIFY  "impl plugin table table-sin d base layout max-pos positions pos-start seq-len format output quiet " \
                          "timeout-ms plugin-mem-mb plugin-cpu-s plugin-hosts"
#define PC_OPTS_REPORT    "impl plugin table table-sin pos-start layout d base max-pos positions seed timeout-ms " \
                          "plugin-mem-mb plugin-cpu-s plugin-hosts quiet out"

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

/* cli.h: the subcommands of the pecheck CLI.  Each returns an exit code
 * (PC_EXIT_*), prints its result on stdout and errors on stderr. */
#ifndef PECHECK_CLI_H
#define PECHECK_CLI_H

#include "opts.h"
#include "status.h"

typedef struct pc_command {
    const char *name;
    int (*run)(int argc, char **argv);
    const char *usage;   /* one line of synopsis */
    const char *summary; /* one line of what it does */
} pc_command;

/* Print "pecheck: MSG" on stderr and return PC_EXIT_USAGE (or the exit code
 * of STATUS). */
int pc_cli_fail(pc_status status, const pc_err *err);
int pc_exit_code(pc_status status);

int pc_cmd_list(int argc, char **argv);
int pc_cmd_accuracy(int argc, char **argv);
int pc_cmd_check(int argc, char **argv);
int pc_cmd_reference(int argc, char **argv);
int pc_cmd_demo(int argc, char **argv);
int pc_cmd_merge(int argc, char **argv);
int pc_cmd_report(int argc, char **argv);
int pc_cmd_explain(int argc, char **argv);

#endif

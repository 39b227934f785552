/* main.c: the pecheck command line: dispatch to a subcommand. */
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "cli.h"
#include "output.h"
#include "version.h"

static const pc_command commands[] = {
    { "list", pc_cmd_list, "pecheck list",
      "the built-in implementations, one line each" },
    { "accuracy", pc_cmd_accuracy,
      "pecheck accuracy --impl NAME --family sinusoidal|rope [--d N] [--base B] "
      "[--layout interleaved|half] [--max-pos N | --positions A:B] [--dtype f32|bf16|f16] "
      "[--tol-abs X] [--seed S] [--threads N] [--shard K/N] [--format text|json] [--output FILE] [--quiet]",
      "compare an implementation with the certified reference (exit 0 pass, 1 fail)" },
    { "check", pc_cmd_check,
      "pecheck check [--impl NAME|all] [--plugin PATH.so] [--table PE.npy [--table-sin SIN.npy] "
      "[--pos-start P]] [--family sinusoidal|rope|learned|attention|t5|alibi|txl|all] [--d N] [--base B] "
      "[--layout interleaved|half] [--max-pos N | --positions A:B] [--dtype f32|bf16|f16] "
      "[--tol-abs X] [--seed S] [--causal] [--timeout-ms T] [--cases N] [--property NAME] "
      "[--replay SEED] [--regressions FILE|off] [--threads N] "
      "[--format text|json|tap|junit] [--output FILE] [--quiet]",
      "gate implementations, plugins and .npy tables on every family they provide "
      "(accuracy, contracts, properties; exit 0 pass, 1 fail)" },
    { "reference", pc_cmd_reference,
      "pecheck reference --family sinusoidal|rope --d N [--base B] [--layout ...] "
      "--positions A:B --out FILE.npy [--dtype f32|f64]",
      "write the certified reference table as .npy" },
    { "explain", pc_cmd_explain, "pecheck explain [NAME] [--d N] [--seed S] [--cases N] [--max-pos N]",
      "list the properties, or show one's math and a live minimal counterexample" },
    { "merge", pc_cmd_merge, "pecheck merge [--format text|json] [--output FILE] SHARD.json...",
      "combine the JSON results of `accuracy --shard K/N` into one verdict and report" },
    { "demo", pc_cmd_demo, "pecheck demo [--d N] [--max-pos N] [--quiet]",
      "run the gate on every built-in and print a summary table" },
    { "report", pc_cmd_report, "pecheck report --out DIR (--impl NAME|all | --plugin PATH.so | --table PATH.npy [--table-sin SIN.npy])... [--d N] [--base B] [--max-pos N | --positions A:B] [--pos-start P] [--layout L] [--seed S] [--timeout-ms MS] [--quiet]",
      "write an HTML accuracy report with gnuplot plots into DIR" },
};
#define N_COMMANDS (sizeof commands / sizeof commands[0])

int pc_exit_code(pc_status status)
{
    switch (status) {
    case PC_OK: case PC_SKIP: return PC_EXIT_PASS;
    case PC_FAIL: return PC_EXIT_FAIL;
    case PC_EINPUT: case PC_EIO: return PC_EXIT_USAGE;
    default: return PC_EXIT_INTERNAL;
    }
}

int pc_cli_fail(pc_status status, const pc_err *err)
{
    fprintf(stderr, "pecheck: %s\n", err && err->msg[0] ? err->msg : "error");
    return pc_exit_code(status);
}

static void usage(FILE *f)
{
    fprintf(f, "usage: pecheck COMMAND [OPTIONS]\n\ncommands:\n");
    for (size_t k = 0; k < N_COMMANDS; k++)
        fprintf(f, "  %-10s %s\n", commands[k].name, commands[k].summary);
    fprintf(f, "\n`pecheck help COMMAND` shows a command's options.\n"
               "exit codes: 0 pass, 1 fail, 2 usage or input error, 3 internal error\n");
}

/* MPFR keeps caches (constants such as pi, per thread); free them at exit so
 * LeakSanitizer sees only real leaks. */
static void free_mpfr_caches(void)
{
    mpfr_free_cache();
}

/* Every command prints on stdout; what it printed must have arrived
 * (`pecheck list > /dev/full` is a write error, exit 3, not a pass). */
static int stdout_kept(int rc)
{
    pc_err err = { "" };
    if (rc == PC_EXIT_INTERNAL) return rc; /* already reported, perhaps this very error */
    if (pc_out_stdout_check(&err) != PC_OK) {
        fprintf(stderr, "pecheck: %s\n", err.msg);
        return PC_EXIT_INTERNAL;
    }
    return rc;
}

int main(int argc, char **argv)
{
    atexit(free_mpfr_caches);
    if (argc < 2) {
        usage(stderr);
        return PC_EXIT_USAGE;
    }
    const char *cmd = argv[1];
    if (!strcmp(cmd, "--version") || !strcmp(cmd, "version")) {
        printf("%s %s\n", PC_TOOL, PC_VERSION);
        return stdout_kept(PC_EXIT_PASS);
    }
    if (!strcmp(cmd, "--help") || !strcmp(cmd, "-h") || !strcmp(cmd, "help")) {
        if (argc > 2)
            for (size_t k = 0; k < N_COMMANDS; k++)
                if (!strcmp(argv[2], commands[k].name)) {
                    printf("usage: %s\n%s\n", commands[k].usage, commands[k].summary);
                    return stdout_kept(PC_EXIT_PASS);
                }
        usage(stdout);
        return stdout_kept(PC_EXIT_PASS);
    }
    for (size_t k = 0; k < N_COMMANDS; k++)
        if (!strcmp(cmd, commands[k].name))
            return stdout_kept(commands[k].run(argc - 2, argv + 2));
    fprintf(stderr, "pecheck: unknown command '%s' (try `pecheck help`)\n", cmd);
    return PC_EXIT_USAGE;
}

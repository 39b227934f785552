/* main.c: the pecheck command line: dispatch to a subcommand. */
#include <mpfr.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include "cli.h"
#include "harness/io/output.h"
#include "harness/sandbox/host_proto.h"
#include "harness/base/version.h"
#include "harness/base/suggest.h"

static const pc_command commands[] = {
    { "list", pc_cmd_list, "pecheck list [--family NAME]",
      "the built-in implementations, one line each", PC_OPTS_LIST },
    { "accuracy", pc_cmd_accuracy, "pecheck accuracy (--impl NAME | --plugin PATH.so | --table PE.npy) [OPTIONS]",
      "compare an implementation with the certified reference (exit 0 pass, 1 fail)", PC_OPTS_ACCURACY },
    { "check", pc_cmd_check, "pecheck check (--impl NAME|all | --plugin PATH.so | --table PE.npy)... [OPTIONS]",
      "gate implementations, plugins and .npy tables on every family they provide "
      "(accuracy, contracts, properties; exit 0 pass, 1 fail)", PC_OPTS_CHECK },
    { "reference", pc_cmd_reference, "pecheck reference --family sinusoidal|rope --d N --positions A:B --out FILE.npy [OPTIONS]",
      "write the certified reference table as .npy", PC_OPTS_REFERENCE },
    { "identify", pc_cmd_identify, "pecheck identify (--impl NAME | --plugin PATH.so | --table T.npy [--table-sin SIN.npy]) [--family F] [OPTIONS]",
      "find which encoding a table or implementation computes (RoPE: base, rope_scaling, layout, "
      "storage, attention factor, offset; ALiBi: the slopes' rule and computation; T5: the "
      "bucket parameters) and the `pecheck check` arguments that express it (exit 0 found, 1 "
      "none explains it)", PC_OPTS_IDENTIFY },
    { "explain", pc_cmd_explain, "pecheck explain [PROPERTY|FAMILY] [OPTIONS]",
      "list the properties, or show one's math and a live minimal counterexample, or a family's "
      "properties", PC_OPTS_EXPLAIN },
    { "merge", pc_cmd_merge, "pecheck merge [OPTIONS] SHARD.json...",
      "combine the JSON shards of `accuracy --shard K/N` or `check --shard K/N` into one verdict", PC_OPTS_MERGE },
    { "demo", pc_cmd_demo, "pecheck demo [OPTIONS]",
      "run the gate on every built-in and print a summary table", PC_OPTS_DEMO },
    { "report", pc_cmd_report, "pecheck report --out DIR (--impl NAME|all | --plugin PATH.so | --table PE.npy)... [OPTIONS]",
      "write an HTML accuracy report with gnuplot plots into DIR", PC_OPTS_REPORT },
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

static const pc_command *find_command(const char *name)
{
    for (size_t k = 0; k < N_COMMANDS; k++)
        if (!strcmp(name, commands[k].name))
            return &commands[k];
    return NULL;
}

/* NAME is no command: say so with the nearest one (WHERE: "" or "help"); the
 * dashes of an option's spelling (--chek, --check) are not part of the word */
static int unknown_command(const char *where, const char *name)
{
    pc_suggest s;
    char hint[96];
    const char *word = name + strspn(name, "-");
    pc_suggest_init(&s, *word ? word : name);
    for (size_t k = 0; k < N_COMMANDS; k++) pc_suggest_add(&s, commands[k].name);
    if (!*where) pc_suggest_add_list(&s, "help version");
    fprintf(stderr, "pecheck: %s%sunknown command '%s'%s (try `pecheck help`)\n", where,
            *where ? ": " : "", name, pc_suggest_text(&s, *where ? "pecheck help " : "pecheck ",
                                                      hint, sizeof hint));
    return PC_EXIT_USAGE;
}

/* `pecheck COMMAND --help` (or -h) anywhere among its arguments */
static int wants_help(int argc, char **argv)
{
    for (int k = 0; k < argc; k++)
        if (!strcmp(argv[k], "--help") || !strcmp(argv[k], "-h"))
            return 1;
    return 0;
}

/* A command's help page: synopsis, summary, every option it accepts. */
static int help_page(const pc_command *c)
{
    printf("usage: %s\n", c->usage);
    pc_help_wrap(stdout, c->summary, 0, 0);
    printf("\noptions:\n");
    int undocumented = pc_help_options(stdout, c->options);
    printf("\nexit codes: 0 pass, 1 fail, 2 usage or input error, 3 internal error\n");
    return undocumented ? PC_EXIT_INTERNAL : PC_EXIT_PASS;
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
    /* the plugin host process (host_worker.c): before any of pecheck's setup */
    if (argc >= 2 && !strcmp(argv[1], HOST_ARGV1))
        return pc_host_main(argc, argv);
    /* Not dumpable: no process of the same user without CAP_SYS_PTRACE (a
     * plugin host has none, host_seal.h) may open /proc/PID/mem, fd/ or
     * environ of pecheck or attach to it; pecheck leaves no core file. */
    prctl(PR_SET_DUMPABLE, 0, 0, 0, 0);
    /* `pecheck ... >&-`: stdout stays closed (the plugin host's memory, opened
     * first, would take descriptor 1 and the report would land in it) */
    pc_out_reserve_std();
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
        if (argc == 2) {
            usage(stdout);
            return stdout_kept(PC_EXIT_PASS);
        }
        const pc_command *c = find_command(argv[2]);
        if (!c) return unknown_command("help", argv[2]);
        return stdout_kept(help_page(c));
    }
    const pc_command *c = find_command(cmd);
    if (c)
        return stdout_kept(wants_help(argc - 2, argv + 2) ? help_page(c) : c->run(argc - 2, argv + 2));
    return unknown_command("", cmd);
}

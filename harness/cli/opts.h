/* opts.h: command-line options shared by the pecheck subcommands.
 *
 * One parser knows every option; each subcommand passes the list of the
 * options it accepts, so an option given to the wrong command is a usage
 * error that names it. */
#ifndef PECHECK_OPTS_H
#define PECHECK_OPTS_H

#include <stdint.h>
#include "harness/base/status.h"
#include "harness/base/parse.h"
#include "harness/base/dtype.h"
#include "harness/formats/format.h"
#include "harness/shard/shard.h"
#include "families/spec.h"

#define PC_MAX_SOURCES 16


typedef struct pc_opts {
    /* what to test */
    const char *impls[PC_MAX_SOURCES];   int n_impls;    /* --impl NAME */
    const char *plugins[PC_MAX_SOURCES]; int n_plugins;  /* --plugin PATH.so */
    const char *tables[PC_MAX_SOURCES];  int n_tables;   /* --table PATH.npy */
    const char *table_sin;                               /* --table-sin PATH.npy */
    const char *family;                                  /* --family */
    /* a RoPE kernel served by the calling process (harness/sandbox/served.h) */
    int serve_set;                                       /* --serve W,R was given */
    int serve_w, serve_r;                                /* its pipes */
    const char *serve_targets;                           /* --serve-targets A,B */
    int serve_dtype;                                     /* --serve-dtype: PECHECK_DTYPE_* */
    int serve_cos_sin;                                   /* --serve-cos-sin */
    /* the encoding: the options the families own (--d, --base, --layout,
     * --hf-config, ...), validated, each family's spec is resolved from them
     * (families/spec.h) */
    pc_given given;
    int64_t pos_lo, pos_hi; /* --positions A:B or --max-pos N (inclusive) */
    int pos_set;            /* --positions or --max-pos was given */
    const char *pos_opt;    /* which: "positions" or "max-pos" (the last given) */
    int pos_start_set;      /* --pos-start was given */
    int64_t pos_start;      /* --pos-start P (tables) */
    int dtype;              /* --dtype */
    int dtype_set;
    double tol_abs;         /* --tol-abs X (< 0: precision model) */
    double max_abs_err;     /* --max-abs-err E: an absolute budget on top of the model (< 0: none) */
    int strict;             /* --strict: the strict tolerance class (model.h) */
    int formulation;        /* --formulation: the strict class it names (PC_CLASS_*; 0: none) */
    uint64_t seed;          /* --seed */
    /* output */
    int format;             /* --format */
    int tap_version;        /* --tap-version 13|14 (0: not given, PC_TAP_VERSION) */
    const char *output;     /* --output FILE */
    const char *out;        /* --out FILE or DIR */
    int quiet;              /* --quiet */
    /* engine */
    int threads;            /* --threads N (0: all cores) */
    int shard_k, shard_n;   /* --shard K/N (1-based K) */
    int shard_set;          /* --shard was given (check writes a shard file, even for 1/1) */
    long timeout_ms;        /* --timeout-ms */
    long plugin_mem_mb;     /* --plugin-mem-mb: the plugin host's address space (0: unlimited) */
    long plugin_cpu_s;      /* --plugin-cpu-s: the plugin host's CPU time (0: unlimited) */
    int plugin_hosts;       /* --plugin-hosts N: plugin host processes (host.h) */
    const char *plugin_writable[PC_MAX_SOURCES]; int n_plugin_writable; /* --plugin-writable DIR */
    int plugin_network;       /* --plugin-network: the plugin hosts keep the network */
    long cases;             /* --cases N */
    const char *properties[PC_MAX_SOURCES]; int n_properties; /* --property */
    int replay_set; uint64_t replay;                  /* --replay SEED */
    const char *regressions; /* --regressions FILE (NULL: .pecheck-regressions, "off": none) */
    /* positional arguments left over (e.g. `explain NAME`, `merge FILES`) */
    const char *args[64]; int n_args;
} pc_opts;

void pc_opts_defaults(pc_opts *o);

/* Parse ARGV (after the subcommand).  ALLOWED is a space-separated list of
 * option names without dashes ("impl family d ..."), where "spec" stands
 * for every option of every family (families/spec.h); MAX_ARGS positional
 * arguments are accepted.  An option the core does not own is looked up
 * in the families' (pc_option_find), validated and kept in O->given.
 * Returns PC_OK or PC_EINPUT with a message. */
pc_status pc_opts_parse(int argc, char **argv, const char *allowed, int max_args,
                        pc_opts *o, pc_err *err);

/* Add the family option NAME with value V ("" for a flag) to O->given, as
 * the parser does (validated).  PC_EINPUT naming it. */
pc_status pc_opts_give(pc_opts *o, const char *name, const char *v, pc_err *err);


#endif

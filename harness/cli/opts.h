/* opts.h: command-line options shared by the pecheck subcommands.
 *
 * One parser knows every option; each subcommand passes the list of the
 * options it accepts, so an option given to the wrong command is a usage
 * error that names it. */
#ifndef PECHECK_OPTS_H
#define PECHECK_OPTS_H

#include <stdint.h>
#include "harness/base/status.h"

#define PC_MAX_SOURCES 16
/* --shard K/N: at most 2^20 shards (far more than blocks in any practical run) */
#define PC_SHARD_MAX (1 << 20)

enum pc_dtype { PC_DT_F32 = 0, PC_DT_BF16, PC_DT_F16, PC_DT_F64 };
/* --format: an index into the table of formats (format.h); the first four */
enum pc_format_index { PC_FMT_TEXT = 0, PC_FMT_JSON, PC_FMT_TAP, PC_FMT_JUNIT };

typedef struct pc_opts {
    /* what to test */
    const char *impls[PC_MAX_SOURCES];   int n_impls;    /* --impl NAME */
    const char *plugins[PC_MAX_SOURCES]; int n_plugins;  /* --plugin PATH.so */
    const char *tables[PC_MAX_SOURCES];  int n_tables;   /* --table PATH.npy */
    const char *table_sin;                               /* --table-sin PATH.npy */
    const char *family;                                  /* --family */
    /* parameters */
    int d;                  /* --d (default 128) */
    int d_set;              /* --d was given (tables take d from their shape) */
    double base;            /* --base (default 10000) */
    int base_set;           /* --base was given */
    /* RoPE frequency schedules (families/rope/scaling.h) */
    const char *hf_config;  /* --hf-config config.json */
    const char *rope_scaling; /* --rope-scaling JSON */
    const char *rope_freqs; /* --rope-freqs FACTORS.npy */
    double seq_len;         /* --seq-len L */
    int seq_len_set;
    int rotary_dim;         /* --rotary-dim R (0: not given) */
    const void *rope;       /* the parsed schedule (pc_rope_spec), NULL: geometric */
    int layout;             /* --layout: 0 interleaved, 1 half, -1 = the implementation's */
    int64_t pos_lo, pos_hi; /* --positions A:B or --max-pos N (inclusive) */
    int pos_set;            /* --positions or --max-pos was given */
    int64_t pos_start;      /* --pos-start P (tables) */
    int dtype;              /* --dtype */
    int dtype_set;
    double tol_abs;         /* --tol-abs X (< 0: precision model) */
    double max_abs_err;     /* --max-abs-err E: an absolute budget on top of the model (< 0: none) */
    int strict;             /* --strict: the strict tolerance class (model.h) */
    uint64_t seed;          /* --seed */
    int causal;             /* --causal */
    /* output */
    int format;             /* --format */
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
    long cases;             /* --cases N */
    const char *properties[PC_MAX_SOURCES]; int n_properties; /* --property */
    int replay_set; uint64_t replay;                  /* --replay SEED */
    const char *regressions; /* --regressions FILE (NULL: .pecheck-regressions, "off": none) */
    /* positional arguments left over (e.g. `explain NAME`, `merge FILES`) */
    const char *args[64]; int n_args;
} pc_opts;

void pc_opts_defaults(pc_opts *o);

/* Parse ARGV (after the subcommand).  ALLOWED is a space-separated list of
 * option names without dashes ("impl family d ..."); MAX_ARGS positional
 * arguments are accepted.  Returns PC_OK or PC_EINPUT with a message. */
pc_status pc_opts_parse(int argc, char **argv, const char *allowed, int max_args,
                        pc_opts *o, pc_err *err);

const char *pc_dtype_name(int dtype);
const char *pc_layout_name(int layout);

/* Strict number parsing: the whole string, in range; message names OPT. */
pc_status pc_parse_i64(const char *opt, const char *s, int64_t lo, int64_t hi,
                       int64_t *v, pc_err *err);
pc_status pc_parse_double(const char *opt, const char *s, double *v, pc_err *err);

#endif

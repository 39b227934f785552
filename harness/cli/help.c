/* help.c: one line of documentation per option, for `pecheck help COMMAND`
 * and `pecheck COMMAND --help`.  Each command's help page lists the options
 * its parser accepts (PC_OPTS_* in cli.h), so the page cannot drift from
 * what the command takes.  Defaults are those of pc_opts_defaults (opts.c). */
#include <stdio.h>
#include <string.h>
#include "cli.h"

typedef struct opt_doc {
    const char *name, *arg, *meaning;
} opt_doc;

static const opt_doc docs[] = {
    { "impl", "NAME|all", "a built-in implementation (`pecheck list`); repeatable; all: every built-in" },
    { "plugin", "PATH.so", "a shared library following the plugin ABI (docs/plugins.md); repeatable" },
    { "table", "PE.npy", "a .npy table: sinusoidal PE, or a RoPE cos cache with --table-sin; repeatable" },
    { "table-sin", "SIN.npy", "the RoPE sin cache that goes with --table COS.npy" },
    { "family", "NAME", "an encoding family (the FAMILY column of `pecheck list`), or all; default: every family the source provides" },
    { "d", "N", "model (or head) dimension, even, 2..8192; default 128 (tables: their width)" },
    { "base", "B", "frequency base, > 1; default 10000 (identify: the base a built-in or plugin is called with; for a table, the base to assume)" },
    { "hf-config", "config.json", "RoPE: the model's HuggingFace config (rope_theta, rope_scaling, head_dim, partial_rotary_factor, lengths): the reference follows its frequency schedule (docs/schedules.md)" },
    { "rope-scaling", "JSON", "RoPE: an HF rope_scaling object inline, e.g. '{\"rope_type\":\"linear\",\"factor\":8}' (replaces the config's)" },
    { "rope-freqs", "F.npy", "RoPE: per-pair frequency factors (llama.cpp rope_freqs): omega_i = base^(-2i/d) / F[i]" },
    { "seq-len", "L", "RoPE: the sequence length a dynamic or longrope cache was built for; default: a table's last position + 1" },
    { "rotary-dim", "R", "RoPE: the rotary dim when it is below the head dim (partial rotary); the cache holds R dims" },
    { "layout", "L", "pair layout: interleaved (sin,cos pairs) or half (sin block, cos block); default: check gates both, accuracy interleaved (half for a RoPE that declines it)" },
    { "max-pos", "N", "positions 0..N; default 4095" },
    { "positions", "A:B", "positions A..B inclusive, 0 <= A <= B <= 2^53" },
    { "pos-start", "P", "the position of a table's first row; default 0" },
    { "dtype", "T", "storage type the values are judged in: f32, bf16, f16 (reference: f32, f64, f16, or bf16 as <u2 bit patterns); default f32" },
    { "tol-abs", "X", "an absolute bound |err| <= X in place of the precision model's; default: the model" },
    { "strict", "", "RoPE/sinusoidal: the strict tolerance class (a correctly rounded binary32 frequency and angle; f16/bf16 outputs of a v2 RoPE kernel rounded once); default: the class of every mainstream binary32 formulation (and of f16/bf16 kernels rounding cache, products and sum: docs/schedules.md) (docs/precision-model.md)" },
    { "max-abs-err", "E", "an absolute budget |err| <= E on top of the precision model (both must hold)" },
    { "seed", "S", "seed of the generated cases; default 20260422 (printed with every failure)" },
    { "causal", "", "attention: gate only the causal (masked) variant; equivariance then expects the mask to break it" },
    { "format", "F", "output format: text, json, tap or junit (identify: text or json); default text" },
    { "output", "FILE", "write the result to FILE (whole or not at all) instead of stdout" },
    { "out", "PATH", "the file (reference: .npy) or folder (report) to write" },
    { "quiet", "", "no progress line; check: one line per check" },
    { "timeout-ms", "T", "time limit of each call into a plugin, in ms; default 5000" },
    { "plugin-mem-mb", "M", "address space of the plugin host process, in MiB (RLIMIT_AS); default unlimited" },
    { "plugin-cpu-s", "S", "CPU time of the plugin host process, in seconds (RLIMIT_CPU; it is replaced when spent); default unlimited" },
    { "plugin-hosts", "N", "plugin host processes serving a plugin's calls in parallel (each with the limits above; the calls each gets do not depend on --threads); default 2" },
    { "cases", "N", "generated cases per property; default 100" },
    { "property", "NAME", "run only this property (`pecheck explain` lists them; accuracy: the gate; all: every gate and property); repeatable" },
    { "replay", "SEED", "rerun the case of this seed (printed with a counterexample)" },
    { "regressions", "FILE|off", "file of failing seeds replayed first (merge: where it saves the shards' failing cases); default .pecheck-regressions, or $PECHECK_REGRESSIONS" },
    { "threads", "N", "worker threads; default every core (results are the same for any N)" },
    { "shard", "K/N", "check only shard K of N: accuracy blocks and property cases (combine the JSON shards with `pecheck merge`)" },
};

static const opt_doc *find_doc(const char *name, size_t len)
{
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++)
        if (strlen(docs[k].name) == len && !strncmp(docs[k].name, name, len))
            return &docs[k];
    return NULL;
}

/* Help pages fit a 100-column terminal: meanings wrap at word boundaries
 * after the 27-column option field. */
#define HELP_WIDTH 100
#define HELP_INDENT 27

void pc_help_wrap(FILE *f, const char *text, int indent, int first_col)
{
    int col = first_col;
    for (const char *p = text; *p;) {
        int len = (int)strcspn(p, " ");
        if (col > indent && col + 1 + len > HELP_WIDTH) {
            fprintf(f, "\n%*s", indent, "");
            col = indent;
        } else if (col > indent) {
            fputc(' ', f);
            col++;
        }
        fprintf(f, "%.*s", len, p);
        col += len;
        p += len;
        while (*p == ' ') p++;
    }
    fputc('\n', f);
}

int pc_help_options(FILE *f, const char *allowed)
{
    int undocumented = 0;
    for (const char *p = allowed; *p;) {
        size_t len = strcspn(p, " ");
        const opt_doc *doc = find_doc(p, len);
        char head[48];
        snprintf(head, sizeof head, "--%.*s%s%s", (int)len, p,
                 doc && doc->arg[0] ? " " : "", doc ? doc->arg : "");
        fprintf(f, "  %-24s ", head);
        pc_help_wrap(f, doc ? doc->meaning : "(undocumented)", HELP_INDENT, HELP_INDENT);
        undocumented += !doc;
        p += len;
        while (*p == ' ') p++;
    }
    return undocumented;
}

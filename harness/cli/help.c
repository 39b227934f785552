/* help.c: one line of documentation per option, for `pecheck help COMMAND`
 * and `pecheck COMMAND --help`.  Each command's help page lists the options
 * its parser accepts (PC_OPTS_* in cli.h), so the page cannot drift from
 * what the command takes.  Defaults are those of pc_opts_defaults (opts.c). */
#include <stdio.h>
#include <string.h>
#include "cli.h"
#include "families/spec.h"

typedef struct opt_doc {
    const char *name, *arg, *meaning;
} opt_doc;

static const opt_doc docs[] = {
    { "impl", "NAME|all", "a built-in implementation (`pecheck list`); repeatable; all: every built-in" },
    { "plugin", "PATH.so", "a shared library following the plugin ABI (docs/plugins.md); repeatable" },
    { "table", "PE.npy", "a .npy table: sinusoidal PE, a RoPE cos cache with --table-sin, or with "
      "--family: a learned table, ALiBi slopes or biases, T5 buckets; repeatable" },
    { "table-sin", "SIN.npy", "the RoPE sin cache that goes with --table COS.npy" },
    { "family", "NAME", "an encoding family (the FAMILY column of `pecheck list`), or all; default: every family the source provides" },
    { "max-pos", "N", "positions 0..N; default 4095 (a table: its rows, and no other)" },
    { "positions", "A:B", "positions A..B inclusive, 0 <= A <= B <= 2^53 (a table: its rows, and no other)" },
    { "pos-start", "P", "the position of a table's first row (only with a table); default 0" },
    { "dtype", "T", "storage type the values are judged in: f32, bf16, f16 (reference: f32, f64, f16, or bf16 as <u2 bit patterns), or PyTorch's and numpy's names for them (float32, fp32, float, bfloat16, float16, fp16, half, float64, fp64, double); default f32" },
    { "tol-abs", "X", "an absolute bound |err| <= X in place of the precision model's (with --strict or --formulation: exit 2); default: the model" },
    { "formulation", "NAME", "RoPE: the strict class of one formulation (implies --strict): hf, transformers' float32 frequency code of the schedule (modeling_rope_utils.py), each pair's constant computed from its binary32 operations (other families, e.g. under --impl all, run their own strict class, said in the verdict; no RoPE source: exit 2); ggml, llama.cpp's CPU rope (ggml_rope_cache_init: the cumulative product theta *= powf(base, -2/n_dims), rope_yarn, rope_freqs factors), each pair's constant computed alike, for the schedules llama.cpp implements; cr, a correctly rounded binary32 frequency (docs/precision-model.md)" },
    { "strict", "", "RoPE/sinusoidal: the strict tolerance class: RoPE, the class of the formulation --formulation names (hf when none is named: transformers' float32 frequency code of the schedule; cr where transformers has none, said in the output); sinusoidal, cr (a correctly rounded binary32 frequency and angle); f16/bf16 outputs of a v2 RoPE kernel rounded once; default: the class of every mainstream binary32 formulation (and of f16/bf16 kernels rounding cache, products and sum: docs/schedules.md) (docs/precision-model.md)" },
    { "max-abs-err", "E", "an absolute budget |err| <= E on top of the precision model (both must hold)" },
    { "seed", "S", "seed of the generated cases; default 20260422 (printed with every failure)" },
    { "format", "F", "output format: text, json, tap or junit (identify: text or json); default text" },
    { "tap-version", "V", "--format tap: the version line, 13 or 14 (the same lines; Test::Harness before 3.48, Debian 12's prove, reads 13 only); default 13" },
    { "output", "FILE", "write the result to FILE (whole or not at all) instead of stdout" },
    { "out", "PATH", "the file (reference: .npy) or folder (report) to write" },
    { "quiet", "", "no progress line; check: one line per check" },
    { "timeout-ms", "T", "time limit of each call into a plugin, in ms; default 5000" },
    { "plugin-mem-mb", "M", "address space of the plugin host process, in MiB (RLIMIT_AS); default unlimited" },
    { "plugin-cpu-s", "S", "CPU time of the plugin host process, in seconds (RLIMIT_CPU; it is replaced when spent); default unlimited" },
    { "plugin-hosts", "N", "plugin host processes serving a plugin's calls in parallel (each with the limits above; the calls each gets do not depend on --threads); default 2" },
    { "plugin-writable", "DIR", "a folder the plugin host may write in besides its own scratch folder (a cache, a log); repeatable; default none (docs/plugins.md)" },
    { "plugin-network", "", "leave the plugin host the network (sockets, TCP/UDP, connecting to unix sockets), which it has not by default; for a kernel that needs a server (docs/plugins.md)" },
    { "serve", "W,R", "gate a RoPE rotation served by the process that started pecheck, over the pipes W (requests) and R (replies): the Python package's check_rotation sets it (docs/python.md \"The served kernel's protocol\")" },
    { "serve-targets", "A[,B]", "with --serve: one implementation under test per name, each gated (the rotation's q and k); default rotation" },
    { "serve-dtype", "f32|f16|bf16", "with --serve: the one dtype the served rotation takes; default f32" },
    { "serve-cos-sin", "", "with --serve: each request carries the certified cos and sin of its angles (for a rotation that takes cos/sin)" },
    { "cases", "N", "generated cases per property; default 100" },
    { "property", "NAME", "run only this property (`pecheck explain` lists them; accuracy: the gate; all: every gate and property); repeatable" },
    { "replay", "SEED", "rerun the case of this seed (printed with a counterexample)" },
    { "regressions", "FILE|off", "file of failing seeds replayed first (merge: where it saves the shards' failing cases); default .pecheck-regressions, or $PECHECK_REGRESSIONS" },
    { "threads", "N", "worker threads; default every core (results are the same for any N)" },
    { "shard", "K/N", "check only shard K of N: accuracy blocks and property cases (combine the JSON shards with `pecheck merge`)" },
};

/* The core's option NAME (LEN bytes), else a family's (families/spec.h),
 * into *TMP. */
static const opt_doc *find_doc(const char *name, size_t len, opt_doc *tmp)
{
    for (size_t k = 0; k < sizeof docs / sizeof docs[0]; k++)
        if (strlen(docs[k].name) == len && !strncmp(docs[k].name, name, len))
            return &docs[k];
    char n[64];
    snprintf(n, sizeof n, "%.*s", (int)len, name);
    const pc_option *o = pc_option_find(n);
    if (!o) return NULL;
    *tmp = (opt_doc){ o->name, o->arg, o->help };
    return tmp;
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

static void print_one(FILE *f, const char *p, size_t len, int *undocumented)
{
    opt_doc tmp;
    const opt_doc *doc = find_doc(p, len, &tmp);
    char head[48];
    snprintf(head, sizeof head, "--%.*s%s%s", (int)len, p,
             doc && doc->arg[0] ? " " : "", doc ? doc->arg : "");
    fprintf(f, "  %-24s ", head);
    pc_help_wrap(f, doc ? doc->meaning : "(undocumented)", HELP_INDENT, HELP_INDENT);
    *undocumented += !doc;
}

typedef struct each_ctx { FILE *f; int *undocumented; } each_ctx;

/* A later family's declaration of an option the first one's line printed
 * (--hf-config): its help below that line. */
static void print_other_decl(const pc_option *o, void *ctx)
{
    each_ctx *c = ctx;
    if (pc_option_find(o->name) == o) return;
    fprintf(c->f, "%*s", HELP_INDENT, "");
    pc_help_wrap(c->f, o->help, HELP_INDENT, HELP_INDENT);
}

static void print_family_option(const pc_option *o, void *ctx)
{
    each_ctx *c = ctx;
    print_one(c->f, o->name, strlen(o->name), c->undocumented);
    pc_option_each_of(o->name, print_other_decl, ctx);
}

int pc_help_options(FILE *f, const char *allowed)
{
    int undocumented = 0;
    for (const char *p = allowed; *p;) {
        size_t len = strcspn(p, " ");
        if (len == 4 && !strncmp(p, "spec", 4)) { /* every family's options */
            each_ctx c = { f, &undocumented };
            pc_option_each(print_family_option, &c);
        } else
            print_one(f, p, len, &undocumented);
        p += len;
        while (*p == ' ') p++;
    }
    return undocumented;
}

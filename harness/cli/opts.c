/* opts.c: the option parser of the pecheck CLI. */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include "opts.h"
#include "harness/engine/model.h"
#include "harness/formats/format.h"
#include "harness/sandbox/host.h"
#include "harness/base/rng.h"
#include "harness/base/suggest.h"
#include "reference/reference.h"

void pc_opts_defaults(pc_opts *o)
{
    memset(o, 0, sizeof *o);
    o->pos_lo = 0;
    o->pos_hi = 4095;      /* default range of `accuracy`: 4096 positions */
    o->dtype = PC_DT_F32;
    o->tol_abs = -1.0;
    o->max_abs_err = -1.0;
    o->seed = PC_DEFAULT_SEED;
    o->format = PC_FMT_TEXT;
    o->timeout_ms = 5000;  /* per call of code under test */
    o->plugin_hosts = PC_HOST_POOL;
    o->cases = 100;
    o->shard_k = 1;
    o->shard_n = 1;
}

static pc_status parse_u64(const char *opt, const char *s, uint64_t *v, pc_err *err)
{
    char *end;
    errno = 0;
    if (*s == '-' || *s == '\0')
        return pc_seterr(err, PC_EINPUT, "%s: expected a non-negative integer, got '%s'", opt, s);
    unsigned long long x = strtoull(s, &end, 0);
    if (*end != '\0' || errno == ERANGE)
        return pc_seterr(err, PC_EINPUT, "%s: expected a non-negative integer, got '%s'", opt, s);
    *v = x;
    return PC_OK;
}

static int allowed_has(const char *allowed, const char *name)
{
    size_t n = strlen(name);
    for (const char *p = allowed; (p = strstr(p, name)) != NULL; p += n)
        if ((p == allowed || p[-1] == ' ') && (p[n] == ' ' || p[n] == '\0'))
            return 1;
    return 0;
}

static pc_status add_source(const char **list, int *n, const char *opt, const char *v, pc_err *err)
{
    if (*n >= PC_MAX_SOURCES)
        return pc_seterr(err, PC_EINPUT, "--%s: at most %d allowed", opt, PC_MAX_SOURCES);
    list[(*n)++] = v;
    return PC_OK;
}

/* "A:B" with 0 <= A <= B <= 2^53 */
static pc_status parse_range(const char *s, pc_opts *o, pc_err *err)
{
    const char *colon = strchr(s, ':');
    if (!colon)
        return pc_seterr(err, PC_EINPUT, "--positions: expected A:B, got '%s'", s);
    char a[32];
    size_t la = (size_t)(colon - s);
    if (la == 0 || la >= sizeof a)
        return pc_seterr(err, PC_EINPUT, "--positions: expected A:B, got '%s'", s);
    memcpy(a, s, la);
    a[la] = '\0';
    if (a[0] == '-' || colon[1] == '-')
        return pc_seterr(err, PC_EINPUT, "--positions: negative position in '%s'", s);
    pc_status st = pc_parse_i64("--positions", a, 0, PC_POS_MAX, &o->pos_lo, err);
    if (st == PC_OK)
        st = pc_parse_i64("--positions", colon + 1, 0, PC_POS_MAX, &o->pos_hi, err);
    if (st == PC_OK && o->pos_lo > o->pos_hi)
        return pc_seterr(err, PC_EINPUT, "--positions: start %" PRId64 " is after end %" PRId64,
                         o->pos_lo, o->pos_hi);
    return st;
}

/* The options the core owns (set_option); the rest are the families'. */
#define CORE_OPTIONS "impl plugin table property table-sin family max-pos positions pos-start " \
    "dtype tol-abs max-abs-err seed replay format tap-version output regressions out threads shard " \
    "timeout-ms plugin-mem-mb plugin-cpu-s plugin-hosts plugin-writable plugin-network cases quiet " \
    "strict formulation serve serve-targets serve-dtype serve-cos-sin"

/* ---- the core's options: each setter returns PC_SKIP for another name -- */

/* what to test: sources, the family, the property selection */
static pc_status set_source(const char *name, const char *v, pc_opts *o, pc_err *err)
{
    if (!strcmp(name, "impl"))          return add_source(o->impls, &o->n_impls, name, v, err);
    if (!strcmp(name, "plugin"))        return add_source(o->plugins, &o->n_plugins, name, v, err);
    if (!strcmp(name, "table"))         return add_source(o->tables, &o->n_tables, name, v, err);
    if (!strcmp(name, "property"))
        return add_source(o->properties, &o->n_properties, name, v, err);
    if (!strcmp(name, "table-sin"))     o->table_sin = v;
    else if (!strcmp(name, "family"))   o->family = v;
    else return PC_SKIP;
    return PC_OK;
}

/* "W,R": two file descriptors */
static pc_status parse_fd_pair(const char *v, pc_opts *o, pc_err *err)
{
    const char *comma = strchr(v, ',');
    char a[16];
    size_t la = comma ? (size_t)(comma - v) : 0;
    int64_t w, r;
    if (!comma || la == 0 || la >= sizeof a)
        return pc_seterr(err, PC_EINPUT, "--serve: expected W,R (two file descriptors), got '%s'", v);
    memcpy(a, v, la);
    a[la] = '\0';
    pc_status st = pc_parse_i64("--serve", a, 0, 1 << 20, &w, err);
    if (st == PC_OK) st = pc_parse_i64("--serve", comma + 1, 0, 1 << 20, &r, err);
    if (st != PC_OK) return st;
    o->serve_set = 1;
    o->serve_w = (int)w;
    o->serve_r = (int)r;
    return PC_OK;
}

/* a kernel served by the calling process: --serve, --serve-targets, --serve-dtype */
static pc_status set_served(const char *name, const char *v, pc_opts *o, pc_err *err)
{
    if (!strcmp(name, "serve")) return parse_fd_pair(v, o, err);
    if (!strcmp(name, "serve-targets")) o->serve_targets = v;
    else if (!strcmp(name, "serve-dtype")) {
        int dt = pc_dtype_parse(v);
        o->serve_dtype = dt == PC_DT_F16 ? PECHECK_DTYPE_F16 : dt == PC_DT_BF16 ? PECHECK_DTYPE_BF16
                       : PECHECK_DTYPE_F32;
        if (dt != PC_DT_F32 && dt != PC_DT_F16 && dt != PC_DT_BF16)
            return pc_seterr(err, PC_EINPUT, "--serve-dtype: expected f32, f16 or bf16, got '%s'", v);
    } else
        return PC_SKIP;
    return PC_OK;
}

/* the positions: --max-pos, --positions, --pos-start */
static pc_status set_positions(const char *name, const char *v, pc_opts *o, pc_err *err)
{
    pc_status st;
    /* both name the positions (0..N, A..B): the one given last was taken,
     * the other dropped without a word */
    if (o->pos_opt && (!strcmp(name, "max-pos") || !strcmp(name, "positions"))
        && strcmp(o->pos_opt, name) != 0)
        return pc_seterr(err, PC_EINPUT, "--%s %s: --%s already gives the positions (%lld..%lld); "
                         "give one of --max-pos and --positions", name, v, o->pos_opt,
                         (long long)o->pos_lo, (long long)o->pos_hi);
    if (!strcmp(name, "max-pos")) {
        if (v[0] == '-')
            return pc_seterr(err, PC_EINPUT, "--max-pos: negative position '%s'", v);
        if ((st = pc_parse_i64("--max-pos", v, 0, PC_POS_MAX, &o->pos_hi, err)) != PC_OK) return st;
        o->pos_lo = 0;
        o->pos_set = 1;
        o->pos_opt = "max-pos";
        return PC_OK;
    }
    if (!strcmp(name, "positions")) {
        o->pos_set = 1;
        o->pos_opt = "positions";
        return parse_range(v, o, err);
    }
    if (!strcmp(name, "pos-start")) {
        if (v[0] == '-')
            return pc_seterr(err, PC_EINPUT, "--pos-start: negative position '%s'", v);
        o->pos_start_set = 1;
        return pc_parse_i64("--pos-start", v, 0, PC_POS_MAX, &o->pos_start, err);
    }
    return PC_SKIP;
}

/* --dtype V is no dtype's name: the names, and the nearest one */
static pc_status bad_dtype(const char *v, pc_err *err)
{
    pc_suggest s;
    char hint[96];
    pc_suggest_init(&s, v);
    for (size_t k = 0; pc_dtype_alias(k); k++) pc_suggest_add(&s, pc_dtype_alias(k));
    return pc_seterr(err, PC_EINPUT, "--dtype: expected f32, bf16, f16 or f64 (or float32, "
                     "bfloat16, float16, half, float64, double), got '%s'%s", v,
                     pc_suggest_text(&s, "", hint, sizeof hint));
}

/* how values are judged: --dtype and the tolerances */
static pc_status set_judging(const char *name, const char *v, pc_opts *o, pc_err *err)
{
    pc_status st;
    if (!strcmp(name, "dtype")) {
        if ((o->dtype = pc_dtype_parse(v)) < 0) return bad_dtype(v, err);
        o->dtype_set = 1;
    } else if (!strcmp(name, "tol-abs")) {
        if ((st = pc_parse_double("--tol-abs", v, &o->tol_abs, err)) != PC_OK) return st;
        if (!(o->tol_abs >= 0.0))
            return pc_seterr(err, PC_EINPUT, "--tol-abs: must be >= 0, got %s", v);
    } else if (!strcmp(name, "formulation")) {
        int k = pc_model_class_of(v);
        if (k != PC_CLASS_HF && k != PC_CLASS_GGML && k != PC_CLASS_STRICT)
            return pc_seterr(err, PC_EINPUT, "--formulation: expected hf (transformers' float32 "
                             "frequency code of the schedule), ggml (llama.cpp's CPU rope) or cr "
                             "(a correctly rounded binary32 frequency), got '%s'", v);
        o->formulation = k;
    } else if (!strcmp(name, "max-abs-err")) {
        if ((st = pc_parse_double("--max-abs-err", v, &o->max_abs_err, err)) != PC_OK) return st;
        if (!(o->max_abs_err > 0.0))
            return pc_seterr(err, PC_EINPUT, "--max-abs-err: must be > 0, got %s", v);
    } else
        return PC_SKIP;
    return PC_OK;
}

/* the cases and the outputs: seeds, the regression file, formats, files */
static pc_status set_output(const char *name, const char *v, pc_opts *o, pc_err *err)
{
    if (!strcmp(name, "seed")) return parse_u64("--seed", v, &o->seed, err);
    if (!strcmp(name, "replay")) {
        o->replay_set = 1;
        return parse_u64("--replay", v, &o->replay, err);
    }
    if (!strcmp(name, "format")) {
        o->format = pc_format_find(v);
        if (o->format < 0) {
            char names[160];
            pc_format_names(names, sizeof names);
            pc_suggest s;
            char hint[96];
            pc_suggest_init(&s, v);
            for (int k = 0; pc_format_at(k); k++) pc_suggest_add(&s, pc_format_at(k)->name);
            return pc_seterr(err, PC_EINPUT, "--format: expected %s, got '%s'%s", names, v,
                             pc_suggest_text(&s, "", hint, sizeof hint));
        }
    } else if (!strcmp(name, "tap-version")) {
        if (strcmp(v, "13") && strcmp(v, "14"))
            return pc_seterr(err, PC_EINPUT, "--tap-version: expected 13 or 14, got '%s'", v);
        o->tap_version = atoi(v);
    } else if (!strcmp(name, "output")) o->output = v;
    else if (!strcmp(name, "regressions")) o->regressions = v;
    else if (!strcmp(name, "out")) o->out = v;
    else return PC_SKIP;
    return PC_OK;
}

/* "K/N" with 1 <= K <= N <= PC_SHARD_MAX */
static pc_status parse_shard(const char *v, pc_opts *o, pc_err *err)
{
    int64_t k, n;
    pc_status st;
    const char *slash = strchr(v, '/');
    char a[24];
    size_t la = slash ? (size_t)(slash - v) : 0;
    if (!slash || la == 0 || la >= sizeof a)
        return pc_seterr(err, PC_EINPUT, "--shard: expected K/N, got '%s'", v);
    memcpy(a, v, la);
    a[la] = '\0';
    if ((st = pc_parse_i64("--shard", slash + 1, 1, PC_SHARD_MAX, &n, err)) != PC_OK) return st;
    if ((st = pc_parse_i64("--shard", a, 1, n, &k, err)) != PC_OK) return st;
    o->shard_k = (int)k;
    o->shard_n = (int)n;
    o->shard_set = 1;
    return PC_OK;
}

/* the engine: threads, shards, the plugin hosts' limits, cases */
static pc_status set_engine(const char *name, const char *v, pc_opts *o, pc_err *err)
{
    int64_t x;
    pc_status st;
    if (!strcmp(name, "shard")) return parse_shard(v, o, err);
    if (!strcmp(name, "plugin-writable"))
        return add_source(o->plugin_writable, &o->n_plugin_writable, name, v, err);
    if (!strcmp(name, "threads")) {
        if ((st = pc_parse_i64("--threads", v, 0, 1024, &x, err)) != PC_OK) return st;
        o->threads = (int)x;
    } else if (!strcmp(name, "timeout-ms")) {
        if ((st = pc_parse_i64("--timeout-ms", v, 1, 3600000, &x, err)) != PC_OK) return st;
        o->timeout_ms = (long)x;
    } else if (!strcmp(name, "plugin-mem-mb")) {
        /* 1 MiB .. 16 TiB (RLIMIT_AS in bytes stays far below 2^63) */
        if ((st = pc_parse_i64("--plugin-mem-mb", v, 1, (int64_t)1 << 24, &x, err)) != PC_OK) return st;
        o->plugin_mem_mb = (long)x;
    } else if (!strcmp(name, "plugin-cpu-s")) {
        if ((st = pc_parse_i64("--plugin-cpu-s", v, 1, 86400 * 365, &x, err)) != PC_OK) return st;
        o->plugin_cpu_s = (long)x;
    } else if (!strcmp(name, "plugin-hosts")) {
        if ((st = pc_parse_i64("--plugin-hosts", v, 1, PC_HOST_MAX, &x, err)) != PC_OK) return st;
        o->plugin_hosts = (int)x;
    } else if (!strcmp(name, "cases")) {
        if ((st = pc_parse_i64("--cases", v, 1, 100000000, &x, err)) != PC_OK) return st;
        o->cases = (long)x;
    } else
        return PC_SKIP;
    return PC_OK;
}

static pc_status set_option(const char *name, const char *v, pc_opts *o, pc_err *err)
{
    pc_status (*const setters[])(const char *, const char *, pc_opts *, pc_err *) = {
        set_source, set_positions, set_judging, set_output, set_engine, set_served
    };
    for (size_t k = 0; k < sizeof setters / sizeof setters[0]; k++) {
        pc_status st = setters[k](name, v, o, err);
        if (st != PC_SKIP) return st;
    }
    return pc_seterr(err, PC_EINPUT, "unknown option --%s", name);
}

/* the core's options that take no value */
static int is_flag(const char *name)
{
    return !strcmp(name, "quiet") || !strcmp(name, "strict") || !strcmp(name, "plugin-network")
        || !strcmp(name, "serve-cos-sin");
}

pc_status pc_opts_give(pc_opts *o, const char *name, const char *v, pc_err *err)
{
    const pc_option *opt = pc_option_find(name);
    if (!opt) return pc_seterr(err, PC_EINPUT, "unknown option --%s", name);
    if (o->given.n >= PC_GIVEN_MAX)
        return pc_seterr(err, PC_EINPUT, "--%s: at most %d encoding options", name, PC_GIVEN_MAX);
    if (opt->check) {
        pc_status st = opt->check(v, err);
        if (st != PC_OK) return st;
    }
    o->given.opt[o->given.n] = opt;
    o->given.value[o->given.n++] = v;
    return PC_OK;
}

/* NAME is an option of ALLOWED: by name, or as a family's under "spec". */
static int accepted(const char *allowed, const char *name)
{
    return allowed_has(allowed, name) || (allowed_has(allowed, "spec") && pc_option_find(name));
}

static void suggest_spec_option(const pc_option *opt, void *ctx)
{
    pc_suggest_add(ctx, opt->name);
}

/* --NAME is not an option of ALLOWED: which it is, and the nearest one
 * this command takes. */
static pc_status not_accepted(const char *allowed, const char *name, pc_err *err)
{
    pc_suggest s;
    char hint[96];
    pc_suggest_init(&s, name);
    pc_suggest_add_list(&s, allowed);
    if (allowed_has(allowed, "spec")) pc_option_each(suggest_spec_option, &s);
    if (!strcmp(s.best, "spec")) s.best[0] = '\0';
    pc_suggest_text(&s, "--", hint, sizeof hint);
    if (allowed_has(CORE_OPTIONS, name) || pc_option_find(name))
        return pc_seterr(err, PC_EINPUT, "option --%s is not accepted by this command%s", name, hint);
    return pc_seterr(err, PC_EINPUT, "unknown option --%s%s", name, hint);
}

/* Is OUT the same existing file as IN (after symlinks)? */
static int same_file(const char *out, const char *in)
{
    struct stat a, b;
    return in && stat(out, &a) == 0 && stat(in, &b) == 0 && a.st_dev == b.st_dev
        && a.st_ino == b.st_ino;
}

/* --output / --out must not name one of the run's inputs: writing the
 * result would destroy the file being checked (exit 2, nothing written). */
static pc_status outputs_not_inputs(const pc_opts *o, pc_err *err)
{
    const char *outs[2] = { o->output, o->out };
    for (int k = 0; k < 2; k++) {
        if (!outs[k] || !strcmp(outs[k], "-")) continue;
        /* every --plugin, --table, positional argument, and the 3 single inputs */
        const char *ins[2 * PC_MAX_SOURCES + sizeof o->args / sizeof o->args[0] + 3];
        int n = 0;
        for (int j = 0; j < o->n_plugins; j++) ins[n++] = o->plugins[j];
        for (int j = 0; j < o->n_tables; j++) ins[n++] = o->tables[j];
        for (int j = 0; j < o->n_args; j++) ins[n++] = o->args[j];
        ins[n++] = o->table_sin;
        for (int j = 0; j < o->given.n && n < (int)(sizeof ins / sizeof ins[0]); j++)
            if (o->given.opt[j]->input_file) ins[n++] = o->given.value[j];
        for (int j = 0; j < n; j++)
            if (same_file(outs[k], ins[j]))
                return pc_seterr(err, PC_EINPUT, "--%s %s is the input %s: refusing to overwrite it",
                                 k == 0 ? "output" : "out", outs[k], ins[j]);
    }
    return PC_OK;
}

/* An option that only shapes another's output is refused without it. */
static pc_status options_apply(const pc_opts *o, pc_err *err)
{
    if (o->tap_version && o->format != PC_FMT_TAP)
        return pc_seterr(err, PC_EINPUT, "--tap-version %d applies to --format tap only: add "
                         "--format tap or drop it", o->tap_version);
    /* --tol-abs replaces the precision model, whose tolerance classes
     * --strict and --formulation choose: with it they change nothing */
    if (o->tol_abs >= 0.0 && (o->strict || o->formulation))
        return pc_seterr(err, PC_EINPUT, "%s shapes nothing with --tol-abs (an absolute bound in "
                         "place of the precision model, whose tolerance class it chooses): drop one",
                         o->formulation ? "--formulation" : "--strict");
    return PC_OK;
}

/* The options a command line may give more than once: each names one more
 * source or property (a list); the flags, whose second mention changes
 * nothing.  Every other option holds one value. */
#define LIST_OPTIONS "impl plugin table property plugin-writable"

/* The options of one command line given so far, to refuse a second value:
 * the parser would keep the last one silently (`--formulation hf
 * --formulation cr` checked cr), which a command line built from a
 * template's defaults plus a user's choice gets wrong without a word.  The
 * same value again says nothing new and is taken (a wrapper that adds
 * `--format json` to a command line that has it). */
typedef struct {
    int n;
    char name[128][64];     /* a command line of pecheck has fewer options */
    const char *value[128];
} seen_opts;

static pc_status once(seen_opts *s, const char *name, const char *v, pc_err *err)
{
    if (allowed_has(LIST_OPTIONS, name)) return PC_OK;
    for (int k = 0; k < s->n; k++)
        if (!strcmp(s->name[k], name)) {
            if (!strcmp(s->value[k], v)) return PC_OK;
            return pc_seterr(err, PC_EINPUT, "--%s given twice ('%s', then '%s'): an option "
                             "holds one value, give it once", name, s->value[k], v);
        }
    if (s->n < (int)(sizeof s->value / sizeof s->value[0])) {
        snprintf(s->name[s->n], sizeof s->name[s->n], "%s", name);
        s->value[s->n++] = v;
    }
    return PC_OK;
}

pc_status pc_opts_parse(int argc, char **argv, const char *allowed, int max_args,
                        pc_opts *o, pc_err *err)
{
    seen_opts seen;
    seen.n = 0;
    for (int k = 0; k < argc; k++) {
        const char *a = argv[k];
        if (a[0] != '-' || a[1] != '-' || a[2] == '\0') {
            if (a[0] == '-' && a[1] != '\0')
                return pc_seterr(err, PC_EINPUT, "unknown option '%s' (options are --long)", a);
            if (o->n_args >= max_args || o->n_args >= 64)
                return pc_seterr(err, PC_EINPUT, "unexpected argument '%s'", a);
            o->args[o->n_args++] = a;
            continue;
        }
        char name[64];
        const char *eq = strchr(a + 2, '=');
        size_t ln = eq ? (size_t)(eq - (a + 2)) : strlen(a + 2);
        if (ln >= sizeof name)
            return pc_seterr(err, PC_EINPUT, "unknown option '%s'", a);
        memcpy(name, a + 2, ln);
        name[ln] = '\0';
        if (!accepted(allowed, name)) return not_accepted(allowed, name, err);
        const pc_option *fopt = pc_option_find(name);
        if (is_flag(name) || (fopt && !fopt->arg[0])) {
            if (eq) return pc_seterr(err, PC_EINPUT, "--%s takes no value", name);
            if (!strcmp(name, "quiet")) o->quiet = 1;
            else if (!strcmp(name, "strict")) o->strict = 1;
            else if (!strcmp(name, "plugin-network")) o->plugin_network = 1;
            else if (!strcmp(name, "serve-cos-sin")) o->serve_cos_sin = 1;
            else if (pc_opts_give(o, name, "", err) != PC_OK) return PC_EINPUT;
            continue;
        }
        const char *v = eq ? eq + 1 : (k + 1 < argc ? argv[++k] : NULL);
        if (!v)
            return pc_seterr(err, PC_EINPUT, "--%s needs a value", name);
        if (once(&seen, name, v, err) != PC_OK) return PC_EINPUT;
        pc_status st = fopt && !allowed_has(CORE_OPTIONS, name) ? pc_opts_give(o, name, v, err)
                                                                : set_option(name, v, o, err);
        if (st != PC_OK)
            return st;
    }
    pc_status st = options_apply(o, err);
    return st == PC_OK ? outputs_not_inputs(o, err) : st;
}

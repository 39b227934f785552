/* spec.h: the encoding a run checks, as one value.
 *
 * What says which encoding is meant (the width, the base and where it came
 * from, the pair layout, a family's own parameters such as RoPE's frequency
 * schedule) is a pc_spec, resolved once per family from the options the
 * core does not own (pc_given) and the config files they name, by the
 * family itself: its options and its config reader are declared in its
 * descriptor (pc_family.spec, family.h).  The spine hands that value to the
 * engine, the properties, identify, the report and the replay line; it
 * never reads a family's options or files itself.
 *
 * Every family shares the encoding options of pc_spec_options (--d, --base,
 * --layout); a family adds its own (families/rope/options.c: --hf-config,
 * --rope-scaling, ...).  Adding an option: docs/architecture.md. */
#ifndef PECHECK_SPEC_H
#define PECHECK_SPEC_H

#include <stddef.h>
#include <stdint.h>
#include "harness/base/status.h"

struct pc_family;
struct pc_acc_cfg;
struct pc_spec_sched;  /* a spec's schedule, held (spec_sched.h) */

/* ------------------------------------------------------------------ */
/* Options a family owns                                              */

typedef struct pc_option {
    const char *name;    /* without dashes: "hf-config" */
    const char *arg;     /* its argument in the help page ("config.json"); "": a flag */
    const char *help;    /* its meaning and default, one paragraph */
    /* Validate V (the option's value; "" for a flag): PC_EINPUT naming
     * --NAME, the value and the fix.  NULL: any value. */
    pc_status (*check)(const char *v, pc_err *err);
    int input_file;      /* V names an input file (--output must not overwrite it) */
} pc_option;

/* The family options of a command line, validated, in the order given
 * (pc_opts.given, filled by the core's parser). */
#define PC_GIVEN_MAX 32
typedef struct pc_given {
    const pc_option *opt[PC_GIVEN_MAX];
    const char *value[PC_GIVEN_MAX];
    int n;
} pc_given;

/* The last value given for NAME; NULL: not given. */
const char *pc_given_value(const pc_given *g, const char *name);

/* The option NAME of any family in the registry (the shared encoding
 * options first); NULL: no family has it. */
const pc_option *pc_option_find(const char *name);
/* Call F(OPT, CTX) once for each option of the registry's families, the
 * shared ones first, each name once (help pages). */
void pc_option_each(void (*f)(const pc_option *opt, void *ctx), void *ctx);
/* Call F(OPT, CTX) for each family's declaration of NAME, in registry
 * order: an option several families read (--hf-config, the model's
 * config.json) is declared by each, with its own help. */
void pc_option_each_of(const char *name, void (*f)(const pc_option *opt, void *ctx), void *ctx);

/* ------------------------------------------------------------------ */
/* The spec                                                           */

/* Column blocks a table may be read in (pc_spec.col_blocks): the position
 * axes of a RoPE cache, at most four (families/rope PC_ROPE_AXES_MAX). */
#define PC_SPEC_BLOCKS_MAX 4

typedef struct pc_spec {
    const struct pc_family *family;
    int d, d_set;           /* --d (default 128; tables: their width) */
    int d_known;            /* D was given by --d or by a config the family read */
    int64_t rows;           /* the family's inputs fix the rows (position ids): positions
                             * 0..ROWS-1 by default; 0: none */
    double base;            /* the frequency base */
    int base_set;           /* given by --base */
    char base_from[200];    /* where BASE came from, for people: "--base", "the default",
                             * "rope_theta of config.json" */
    int base_own;           /* BASE came from the family's own options (a config): the
                             * family's args carry it, a replay line writes no --base */
    int layout;             /* --layout: 0 interleaved, 1 half, -1 the implementation's */
    char layout_from[200];  /* where LAYOUT came from when not --layout ("": --layout) */
    /* the pairs the model's own code rotates, where a config says (0
     * interleaved, 1 half, -1 not known) and why, for people: said beside a
     * table of the other layout, not imposed on it (a model may permute q
     * and k to the cache's layout first, as DeepSeek-V3's does; a family
     * that knows no code permutes sets LAYOUT and LAYOUT_FROM instead) */
    int model_layout;
    char model_layout_why[160];
    int pair_swap;          /* a table stores each pair's second member first ([cos | sin],
                             * (cos, sin)): its reader swaps them (a family's option) */
    /* a RoPE (n, d) cache whose columns are blocks of these widths, each
     * block the half layout of its own pairs ([c c | c' c'] per position
     * axis: ChatGLM-6B's 2-D RoPE, the RoPE family's --rope-axes-halves);
     * its reader puts the columns in the half layout of the whole width,
     * the blocks' pairs in turn.  N_COL_BLOCKS 0: none */
    int col_blocks[PC_SPEC_BLOCKS_MAX];
    int n_col_blocks;
    /* non-NULL: a table's rows are not those of consecutive positions (why,
     * for people: a family's option); the properties, which compare rows of
     * positions, skip with it */
    const char *rows_note;
    /* --assume-fitted: a table's base fitted from its own rows (no --base,
     * no config) is accepted; without it the check named "base" fails */
    int assume_fitted;
    void *own;              /* the family's own part (its spec kind's; NULL: none) */
    /* PC_OK, or why the family's resolve could not read the options (a
     * config several families read, --hf-config, names another family's
     * model): UNREAD_ERR, raised by pc_spec_usable where a source is
     * checked as this family, and only there */
    pc_status unread;
    pc_err unread_err;
} pc_spec;

/* What a family adds to the shared encoding options (pc_family.spec). */
typedef struct pc_spec_kind {
    const pc_option *options;    /* its own options (help lists them after the shared ones) */
    size_t n_options;
    /* Resolve the family's part of SPEC (whose shared part is set) from
     * GIVEN and the files it names: SPEC->own, and the base or width a
     * config gives.  PC_EINPUT naming the option, the file and the key. */
    pc_status (*resolve)(const pc_given *given, pc_spec *spec, pc_err *err);
    void (*release)(pc_spec *spec);
    /* The frequency schedule of a run of CFG (its d and positions set),
     * into HOLD (set: HOLD->set, CFG's sched, sched_note and base point
     * into it); untouched when the spec has none. */
    pc_status (*schedule)(const pc_spec *spec, struct pc_acc_cfg *cfg,
                          struct pc_spec_sched *hold, pc_err *err);
    void (*sched_release)(struct pc_spec_sched *hold);
    /* Whether SPEC has a schedule of its own (not the geometric one of its
     * base): then a table's base is the schedule's, never fitted. */
    int (*scheduled)(const pc_spec *spec);
    /* The family options that shaped SPEC, as command-line arguments
     * (" --hf-config FILE ..."), appended to BUF: replay lines and shard
     * identities carry them. */
    void (*args)(const pc_spec *spec, char *buf, size_t len);
} pc_spec_kind;

/* The specs of every family of the registry, resolved from one command
 * line. */
#define PC_SPEC_FAMILIES 16
typedef struct pc_specs {
    pc_spec spec[PC_SPEC_FAMILIES];
    int n;
} pc_specs;

/* Resolve each family's spec from GIVEN (pc_spec_options, then its kind's
 * resolve).  A family's input error (PC_EINPUT) is kept in its spec
 * (pc_spec.unread) with the spec's defaults: one config.json is read by
 * every family that has one, and a T5 model's config is not RoPE's.  On
 * any other error every spec is released. */
pc_status pc_specs_resolve(const pc_given *given, pc_specs *out, pc_err *err);
/* SPEC's kept input error (pc_spec.unread) into ERR; PC_OK: none.  Called
 * wherever a source is checked as SPEC's family. */
pc_status pc_spec_usable(const pc_spec *spec, pc_err *err);
void pc_specs_release(pc_specs *s);
/* A spec kind's release when its own part is one malloc'd block: frees
 * SPEC->own. */
void pc_spec_free_own(pc_spec *spec);
/* FAMILY's spec in S (the first one when FAMILY is NULL). */
const pc_spec *pc_specs_of(const pc_specs *s, const struct pc_family *family);

int pc_spec_scheduled(const pc_spec *spec);
/* SPEC's options as command-line arguments (" --d 64 --base 500000 ..."):
 * only those given, each as the family reads it. */
void pc_spec_args(const pc_spec *spec, char *buf, size_t len);

/* The shared encoding options (--d, --base, --layout) and their values. */
extern const pc_option pc_spec_options[];
extern const size_t pc_spec_n_options;
/* The defaults of the shared part, in SPEC (its FAMILY set by the caller). */
void pc_spec_defaults(pc_spec *spec);
/* Parse --layout's value: 0 interleaved, 1 half, -1 not one of them. */
int pc_spec_layout_of(const char *v);

#endif

/* family.h: an encoding family as a value, and the registry of families.
 *
 * A family is one folder families/NAME/: its built-in implementations, its
 * certified reference, its properties and its plots, and a family.c that
 * defines one pc_family describing them.  families/registry.c lists the
 * families (the composition root); code outside the family folders and the
 * registry knows a family only through this descriptor, never by name.
 * Adding a family: docs/architecture.md. */
#ifndef PECHECK_FAMILY_H
#define PECHECK_FAMILY_H

#include <stdio.h>
#include <stddef.h>
#include <stdint.h>
#include "harness/sandbox/hook.h"
#include "harness/base/status.h"
#include "harness/io/npy.h"
#include "reference/reference.h"
#include "spec.h"

/* ------------------------------------------------------------------ */
/* Rows: families checked element by element against a certified     */
/* reference of pos * omega_i (the accuracy gate, harness/engine/accuracy.c) */

typedef struct pc_rows {
    /* 0: the row is the encoding of POS itself, (sin, cos) pairs;
     * 1: the row rotates an input vector X by the angles of POS (X drawn
     *    from the seed), pairs are rotated points and the bound scales
     *    with the pair's norm (docs/precision-model.md). */
    int input;
    /* The implementation's rows (X is NULL when INPUT is 0), through
     * pc_call_NAME (harness/sandbox/hook.h): FAULT says whether the call faulted. */
    int (*call)(const pc_impl *impl, pc_fault *fault, const int64_t *pos, size_t n, int d,
                double base, int layout, const float *x, float *out);
    /* The certified row: correctly rounded to binary32 (OUT32) and to
     * binary64 (OUT64), either may be NULL. */
    pc_status (*ref)(pc_freqs *f, int64_t pos, int layout, const float *x,
                     float *out32, double *out64);
    /* `pecheck reference`: one row of the exported table (D values, or D/2
     * (cos, sin) pairs when EXPORT_PAIRS), into OUT32 or OUT64. */
    pc_status (*export_row)(pc_freqs *f, int64_t pos, int layout, int d,
                            float *out32, double *out64);
    int export_pairs;        /* 1: the exported shape is (n, d/2, 2), else (n, d) */
    const char *model;       /* the bound's formula, as the JSON result names it */
    const char *pair_name;   /* how a pair is shown in a witness: "(sin, cos)", "rotated" */
} pc_rows;

/* ------------------------------------------------------------------ */
/* Diagnosis: what a family can say of a source beyond its verdicts   */

struct pc_acc_cfg;
struct pc_json;

/* A command line's arguments, each its own string (identify's
 * check_args). */
#define PC_ARGS_MAX 48
typedef struct pc_args {
    int n, lost;
    char *v[PC_ARGS_MAX];
} pc_args;
/* Append one argument (printf-style); beyond PC_ARGS_MAX or out of
 * memory it is dropped and A->lost set. */
void pc_args_add(pc_args *a, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
void pc_args_free(pc_args *a);

/* `pecheck identify` of a family: which encoding a source computes. */
typedef struct pc_identify_kind {
    /* Identify IMPL's encoding over positions LO..HI (a table: its own)
     * under SPEC (its width, base hint, layout and options): *FOUND
     * allocated, freed with FREE.  PC_EINPUT naming the problem when the
     * source cannot be identified at all. */
    pc_status (*run)(const pc_impl *impl, const pc_spec *spec, int64_t lo, int64_t hi,
                     void **found, pc_err *err);
    int (*explained)(const void *found);   /* 1: the encoding explains every value */
    void (*text)(FILE *f, const void *found);
    /* The members of the source's object (cmd_identify opens it, names the
     * family and adds check_args). */
    void (*json)(struct pc_json *j, const void *found);
    /* The `pecheck check` arguments that express what was found, beyond
     * --family and the source (cmd_identify writes those): the family's
     * options (--base, --layout, ...) and --pos-start or --dtype where
     * they are part of it.  Check with them passes when EXPLAINED. */
    void (*check_args)(const void *found, pc_args *out);
    void (*free)(void *found);
} pc_identify_kind;

/* A table's base made from one read of its rows (harness/sources/table_scan.c)
 * instead of through the hook: each pair's point (A cos, A sin), what the
 * hook gives for the rotation of (1, 0), fed in position order, in shares
 * of the pairs that threads make at once; the same operations per pair as
 * table_base, so its result. */
typedef struct pc_points_fit {
    void *(*share)(int pairs);   /* a share of PAIRS pairs; NULL: out of memory */
    /* one position's points of the share's pairs: C[i], S[i] */
    void (*row)(void *share, const double *c, const double *s);
    /* the N shares, in pair order, joined and freed: table_base's result
     * for D and U_S (0 also when out of memory); BASE NaN when RAW is not
     * a round number (table_base) */
    int (*end)(void **shares, int n, int d, double u_s, double *base, double *raw);
    void (*drop)(void *share);   /* free a share without a result */
} pc_points_fit;

typedef struct pc_diagnosis {
    /* The likely cause of IMPL's failed accuracy run under CFG (the
     * family's spec SPEC) into BUF ("": none found): the best-supported
     * cause on the first line, then its evidence and the other candidates
     * on indented lines. */
    void (*likely_cause)(const pc_impl *impl, const pc_spec *spec, const struct pc_acc_cfg *cfg,
                         char *buf, size_t len);
    /* After IMPL's accuracy run under CFG passed: a remark the family has
     * checked on the same rows (RoPE: a strict class that fails them, and
     * why), one line into BUF; "" when none.  NULL: no remarks. */
    void (*pass_note)(const pc_impl *impl, const pc_spec *spec, const struct pc_acc_cfg *cfg,
                      char *buf, size_t len);
    /* The base a table's rows fit (LAYOUT, positions LO..HI, storage unit
     * U_S): 1 with *BASE (rounded to what a config would say: 3
     * significant digits, NaN when *RAW is not within 0.1% of such a
     * number) and *RAW when they fit a geometric schedule cleanly, else 0. */
    int (*table_base)(const pc_impl *impl, int d, int layout, int64_t lo, int64_t hi,
                      double u_s, double *base, double *raw);
    const pc_points_fit *table_points;     /* the same from a table's one read (NULL: none) */
    const pc_identify_kind *identify;      /* NULL: identify does not take the family */
} pc_diagnosis;

/* ------------------------------------------------------------------ */
/* Tables a family reads itself                                       */

struct pc_table_args;

/* A .npy table whose shape is not rows of positions (ALiBi slopes or
 * biases, T5 buckets), read by its family: PATH under SPEC (the family's
 * options) and A (the run's storage options, --pos-start) into *OUT, an
 * implementation whose hooks serve the table; PC_EINPUT naming the file,
 * its shape or dtype and the fix.  A family with rows and no reader of its
 * own is read by harness/sources/table.c. */
/* The head of a table a family reads itself: the implementation handed
 * out (its ctx is the table), the reader's MAGIC, which tells its tables
 * from any other source, the array read and its file's path. */
typedef struct pc_family_table {
    pc_impl impl;
    unsigned magic;
    pc_npy a;
    char *path;
} pc_family_table;
/* IMPL as a table of the reader whose mark is MAGIC, or NULL. */
pc_family_table *pc_family_table_of(const pc_impl *impl, unsigned magic);
/* A new table of SIZE bytes (a struct whose first member is its
 * pc_family_table head) marked MAGIC, its array read from PATH by READ
 * (pc_npy_read or pc_npy_read_numbers; a missing file is bad input), its
 * implementation named PATH, meant for FAMILY and expected to pass.  NULL
 * with *ST and ERR when it cannot be read. */
void *pc_family_table_new(size_t size, unsigned magic, const char *family, const char *path,
                          pc_status (*read)(const char *, pc_npy *, pc_err *), pc_status *st,
                          pc_err *err);
/* Free a table pc_family_table_new made (NULL: nothing). */
void pc_family_table_free(pc_family_table *t);

typedef struct pc_table_reader {
    pc_status (*open)(const pc_spec *spec, const struct pc_table_args *a, const char *path,
                      pc_impl **out, pc_err *err);
    void (*close)(pc_impl *impl);
    /* 1 when IMPL is one of this reader's tables (identify names it by
     * --table PATH) */
    int (*is_table)(const pc_impl *impl);
    /* 1 when a .npy of RANK and DTYPE ("<f4", "<i8", ...) can only be this
     * family's table (the family of a table given without --family); NULL:
     * never inferred */
    int (*holds)(int rank, const char *dtype);
} pc_table_reader;

/* ------------------------------------------------------------------ */
/* The descriptor                                                     */

struct pc_prop_params;  /* the property engine's parameters (properties/params.h) */

/* The properties of an implementation that has the family's ABI v2 entry
 * point and not its version 1 one (pc_family.props_v2). */
typedef struct pc_props_v2 {
    /* An adapter *OUT whose version 1 hook calls IMPL's v2 entry point,
     * the dtype it calls it in written into PAR->dtype (the properties'
     * bounds are that dtype's).  PC_SKIP with the reason in WHY when the
     * kernel takes no call the properties could make. */
    pc_status (*open)(const pc_impl *impl, struct pc_prop_params *par, pc_impl **out,
                      char *why, size_t len, pc_err *err);
    void (*close)(pc_impl *adapter);
} pc_props_v2;

typedef struct pc_gate pc_gate;  /* `check`'s context (harness/engine/gate.h) */
typedef struct pc_property pc_property;  /* a property (properties/property.h) */

enum pc_family_flag {
    /* a plugin without this family gets a "does not export" skip verdict
     * (the other families are reported only when asked for by --family) */
    PC_FAM_REPORTED = 1u << 0,
    /* a .npy table may hold this family: with ROWS, INPUT 0 a table of
     * encodings, INPUT 1 a (cos, sin) cache pair; without ROWS, a family
     * with MAX_LEN (a lookup table: row r is position r), or one with its
     * own TABLE reader */
    PC_FAM_TABLES = 1u << 1,
    /* the properties' setup probes the hooks themselves (the engine runs
     * them even when PROVIDES is false, they skip with their own reason) */
    PC_FAM_PROPS_PROBE = 1u << 2,
    /* the family computes the strict classes of one library's code
     * (--formulation hf: transformers' float32 frequency code of its
     * schedule; ggml: llama.cpp's rope); a family without them runs its
     * own strict class under --formulation hf or ggml when a source of the
     * run is checked as one with them (pc_spec_schedule) */
    PC_FAM_CLASS_COMPUTED = 1u << 3
};

typedef struct pc_family {
    const char *name;        /* --family value and verdict family: "rope" */
    const char *title;       /* for people: "RoPE" */
    /* The plugin entry points that provide it (hook.h); an unused second
     * entry is 0, PC_HOOK_abi_version, which no family is provided by. */
    pc_hook_id hooks[2];
    unsigned flags;          /* enum pc_family_flag */
    /* Whether IMPL has the hooks this family needs. */
    int (*provides)(const pc_impl *impl);
    /* Element-wise certified rows (NULL: the family has none). */
    const pc_rows *rows;
    /* `check`'s own gate for the family (NULL: the properties only). */
    pc_status (*gate)(pc_gate *g, const pc_impl *impl, const struct pc_family *fam);
    /* Rows the implementation holds (positions 0..max_len-1; NULL:
     * unbounded).  Properties draw positions below it. */
    int64_t (*max_len)(const pc_impl *impl);
    /* The properties run on this family, in this order: its own (in its
     * folder) and those it shares with others (in their first family's
     * folder).  The catalogue is their union, in registry order. */
    const pc_property *const *properties;
    size_t n_properties;
    /* The report's plots that draw this family's implementations (ids of
     * harness/cli/cmd_report.c's plots; the scripts are reports/ID.gp or
     * families/NAME/ID.gp); NULL-terminated, NULL: none. */
    const char *const *plots;
    /* The built-in implementations, in `pecheck list` order. */
    const pc_impl *const *builtins;
    size_t n_builtins;
    /* Its own encoding options and their reading (spec.h; NULL: the
     * shared encoding options only). */
    const pc_spec_kind *spec;
    /* What it can say of a source beyond the verdicts (NULL: nothing). */
    const pc_diagnosis *diagnosis;
    /* Its own .npy table reader (NULL: tables of rows, or none). */
    const pc_table_reader *table;
    /* The properties of an ABI v2-only implementation (NULL: they call the
     * version 1 entry point, and skip without it). */
    const pc_props_v2 *props_v2;
} pc_family;

/* ------------------------------------------------------------------ */
/* The registry (families/registry.c)                                 */

size_t pc_family_count(void);
const pc_family *pc_family_at(size_t k);         /* NULL past the end */
const pc_family *pc_family_find(const char *name); /* NULL: no such family */
/* The first family (registry order) that IMPL provides; NULL: none. */
const pc_family *pc_family_of_impl(const pc_impl *impl);
/* The family a .npy table holds: with a sin cache (HAS_SIN) the table
 * family whose rows take an input, else the one whose rows do not. */
const pc_family *pc_family_for_table(int has_sin);
/* "a, b or c": the names of the families with every flag of NEED (and
 * rows when WANT_ROWS), then TAIL (e.g. " or all") when not NULL. */
void pc_family_names(char *buf, size_t len, unsigned need, int want_rows, const char *tail);
/* " (did you mean rope?)" for a mistyped family NAME, or ""; returns BUF. */
const char *pc_family_hint(const char *name, char *buf, size_t len);

#endif

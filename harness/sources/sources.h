/* sources.h: turn --impl / --plugin / --table options into pc_impl objects.
 *
 * Built-ins are used as they are; plugins' hooks run out of pecheck's
 * process (plugin.h, host.h); tables are read from .npy (table.h). */
#ifndef PECHECK_SOURCES_H
#define PECHECK_SOURCES_H

#include "harness/engine/accuracy.h"
#include "harness/sandbox/impl.h"
#include "harness/cli/opts.h"
#include "harness/base/status.h"
#include <stdio.h>

#define PC_MAX_IMPLS 64

typedef struct pc_sources {
    const pc_impl *impl[PC_MAX_IMPLS];
    int n;
    pc_impl *owned[PC_MAX_IMPLS]; /* plugins and tables, freed by pc_sources_close */
    /* the family reader that opened owned[k] (NULL: a plugin or a table of rows) */
    const struct pc_table_reader *reader[PC_MAX_IMPLS];
    int n_owned;
} pc_sources;

/* FAMILY filters `--impl all` (NULL: every built-in) and picks what a
 * --table holds (NULL or "all": rope with --table-sin, else sinusoidal);
 * a table is read under its family's spec in SPECS.
 * Errors (PC_EINPUT, exit 2): unknown built-in, a plugin that does not load
 * (dlerror's text), a bad table, nothing given. */
/* The family of the table at PATH named by its shape and dtype (HAS_SIN:
 * a cache pair): the family whose own reader holds a .npy of its rank and
 * dtype (ALiBi slopes, T5 buckets; pc_table_reader.holds), else the family
 * of tables of rows (pc_family_for_table).  Only a regular file's header
 * is read (a pipe's bytes come once, for its reader); a file that cannot
 * be read is left to its reader, which names the problem.  `identify`
 * reads a table given without --family as this family's. */
struct pc_family;
const struct pc_family *pc_sources_table_family(const char *path, int has_sin);

pc_status pc_sources_open(const pc_opts *o, const pc_specs *specs, const char *family,
                          pc_sources *s, pc_err *err);
/* When S has a plugin, one line on F saying how its hosts seal their file
 * system (host_fs.h): Landlock (not when QUIET) or the seccomp fallback. */
void pc_sources_seal_note(const pc_sources *s, int quiet, FILE *f);

/* Every option of O that shapes a source applies to one of S (checked as
 * WANT, NULL: any family), else PC_EINPUT naming it and the fix: a table
 * of rows is checked on all its rows, so --positions / --max-pos other than
 * its rows; --pos-start without a table; a family's option (--hf-config,
 * --causal, ...) when no source is checked as a family that reads it; and
 * the input error a family's spec in SPECS kept (pc_spec_usable: a
 * --hf-config of another family's model) when a source is checked as that
 * family.  `check`, `accuracy` and `identify` ask before they run (an
 * option silently left unused would make a verdict of what was not
 * asked). */
struct pc_family;
pc_status pc_sources_options_apply(const pc_opts *o, const pc_specs *specs,
                                   const struct pc_family *want, const pc_sources *s,
                                   pc_err *err);

/* Every family option of O is FAM's (a command of one family and no
 * source, `reference`): else PC_EINPUT naming the first that is not. */
pc_status pc_sources_options_of(const pc_opts *o, const struct pc_family *fam, pc_err *err);

/* End the plugins' hosts and everything they started (pc_plugin_stop):
 * each command does it once its last call is made, before it writes any
 * output, so that nothing a plugin started runs while pecheck writes. */
void pc_sources_stop(pc_sources *s);
void pc_sources_close(pc_sources *s);

/* A table whose file could not be read while it was checked
 * (pc_table_status): its error, or PC_OK.  Commands ask before they write
 * a result, so that no verdict made of a failed read is shown. */
pc_status pc_sources_status(const pc_sources *s, pc_err *err);

/* Tables fix d and the positions: set CFG's d and range from IMPL's table
 * (no change for other implementations). */
void pc_sources_adjust_cfg(const pc_impl *impl, pc_acc_cfg *cfg);

#endif

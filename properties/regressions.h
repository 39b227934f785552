/* regressions.h: the regression file.  A failing generated case is saved as
 * one line; later runs try the saved cases of (property, family,
 * implementation) first (Hypothesis's example database).  The line format
 * and the reader: regress_read.h.
 *
 * The file is only ever appended to, one whole line per write, under an
 * exclusive flock(2) (readers take a shared one), so concurrent runs lose no
 * line and a reader never sees half a line.  It is never truncated or
 * rewritten: a file that is too large, unreadable, not a regular file, or
 * holds bad lines is reported (a note in the verdict) and left as it is. */
#ifndef PECHECK_PROPERTIES_REGRESSIONS_H
#define PECHECK_PROPERTIES_REGRESSIONS_H

#include <stddef.h>
#include <stdint.h>
#include "harness/base/status.h"

#define PC_REGRESS_MAX 64  /* saved cases tried per property: a bound on the file's cost */
/* Largest file read or appended to: a bound on the time each property of a
 * run spends reading it (about a million lines). */
#define PC_REGRESS_FILE_MAX ((int64_t)64 << 20)

typedef struct pc_regress_case {
    const char *prop, *family, *impl;
    uint64_t seed;
    int d;                    /* informative: the run's d and positions */
    int64_t pos_lo, pos_hi;
    /* informative: the options that shaped the run, as its replay line
     * writes them (pc_eng_run_options: " --base B --layout L --hf-config
     * FILE ..."; NULL or "": none), written as options= with '%', ' ' and
     * control bytes percent-encoded */
    const char *options;
} pc_regress_case;

/* Up to PC_REGRESS_MAX distinct seeds saved in PATH for KEY's (property,
 * family, implementation), in file order, into SEEDS; 0 when PATH is NULL or
 * absent.  What is wrong with the file goes to NOTE, one line ("" when
 * nothing is). */
int pc_regress_load(const char *path, const pc_regress_case *key, uint64_t *seeds,
                    char *note, size_t note_len);

/* Append C's line to PATH (creating it with a header comment) unless the
 * same case is there.  Errors (PC_EINPUT: a case the reader could not read
 * back, a file too large or not regular; PC_EIO: the system's) leave the
 * file as it was, up to a partial line when a write fails midway. */
pc_status pc_regress_save(const char *path, const pc_regress_case *c, pc_err *err);

/* The verdict's note on saving a case: saved to PATH, or not (ERR). */
void pc_regress_saved_note(char *buf, size_t len, const char *path);
void pc_regress_failed_note(char *buf, size_t len, const pc_err *err);

#endif

/* output.h: result files that lose nothing.
 *
 * pc_out_open(PATH) decides how PATH is written:
 *   - NULL or "-": stdout;
 *   - a symbolic link is followed (every hop, relative targets against the
 *     link's folder) and its final target is written; the link stays;
 *   - an existing path that is not a regular file (/dev/null, a FIFO, a
 *     terminal) is opened and written directly, never replaced;
 *   - a regular file, or a name that does not exist yet, is written to
 *     TARGET.tmp.PID in the target's own folder (created exclusively, with
 *     the mode, and as root the owner, of the file it replaces) and renamed
 *     over TARGET only when complete, so an error never leaves a partial
 *     file that looks like a result.
 * Temporaries (files and report folders) are registered so that SIGINT,
 * SIGTERM and SIGHUP remove them before the signal takes its default
 * effect.
 *
 * Errors: a path that cannot be opened is PC_EIO (exit 2: the user named
 * a path pecheck cannot use); a failure while writing or committing
 * (ENOSPC, EIO, /dev/full) is PC_EWRITE (exit 3). */
#ifndef PECHECK_OUTPUT_H
#define PECHECK_OUTPUT_H

#include <stdio.h>
#include "harness/base/status.h"

typedef struct pc_out {
    FILE *f;
    char *path;  /* the file written (a symlink's final target) */
    char *tmp;   /* the temporary renamed over PATH; NULL when written directly */
    int slot;    /* cleanup registration of TMP (-1: none) */
} pc_out;

pc_status pc_out_open(pc_out *o, const char *path, pc_err *err);
/* COMMIT != 0: flush, close and rename; otherwise remove the temporary. */
pc_status pc_out_close(pc_out *o, int commit, pc_err *err);

/* The file pc_out_open would write for PATH: PATH itself, or the final
 * target of the symbolic link(s) PATH names.  Returns a malloc'd string,
 * or NULL with ERR set (a loop of links, out of memory). */
char *pc_out_resolve(const char *path, pc_err *err);

/* Register a temporary (IS_DIR: a folder, removed with what it holds) to
 * be removed if the process is ended by SIGINT, SIGTERM or SIGHUP.
 * Returns a slot for pc_out_untrack, or -1 when the table is full (the
 * temporary is then simply not cleaned up on a signal). */
int pc_out_track(const char *path, int is_dir);
void pc_out_untrack(int slot);
/* The child process (a gnuplot writing into a tracked report folder) that
 * the signal handler kills and reaps before removing temporaries, so that
 * it cannot write into them afterwards; 0 clears it. */
void pc_out_set_child(long pid);

/* Remove PATH: a file or link (never followed), or a folder and everything
 * in it (32 levels deep at most); async-signal-safe. */
void pc_out_remove_tree(const char *path);

/* At the start of pecheck: a closed standard descriptor (0, 1, 2) is
 * reserved, so that a closed stdout stays closed: a report written to it
 * fails (exit 3) instead of landing in the first file pecheck opens. */
void pc_out_reserve_std(void);

/* Flush stdout and report whether anything written to it was lost:
 * PC_EWRITE with a message (the CLI's exit 3), or PC_OK. */
pc_status pc_out_stdout_check(pc_err *err);

#endif

/* output.h: result files written atomically.  Output goes to PATH.tmp.PID
 * and is renamed over PATH only when complete, so an error never leaves a
 * partial file that looks like a result.  A NULL or "-" path is stdout. */
#ifndef PECHECK_OUTPUT_H
#define PECHECK_OUTPUT_H

#include <stdio.h>
#include "status.h"

typedef struct pc_out {
    FILE *f;
    char *path, *tmp;
} pc_out;

pc_status pc_out_open(pc_out *o, const char *path, pc_err *err);
/* COMMIT != 0: flush, close and rename; otherwise remove the temporary. */
pc_status pc_out_close(pc_out *o, int commit, pc_err *err);

#endif

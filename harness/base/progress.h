/* progress.h: one updating progress line on stderr, shown only when stderr
 * is a terminal, not --quiet, and the run has lasted PC_PROGRESS_AFTER s. */
#ifndef PECHECK_PROGRESS_H
#define PECHECK_PROGRESS_H

#include <stdint.h>

#define PC_PROGRESS_AFTER 2.0  /* seconds before the first line */

typedef struct pc_progress {
    int enabled, shown;
    double start, last;
    const char *what;
} pc_progress;

double pc_now(void); /* monotonic seconds */
void pc_progress_start(pc_progress *p, const char *what, int quiet);
void pc_progress_update(pc_progress *p, uint64_t done, uint64_t total);
void pc_progress_end(pc_progress *p);

#endif

/* progress.c: the progress line. */
#include <stdio.h>
#include <time.h>
#include <unistd.h>
#include "progress.h"

double pc_now(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

void pc_progress_start(pc_progress *p, const char *what, int quiet)
{
    p->enabled = !quiet && isatty(STDERR_FILENO);
    p->shown = 0;
    p->start = p->last = pc_now();
    p->what = what;
}

void pc_progress_update(pc_progress *p, uint64_t done, uint64_t total)
{
    if (!p->enabled) return;
    double t = pc_now();
    if (t - p->start < PC_PROGRESS_AFTER || t - p->last < 0.2) return;
    p->last = t;
    p->shown = 1;
    double frac = total ? (double)done / (double)total : 1.0;
    double eta = frac > 0 ? (t - p->start) * (1.0 - frac) / frac : 0.0;
    fprintf(stderr, "\r%s: %5.1f%% (%llu/%llu), %.0f s left   ", p->what, 100.0 * frac,
            (unsigned long long)done, (unsigned long long)total, eta);
    fflush(stderr);
}

void pc_progress_end(pc_progress *p)
{
    if (p->enabled && p->shown) {
        fprintf(stderr, "\r%*s\r", 72, "");
        fflush(stderr);
    }
}

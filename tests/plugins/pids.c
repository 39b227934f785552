/* pids: a correct plugin that appends the id of the process serving each
 * call to the file named by PECHECK_TEST_PIDFILE: one plugin host process
 * serves every call of a run (no process per call). */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    FILE *f = test_file("PECHECK_TEST_PIDFILE");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

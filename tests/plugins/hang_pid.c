/* hang_pid: writes the id of the process serving it (the plugin host) to
 * the file named by PECHECK_TEST_PIDFILE, then never returns.  When pecheck
 * itself is killed during that call, the host sees its lifeline hang up and
 * exits: no process is left behind. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    (void)pos; (void)n; (void)d; (void)base; (void)layout; (void)out;
    FILE *f = test_file("PECHECK_TEST_PIDFILE");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
    for (;;) pause();
}

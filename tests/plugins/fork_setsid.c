/* fork_setsid: a correct plugin whose first call forks a child that leaves
 * the plugin host's process group and session with setsid() and sleeps for
 * a minute, its pid written to the file named by PECHECK_TEST_PIDFILE.  The
 * host is a child subreaper that kills what the plugin started when pecheck
 * closes it: the child does not outlive the run. */
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    static int forked;
    if (!forked) {
        forked = 1;
        pid_t pid = fork();
        if (pid == 0) {
            setsid();
            if (fork() == 0) { /* a grandchild, orphaned when its parent exits */
                const char *file = getenv("PECHECK_TEST_PIDFILE");
                FILE *f = file ? fopen(file, "w") : NULL;
                if (f) {
                    fprintf(f, "%ld\n", (long)getpid());
                    fclose(f);
                }
                sleep(60);
            }
            _exit(0);
        }
    }
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

/* fork_stdout: a correct plugin whose first call forks a child that keeps
 * the plugin's stdout open and sleeps for a minute, its pid written to the
 * file named by PECHECK_TEST_PIDFILE.  The plugin's stdout is not
 * pecheck's, so `pecheck ... | cat` does not wait for it, and the child is
 * killed with the plugin host's process group at the end. */
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
            sleep(60);
            _exit(0);
        }
        FILE *f = pid > 0 ? test_file("PECHECK_TEST_PIDFILE") : NULL;
        if (f) {
            fprintf(f, "%ld\n", (long)pid);
            fclose(f);
        }
    }
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

/* fork_setsid: a correct plugin whose first call starts a grandchild in a
 * session of its own (child: setsid(), fork(), exit) that sleeps for a
 * minute, its pid written to the file named by PECHECK_TEST_PIDFILE; the
 * call returns once that file is written.  The grandchild does not
 * outlive the run: the sealed plugin host refuses setsid(), so it stays in
 * the host's process group, which pecheck kills (without the seal, the
 * host, a child subreaper, kills what the plugin started when pecheck
 * closes it). */
#include <stdio.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static void grandchild(int ready)
{
    FILE *f = test_file("PECHECK_TEST_PIDFILE");
    if (f) {
        fprintf(f, "%ld\n", (long)getpid());
        fclose(f);
    }
    if (write(ready, "r", 1) != 1) _exit(1);
    close(ready);
    sleep(60);
    _exit(0);
}

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    static int forked;
    int p[2];
    if (!forked && pipe(p) == 0) {
        forked = 1;
        pid_t pid = fork();
        if (pid == 0) {
            close(p[0]);
            setsid();
            if (fork() == 0) grandchild(p[1]);
            _exit(0);
        }
        close(p[1]);
        char c;
        if (pid > 0 && read(p[0], &c, 1) != 1) return 9; /* the pid file is written */
        close(p[0]);
        if (pid > 0) waitpid(pid, NULL, 0);
    }
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

/* sibling: correct values; at each call until it has found one, the
 * plugin looks for another plugin host of the pool (a process with the
 * same parent) and tries to open its /proc/PID/mem for writing, then its
 * own (the host's own /proc/self stays its to read and write).  It appends
 * "sibling PID errno E" (0: the open succeeded) and "self errno E" to the
 * file $PECHECK_TEST_LOG (tests/plugin_pool.t: hosts are not dumpable, so
 * a sibling's memory is closed to it). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }

static int ppid_of(const char *pid)
{
    char path[64], buf[512];
    snprintf(path, sizeof path, "/proc/%s/stat", pid);
    FILE *f = fopen(path, "r");
    if (!f) return -1;
    size_t k = fread(buf, 1, sizeof buf - 1, f);
    fclose(f);
    buf[k] = '\0';
    char *rp = strrchr(buf, ')'), st;
    int pp = -1;
    if (!rp || sscanf(rp + 2, "%c %d", &st, &pp) != 2) return -1;
    return pp;
}

static int open_mem(const char *pid)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%s/mem", pid);
    int fd = open(path, O_RDWR);
    int e = fd < 0 ? errno : 0;
    if (fd >= 0) close(fd);
    return e;
}

static void note(const char *what, long pid, int e)
{
    FILE *f = test_file("PECHECK_TEST_LOG");
    if (!f) return;
    fprintf(f, "%s %ld errno %d\n", what, pid, e);
    fclose(f);
}

static void try_sibling(void)
{
    static int done;
    if (done) return;
    DIR *d = opendir("/proc");
    struct dirent *e;
    while (d && !done && (e = readdir(d))) {
        long p = atol(e->d_name);
        if (p <= 0 || p == (long)getpid() || ppid_of(e->d_name) != (int)getppid()) continue;
        note("sibling", p, open_mem(e->d_name));
        note("self", (long)getpid(), open_mem("self"));
        done = 1;
    }
    if (d) closedir(d);
}

int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    try_sibling();
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

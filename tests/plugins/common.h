/* common.h: shared body of the test plugins (tests/plugin.t builds each
 * tests/plugins/NAME.c with `cc -shared -fPIC`).  A correct sinusoidal
 * implementation (binary64 angle, rounded once) that each plugin breaks
 * in its own way. */
#include <fcntl.h>
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <unistd.h>
#include "pecheck_plugin.h"

/* The file named by the environment variable VAR, which the test made,
 * opened for appending without creating it: the plugin host writes only in
 * its scratch folder and the folders of --plugin-writable (the tests name
 * theirs), and creates no file at all under the seccomp fallback
 * (harness/sandbox/host_fs.h).  NULL when VAR is unset or the open fails. */
static inline FILE *test_file(const char *var)
{
    const char *path = getenv(var);
    int fd = path ? open(path, O_WRONLY | O_APPEND | O_CLOEXEC) : -1;
    FILE *f = fd >= 0 ? fdopen(fd, "a") : NULL;
    if (fd >= 0 && !f) close(fd);
    return f;
}

static inline void good_row(int64_t pos, int d, double base, int layout, float *out)
{
    for (int i = 0; i < d / 2; i++) {
        double theta = (double)pos * pow(base, -2.0 * i / d);
        size_t a = layout ? (size_t)i : (size_t)(2 * i), b = layout ? (size_t)(i + d / 2) : (size_t)(2 * i + 1);
        out[a] = (float)sin(theta);
        out[b] = (float)cos(theta);
    }
}

/* output.c: atomic result files. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "output.h"

pc_status pc_out_open(pc_out *o, const char *path, pc_err *err)
{
    memset(o, 0, sizeof *o);
    if (!path || !strcmp(path, "-")) {
        o->f = stdout;
        return PC_OK;
    }
    size_t n = strlen(path) + 32;
    o->path = strdup(path);
    o->tmp = malloc(n);
    if (!o->path || !o->tmp) {
        free(o->path); free(o->tmp);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    snprintf(o->tmp, n, "%s.tmp.%ld", path, (long)getpid());
    o->f = fopen(o->tmp, "w");
    if (!o->f) {
        pc_status st = pc_seterr(err, PC_EIO, "%s: cannot write: %s", path, strerror(errno));
        free(o->path); free(o->tmp);
        o->path = o->tmp = NULL;
        return st;
    }
    return PC_OK;
}

pc_status pc_out_close(pc_out *o, int commit, pc_err *err)
{
    pc_status st = PC_OK;
    if (o->f == stdout) {
        if (fflush(stdout) != 0)
            st = pc_seterr(err, PC_EIO, "stdout: write failed: %s", strerror(errno));
        return st;
    }
    if (!o->f) return PC_OK;
    int bad = ferror(o->f);
    if (fclose(o->f) != 0) bad = 1;
    o->f = NULL;
    if (commit && bad)
        st = pc_seterr(err, PC_EIO, "%s: write failed: %s", o->path, strerror(errno));
    if (commit && !bad && rename(o->tmp, o->path) != 0)
        st = pc_seterr(err, PC_EIO, "%s: cannot write: %s", o->path, strerror(errno));
    if (!commit || st != PC_OK)
        unlink(o->tmp);
    free(o->path); free(o->tmp);
    o->path = o->tmp = NULL;
    return st;
}

/* output.c: result files that lose nothing (see output.h). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <limits.h>
#include <signal.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "input.h"
#include "output.h"

/* ---- temporaries removed on a signal ------------------------------------ */

/* A handful of temporaries exist at once (one --output file, one report
 * folder); 16 leaves room.  Paths are copied into fixed buffers so that the
 * handler touches no allocator. */
#define PC_OUT_SLOTS 16
#define PC_OUT_PATH  4096 /* PATH_MAX on Linux */

static struct {
    volatile sig_atomic_t used;
    int is_dir;
    char path[PC_OUT_PATH];
} slots[PC_OUT_SLOTS];

static volatile pid_t owner_pid;   /* the process that registered them */
static volatile pid_t child_pid;   /* a child writing into them, or 0 */
static int handlers_set;

/* The deepest folder pc_out_remove_tree descends into: a report folder is
 * flat, a plugin host's scratch folder holds what the plugin made there;
 * 32 levels of 4 KiB buffers stay within any stack a signal handler runs
 * on, and a deeper tree is left in place (the rest is removed). */
#define PC_OUT_TREE_DEPTH 32

/* Remove NAME in the folder DIRFD: a file or link (never followed), or a
 * folder with everything in it, with system calls only (async-signal-safe:
 * no opendir, no malloc). */
static void remove_at(int dirfd, const char *name, int depth)
{
    if (unlinkat(dirfd, name, 0) == 0 || errno != EISDIR || depth >= PC_OUT_TREE_DEPTH) return;
    int fd = openat(dirfd, name, O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
    if (fd >= 0) {
        char buf[4096];
        long n;
        while ((n = syscall(SYS_getdents64, fd, buf, sizeof buf)) > 0) {
            for (long off = 0; off < n;) {
                /* struct linux_dirent64: ino 8, off 8, reclen 2, type 1, name */
                unsigned short reclen;
                memcpy(&reclen, buf + off + 16, sizeof reclen);
                const char *entry = buf + off + 19;
                if (strcmp(entry, ".") && strcmp(entry, ".."))
                    remove_at(fd, entry, depth + 1);
                off += reclen;
            }
        }
        close(fd);
    }
    unlinkat(dirfd, name, AT_REMOVEDIR);
}

void pc_out_remove_tree(const char *path)
{
    remove_at(AT_FDCWD, path, 0);
}

static void on_signal(int sig)
{
    if (getpid() == owner_pid && child_pid > 0) {
        kill(child_pid, SIGKILL);
        waitpid(child_pid, NULL, 0);
    }
    if (getpid() == owner_pid) /* not in a forked child: its parent owns them */
        for (int k = 0; k < PC_OUT_SLOTS; k++) {
            if (!slots[k].used) continue;
            if (slots[k].is_dir) pc_out_remove_tree(slots[k].path);
            else unlink(slots[k].path);
        }
    signal(sig, SIG_DFL);
    raise(sig);
}

static void set_handlers(void)
{
    static const int sigs[] = { SIGINT, SIGTERM, SIGHUP };
    owner_pid = getpid();
    if (handlers_set) return;
    handlers_set = 1;
    for (size_t k = 0; k < sizeof sigs / sizeof sigs[0]; k++) {
        struct sigaction old, sa;
        memset(&sa, 0, sizeof sa);
        sa.sa_handler = on_signal;
        sigemptyset(&sa.sa_mask);
        for (size_t j = 0; j < sizeof sigs / sizeof sigs[0]; j++) sigaddset(&sa.sa_mask, sigs[j]);
        /* a signal ignored by whoever started us (nohup) stays ignored */
        if (sigaction(sigs[k], NULL, &old) == 0 && old.sa_handler != SIG_IGN)
            sigaction(sigs[k], &sa, NULL);
    }
}

int pc_out_track(const char *path, int is_dir)
{
    if (strlen(path) >= PC_OUT_PATH) return -1;
    set_handlers();
    for (int k = 0; k < PC_OUT_SLOTS; k++) {
        if (slots[k].used) continue;
        slots[k].is_dir = is_dir;
        memcpy(slots[k].path, path, strlen(path) + 1);
        slots[k].used = 1; /* last: the handler sees a complete entry */
        return k;
    }
    return -1;
}

void pc_out_set_child(long pid)
{
    child_pid = (pid_t)pid;
}

void pc_out_untrack(int slot)
{
    if (slot >= 0 && slot < PC_OUT_SLOTS) slots[slot].used = 0;
}

/* ---- where PATH is written ---------------------------------------------- */

/* Linux's own limit on links followed in one lookup (MAXSYMLINKS). */
#define PC_OUT_MAX_LINKS 40

char *pc_out_resolve(const char *path, pc_err *err)
{
    char *cur = strdup(path);
    for (int hop = 0; cur; hop++) {
        struct stat st;
        if (lstat(cur, &st) != 0 || !S_ISLNK(st.st_mode)) return cur;
        if (hop == PC_OUT_MAX_LINKS) {
            pc_seterr(err, PC_EIO, "%s: too many levels of symbolic links", path);
            free(cur);
            return NULL;
        }
        char target[PC_OUT_PATH];
        ssize_t n = readlink(cur, target, sizeof target - 1);
        if (n < 0) return cur; /* raced away: let open() say what is wrong */
        target[n] = '\0';
        const char *slash = strrchr(cur, '/');
        size_t dlen = target[0] == '/' || !slash ? 0 : (size_t)(slash - cur) + 1;
        char *next = malloc(dlen + (size_t)n + 1);
        if (next) {
            memcpy(next, cur, dlen);
            memcpy(next + dlen, target, (size_t)n + 1);
        }
        free(cur);
        cur = next;
    }
    pc_seterr(err, PC_ENOMEM, "out of memory");
    return NULL;
}

/* Names of the temporary tried before giving up: PATH.tmp.PID, then
 * PATH.tmp.PID.1 ... PATH.tmp.PID.7.  A name can be taken by a file a
 * crashed earlier process with the same pid left (rare: one more name
 * does) or by one planted on purpose; eight taken names are the latter. */
#define PC_OUT_TMP_TRIES 8

/* Create a temporary beside O->path exclusively (O->tmp, room for its
 * longest name), with the mode (and, as root, the owner) of the regular
 * file ST when it exists (HAVE); tracked in O->slot.  A name that exists is
 * never removed nor written: the next one is tried.  The descriptor, or
 * -1 with errno (EEXIST: every name was taken). */
static int open_tmp(pc_out *o, size_t room, const struct stat *st, int have)
{
    mode_t mode = have ? (st->st_mode & 07777) : 0666;
    int fd = -1;
    for (int k = 0; k < PC_OUT_TMP_TRIES && fd < 0; k++) {
        if (k == 0) snprintf(o->tmp, room, "%s.tmp.%ld", o->path, (long)getpid());
        else snprintf(o->tmp, room, "%s.tmp.%ld.%d", o->path, (long)getpid(), k);
        o->slot = pc_out_track(o->tmp, 0);
        fd = open(o->tmp, O_WRONLY | O_CREAT | O_EXCL | O_CLOEXEC, mode);
        if (fd >= 0) break;
        int e = errno;
        pc_out_untrack(o->slot);
        o->slot = -1;
        errno = e;
        if (e != EEXIST) return -1;
    }
    if (fd < 0) return -1;
    if (have) {
        if (geteuid() == 0 && fchown(fd, st->st_uid, st->st_gid) != 0) { /* best effort */ }
        if (fchmod(fd, mode) != 0) { /* umask narrowed it; best effort */ }
    }
    return fd;
}

/* An existing PATH that is not a regular file (a device, a FIFO, a
 * terminal): written in place, never replaced.  A FIFO waits for its
 * reader at most PC_IN_FIFO_WAIT_MS (input.h), like an input FIFO for its
 * writer: a FIFO nothing reads is an error, not a run that never ends. */
static pc_status open_in_place(pc_out *o, const char *path, const struct stat *st, pc_err *err)
{
    int fifo = S_ISFIFO(st->st_mode);
    int fd = fifo ? pc_fifo_open(o->path, O_WRONLY) : open(o->path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    int e = errno;
    if (fd >= 0 && !(o->f = fdopen(fd, "w"))) {
        e = errno;
        close(fd);
    }
    if (o->f) return PC_OK;
    pc_status s = fifo && fd < 0 && e == EINTR
        ? pc_seterr(err, PC_EIO, "%s: a FIFO that no process opened for reading in %d s (start "
                    "its reader first, or write to a file)", path, PC_IN_FIFO_WAIT_MS / 1000)
        : pc_seterr(err, PC_EIO, "%s: cannot write: %s", path, strerror(e));
    free(o->path);
    o->path = NULL;
    return s;
}

pc_status pc_out_open(pc_out *o, const char *path, pc_err *err)
{
    memset(o, 0, sizeof *o);
    o->slot = -1;
    if (!path || !strcmp(path, "-")) {
        o->f = stdout;
        return PC_OK;
    }
    o->path = pc_out_resolve(path, err);
    if (!o->path) return PC_EIO;
    struct stat st;
    int have = stat(o->path, &st) == 0;
    if (have && !S_ISREG(st.st_mode)) return open_in_place(o, path, &st, err);
    size_t n = strlen(o->path) + 48; /* ".tmp." PID "." K */
    o->tmp = malloc(n);
    if (!o->tmp) {
        free(o->path);
        o->path = NULL;
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    int fd = open_tmp(o, n, &st, have);
    if (fd < 0 || !(o->f = fdopen(fd, "w"))) {
        int e = errno;
        /* every name taken: the output cannot be written safely (exit 3) */
        pc_status s = fd < 0 && e == EEXIST
            ? pc_seterr(err, PC_EWRITE, "%s: cannot create a temporary beside it: %s.tmp.%ld and "
                        "the %d names after it exist (not made by this run: remove them)", path,
                        o->path, (long)getpid(), PC_OUT_TMP_TRIES - 1)
            : pc_seterr(err, PC_EIO, "%s: cannot write: %s", path, strerror(e));
        if (fd >= 0) { close(fd); unlink(o->tmp); }
        pc_out_untrack(o->slot);
        free(o->path); free(o->tmp);
        o->path = o->tmp = NULL;
        o->slot = -1;
        return s;
    }
    return PC_OK;
}

pc_status pc_out_close(pc_out *o, int commit, pc_err *err)
{
    pc_status st = PC_OK;
    if (o->f == stdout) {
        if (commit) st = pc_out_stdout_check(err);
        return st;
    }
    if (!o->f) return PC_OK;
    /* a buffered write that failed earlier left the error flag; fflush
     * retries what is left and says why (errno) */
    errno = 0;
    int bad = fflush(o->f) != 0 || ferror(o->f);
    int e = errno;
    /* the data reaches the disk before the rename makes it the result;
     * EINVAL/EROFS: a file system that cannot sync */
    if (!bad && o->tmp && commit && fsync(fileno(o->f)) != 0 && errno != EINVAL && errno != EROFS) {
        bad = 1;
        e = errno;
    }
    if (fclose(o->f) != 0 && !bad) { bad = 1; e = errno; }
    o->f = NULL;
    if (commit && bad)
        st = pc_seterr(err, PC_EWRITE, "%s: write failed: %s", o->path,
                       e ? strerror(e) : "I/O error");
    if (commit && !bad && o->tmp && rename(o->tmp, o->path) != 0)
        st = pc_seterr(err, PC_EWRITE, "%s: cannot replace it: %s", o->path, strerror(errno));
    if (o->tmp && (!commit || st != PC_OK))
        unlink(o->tmp);
    pc_out_untrack(o->slot);
    free(o->path); free(o->tmp);
    o->path = o->tmp = NULL;
    o->slot = -1;
    return st;
}

pc_status pc_out_stdout_check(pc_err *err)
{
    errno = 0;
    int bad = fflush(stdout) != 0;
    int e = errno;
    if (bad || ferror(stdout))
        return pc_seterr(err, PC_EWRITE, "stdout: write failed: %s", e ? strerror(e) : "I/O error");
    return PC_OK;
}

/* Descriptor 0, 1 or 2 that is closed gets /dev/null opened the other way
 * (stdin for writing, stdout and stderr for reading), so that no file
 * pecheck opens later takes its number and a read or write of it still
 * fails with EBADF, as on the closed descriptor. */
void pc_out_reserve_std(void)
{
    for (int fd = 0; fd <= 2; fd++) {
        if (fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
        int r = open("/dev/null", fd == 0 ? O_WRONLY : O_RDONLY); /* the lowest free: FD */
        if (r >= 0 && r != fd) { dup2(r, fd); close(r); }
    }
}

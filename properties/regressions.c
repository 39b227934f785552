/* regressions.c: reading and appending to the regression file
 * (regressions.h; the line reader: regress_read.c). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include "regressions.h"
#include "regress_read.h"

#define PC_REGRESS_CHUNK 65536 /* bytes read at a time */

static const char header[] =
    "# pecheck regressions: failing cases, tried first by later runs of `pecheck check`\n"
    "# (one per line; the implementation's name is the rest of the line after impl=)\n";

static int eq(const char *s, size_t n, const char *z)
{
    return strlen(z) == n && !memcmp(s, z, n);
}

static int same_key(const pc_rline *l, const pc_regress_case *k)
{
    return eq(l->prop, l->prop_len, k->prop) && eq(l->family, l->family_len, k->family) &&
           eq(l->impl, l->impl_len, k->impl);
}

/* Feed FD's bytes from its start to RL, at most PC_REGRESS_FILE_MAX of them.
 * Returns 0, EFBIG past the limit, or the errno of a failed read. */
static int feed_fd(int fd, pc_rlines *rl)
{
    char *buf = malloc(PC_REGRESS_CHUNK);
    if (!buf) return ENOMEM;
    int64_t off = 0;
    int rc = 0;
    while (!rc) {
        ssize_t got = pread(fd, buf, PC_REGRESS_CHUNK, (off_t)off);
        if (got < 0 && errno == EINTR) continue;
        if (got < 0) { rc = errno; break; }
        if (got == 0) { pc_rlines_end(rl); break; }
        off += got;
        if (pc_rlines_feed(rl, buf, (size_t)got)) break;
        if (off >= PC_REGRESS_FILE_MAX) rc = EFBIG;
    }
    free(buf);
    return rc;
}

/* ---- loading ---------------------------------------------------------- */

typedef struct load_ctx {
    const pc_regress_case *key;
    uint64_t *seeds;
    int n;
} load_ctx;

static int on_load(void *vctx, const pc_rline *l)
{
    load_ctx *c = vctx;
    if (!same_key(l, c->key)) return 0;
    for (int k = 0; k < c->n; k++)
        if (c->seeds[k] == l->seed) return 0;
    c->seeds[c->n++] = l->seed;
    return c->n >= PC_REGRESS_MAX;
}

/* A file that can be read: 1, or 0 with the reason in NOTE. */
static int readable(int fd, const char *path, char *note, size_t note_len)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0) {
        snprintf(note, note_len, "regression file %s: %s; not read", path, strerror(errno));
        return 0;
    }
    if (!S_ISREG(sb.st_mode) && !S_ISCHR(sb.st_mode)) {
        snprintf(note, note_len, "regression file %s is not a regular file; not read", path);
        return 0;
    }
    if (S_ISREG(sb.st_mode) && sb.st_size > PC_REGRESS_FILE_MAX) {
        snprintf(note, note_len, "regression file %s is %" PRId64 " bytes, over the limit of %" PRId64
                 "; not read, left as it is", path, (int64_t)sb.st_size, PC_REGRESS_FILE_MAX);
        return 0;
    }
    return 1;
}

static void load_note(const pc_rlines *rl, int rc, const char *path, char *note, size_t note_len)
{
    if (rc == EFBIG)
        snprintf(note, note_len, "regression file %s: read up to its first %" PRId64
                 " bytes only; left as it is", path, PC_REGRESS_FILE_MAX);
    else if (rc)
        snprintf(note, note_len, "regression file %s: %s; read in part, left as it is", path,
                 strerror(rc));
    else if (rl->bad)
        snprintf(note, note_len, "regression file %s: %ld bad line%s skipped (first: line %ld, %s); "
                 "left as it is", path, rl->bad, rl->bad == 1 ? "" : "s", rl->first_bad,
                 rl->first_why);
}

int pc_regress_load(const char *path, const pc_regress_case *key, uint64_t *seeds,
                    char *note, size_t note_len)
{
    if (note_len) note[0] = '\0';
    if (!path) return 0;
    int fd = open(path, O_RDONLY | O_CLOEXEC | O_NONBLOCK);
    if (fd < 0) {
        if (errno != ENOENT)
            snprintf(note, note_len, "regression file %s: %s; not read", path, strerror(errno));
        return 0;
    }
    load_ctx ctx = { key, seeds, 0 };
    if (readable(fd, path, note, note_len)) {
        pc_rlines *rl = malloc(sizeof *rl);
        if (rl) {
            pc_rlines_init(rl, on_load, &ctx);
            while (flock(fd, LOCK_SH) != 0 && errno == EINTR) {}
            load_note(rl, feed_fd(fd, rl), path, note, note_len);
            free(rl);
        } else {
            snprintf(note, note_len, "regression file %s: out of memory; not read", path);
        }
    }
    close(fd);
    return ctx.n;
}

/* ---- appending -------------------------------------------------------- */

/* " options=V" of C's options, percent-encoded (no space: fields are
 * space-separated; the reader ignores the field), into BUF; "" when none. */
static void options_field(const pc_regress_case *c, char *buf, size_t len)
{
    const char *o = c->options ? c->options : "";
    size_t u = 0;
    buf[0] = '\0';
    while (*o == ' ') o++;
    if (!*o) return;
    u = (size_t)snprintf(buf, len, " options=");
    for (; *o && u + 4 < len; o++) {
        unsigned char ch = (unsigned char)*o;
        if (ch <= ' ' || ch == '%' || ch >= 0x7F) u += (size_t)snprintf(buf + u, len - u, "%%%02X", ch);
        else buf[u++] = (char)ch;
    }
    buf[u < len ? u : len - 1] = '\0';
}

/* C's line with its newline into *LINE (malloc'd), LEN bytes: the key
 * (property, family, seed, impl last: the rest of the line) and what the
 * run was (d, positions, options) for people and replays. */
static pc_status format_line(const pc_regress_case *c, char **line, size_t *len, pc_err *err)
{
    if (strpbrk(c->impl, "\n\r") || strpbrk(c->prop, "\n\r ") || strpbrk(c->family, "\n\r "))
        return pc_seterr(err, PC_EINPUT, "the implementation's name holds a line break: not saved");
    char opts[3 * 1024];
    options_field(c, opts, sizeof opts);
    const char *fmt = "property=%s family=%s seed=0x%016" PRIx64 " d=%d positions=%" PRId64
                      ":%" PRId64 "%s impl=%s\n";
    int n = snprintf(NULL, 0, fmt, c->prop, c->family, c->seed, c->d, c->pos_lo, c->pos_hi, opts,
                     c->impl);
    if (n < 0 || n >= PC_REGRESS_LINE_MAX) /* N counts the newline: the reader takes N - 1 */
        return pc_seterr(err, PC_EINPUT, "the case's line would be %d bytes, over the %d the reader "
                         "takes: not saved", n, PC_REGRESS_LINE_MAX - 1);
    *line = malloc((size_t)n + 1);
    if (!*line) return pc_seterr(err, PC_ENOMEM, "out of memory");
    snprintf(*line, (size_t)n + 1, fmt, c->prop, c->family, c->seed, c->d, c->pos_lo, c->pos_hi,
             opts, c->impl);
    *len = (size_t)n;
    return PC_OK;
}

typedef struct dup_ctx { const pc_regress_case *c; int found; } dup_ctx;

static int on_dup(void *vctx, const pc_rline *l)
{
    dup_ctx *d = vctx;
    d->found = same_key(l, d->c) && l->seed == d->c->seed;
    return d->found;
}

/* Whether FD (SIZE bytes, locked) holds C already; *LAST_NL: it ends with
 * a newline (or is empty).  0, or an errno. */
static int scan_for(int fd, int64_t size, const pc_regress_case *c, int *found, int *last_nl)
{
    *found = 0;
    *last_nl = 1;
    if (size <= 0) return 0;
    char last;
    if (pread(fd, &last, 1, (off_t)(size - 1)) == 1) *last_nl = last == '\n';
    pc_rlines *rl = malloc(sizeof *rl);
    if (!rl) return ENOMEM;
    dup_ctx d = { c, 0 };
    pc_rlines_init(rl, on_dup, &d);
    int rc = feed_fd(fd, rl);
    free(rl);
    *found = d.found;
    return rc == EFBIG ? 0 : rc;
}

static int write_all(int fd, const char *s, size_t n)
{
    while (n > 0) {
        ssize_t w = write(fd, s, n);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return w < 0 ? errno : EIO;
        s += w;
        n -= (size_t)w;
    }
    return 0;
}

/* Under the lock: the checks, then one write of (header,) (newline,) line. */
static pc_status append_locked(int fd, const char *path, const pc_regress_case *c, const char *line,
                               size_t len, pc_err *err)
{
    struct stat sb;
    if (fstat(fd, &sb) != 0)
        return pc_seterr(err, PC_EIO, "%s: %s", path, strerror(errno));
    int reg = S_ISREG(sb.st_mode);
    if (!reg && !S_ISCHR(sb.st_mode))
        return pc_seterr(err, PC_EINPUT, "%s is not a regular file: not saved", path);
    if (reg && sb.st_size > PC_REGRESS_FILE_MAX - (int64_t)len)
        return pc_seterr(err, PC_EINPUT, "%s is over %" PRId64 " bytes: left as it is, not saved",
                         path, PC_REGRESS_FILE_MAX);
    int found = 0, last_nl = 1;
    int rc = reg ? scan_for(fd, (int64_t)sb.st_size, c, &found, &last_nl) : 0;
    if (rc) return pc_seterr(err, PC_EIO, "reading %s: %s", path, strerror(rc));
    if (found) return PC_OK;
    size_t hl = reg && sb.st_size == 0 ? sizeof header - 1 : 0;
    char *buf = malloc(hl + 1 + len);
    if (!buf) return pc_seterr(err, PC_ENOMEM, "out of memory");
    size_t n = 0;
    memcpy(buf, header, hl);
    n += hl;
    if (!last_nl) buf[n++] = '\n'; /* end a line left unfinished, keep it as it is */
    memcpy(buf + n, line, len);
    rc = write_all(fd, buf, n + len);
    free(buf);
    return rc ? pc_seterr(err, PC_EIO, "appending to %s: %s", path, strerror(rc)) : PC_OK;
}

void pc_regress_saved_note(char *buf, size_t len, const char *path)
{
    snprintf(buf, len, "case saved to %s (tried first by later runs)", path);
}

void pc_regress_failed_note(char *buf, size_t len, const pc_err *err)
{
    snprintf(buf, len, "could not save the case: %s", err->msg);
}

pc_status pc_regress_save(const char *path, const pc_regress_case *c, pc_err *err)
{
    size_t len = 0;
    char *line = NULL;
    pc_status st = format_line(c, &line, &len, err);
    if (st != PC_OK) return st;
    int fd = open(path, O_RDWR | O_APPEND | O_CREAT | O_CLOEXEC | O_NONBLOCK, 0666);
    if (fd < 0) {
        st = pc_seterr(err, PC_EIO, "cannot open %s to append: %s", path, strerror(errno));
    } else {
        int lk;
        while ((lk = flock(fd, LOCK_EX)) != 0 && errno == EINTR) {}
        st = lk ? pc_seterr(err, PC_EIO, "cannot lock %s: %s", path, strerror(errno))
                : append_locked(fd, path, c, line, len, err);
        if (close(fd) != 0 && st == PC_OK)
            st = pc_seterr(err, PC_EIO, "closing %s: %s", path, strerror(errno));
    }
    free(line);
    return st;
}

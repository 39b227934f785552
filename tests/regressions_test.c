/* regressions_test.c: TAP tests of the regression file (properties/
 * regressions.c, regress_read.c).
 *
 * The reader: cases, comments, bad lines (NUL byte, too long, fields
 * missing) reported and skipped, the lines after them read, the same result
 * however the input is cut.  The file: appended to, never rewritten (a file
 * over the size limit, not a regular file or unreadable is reported and left
 * byte for byte as it was); 10 processes appending at once lose no line and
 * write no duplicate; an implementation path of 4000 bytes is saved and read
 * back; a line the reader could not read back is not written.  Output: TAP,
 * plan at the end; exit 0 when every test passed. */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include "properties/regress_read.h"
#include "properties/regressions.h"

static int tap_n, tap_failed;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!cond) tap_failed++;
    fflush(stdout);
}

static char dir[] = "/tmp/pecheck-regtest-XXXXXX";

static void path_of(char *buf, size_t len, const char *name)
{
    snprintf(buf, len, "%s/%s", dir, name);
}

static void put(const char *path, const char *data, size_t n)
{
    FILE *f = fopen(path, "wb");
    if (f) { fwrite(data, 1, n, f); fclose(f); }
}

/* the whole file, malloc'd; *N its size (0 and NULL when absent) */
static char *get(const char *path, size_t *n)
{
    *n = 0;
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    size_t cap = 1 << 16;
    char *b = malloc(cap);
    size_t got;
    while (b && (got = fread(b + *n, 1, cap - *n, f)) > 0) {
        *n += got;
        if (*n == cap) { char *nb = realloc(b, cap *= 2); if (!nb) { free(b); b = NULL; } else b = nb; }
    }
    fclose(f);
    return b;
}

static long count(const char *s, size_t n, const char *needle)
{
    long c = 0;
    size_t k = strlen(needle);
    for (size_t i = 0; i + k <= n; i++) c += !memcmp(s + i, needle, k);
    return c;
}

/* ---- the reader ---------------------------------------------------------- */

typedef struct seen { uint64_t seeds[64]; int n; size_t impl_len; } seen;

static int on_case(void *ctx, const pc_rline *l)
{
    seen *s = ctx;
    if (s->n < 64) s->seeds[s->n++] = l->seed;
    s->impl_len = l->impl_len;
    return 0;
}

static void read_bytes(const char *data, size_t n, size_t chunk, pc_rlines *rl, seen *s)
{
    memset(s, 0, sizeof *s);
    pc_rlines_init(rl, on_case, s);
    for (size_t i = 0; i < n; i += chunk)
        pc_rlines_feed(rl, data + i, n - i < chunk ? n - i : chunk);
    pc_rlines_end(rl);
}

static void test_reader(void)
{
    static pc_rlines rl;
    seen s;
    const char text[] = "# comment\n\nproperty=unique family=sinusoidal seed=0x10 d=8 impl=a b\n"
                        "property=unique seed=0x11 impl=x\n"          /* no family */
                        "property=unique family=rope seed=zz impl=x\n" /* bad seed */
                        "property=unique family=rope seed=0x12 impl=\n" /* empty impl */
                        "garbage\n"
                        "property=u fam\0ily=r seed=1 impl=x\n"
                        "property=u family=r seed=0x13 impl=last";
    read_bytes(text, sizeof text - 1, sizeof text, &rl, &s);
    ok(s.n == 2 && s.seeds[0] == 0x10 && s.seeds[1] == 0x13 && rl.bad == 5 && rl.first_bad == 4,
       "the reader takes 2 cases and reports 5 bad lines, the first on line 4 (%d cases, %ld bad, "
       "first %ld: %s)", s.n, rl.bad, rl.first_bad, rl.first_why ? rl.first_why : "-");
    int same = 1;
    for (size_t chunk = 1; chunk < 40; chunk++) {
        seen s2;
        read_bytes(text, sizeof text - 1, chunk, &rl, &s2);
        same &= s2.n == 2 && s2.seeds[1] == 0x13 && rl.bad == 5 && rl.first_bad == 4;
    }
    ok(same, "the same cases and bad lines however the input is cut (chunks of 1..39 bytes)");

    /* a NUL byte ends nothing but its own line */
    const char nul[] = "property=u family=r seed=0x1 impl=a\0b\nproperty=u family=r seed=0x2 impl=c\n";
    read_bytes(nul, sizeof nul - 1, 7, &rl, &s);
    ok(s.n == 1 && s.seeds[0] == 2 && rl.bad == 1 && !strcmp(rl.first_why, "a NUL byte"),
       "a line with a NUL byte is bad and the next line is read");

    /* long lines: 8000 bytes read, 9000 reported and skipped */
    size_t big = 20000;
    char *b = malloc(big);
    if (!b) return;
    size_t n = (size_t)snprintf(b, big, "property=u family=r seed=0x3 impl=");
    memset(b + n, 'p', 8000 - n);
    n = 8000;
    b[n++] = '\n';
    size_t h = (size_t)snprintf(b + n, big - n, "property=u family=r seed=0x4 impl=");
    memset(b + n + h, 'q', 9000 - h);
    n += 9000;
    b[n++] = '\n';
    n += (size_t)snprintf(b + n, big - n, "property=u family=r seed=0x5 impl=z\n");
    read_bytes(b, n, 4096, &rl, &s);
    ok(s.n == 2 && s.seeds[0] == 3 && s.seeds[1] == 5 && rl.bad == 1 && rl.first_bad == 2,
       "an 8000-byte line is read; a 9000-byte line is reported and skipped, the next read");
    free(b);
}

/* ---- the file ------------------------------------------------------------ */

static pc_regress_case key(const char *impl, uint64_t seed)
{
    pc_regress_case c = { .prop = "linear-shift", .family = "sinusoidal", .impl = impl,
                          .seed = seed, .d = 16, .pos_lo = 0, .pos_hi = 4095 };
    return c;
}

static void test_append(void)
{
    char p[256];
    path_of(p, sizeof p, "append");
    pc_err e = { "" };
    pc_regress_case c = key("impl one", 0x42);
    pc_status st = pc_regress_save(p, &c, &e);
    size_t n1;
    char *t1 = get(p, &n1);
    ok(st == PC_OK && t1 && count(t1, n1, "# pecheck regressions") == 1 &&
       count(t1, n1, "seed=0x0000000000000042 d=16 positions=0:4095 impl=impl one\n") == 1,
       "a new file gets the header and the case");
    st = pc_regress_save(p, &c, &e);
    size_t n2;
    char *t2 = get(p, &n2);
    ok(st == PC_OK && n2 == n1, "the same case is not written twice");
    free(t2);
    /* a line left unfinished (a crash mid-write) stays, the next case goes on its own line */
    FILE *f = fopen(p, "ab");
    if (f) { fputs("property=linear-shift family=sinus", f); fclose(f); }
    c.seed = 0x43;
    st = pc_regress_save(p, &c, &e);
    t2 = get(p, &n2);
    ok(st == PC_OK && t2 && n2 > n1 && !memcmp(t1, t2, n1) &&
       count(t2, n2, "family=sinus\nproperty=linear-shift family=sinusoidal seed=0x0000000000000043") == 1,
       "appending keeps every byte before it and ends an unfinished line first");
    uint64_t seeds[PC_REGRESS_MAX];
    char note[600];
    int k = pc_regress_load(p, &c, seeds, note, sizeof note);
    ok(k == 2 && seeds[0] == 0x42 && seeds[1] == 0x43 && strstr(note, "1 bad line skipped"),
       "both cases read back, the unfinished line reported: %s", note);
    free(t1);
    free(t2);
}

static void test_long_path(void)
{
    char p[256];
    path_of(p, sizeof p, "long");
    char *impl = malloc(9000);
    if (!impl) return;
    memset(impl, 'd', 4000);
    for (int i = 0; i < 4000; i += 100) impl[i] = '/';
    memcpy(impl + 3996, ".so", 4);
    pc_err e = { "" };
    pc_regress_case c = key(impl, 7);
    pc_status st = pc_regress_save(p, &c, &e);
    uint64_t seeds[PC_REGRESS_MAX];
    char note[600];
    int k = pc_regress_load(p, &c, seeds, note, sizeof note);
    ok(st == PC_OK && k == 1 && seeds[0] == 7 && !note[0], "a 4000-byte implementation path is saved and read back");
    st = pc_regress_save(p, &c, &e);
    size_t n;
    char *t = get(p, &n);
    ok(st == PC_OK && t && count(t, n, "seed=0x0000000000000007") == 1,
       "and it is found again: saving it twice writes one line");
    free(t);
    memset(impl, 'e', 8999);
    impl[8999] = '\0';
    c.impl = impl;
    size_t before = n;
    st = pc_regress_save(p, &c, &e);
    t = get(p, &n);
    ok(st == PC_EINPUT && n == before && strstr(e.msg, "not saved"),
       "a line the reader could not take back is not written: %s", e.msg);
    free(t);
    c.impl = "two\nlines";
    st = pc_regress_save(p, &c, &e);
    ok(st == PC_EINPUT && strstr(e.msg, "line break"), "a name with a newline is not written: %s", e.msg);
    free(impl);
}

static void test_kept(void)
{
    char p[300], q[256];
    uint64_t seeds[PC_REGRESS_MAX];
    char note[600];
    pc_err e = { "" };
    pc_regress_case c = key("x", 1);
    /* over the size limit: a sparse file, so the test costs no disk */
    path_of(p, sizeof p, "huge");
    put(p, "property=linear-shift family=sinusoidal seed=0x1 impl=x\n", 55);
    if (truncate(p, PC_REGRESS_FILE_MAX + 1) != 0) printf("# truncate: %s\n", strerror(errno));
    int k = pc_regress_load(p, &c, seeds, note, sizeof note);
    ok(k == 0 && strstr(note, "over the limit") && strstr(note, "left as it is"), "a file over the limit is reported: %s", note);
    c.seed = 2;
    pc_status st = pc_regress_save(p, &c, &e);
    struct stat sb;
    ok(st == PC_EINPUT && stat(p, &sb) == 0 && sb.st_size == PC_REGRESS_FILE_MAX + 1,
       "and left as it is, not rewritten: %s", e.msg);
    unlink(p);
    /* not a regular file */
    path_of(p, sizeof p, "adir");
    mkdir(p, 0755);
    k = pc_regress_load(p, &c, seeds, note, sizeof note);
    st = pc_regress_save(p, &c, &e);
    ok(k == 0 && strstr(note, "not") && st != PC_OK && stat(p, &sb) == 0 && S_ISDIR(sb.st_mode),
       "a directory is reported (%s) and kept (%s)", note, e.msg);
    rmdir(p);
    /* unreadable: a path through a regular file */
    path_of(q, sizeof q, "plain");
    put(q, "keep\n", 5);
    snprintf(p, sizeof p, "%s/under", q);
    k = pc_regress_load(p, &c, seeds, note, sizeof note);
    st = pc_regress_save(p, &c, &e);
    size_t n;
    char *t = get(q, &n);
    ok(k == 0 && strstr(note, "Not a directory") && st == PC_EIO && t && n == 5,
       "an unreadable path is reported (%s), nothing is written (%s)", note, e.msg);
    free(t);
}

static void test_nul_kept(void)
{
    char p[256];
    path_of(p, sizeof p, "nul");
    const char data[] = "# head\nproperty=linear-shift family=sinusoidal seed=0x1 impl=\0x\n"
                        "property=linear-shift family=sinusoidal seed=0x2 impl=x\n";
    put(p, data, sizeof data - 1);
    pc_regress_case c = key("x", 3);
    uint64_t seeds[PC_REGRESS_MAX];
    char note[600];
    int k = pc_regress_load(p, &c, seeds, note, sizeof note);
    ok(k == 1 && seeds[0] == 2 && strstr(note, "line 2, a NUL byte"),
       "a NUL byte does not truncate the file: the line after it is read (%s)", note);
    pc_err e = { "" };
    pc_status st = pc_regress_save(p, &c, &e);
    size_t n;
    char *t = get(p, &n);
    ok(st == PC_OK && t && n > sizeof data - 1 && !memcmp(t, data, sizeof data - 1),
       "appending to it keeps the NUL byte and every line");
    free(t);
}

#define PROCS 10
#define PER_PROC 40

static void test_concurrent(void)
{
    char p[256];
    path_of(p, sizeof p, "concurrent");
    pid_t kids[PROCS];
    for (int i = 0; i < PROCS; i++) {
        kids[i] = fork();
        if (kids[i] == 0) {
            int bad = 0;
            for (int j = 0; j < PER_PROC; j++) {
                pc_err e = { "" };
                pc_regress_case c = key("conc", (uint64_t)(i * 1000 + j));
                bad |= pc_regress_save(p, &c, &e) != PC_OK;
                c.seed = 0xdead; /* the same case from every process: written once */
                bad |= pc_regress_save(p, &c, &e) != PC_OK;
            }
            _exit(bad);
        }
    }
    int all = 1;
    for (int i = 0; i < PROCS; i++) {
        int ws = 0;
        all &= kids[i] > 0 && waitpid(kids[i], &ws, 0) == kids[i] && WIFEXITED(ws) && WEXITSTATUS(ws) == 0;
    }
    size_t n;
    char *t = get(p, &n);
    long lines = t ? count(t, n, "\n") : 0, cases = t ? count(t, n, "property=") : 0;
    long heads = t ? count(t, n, "# pecheck regressions") : 0, dead = t ? count(t, n, "seed=0x000000000000dead") : 0;
    int distinct = 1;
    for (int i = 0; i < PROCS && t; i++)
        for (int j = 0; j < PER_PROC; j += 13) {
            char want[64];
            snprintf(want, sizeof want, "seed=0x%016" PRIx64 " ", (uint64_t)(i * 1000 + j));
            distinct &= count(t, n, want) == 1;
        }
    ok(all && cases == PROCS * PER_PROC + 1 && lines == cases + 2 && heads == 1 && dead == 1 && distinct,
       "%d processes appending %d cases each at once: %ld cases, %ld lines, %ld header, the shared case %ld time",
       PROCS, PER_PROC, cases, lines, heads, dead);
    pc_regress_case c = key("conc", 0);
    uint64_t seeds[PC_REGRESS_MAX];
    char note[600];
    int k = pc_regress_load(p, &c, seeds, note, sizeof note);
    ok(k == PC_REGRESS_MAX && !note[0], "and the file reads back without a bad line (%d seeds, the limit)", k);
    free(t);
}

int main(void)
{
    if (!mkdtemp(dir)) { printf("1..0 # SKIP no temporary directory\n"); return 0; }
    test_reader();
    test_append();
    test_long_path();
    test_kept();
    test_nul_kept();
    test_concurrent();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "rm -rf '%s'", dir);
    if (system(cmd) != 0) printf("# could not remove %s\n", dir);
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

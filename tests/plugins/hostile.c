/* hostile: a correct sinusoidal plugin that attacks what its plugin host
 * shares with pecheck (memory, descriptors, files, time) in the way named
 * by PECHECK_TEST_ATTACK, and appends "ATTACK rc=R errno=E" (E a number) to
 * the file named by PECHECK_TEST_LOG (made by the test, in a folder given
 * to --plugin-writable).  PECHECK_TEST_TARGET names the file attacked,
 * PECHECK_TEST_FORGED a file to put in its place.  tests/sandbox.t runs
 * each attack and compares pecheck's verdicts with those of "none".
 *
 *   none         no attack
 *   shrink_ctor  ftruncate(4, 0) of the shared memory, in the constructor
 *   shrink_call  the same in every call
 *   bigout       ftruncate(1, 2^44): the captured stdout a 16 TiB sparse file
 *   nul          its first call writes "\0after a NUL\n" to stdout
 *   controls     its first call writes ESC, CR and BEL sequences around a
 *                forged "PASS" line to stdout (terminal and YAML spoofing)
 *   forge        a child polls for TARGET; once it exists it sends "saw" to
 *                the abstract socket PECHECK_TEST_SOCK and renames FORGED
 *                over it (a verdict forged after pecheck wrote it)
 *   fifo         TARGET (pecheck's --output) replaced by a FIFO
 *   oom          "1000" written to /proc/<pecheck>/oom_score_adj
 *   replace      FORGED renamed over TARGET (the pecheck binary)
 *   remove       TARGET (the regression file) removed
 *   truncate     TARGET (the regression file) truncated to 0
 *   plant        a folder TARGET.tmp.<pecheck's pid> (the output's temporary)
 *   write_out    a new file TARGET, outside the scratch folder
 *   write_tmp    a new file in $TMPDIR, the host's scratch folder
 *   slowcrash    every second call of a host spins until SIGALRM kills it,
 *                200 ms after the call began
 *   fds          the host's open descriptors, "fds 0 1 2 ..."
 *   chmod        chmod(TARGET, 0777)
 *   utime        utimensat(TARGET): its times set to 1970
 *   xattr        setxattr(TARGET, "user.pecheck", "x")
 *   chmod_tmp    chmod of a file it made in $TMPDIR, its scratch folder
 *   net_unix     connect to the unix socket at PECHECK_TEST_SOCKPATH, send "leak"
 *   net_abstract the same to the abstract socket PECHECK_TEST_SOCK
 *   net_tcp      connect to 127.0.0.1:PECHECK_TEST_PORT (TCP), send "leak"
 *   net_udp      send "leak" to 127.0.0.1:PECHECK_TEST_PORT (UDP)
 *   The network attacks log the result of the first step that failed (or
 *   of the last: rc=0 when "leak" was sent).
 *
 * The attacks of the constructor run when the host loads the plugin, so
 * they are made once by each host of the pool. */
#define _GNU_SOURCE
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/time.h>
#include <sys/un.h>
#include <sys/xattr.h>
#include <netinet/in.h>
#include <arpa/inet.h>
#include <unistd.h>
#include "common.h"

static const char *attack;

/* RC (and ERR when it is negative), taken before this call (errno moves). */
static void result(const char *what, long rc, int err)
{
    FILE *f = test_file("PECHECK_TEST_LOG");
    if (!f) return;
    fprintf(f, "%s rc=%ld errno=%d\n", what, rc, rc < 0 ? err : 0);
    fclose(f);
}

static int is(const char *name)
{
    return attack && !strcmp(attack, name);
}

/* "saw" to the abstract unix socket named by PECHECK_TEST_SOCK. */
static void tell(void)
{
    const char *name = getenv("PECHECK_TEST_SOCK");
    int s = name ? socket(AF_UNIX, SOCK_DGRAM, 0) : -1;
    if (s < 0) return;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path + 1, sizeof a.sun_path - 1, "%s", name);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + 1 + strlen(name));
    sendto(s, "saw", 3, 0, (struct sockaddr *)&a, len);
    close(s);
}

/* A child that waits for TARGET (at most 60 s), tells, and replaces it. */
static void forge(const char *target, const char *forged)
{
    if (fork() != 0) return;
    for (int k = 0; k < 300000; k++) {
        if (access(target, F_OK) == 0) {
            tell();
            int rc = rename(forged, target), e = errno;
            result("forge", rc, e);
            _exit(0);
        }
        usleep(200);
    }
    _exit(0);
}

static long write_new(const char *path)
{
    int fd = open(path, O_WRONLY | O_CREAT | O_EXCL, 0644);
    if (fd < 0) return -1;
    long rc = write(fd, "x\n", 2) == 2 ? 0 : -2;
    close(fd);
    return rc;
}

static void list_fds(void)
{
    char line[512] = "fds";
    DIR *d = opendir("/proc/self/fd");
    struct dirent *e;
    while (d && (e = readdir(d)) != NULL)
        if (e->d_name[0] != '.' && atoi(e->d_name) != dirfd(d) && strlen(line) < sizeof line - 16)
            snprintf(line + strlen(line), sizeof line - strlen(line), " %s", e->d_name);
    if (d) closedir(d);
    result(line, 0, 0);
}

static long oom(void)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/oom_score_adj", (long)getppid());
    int fd = open(path, O_WRONLY);
    long rc = fd < 0 ? -1 : write(fd, "1000", 4) == 4 ? 0 : -2;
    int e = errno;
    if (fd >= 0) close(fd);
    errno = e;
    return rc;
}

static long fifo(const char *target)
{
    unlink(target); /* there when pecheck made it already */
    errno = 0;
    return mkfifo(target, 0644);
}

static long plant(const char *target)
{
    char path[4200];
    snprintf(path, sizeof path, "%s.tmp.%ld", target, (long)getppid());
    return mkdir(path, 0755);
}

static long write_tmp(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/made-by-the-plugin", getenv("TMPDIR"));
    return write_new(path);
}

/* A stream connection (or, DGRAM, a datagram) to A of LEN bytes, "leak"
 * sent: 0, or -1 with errno from the step that failed. */
static long leak(int family, int type, const struct sockaddr *a, socklen_t len)
{
    int s = socket(family, type, 0);
    if (s < 0) return -1;
    long rc = type == SOCK_DGRAM ? (sendto(s, "leak", 4, 0, a, len) == 4 ? 0 : -1)
            : connect(s, a, len) != 0 ? -1 : write(s, "leak", 4) == 4 ? 0 : -1;
    int e = errno;
    close(s);
    errno = e;
    return rc;
}

static long net_unix(int abstract)
{
    const char *name = getenv(abstract ? "PECHECK_TEST_SOCK" : "PECHECK_TEST_SOCKPATH");
    if (!name) return 1;
    struct sockaddr_un a;
    memset(&a, 0, sizeof a);
    a.sun_family = AF_UNIX;
    snprintf(a.sun_path + abstract, sizeof a.sun_path - (size_t)abstract, "%s", name);
    socklen_t len = (socklen_t)(offsetof(struct sockaddr_un, sun_path) + (size_t)abstract +
                                strlen(name) + (size_t)!abstract);
    return leak(AF_UNIX, SOCK_STREAM, (struct sockaddr *)&a, len);
}

static long net_ip(int type)
{
    const char *port = getenv("PECHECK_TEST_PORT");
    if (!port) return 1;
    struct sockaddr_in a;
    memset(&a, 0, sizeof a);
    a.sin_family = AF_INET;
    a.sin_port = htons((uint16_t)atoi(port));
    a.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    return leak(AF_INET, type, (struct sockaddr *)&a, sizeof a);
}

static long chmod_tmp(void)
{
    char path[4200];
    snprintf(path, sizeof path, "%s/made-by-the-plugin", getenv("TMPDIR"));
    if (write_new(path) != 0) return -2;
    return chmod(path, 0777);
}

/* The attack made once, when the host loads the plugin: its result, or 1
 * for none. */
static long at_load(const char *target, const char *forged)
{
    if (is("shrink_ctor")) return ftruncate(4, 0);
    if (is("bigout")) return ftruncate(1, (off_t)1 << 44);
    if (is("oom")) return oom();
    if (is("write_tmp") && getenv("TMPDIR")) return write_tmp();
    if (is("fds")) { list_fds(); return 1; }
    if (is("net_unix")) return net_unix(0);
    if (is("net_abstract")) return net_unix(1);
    if (is("net_tcp")) return net_ip(SOCK_STREAM);
    if (is("net_udp")) return net_ip(SOCK_DGRAM);
    if (is("chmod_tmp") && getenv("TMPDIR")) return chmod_tmp();
    if (!target) return 1;
    if (is("forge") && forged) { forge(target, forged); return 1; }
    if (is("fifo")) return fifo(target);
    if (is("replace") && forged) return rename(forged, target);
    if (is("remove")) return unlink(target);
    if (is("truncate")) return truncate(target, 0);
    if (is("plant")) return plant(target);
    if (is("write_out")) return write_new(target);
    if (is("chmod")) return chmod(target, 0777);
    if (is("utime")) {
        struct timespec t[2] = { { 0, 0 }, { 0, 0 } };
        return utimensat(AT_FDCWD, target, t, 0);
    }
    if (is("xattr")) return setxattr(target, "user.pecheck", "x", 1, 0);
    return 1;
}

__attribute__((constructor)) static void on_load(void)
{
    attack = getenv("PECHECK_TEST_ATTACK");
    long rc = at_load(getenv("PECHECK_TEST_TARGET"), getenv("PECHECK_TEST_FORGED"));
    int e = errno;
    if (rc != 1) result(attack, rc, e);
}

/* Spin until SIGALRM (default action: the process dies) 200 ms on. */
static void crash_slowly(void)
{
    struct itimerval t = { { 0, 0 }, { 0, 200000 } };
    result(attack, 0, 0);
    setitimer(ITIMER_REAL, &t, NULL);
    for (volatile unsigned long k = 0;; k++) {}
}

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    static long calls;
    calls++;
    if (is("shrink_call")) {
        int rc = ftruncate(4, 0), e = errno;
        if (calls == 1) result(attack, rc, e);
    }
    if (is("nul") && calls == 1) {
        static const char text[] = "\0after a NUL\n";
        if (write(1, text, sizeof text - 1) < 0) return 9;
    }
    if (is("controls") && calls == 1) {
        static const char text[] = "\033[2K\033[1A\rFORGED PASS\a\n";
        if (write(1, text, sizeof text - 1) < 0) return 9;
    }
    if (is("slowcrash") && calls % 2 == 0) crash_slowly();
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

/* parent: a correct plugin whose constructor attacks pecheck's own process
 * (the plugin host's parent) in the way named by PECHECK_TEST_ATTACK, and
 * writes "ATTACK rc=R errno=E" (E a number) to the file named by
 * PECHECK_TEST_PIDFILE:
 *
 *   stop      kill(getppid(), SIGSTOP)       kill     kill(getppid(), SIGKILL)
 *   tgkill    tgkill(ppid, ppid, SIGKILL)    tkill    tkill(ppid, SIGKILL)
 *   sigqueue  rt_sigqueueinfo(ppid, SIGKILL) ptrace   ptrace(PTRACE_ATTACH, ppid)
 *   all       kill(-1, SIGKILL), made only after kill(-1, 0) (which sends
 *             nothing) was refused with EPERM: never where it would land
 *   mem       open /proc/PPID/mem for writing (rc -1: the open failed; -2:
 *             it opened, then the write failed)
 *   setsid    setsid() in a forked child     setown   F_SETOWN of a pipe to ppid
 *   prlimit   RLIMIT_CPU of ppid set to 1 s  clone    clone(CLONE_PARENT)
 *   probe     no attack: the host's "Seccomp:", "NoNewPrivs:" and "CapEff:"
 *             lines of /proc/self/status, then kill(-1, 0)'s result
 *
 * The run must pass with its usual output and the attack must have failed.
 * The constructor runs when the host loads the plugin: the host is sealed
 * before dlopen, so the constructor is held like every call. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ptrace.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "common.h"

static FILE *report;

static void result(const char *what, long rc, int err)
{
    if (report) fprintf(report, "%s rc=%ld errno=%d\n", what, rc, rc < 0 ? err : 0);
}

static void status_lines(void)
{
    FILE *f = fopen("/proc/self/status", "r");
    char line[256];
    while (f && fgets(line, sizeof line, f))
        if (!strncmp(line, "Seccomp:", 8) || !strncmp(line, "NoNewPrivs:", 11) ||
            !strncmp(line, "CapEff:", 7))
            fputs(line, report);
    if (f) fclose(f);
}

static long attack_mem(pid_t pp)
{
    char path[64];
    snprintf(path, sizeof path, "/proc/%ld/mem", (long)pp);
    int fd = open(path, O_RDWR);
    if (fd < 0) return -1;
    long zero = 0;
    /* 0x400000: any address will do; whether it is mapped or not, the open
     * already succeeded, which is what must not happen */
    long rc = pwrite(fd, &zero, sizeof zero, 0x400000);
    int e = errno;
    close(fd);
    errno = e;
    return rc < 0 ? -2 : 0; /* -2: opened, the write failed */
}

static long attack_setsid(void)
{
    pid_t c = fork();
    if (c == 0) _exit(setsid() < 0 ? errno : 0);
    int st = 0;
    if (c < 0 || waitpid(c, &st, 0) != c || !WIFEXITED(st)) return -3;
    errno = WEXITSTATUS(st);
    return errno ? -1 : 0;
}

static long attack_setown(pid_t pp)
{
    int p[2];
    if (pipe(p) != 0) return -3;
    long rc = fcntl(p[0], F_SETOWN, pp);
    int e = errno;
    close(p[0]);
    close(p[1]);
    errno = e;
    return rc;
}

static int child_fn(void *arg)
{
    (void)arg;
    return 0;
}

static long attack_clone(void)
{
    static char stack[65536];
    long rc = clone(child_fn, stack + sizeof stack, CLONE_PARENT | SIGCHLD, NULL);
    return rc;
}

static long attack(const char *a, pid_t pp)
{
    siginfo_t si;
    memset(&si, 0, sizeof si);
    si.si_code = SI_QUEUE;
    struct rlimit rl = { 1, 1 };
    if (!strcmp(a, "stop")) return kill(pp, SIGSTOP);
    if (!strcmp(a, "kill")) return kill(pp, SIGKILL);
    if (!strcmp(a, "tgkill")) return syscall(SYS_tgkill, pp, pp, SIGKILL);
    if (!strcmp(a, "tkill")) return syscall(SYS_tkill, pp, SIGKILL);
    if (!strcmp(a, "sigqueue")) return syscall(SYS_rt_sigqueueinfo, pp, SIGKILL, &si);
    if (!strcmp(a, "all")) /* only where signal 0 to everyone is refused */
        return kill(-1, 0) == -1 && errno == EPERM ? kill(-1, SIGKILL) : -4;
    if (!strcmp(a, "ptrace")) return ptrace(PTRACE_ATTACH, pp, NULL, NULL);
    if (!strcmp(a, "mem")) return attack_mem(pp);
    if (!strcmp(a, "setsid")) return attack_setsid();
    if (!strcmp(a, "setown")) return attack_setown(pp);
    if (!strcmp(a, "prlimit")) return prlimit(pp, RLIMIT_CPU, &rl, NULL);
    if (!strcmp(a, "clone")) return attack_clone();
    return -5;
}

__attribute__((constructor)) static void on_load(void)
{
    const char *a = getenv("PECHECK_TEST_ATTACK"), *file = getenv("PECHECK_TEST_PIDFILE");
    if (!a || !file || !(report = test_file("PECHECK_TEST_PIDFILE"))) return;
    if (!strcmp(a, "probe")) {
        status_lines();
        long rc = kill(-1, 0);
        result("kill(-1,0)", rc, errno);
    } else {
        long rc = attack(a, getppid());
        result(a, rc, errno);
    }
    fclose(report);
    report = NULL;
}

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

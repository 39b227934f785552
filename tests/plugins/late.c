/* late: a correct sinusoidal plugin that writes NaN into the OUT of every
 * call after the call returned, at the latest moment it can: when its
 * plugin host answers pecheck (the host's write of one byte on its control
 * socket, descriptor 3, which this plugin's own seccomp filter turns into
 * SIGSYS; the handler writes the NaN, then sends the byte itself).  What
 * the call returned was correct, so its verdict must be a pass: a check
 * that fails here judged OUT as it was after the call, not at its return
 * (as a kernel whose GPU copy or thread lands late would make it).
 * x86_64 only (the handler reads the registers of the trapped call);
 * elsewhere it is a correct plugin.  tests/sandbox.t runs it. */
#define _GNU_SOURCE
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include "common.h"

static float *volatile late_out; /* the last call's OUT */
static volatile size_t late_len;

#if defined(__x86_64__)
static void on_sigsys(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    ucontext_t *uc = ctx;
    greg_t *r = uc->uc_mcontext.gregs;
    if (si->si_syscall != SYS_write) return;
    float *o = late_out;
    for (size_t k = 0; o && k < late_len; k++) o[k] = NAN; /* after the return */
    late_out = NULL;
    /* the byte itself, by a call the filter lets through */
    r[REG_RAX] = (greg_t)sendto((int)r[REG_RDI], (const void *)r[REG_RSI], (size_t)r[REG_RDX],
                                MSG_NOSIGNAL, NULL, 0);
}

/* write(3, ...) traps (SIGSYS); everything else runs. */
__attribute__((constructor)) static void arm(void)
{
    struct sock_filter f[] = {
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, nr)),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, SYS_write, 0, 3),
        BPF_STMT(BPF_LD | BPF_W | BPF_ABS, offsetof(struct seccomp_data, args[0])),
        BPF_JUMP(BPF_JMP | BPF_JEQ | BPF_K, 3, 0, 1),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_TRAP),
        BPF_STMT(BPF_RET | BPF_K, SECCOMP_RET_ALLOW),
    };
    struct sock_fprog prog = { (unsigned short)(sizeof f / sizeof f[0]), f };
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSYS, &sa, NULL);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); /* set by the host already */
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
#endif

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    late_len = n * (size_t)d;
    late_out = out;
    return 0;
}

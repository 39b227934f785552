/* late.h: after each call of a test plugin that includes it, the bytes of
 * that call's OUT made NaN (0xFF: NaN in f32, f16 and bf16) once the call
 * returned, at the latest moment the plugin can: when its plugin host
 * answers pecheck (the host's write of one byte on its control socket,
 * descriptor 3, which this plugin's own seccomp filter turns into SIGSYS;
 * the handler writes the NaN, then sends the byte itself).  What the call
 * returned was correct, so its verdicts must be passes: a check that fails
 * judged OUT as it was after the call, not at its return (as a kernel
 * whose GPU copy or thread lands late would make it).  x86_64 only (the
 * handler reads the registers of the trapped call); elsewhere nothing is
 * written late.  The entry point calls late_arm(OUT, BYTES) before it
 * returns.  tests/sandbox.t runs late.c and rope_v2_late.c. */
#include <signal.h>
#include <stddef.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <ucontext.h>
#include <linux/filter.h>
#include <linux/seccomp.h>

static void *volatile late_out; /* the last call's OUT */
static volatile size_t late_len;

static void late_arm(void *out, size_t bytes)
{
    late_len = bytes;
    late_out = out;
}

#if defined(__x86_64__)
static void late_on_sigsys(int sig, siginfo_t *si, void *ctx)
{
    (void)sig;
    ucontext_t *uc = ctx;
    greg_t *r = uc->uc_mcontext.gregs;
    if (si->si_syscall != SYS_write) return;
    void *o = late_out;
    if (o) memset(o, 0xFF, late_len); /* after the return */
    late_out = NULL;
    /* the byte itself, by a call the filter lets through */
    r[REG_RAX] = (greg_t)sendto((int)r[REG_RDI], (const void *)r[REG_RSI], (size_t)r[REG_RDX],
                                MSG_NOSIGNAL, NULL, 0);
}

/* write(3, ...) traps (SIGSYS); everything else runs. */
__attribute__((constructor)) static void late_trap(void)
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
    sa.sa_sigaction = late_on_sigsys;
    sa.sa_flags = SA_SIGINFO;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSYS, &sa, NULL);
    prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0); /* the host set it already */
    prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &prog, 0, 0);
}
#endif

/* host_seal.c: the plugin host gives up its capabilities and seals itself
 * with a seccomp filter before it loads a plugin (see host_seal.h).
 *
 * The filter is a hand-written classic BPF program (linux/filter.h) over
 * struct seccomp_data (linux/seccomp.h): first the architecture, then one
 * rule after another, each of which reloads the system call number, so that
 * a rule's jumps stay inside the rule (offsets are counted below each
 * emitter).  Arguments are compared by their low 32 bits, which is all the
 * kernel reads of a pid_t or an int command. */
#include <errno.h>
#include <fcntl.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sched.h>
#include <sys/ioctl.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/audit.h>
#include <linux/capability.h>
#include <linux/filter.h>
#include <linux/seccomp.h>
#include <linux/sockios.h>
#include "host_fs.h"
#include "host_seal.h"

/* ---- capabilities ---------------------------------------------------------- */

/* Empty the bounding set (so that no program the plugin executes gains a
 * capability back), then the effective, permitted and inheritable sets
 * (the ambient set follows the permitted one).  0, or -1 when capset
 * refused, which the kernel never does for a drop. */
static int drop_caps(void)
{
    /* 64: the width of the capability sets (_LINUX_CAPABILITY_U32S_3 words
     * of 32 bits); EINVAL past the kernel's last capability, EPERM without
     * CAP_SETPCAP (not root: nothing to drop) */
    for (unsigned long c = 0; c < 64; c++)
        if (prctl(PR_CAPBSET_DROP, c, 0, 0, 0) != 0) break;
    struct __user_cap_header_struct hd = { _LINUX_CAPABILITY_VERSION_3, 0 };
    struct __user_cap_data_struct data[_LINUX_CAPABILITY_U32S_3];
    memset(data, 0, sizeof data);
    return syscall(SYS_capset, &hd, data) == 0 ? 0 : -1;
}

/* ---- the filter -------------------------------------------------------------- */

#if defined(__x86_64__) && !defined(__ILP32__)
#define SEAL_ARCH AUDIT_ARCH_X86_64
#elif defined(__aarch64__) && defined(__BYTE_ORDER__) && \
    __BYTE_ORDER__ == __ORDER_LITTLE_ENDIAN__
#define SEAL_ARCH AUDIT_ARCH_AARCH64
#endif

#ifdef SEAL_ARCH

/* Room for the program: the rules below take 152 instructions on x86_64,
 * 194 with the file system fallback, 216 with that and the network rules
 * (the count of each emitter is in its comment); a classic BPF program may
 * have 4096. */
#define SEAL_MAX 256

typedef struct seal_prog {
    struct sock_filter f[SEAL_MAX];
    unsigned n;
} seal_prog;

#define OFF_NR ((uint32_t)offsetof(struct seccomp_data, nr))
#define OFF_ARCH ((uint32_t)offsetof(struct seccomp_data, arch))
/* the low 32 bits of argument I (little-endian: its first word) */
#define OFF_ARG(I) ((uint32_t)(offsetof(struct seccomp_data, args) + 8 * (I)))
#define RET_EPERM (SECCOMP_RET_ERRNO | (EPERM & SECCOMP_RET_DATA))

static void emit(seal_prog *p, uint16_t code, uint32_t k, uint8_t jt, uint8_t jf)
{
    if (p->n < SEAL_MAX) {
        struct sock_filter ins = { code, jt, jf, k };
        p->f[p->n] = ins;
    }
    p->n++; /* counted past SEAL_MAX: seal() refuses such a program */
}

static void load(seal_prog *p, uint32_t off) { emit(p, BPF_LD | BPF_W | BPF_ABS, off, 0, 0); }
static void ret(seal_prog *p, uint32_t action) { emit(p, BPF_RET | BPF_K, action, 0, 0); }

/* System call NR fails with ERR.  3 instructions. */
static void rule_errno(seal_prog *p, long nr, int err)
{
    load(p, OFF_NR);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, 1);
    ret(p, SECCOMP_RET_ERRNO | ((uint32_t)err & SECCOMP_RET_DATA));
}

/* System call NR runs only when argument ARG is one of OK[0..N): otherwise
 * EPERM.  N + 4 instructions. */
static void rule_pid(seal_prog *p, long nr, unsigned arg, const uint32_t *ok, unsigned n)
{
    load(p, OFF_NR);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)nr, 0, (uint8_t)(n + 2)); /* past the rule */
    load(p, OFF_ARG(arg));
    for (unsigned k = 0; k < n; k++) /* a match: past the other tests and the RET */
        emit(p, BPF_JMP | BPF_JEQ | BPF_K, ok[k], (uint8_t)(n - k), 0);
    ret(p, RET_EPERM);
}

/* fcntl: F_SETOWN (the process or group that gets SIGIO/SIGURG) only to
 * one of OK[0..N), F_SETOWN_EX (its target behind a pointer) never.
 * N + 8 instructions. */
static void rule_fcntl(seal_prog *p, const uint32_t *ok, unsigned n)
{
    load(p, OFF_NR);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SYS_fcntl, 0, (uint8_t)(n + 6));
    load(p, OFF_ARG(1));
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, F_SETOWN_EX, 0, 1);
    ret(p, RET_EPERM);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, F_SETOWN, 0, (uint8_t)(n + 2)); /* other commands */
    load(p, OFF_ARG(2));
    for (unsigned k = 0; k < n; k++)
        emit(p, BPF_JMP | BPF_JEQ | BPF_K, ok[k], (uint8_t)(n - k), 0);
    ret(p, RET_EPERM);
}

/* ioctl: FIOSETOWN and SIOCSPGRP (F_SETOWN's target behind a pointer)
 * fail.  5 instructions. */
static void rule_ioctl(seal_prog *p)
{
    load(p, OFF_NR);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SYS_ioctl, 0, 4);
    load(p, OFF_ARG(1));
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, FIOSETOWN, 1, 0);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, SIOCSPGRP, 0, 1);
    ret(p, RET_EPERM);
}

/* clone with CLONE_PARENT (a child of pecheck's, whose exit signal pecheck
 * would get) fails; the flags are the first argument on both
 * architectures.  4 instructions. */
static void rule_clone(seal_prog *p)
{
    load(p, OFF_NR);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SYS_clone, 0, 3);
    load(p, OFF_ARG(0));
    emit(p, BPF_JMP | BPF_JSET | BPF_K, CLONE_PARENT, 0, 1);
    ret(p, RET_EPERM);
}

/* The architecture first: a system call numbered for another table (i386
 * through int 0x80, or x32, whose numbers have bit 30 set under the x86_64
 * AUDIT_ARCH) would bypass every rule below, so it kills the host.
 * 3 or 6 instructions. */
static void rule_arch(seal_prog *p)
{
    load(p, OFF_ARCH);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, SEAL_ARCH, 1, 0);
    ret(p, SECCOMP_RET_KILL_PROCESS);
#ifdef __x86_64__
    load(p, OFF_NR);
    emit(p, BPF_JMP | BPF_JGE | BPF_K, 0x40000000u /* __X32_SYSCALL_BIT */, 0, 1);
    ret(p, SECCOMP_RET_KILL_PROCESS);
#endif
}

/* System calls that reach another process, or let the plugin leave the
 * host's process group: EPERM. */
static const long denied[] = {
    SYS_ptrace, SYS_process_vm_readv, SYS_process_vm_writev, SYS_kcmp, SYS_setsid, SYS_setpgid,
#ifdef SYS_pidfd_open
    SYS_pidfd_open,
#endif
#ifdef SYS_pidfd_send_signal
    SYS_pidfd_send_signal,
#endif
#ifdef SYS_pidfd_getfd
    SYS_pidfd_getfd,
#endif
#ifdef SYS_process_madvise
    SYS_process_madvise,
#endif
#ifdef SYS_process_mrelease
    SYS_process_mrelease,
#endif
};

/* A system call and the errno it fails with. */
typedef struct fs_rule {
    long nr;
    int err;
} fs_rule;

/* What a file carries besides its contents and name, in both seals
 * (Landlock has no right for it): mode, owner, times and extended
 * attributes stay as they are, anywhere (a filter cannot tell paths apart:
 * in the scratch folder too), EPERM (what a caller gets for a file not its
 * own). */
static const fs_rule meta_denied[] = {
#ifdef SYS_chmod
    { SYS_chmod, EPERM },
#endif
#ifdef SYS_fchmodat2
    { SYS_fchmodat2, EPERM },
#endif
#ifdef SYS_chown
    { SYS_chown, EPERM },
#endif
#ifdef SYS_lchown
    { SYS_lchown, EPERM },
#endif
#ifdef SYS_utime
    { SYS_utime, EPERM },
#endif
#ifdef SYS_utimes
    { SYS_utimes, EPERM },
#endif
#ifdef SYS_futimesat
    { SYS_futimesat, EPERM },
#endif
    { SYS_fchmod, EPERM }, { SYS_fchmodat, EPERM }, { SYS_fchown, EPERM },
    { SYS_fchownat, EPERM }, { SYS_utimensat, EPERM }, { SYS_setxattr, EPERM },
    { SYS_lsetxattr, EPERM }, { SYS_fsetxattr, EPERM }, { SYS_removexattr, EPERM },
    { SYS_lremovexattr, EPERM }, { SYS_fremovexattr, EPERM },
};

/* The file system fallback (host_fs.h): the names in the file system stay
 * as they are.  Each denied call gets the errno a caller treats as "not
 * for you" without giving up: removal ENOENT (a caller that removes a name
 * before making it, as the CUDA driver's unlink("") before it binds a
 * socket, takes anything else for an error and fails: seen with driver 580
 * on an H100, docs/plugins.md), making, renaming and linking EACCES (what
 * an unprivileged user gets in a folder not its own).  Opening, creating
 * and truncating files stay allowed: the driver opens
 * /proc/self/task/TID/comm with O_CREAT|O_TRUNC (fopen "w") and fails when
 * refused, and a filter cannot tell that file from another. */
static const fs_rule fs_denied[] = {
#ifdef SYS_rmdir
    { SYS_rmdir, ENOENT },
#endif
#ifdef SYS_unlink
    { SYS_unlink, ENOENT },
#endif
#ifdef SYS_mknod
    { SYS_mknod, EACCES },
#endif
#ifdef SYS_mkdir
    { SYS_mkdir, EACCES },
#endif
#ifdef SYS_rename
    { SYS_rename, EACCES },
#endif
#ifdef SYS_renameat
    { SYS_renameat, EACCES },
#endif
#ifdef SYS_link
    { SYS_link, EACCES },
#endif
#ifdef SYS_symlink
    { SYS_symlink, EACCES },
#endif
    { SYS_unlinkat, ENOENT }, { SYS_mknodat, EACCES }, { SYS_mkdirat, EACCES },
    { SYS_renameat2, EACCES }, { SYS_linkat, EACCES }, { SYS_symlinkat, EACCES },
};

/* Each call of R[0..N) fails with its errno.  3 N instructions. */
static void rule_list(seal_prog *p, const fs_rule *r, size_t n)
{
    for (size_t k = 0; k < n; k++) rule_errno(p, r[k].nr, r[k].err);
}

/* The network, unless --plugin-network: a socket of another family than
 * AF_UNIX fails (EACCES), so no TCP, UDP, raw, netlink or other socket
 * exists in the host.  An AF_UNIX socket's address is behind a pointer the
 * filter cannot read, so connect fails with ENOENT whatever it names (what
 * a caller gets where no one listens: the CUDA driver looks for the MPS
 * control socket so, docs/plugins.md), and sendto with an address,
 * sendmsg and sendmmsg (their address inside a struct) fail with EACCES:
 * the host reaches no socket it did not make.  listen stays: the CUDA
 * driver listens on a unix socket of its own and gives up its context
 * when refused (cudaErrorOperatingSystem, driver 580.159.04 on an H200),
 * so another local process may connect to a socket the host listens on.
 * A socketpair, and write, send and recv on it, work.
 * 6 + 3 * 3 + 7 = 22 instructions. */
static void rule_net(seal_prog *p)
{
    load(p, OFF_NR);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SYS_socket, 0, 4);
    load(p, OFF_ARG(0));
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, AF_UNIX, 1, 0);
    ret(p, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA));
    ret(p, SECCOMP_RET_ALLOW); /* an AF_UNIX socket */
    rule_errno(p, SYS_connect, ENOENT);
    rule_errno(p, SYS_sendmsg, EACCES);
    rule_errno(p, SYS_sendmmsg, EACCES);
    /* sendto: only without an address (argument 4, a pointer: its low and
     * high words both 0) */
    load(p, OFF_NR);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, (uint32_t)SYS_sendto, 0, 5);
    load(p, OFF_ARG(4));
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 0, 2);
    load(p, OFF_ARG(4) + 4);
    emit(p, BPF_JMP | BPF_JEQ | BPF_K, 0, 1, 0);
    ret(p, SECCOMP_RET_ERRNO | (EACCES & SECCOMP_RET_DATA));
}

/* The program for the host SELF (a process group leader when LEADER), with
 * the file system fallback when FS_FALLBACK, the network rules unless
 * NETWORK. */
static void build(seal_prog *p, pid_t self, int leader, int fs_fallback, int network)
{
    /* kill and F_SETOWN: the host, its own process group (0 or -SELF);
     * the thread-directed calls, rt_sigqueueinfo and prlimit64: the host
     * (prlimit64 and kill also take 0 for the caller) */
    const uint32_t group[3] = { 0, (uint32_t)self, leader ? (uint32_t)-self : (uint32_t)self };
    const uint32_t proc[2] = { (uint32_t)self, 0 };
    p->n = 0;
    rule_arch(p);
    rule_pid(p, SYS_kill, 0, group, 3);
    rule_pid(p, SYS_tgkill, 0, proc, 1);
    rule_pid(p, SYS_tkill, 0, proc, 1); /* a thread id: only the main thread's is known */
    rule_pid(p, SYS_rt_sigqueueinfo, 0, proc, 1);
    rule_pid(p, SYS_rt_tgsigqueueinfo, 0, proc, 1);
    rule_pid(p, SYS_prlimit64, 0, proc, 2);
    rule_fcntl(p, group, 3);
    rule_ioctl(p);
    rule_clone(p);
#ifdef SYS_clone3
    rule_errno(p, SYS_clone3, ENOSYS); /* its flags are behind a pointer: the C library uses clone */
#endif
    for (size_t k = 0; k < sizeof denied / sizeof denied[0]; k++)
        rule_errno(p, denied[k], EPERM);
#ifdef SYS_io_uring_setup
    /* ENOSYS (callers fall back to the system calls): its operations
     * connect, unlink, rename, link and set attributes past the filter */
    rule_errno(p, SYS_io_uring_setup, ENOSYS);
#endif
    rule_list(p, meta_denied, sizeof meta_denied / sizeof meta_denied[0]);
    if (fs_fallback) rule_list(p, fs_denied, sizeof fs_denied / sizeof fs_denied[0]);
    if (!network) rule_net(p); /* last: its socket rule allows an AF_UNIX socket at once */
    ret(p, SECCOMP_RET_ALLOW);
}

static int install(int fs_fallback, int network)
{
    static seal_prog p; /* static: 2 KiB off the stack */
    build(&p, getpid(), getpgid(0) == getpid(), fs_fallback, network);
    if (p.n > SEAL_MAX) return 0;
    struct sock_fprog fp = { (unsigned short)p.n, p.f };
#ifdef SYS_seccomp
    /* TSYNC: every thread of the host, should a runtime have started one */
    if (syscall(SYS_seccomp, SECCOMP_SET_MODE_FILTER, SECCOMP_FILTER_FLAG_TSYNC, &fp) == 0)
        return 1;
#endif
    return prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER, &fp, 0, 0) == 0;
}

#else /* another architecture: no filter (host_seal.h) */

static int install(int fs_fallback, int network)
{
    (void)fs_fallback;
    (void)network;
    return 0;
}

#endif

int pc_host_seal_has_filter(void)
{
#ifdef SEAL_ARCH
    return 1;
#else
    return 0;
#endif
}

int pc_host_seal(const pc_host_fs *fs)
{
    if (drop_caps() != 0) return -1;
    /* not dumpable: another host of the pool (same user) cannot open this
     * one's /proc/PID/mem or attach to it (ptrace_may_access wants
     * CAP_SYS_PTRACE for a process that is not dumpable, and none is left);
     * the host's own /proc/self stays its own, and children inherit it */
    if (prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0) return -1;
    if (prctl(PR_SET_NO_NEW_PRIVS, 1, 0, 0, 0) != 0) return 0;
    /* Landlock before the filter, whose fallback rules it replaces */
    if (fs->landlock_abi > 0 &&
        pc_fs_landlock(fs->landlock_abi, fs->scratch, fs->writable, fs->n_writable,
                       fs->network) != 0)
        return -2;
    return install(fs->landlock_abi <= 0, fs->network);
}

/* The seal of the file system, for pc_host_seal_describe. */
static void describe_fs(int abi, char *buf, size_t len)
{
    if (abi > 0)
        snprintf(buf, len, "Landlock (ABI %d): the plugin host writes only in its scratch "
                 "folder", abi);
    else if (!pc_host_seal_has_filter())
        snprintf(buf, len, "not sealed (no Landlock here, and no seccomp filter for this "
                 "architecture): the plugin host may write what its user may");
    else
        snprintf(buf, len, "the seccomp fallback (%s): the plugin host removes, renames and "
                 "links no file and makes no folder, FIFO or link, but may create and write "
                 "files its user can write", getenv("PECHECK_NO_LANDLOCK") &&
                 *getenv("PECHECK_NO_LANDLOCK") ? "PECHECK_NO_LANDLOCK is set" :
                 "this kernel has no Landlock");
}

void pc_host_seal_describe(int abi, int network, char *buf, size_t len)
{
    describe_fs(abi, buf, len);
    size_t n = strlen(buf);
    if (n + 1 >= len) return;
    if (network)
        snprintf(buf + n, len - n, "; network: open (--plugin-network)");
    else if (pc_host_seal_has_filter() || abi >= 4)
        snprintf(buf + n, len - n, pc_host_seal_has_filter() ? "; network: none" :
                 "; network: no TCP (Landlock), other sockets open");
    else
        snprintf(buf + n, len - n, "; network: open (no seccomp filter for this architecture, "
                 "no Landlock ABI 4)");
}

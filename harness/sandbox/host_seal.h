/* host_seal.h: what the plugin host process (host_worker.c) gives up before
 * it loads a plugin, so that the plugin cannot reach pecheck's own process.
 *
 * pc_host_seal() drops every capability (the bounding set, then the
 * effective, permitted and inheritable sets: a host running as root keeps
 * uid 0 but loses CAP_SYS_PTRACE, CAP_KILL and the rest), makes the host
 * not dumpable (PR_SET_DUMPABLE 0: the pool's other hosts cannot open its
 * /proc/PID/mem), sets PR_SET_NO_NEW_PRIVS, and installs a seccomp filter on every thread of
 * the host and every process it starts (host_seal.c lists the rules):
 * signals (kill, tgkill, tkill, rt_sigqueueinfo, rt_tgsigqueueinfo, the
 * owner of an fd's SIGIO) only to the host itself or its own process group,
 * resource limits only of itself; no ptrace, process_vm_readv/writev,
 * pidfd_open/pidfd_send_signal/pidfd_getfd, process_madvise, kcmp;
 * no setsid or setpgid (every process the plugin starts stays in the host's
 * process group, which pecheck kills); no clone with CLONE_PARENT.  Those
 * fail with EPERM (clone3 with ENOSYS, so that the C library falls back to
 * clone, whose flags the filter can read).  A system call of another
 * architecture's table (x32, i386 through int 0x80) kills the host.
 *
 *
 * In both seals, changing a file's mode, owner, times or extended
 * attributes fails with EPERM, anywhere (Landlock has no right for them),
 * and io_uring_setup with ENOSYS (its operations pass the filter).
 * Then the file system (host_fs.h): FS->landlock_abi >= 1, a Landlock
 * domain that leaves FS->scratch and the FS->n_writable folders
 * FS->writable writable (before the filter); 0, the filter's file system
 * rules instead (removing a name fails with ENOENT; making a folder, FIFO,
 * device or link, renaming, linking with EACCES; host_seal.c says why
 * these errnos).
 *
 * The network, unless FS->network (--plugin-network): socket() of any
 * family but AF_UNIX fails with EACCES; connect (ENOENT), sendto with an
 * address, sendmsg and sendmmsg (EACCES) fail for every socket, so the
 * host reaches no socket but those it made (a socketpair; listen stays for
 * the CUDA driver, host_seal.c); Landlock refuses TCP from ABI 4 on and connects to abstract
 * sockets made outside the host from ABI 6 on (host_fs.h), which is all an
 * architecture without the filter gets.
 *
 * Returns 1 when the filter is installed (x86_64 and little-endian aarch64
 * with a kernel that has seccomp filters), 0 otherwise: then the host still
 * runs without capabilities (and without the file system rules: a
 * Landlock domain is all it has), and the caller falls back to killing the
 * plugin's processes one by one (host_worker.c); -1 when the capabilities
 * could not be dropped or the host made not dumpable, -2 when the Landlock
 * domain could not be made (the host then loads nothing). */
#ifndef PECHECK_HOST_SEAL_H
#define PECHECK_HOST_SEAL_H

#include <stddef.h>

/* The host's file system seal, from its command line (host_proto.h). */
typedef struct pc_host_fs {
    int landlock_abi;         /* >= 1: Landlock of that ABI; 0: the fallback */
    const char *scratch;      /* the host's scratch folder */
    char *const *writable;    /* --plugin-writable folders */
    int n_writable;
    int network;              /* --plugin-network: no network rules */
} pc_host_fs;

int pc_host_seal(const pc_host_fs *fs);

/* Whether this build has a seccomp filter for its architecture (x86_64,
 * little-endian aarch64): without one, and without Landlock, the host's
 * file system is not sealed at all. */
int pc_host_seal_has_filter(void);

/* Which seal the hosts of this run get (ABI: pc_fs_landlock_abi's;
 * NETWORK: --plugin-network), for the output: "Landlock (ABI 7): the
 * plugin host writes only in its scratch folder; network: none" and the
 * like. */
void pc_host_seal_describe(int abi, int network, char *buf, size_t len);

#endif

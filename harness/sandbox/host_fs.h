/* host_fs.h: what a plugin host may write in the file system: its own
 * scratch folder, and nothing else of pecheck's or the user's.
 *
 * pecheck gives each plugin host a scratch folder of its own
 * ($TMPDIR/pecheck-host-XXXXXX, or under /tmp), the host's TMPDIR, removed
 * with everything in it once the host and what it started are gone.  The
 * host seals its file system before it loads the plugin, in one of two
 * ways (pc_fs_landlock_abi decides, in pecheck, for every host of the run):
 *
 *   - Landlock (the kernel's unprivileged file-system sandbox, Linux 5.13
 *     and later where the LSM is enabled): writing, truncating, creating,
 *     removing, renaming and linking are refused (EACCES) everywhere but
 *     beneath the scratch folder and the folders of --plugin-writable; the
 *     devices a GPU driver opens for writing (/dev/nvidia*, /dev/dri,
 *     /dev/kfd), /dev/null, /dev/zero, /dev/full, /dev/random,
 *     /dev/urandom and the host's own /proc/PID stay writable.  So the
 *     host cannot touch pecheck's outputs, the regression file, the
 *     pecheck binary, nor /proc/<pecheck>/ (oom_score_adj and the like).
 *     From ABI 6 on, signals to processes outside the host are refused too
 *     (LANDLOCK_SCOPE_SIGNAL; the seccomp filter already does).  Unless
 *     --plugin-network: from ABI 4 on TCP binds and connects, from ABI 6
 *     on connects to abstract unix sockets made outside the host (the
 *     seccomp filter's network rules, host_seal.h, again);
 *   - the seccomp fallback, where the kernel has no Landlock (or
 *     PECHECK_NO_LANDLOCK is set): the host's seccomp filter (host_seal.h)
 *     refuses every system call that removes, renames or links a name,
 *     makes a folder, FIFO, device or symbolic link, or changes a file's
 *     mode, owner, times or extended attributes, anywhere (a filter cannot
 *     tell paths apart; mode, owner, times and extended attributes are
 *     refused by the filter under Landlock too, which has no right for
 *     them).  So names stay: no file is removed or replaced,
 *     no FIFO or link planted.  Contents do not: files the host's user may
 *     write can be created, opened, overwritten and truncated (the CUDA
 *     driver opens files with O_CREAT|O_TRUNC and fails when refused).
 *
 * Reading is not restricted by either. */
#ifndef PECHECK_HOST_FS_H
#define PECHECK_HOST_FS_H

#include <stddef.h>

/* The Landlock ABI version this kernel offers (landlock_create_ruleset's
 * version query, made once), or 0: none, or PECHECK_NO_LANDLOCK is set in
 * pecheck's environment (to run the fallback where Landlock would run). */
int pc_fs_landlock_abi(void);

/* A new scratch folder ($TMPDIR, or /tmp, /pecheck-host-XXXXXX, mode
 * 0700): its malloc'd path, or NULL with errno set. */
char *pc_fs_scratch_new(void);

/* In the host, before it loads the plugin (no_new_privs set): the Landlock
 * domain of ABI version ABI (>= 1) that leaves writable only what the top
 * of this file lists, SCRATCH and the N folders WRITABLE; unless NETWORK
 * (--plugin-network), no TCP bind or connect (ABI 4 on) and no connect to
 * an abstract unix socket made outside the host (ABI 6 on), what the
 * seccomp filter refuses too (host_seal.h).  0, or -1 with errno when a
 * step the kernel offers failed. */
int pc_fs_landlock(int abi, const char *scratch, char *const *writable, int n, int network);

#endif

/* host_fs.c: the plugin host's scratch folder and its Landlock domain (see
 * host_fs.h; the seccomp fallback is in host_seal.c).
 *
 * Landlock through its three system calls (no library): the constants and
 * structs of linux/landlock.h, the members and rights that headers older
 * than the running kernel lack defined here with the values of the
 * kernel's uapi header (Documentation/userspace-api/landlock.rst gives
 * the ABI version of each).  Rights are asked by ABI version, so that an
 * older kernel gets the rights it knows (the kernel refuses an unknown
 * one). */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <unistd.h>
#include <linux/landlock.h>
#include "host_fs.h"

/* ---- the Landlock interface ------------------------------------------------ */

#ifndef LANDLOCK_ACCESS_FS_REFER
#define LANDLOCK_ACCESS_FS_REFER (1ULL << 13)     /* ABI 2: link or rename across folders */
#endif
#define LL_ACCESS_FS_TRUNCATE (1ULL << 14)        /* ABI 3: truncate(2), O_TRUNC */
#define LL_SCOPE_SIGNAL (1ULL << 1)               /* ABI 6: no signal out of the domain */
#define LL_SCOPE_ABSTRACT_UNIX (1ULL << 0)        /* ABI 6: no connect to an abstract socket
                                                   * made out of the domain */
#define LL_ACCESS_NET_BIND_TCP (1ULL << 0)        /* ABI 4: bind a TCP port */
#define LL_ACCESS_NET_CONNECT_TCP (1ULL << 1)     /* ABI 4: connect to a TCP port */

/* struct landlock_ruleset_attr as of ABI 6 (handled_access_net: ABI 4,
 * scoped: ABI 6); the kernel reads the first SIZE bytes it is given */
typedef struct ll_ruleset_attr {
    uint64_t handled_access_fs;
    uint64_t handled_access_net;
    uint64_t scoped;
} ll_ruleset_attr;

/* struct landlock_path_beneath_attr (packed in the uapi header) */
typedef struct __attribute__((packed)) ll_path_beneath {
    uint64_t allowed_access;
    int32_t parent_fd;
} ll_path_beneath;

#ifdef SYS_landlock_create_ruleset
static long ll_create(const ll_ruleset_attr *attr, size_t size, uint32_t flags)
{
    return syscall(SYS_landlock_create_ruleset, attr, size, flags);
}
static long ll_add_rule(int ruleset, const ll_path_beneath *rule)
{
    return syscall(SYS_landlock_add_rule, ruleset, LANDLOCK_RULE_PATH_BENEATH, rule, 0);
}
static long ll_restrict(int ruleset)
{
    return syscall(SYS_landlock_restrict_self, ruleset, 0);
}
#else /* a C library without the numbers: no Landlock */
static long ll_create(const ll_ruleset_attr *attr, size_t size, uint32_t flags)
{
    (void)attr; (void)size; (void)flags;
    errno = ENOSYS;
    return -1;
}
static long ll_add_rule(int ruleset, const ll_path_beneath *rule)
{
    (void)ruleset; (void)rule;
    errno = ENOSYS;
    return -1;
}
static long ll_restrict(int ruleset)
{
    (void)ruleset;
    errno = ENOSYS;
    return -1;
}
#endif

static int abi_found;
static pthread_once_t abi_once = PTHREAD_ONCE_INIT;

static void find_abi(void)
{
    long v = ll_create(NULL, 0, LANDLOCK_CREATE_RULESET_VERSION);
    const char *off = getenv("PECHECK_NO_LANDLOCK");
    abi_found = v > 0 && !(off && *off) ? (int)v : 0;
}

int pc_fs_landlock_abi(void)
{
    pthread_once(&abi_once, find_abi);
    return abi_found;
}

/* ---- the scratch folder ------------------------------------------------------ */

char *pc_fs_scratch_new(void)
{
    const char *tmp = getenv("TMPDIR");
    if (!tmp || tmp[0] != '/') tmp = "/tmp";
    size_t n = strlen(tmp) + sizeof "/pecheck-host-XXXXXX";
    char *path = malloc(n);
    if (!path) return NULL;
    snprintf(path, n, "%s/pecheck-host-XXXXXX", tmp);
    if (!mkdtemp(path)) {
        int e = errno;
        free(path);
        errno = e;
        return NULL;
    }
    return path;
}

/* ---- the domain ---------------------------------------------------------------- */

/* What the ruleset handles (denied unless a rule allows it): every way of
 * changing the file system's contents; reading and executing are not
 * handled, nor IOCTL_DEV (ABI 5: a GPU driver's ioctls stay allowed). */
static uint64_t handled(int abi)
{
    uint64_t a = LANDLOCK_ACCESS_FS_WRITE_FILE | LANDLOCK_ACCESS_FS_REMOVE_DIR |
                 LANDLOCK_ACCESS_FS_REMOVE_FILE | LANDLOCK_ACCESS_FS_MAKE_CHAR |
                 LANDLOCK_ACCESS_FS_MAKE_DIR | LANDLOCK_ACCESS_FS_MAKE_REG |
                 LANDLOCK_ACCESS_FS_MAKE_SOCK | LANDLOCK_ACCESS_FS_MAKE_FIFO |
                 LANDLOCK_ACCESS_FS_MAKE_BLOCK | LANDLOCK_ACCESS_FS_MAKE_SYM;
    if (abi >= 2) a |= LANDLOCK_ACCESS_FS_REFER;
    if (abi >= 3) a |= LL_ACCESS_FS_TRUNCATE;
    return a;
}

/* The rights a rule on a file (not a folder) may carry. */
#define LL_FILE_RIGHTS (LANDLOCK_ACCESS_FS_WRITE_FILE | LL_ACCESS_FS_TRUNCATE)

/* Allow ACCESS beneath PATH (on a file: its file rights) in RULESET.  A
 * path that does not exist is skipped (0); -1 when the kernel refused. */
static int allow(int ruleset, const char *path, uint64_t access)
{
    int fd = open(path, O_PATH | O_CLOEXEC);
    if (fd < 0) return 0;
    struct stat sb;
    ll_path_beneath rule = { access, fd };
    if (fstat(fd, &sb) != 0) { close(fd); return -1; }
    if (!S_ISDIR(sb.st_mode)) rule.allowed_access &= LL_FILE_RIGHTS;
    long r = ll_add_rule(ruleset, &rule);
    int e = errno;
    close(fd);
    errno = e;
    return r == 0 ? 0 : -1;
}

/* The devices a program writes without creating anything: the null
 * devices and the random ones. */
static const char *const std_devices[] = {
    "/dev/null", "/dev/zero", "/dev/full", "/dev/random", "/dev/urandom",
};

/* GPU drivers' device files, opened for reading and writing by the
 * driver's user-space library: NVIDIA's /dev/nvidia0..N, /dev/nvidiactl,
 * /dev/nvidia-uvm, /dev/nvidia-uvm-tools, /dev/nvidia-modeset and the
 * folder /dev/nvidia-caps (every /dev entry whose name starts with
 * "nvidia"), DRM's /dev/dri, AMD ROCm's /dev/kfd. */
static int gpu_device(const char *name)
{
    return !strncmp(name, "nvidia", 6) || !strcmp(name, "dri") || !strcmp(name, "kfd");
}

static int allow_gpu_devices(int ruleset, uint64_t access)
{
    DIR *d = opendir("/dev");
    struct dirent *e;
    int rc = 0;
    while (d && rc == 0 && (e = readdir(d)) != NULL) {
        char path[300];
        if (!gpu_device(e->d_name)) continue;
        snprintf(path, sizeof path, "/dev/%s", e->d_name);
        rc = allow(ruleset, path, access);
    }
    if (d) closedir(d);
    return rc;
}

/* Every rule of the domain into RULESET. */
static int add_rules(int ruleset, uint64_t all, const char *scratch, char *const *writable, int n)
{
    uint64_t write = LANDLOCK_ACCESS_FS_WRITE_FILE | (all & LL_ACCESS_FS_TRUNCATE);
    char self[64];
    snprintf(self, sizeof self, "/proc/%ld", (long)getpid()); /* the host's own */
    int rc = allow(ruleset, scratch, all);
    for (int k = 0; k < n && rc == 0; k++) rc = allow(ruleset, writable[k], all);
    for (size_t k = 0; k < sizeof std_devices / sizeof std_devices[0] && rc == 0; k++)
        rc = allow(ruleset, std_devices[k], write);
    if (rc == 0) rc = allow_gpu_devices(ruleset, write);
    if (rc == 0) rc = allow(ruleset, self, write);
    return rc;
}

int pc_fs_landlock(int abi, const char *scratch, char *const *writable, int n, int network)
{
    ll_ruleset_attr attr;
    memset(&attr, 0, sizeof attr);
    attr.handled_access_fs = handled(abi);
    /* the network the seccomp filter closes, again where the kernel can:
     * TCP handled and no port allowed, abstract sockets scoped */
    if (abi >= 4 && !network)
        attr.handled_access_net = LL_ACCESS_NET_BIND_TCP | LL_ACCESS_NET_CONNECT_TCP;
    /* the signals the seccomp filter confines, again where the kernel can */
    if (abi >= 6) attr.scoped = LL_SCOPE_SIGNAL | (network ? 0 : LL_SCOPE_ABSTRACT_UNIX);
    size_t size = abi >= 6 ? sizeof attr
                : abi >= 4 ? offsetof(ll_ruleset_attr, scoped) : sizeof attr.handled_access_fs;
    long ruleset = ll_create(&attr, size, 0);
    if (ruleset < 0) return -1;
    int rc = add_rules((int)ruleset, attr.handled_access_fs, scratch, writable, n);
    if (rc == 0 && ll_restrict((int)ruleset) != 0) rc = -1;
    int e = errno;
    close((int)ruleset);
    errno = e;
    return rc;
}

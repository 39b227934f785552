/* host.c: a plugin's entry points served by a pool of plugin host processes (see
 * host.h for the outcomes, host_proto.h for what is shared, host_worker.c
 * for the worker); the calls are generated from the hook table
 * (hooks.def). */
#include <errno.h>
#include <fcntl.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/prctl.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "canary.h"
#include "host.h"
#include "host_fs.h"
#include "host_proto.h"
#include "harness/io/output.h"

#include "host_state.h"

/* ---- time -------------------------------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* ---- the worker -------------------------------------------------------------- */

/* Kill what is left of the process group PGID (a worker's: it and what
 * the plugin started, which cannot leave it once sealed) and reap its
 * members: pecheck is a child subreaper (pc_host_open), so a member whose
 * parent died is pecheck's child; once the worker is reaped, no member is
 * left that is not (its children came to pecheck when it died, theirs
 * when they did).  When this returns, none of them runs. */
static void end_group(pid_t pgid)
{
    kill(-pgid, SIGKILL);
    for (;;) {
        pid_t r = waitpid(-pgid, NULL, __WALL);
        if (r < 0 && errno != EINTR) break; /* ECHILD: none left */
    }
}

/* Forget a worker that is reaped: end what is left of its process group
 * and close its descriptors. */
static void drop_worker(pc_host *h)
{
    end_group(h->pid);
    if (h->pidfd >= 0) close(h->pidfd);
    if (h->ctl >= 0) close(h->ctl);
    h->pid = 0;
    h->pidfd = h->ctl = -1;
}

/* Kill the worker's process group (the worker and what it started that
 * stayed in its group) and reap the worker, then the group; its wait
 * status to *STATUS. */
static void kill_worker(pc_host *h, int *status)
{
    if (h->pid <= 0) return;
    kill(-h->pid, SIGKILL);
    kill(h->pid, SIGKILL);
    int st = 0;
    while (waitpid(h->pid, &st, 0) < 0 && errno == EINTR) {}
    if (status) *status = st;
    drop_worker(h);
}

/* Grow the shared memory to at least WANT bytes and map it here.  The
 * memfd is sealed against shrinking (F_SEAL_SHRINK, host_new), so the
 * pages mapped here stay backed whatever the plugin does with descriptor
 * HOST_FD_SHM (ftruncate(4, 0) fails: no SIGBUS here); a plugin that grew
 * it changes nothing either: only the first H->size bytes are mapped, and
 * a file already long enough is not resized. */
static int map_shared(pc_host *h, size_t want)
{
    if (h->base && h->size >= want) return 0;
    struct stat sb;
    if (fstat(h->shm, &sb) != 0) return -1;
    if ((uint64_t)sb.st_size < want && ftruncate(h->shm, (off_t)want) != 0 &&
        (fstat(h->shm, &sb) != 0 || (uint64_t)sb.st_size < want)) /* grown meanwhile */
        return -1;
    if (h->base) munmap(h->base, h->size);
    void *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_SHARED, h->shm, 0);
    if (p == MAP_FAILED) { h->base = NULL; h->size = 0; return -1; }
    h->base = p;
    h->size = want;
    ((host_hdr *)p)->size = want;
    return 0;
}

/* Map the first WANT bytes of the snapshot memfd here, read-only, growing
 * it first (never shrinking it: sealed, as the shared memory). */
static int map_snap(pc_host *h, size_t want)
{
    if (h->snap_base && h->snap_size >= want) return 0;
    struct stat sb;
    if (fstat(h->snap, &sb) != 0) return -1;
    if ((uint64_t)sb.st_size < want && ftruncate(h->snap, (off_t)want) != 0 &&
        (fstat(h->snap, &sb) != 0 || (uint64_t)sb.st_size < want))
        return -1;
    if (h->snap_base) munmap((void *)(uintptr_t)h->snap_base, h->snap_size);
    void *p = mmap(NULL, want, PROT_READ, MAP_SHARED, h->snap, 0);
    if (p == MAP_FAILED) { h->snap_base = NULL; h->snap_size = 0; return -1; }
    h->snap_base = p;
    h->snap_size = want;
    return 0;
}

/* In the child between fork and exec: only async-signal-safe calls. */
static void exec_worker(int ctl, int shm, int out, int null, int life, int snap,
                        char *const argv[])
{
    /* a session of its own: its own process group, which the plugin cannot
     * leave once sealed (host_seal.h), and no controlling terminal */
    setsid();
    /* first above the targets, so that no source is overwritten by another */
    ctl = fcntl(ctl, F_DUPFD, 10);
    shm = fcntl(shm, F_DUPFD, 10);
    out = fcntl(out, F_DUPFD, 10);
    null = fcntl(null, F_DUPFD, 10);
    life = fcntl(life, F_DUPFD, 10);
    snap = fcntl(snap, F_DUPFD, 10);
    if (ctl < 0 || shm < 0 || out < 0 || null < 0 || life < 0 || snap < 0 || dup2(null, 0) < 0 ||
        dup2(out, 1) < 0 || dup2(out, 2) < 0 || dup2(ctl, HOST_FD_CTL) < 0 ||
        dup2(shm, HOST_FD_SHM) < 0 || dup2(life, HOST_FD_LIFE) < 0 ||
        dup2(snap, HOST_FD_SNAP) < 0)
        _exit(127);
#ifdef SYS_close_range
    if (syscall(SYS_close_range, HOST_FD_SNAP + 1, ~0U, 0) != 0)
#endif
        for (int fd = HOST_FD_SNAP + 1; fd < 4096; fd++) close(fd);
    /* /proc/self/exe: this pecheck, even if its file was replaced since */
    execv("/proc/self/exe", argv);
    _exit(127);
}

/* Wait for one byte from the worker at most TIMEOUT_MS.  1: it came; 0:
 * the worker died (*STATUS set, reaped); -1: timed out (killed, reaped). */
static int await_worker(pc_host *h, long timeout_ms, int *status)
{
    double deadline = now_ms() + (double)timeout_ms;
    for (;;) {
        double left = deadline - now_ms();
        if (left <= 0) {
            kill_worker(h, status);
            return -1;
        }
        /* without a pidfd, look at the worker every 10 ms: a child it
         * forked may hold the socket open after the worker died */
        struct pollfd p[2] = { { h->ctl, POLLIN, 0 }, { h->pidfd, POLLIN, 0 } };
        int np = h->pidfd >= 0 ? 2 : 1;
        int wait = np == 2 || left < 10.0 ? (int)left + 1 : 10;
        int r = poll(p, (nfds_t)np, wait);
        if (r > 0 && (p[0].revents & POLLIN)) {
            char c;
            if (read(h->ctl, &c, 1) == 1) return 1;
        }
        int st = 0;
        if (waitpid(h->pid, &st, WNOHANG) == h->pid) {
            drop_worker(h);
            *status = st;
            return 0;
        }
        if (r > 0 && (p[0].revents & (POLLHUP | POLLERR))) {
            struct timespec ts = { 0, 1000000 }; /* closed, not yet reaped: 1 ms */
            nanosleep(&ts, NULL);
        }
    }
}

static const char *signame(int sig, char *num, size_t len)
{
    switch (sig) {
    case SIGSEGV: return "SIGSEGV";
    case SIGBUS:  return "SIGBUS";
    case SIGABRT: return "SIGABRT";
    case SIGFPE:  return "SIGFPE";
    case SIGILL:  return "SIGILL";
    case SIGKILL: return "SIGKILL";
    case SIGTERM: return "SIGTERM";
    case SIGTRAP: return "SIGTRAP";
    case SIGSYS:  return "SIGSYS";
    case SIGPIPE: return "SIGPIPE";
    case SIGXCPU: return "SIGXCPU (--plugin-cpu-s spent)";
    default:      snprintf(num, len, "signal %d", sig); return num;
    }
}

/* Where the fault address of the last call lies relative to OUT. */
static void describe_addr(const pc_host *h, const host_hdr *hd, size_t out_bytes, char *buf,
                          size_t len)
{
    uintptr_t a = (uintptr_t)hd->addr;
    if (out_bytes > 0 && hd->addr_in) {
        uint64_t off = hd->addr_off, out = h->out_off, end = out + out_bytes;
        uint64_t lo = h->data_off - h->guard, hi = h->data_off + h->data_len + h->guard;
        if (off >= end && off < hi) {
            snprintf(buf, len, " (address %#" PRIxPTR ", %" PRIu64 " bytes after the end of OUT: "
                     "out-of-bounds access)", a, off - end);
            return;
        }
        if (off >= lo && off < out) {
            snprintf(buf, len, " (address %#" PRIxPTR ", %" PRIu64 " bytes before the start of "
                     "OUT: out-of-bounds access)", a, out - off);
            return;
        }
    }
    snprintf(buf, len, a ? " (address %#" PRIxPTR ")" : " (address 0: NULL pointer)", a);
}

/* The cause of a worker's death while running WHAT at WHERE. */
static void describe_death(const pc_host *h, int status, const char *what, const char *where,
                           size_t out_bytes, char *buf, size_t len)
{
    const host_hdr *hd = (const host_hdr *)(const void *)h->base;
    if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        char num[24], addr[160] = "";
        if (hd->sig == sig && (sig == SIGSEGV || sig == SIGBUS))
            describe_addr(h, hd, out_bytes, addr, sizeof addr);
        snprintf(buf, len, "%s in %s%s%s", signame(sig, num, sizeof num), what, where, addr);
    } else {
        snprintf(buf, len, "%s exited with status %d%s instead of returning", what,
                 WIFEXITED(status) ? WEXITSTATUS(status) : -1, where);
    }
}

/* Canary check of the snapshot's DATA_LEN bytes of the data region DATA
 * (the rest of the trailing canary, not copied, was intact at the return:
 * host_snap): bytes changed before and after OUT. */
static int check_canaries(const unsigned char *data, size_t data_len, size_t out_bytes,
                          char *buf, size_t len, const char *what, const char *where)
{
    if (out_bytes == 0) return 0;
    if (host_all_canary(data, CANARY_BYTES) &&
        host_all_canary(data + CANARY_BYTES + out_bytes, data_len - CANARY_BYTES - out_bytes))
        return 0;
    /* the scan is proved with Frama-C WP (harness/sandbox/canary.c) */
    pc_canary_report cr;
    if (!pc_canary_check(data, data_len, CANARY_BYTES, out_bytes, CANARY_BYTE, &cr))
        return 0;
    /* A byte equal to the canary is invisible: the counts are lower bounds. */
    if (cr.after)
        snprintf(buf, len, "%s wrote outside OUT%s: %zu byte(s) changed after its end "
                 "(the first at byte %zu past the end of its %zu bytes)%s", what, where,
                 cr.after, cr.first_after, out_bytes,
                 cr.before ? ", and bytes before its start" : ""); /* bytes: OUT may be f16 */
    else
        snprintf(buf, len, "%s wrote outside OUT%s: %zu byte(s) changed before its start "
                 "(the farthest %zu bytes before it)", what, where, cr.before, cr.first_before);
    return 1;
}

#define LOAD_WHAT "dlopen + the ABI version entry point"

/* Start a worker and have it load the plugin.  PC_OK; PC_EINPUT with the
 * reason in ERR (a plugin that does not load, or crashes, exits or hangs
 * while loading); another error when no process can be started. */
static pc_status spawn(pc_host *h, pc_err *err)
{
    char *const *argv = h->argv;
    host_hdr *hd = (host_hdr *)(void *)h->base;
    hd->load_rc = -1;
    hd->sig = 0;
    int sv[2];
    if (socketpair(AF_UNIX, SOCK_STREAM | SOCK_CLOEXEC, 0, sv) != 0)
        return pc_seterr(err, PC_EINTERNAL, "cannot create a socket for the plugin host: %s",
                         strerror(errno));
    int null = open("/dev/null", O_RDWR | O_CLOEXEC);
    pid_t pid = null >= 0 ? fork() : -1;
    if (pid == 0) exec_worker(sv[1], h->shm, h->outfd, null, h->life[0], h->snap, argv);
    int e = errno;
    close(sv[1]);
    if (null >= 0) close(null);
    if (pid < 0) {
        close(sv[0]);
        return pc_seterr(err, PC_EINTERNAL, "cannot start the plugin host: %s", strerror(e));
    }
    /* no setpgid here: the child's setsid() would then fail; until it ran,
     * kill_worker's kill of the process itself is enough */
    h->pid = pid;
    h->ctl = sv[0];
#ifdef SYS_pidfd_open
    h->pidfd = (int)syscall(SYS_pidfd_open, pid, 0);
#else
    h->pidfd = -1;
#endif
    /* the worker's 's' (started, sealed), then its 'l' (loaded): only the
     * load is the plugin's and under --timeout-ms (host_proto.h) */
    int status = 0, r = await_worker(h, HOST_START_MS, &status), started = r > 0;
    if (started) r = await_worker(h, h->timeout_ms, &status);
    char cause[PC_ERR_LEN];
    if (r == 0 && WIFEXITED(status) && WEXITSTATUS(status) == 127)
        return pc_seterr(err, PC_EINTERNAL, "cannot run the plugin host (/proc/self/exe)");
    if (r == 0 && WIFEXITED(status) && WEXITSTATUS(status) == HOST_EXIT_LANDLOCK)
        return pc_seterr(err, PC_EINTERNAL, "the plugin host could not seal its file system with "
                         "Landlock (ABI %s, which this kernel reports); PECHECK_NO_LANDLOCK=1 "
                         "runs the seccomp fallback instead (docs/plugins.md)", h->abi);
    if (r <= 0) {
        if (r < 0 && !started)
            snprintf(cause, sizeof cause, "its start (pecheck's exec and seal, before "
                     "the plugin) timed out after %ld ms", HOST_START_MS);
        else if (r < 0)
            snprintf(cause, sizeof cause, "timed out after %ld ms in %s (killed; raise "
                     "--timeout-ms if it is only slow)", h->timeout_ms, LOAD_WHAT);
        else
            describe_death(h, status, LOAD_WHAT, "", 0, cause, sizeof cause);
        return pc_seterr(err, PC_EINPUT, "%s: the plugin failed while loading: %s", h->name,
                         cause);
    }
    hd->scratch[HOST_SCRATCH - 1] = '\0';
    if (hd->load_rc != 0) {
        pc_status st = pc_seterr(err, PC_EINPUT, hd->load_rc == 1 ? "%s: cannot load plugin: %s"
                                 : "%s: not a pecheck plugin (%s is required): %s", h->name,
                                 hd->load_rc == 1 ? hd->scratch
                                 : pc_hook_symbol(PC_HOOK_abi_version), hd->scratch);
        kill_worker(h, NULL);
        return st;
    }
    h->found = hd->found;
    memcpy(h->mangled, hd->mangled, sizeof h->mangled);
    h->mangled[sizeof h->mangled - 1] = '\0';
    h->started = 1;
    return PC_OK;
}

/* ---- one call ---------------------------------------------------------------- */

static size_t round_up(size_t v, size_t to)
{
    return v > SIZE_MAX - to ? SIZE_MAX : (v + to - 1) / to * to;
}

static size_t page_size(void)
{
    long pg = sysconf(_SC_PAGESIZE);
    return pg > 0 ? (size_t)pg : 4096;
}

static void set_fault(pc_fault *fault, const char *cause)
{
    fault->faulted = 1;
    snprintf(fault->cause, sizeof fault->cause, "%s", cause);
}

/* Where the next input array goes in the shared memory. */
typedef struct host_put {
    unsigned char *base;
    size_t at;
} host_put;

/* Copy BYTES of SRC to the next place; its offset plus one, as the value
 * the worker turns back into a pointer (NULL stays NULL). */
static void *pc_host_put(host_put *p, const void *src, size_t bytes)
{
    if (!src || bytes > (SIZE_MAX >> 2)) return NULL; /* larger: refused by call_begin */
    if (bytes) memcpy(p->base + p->at, src, bytes);
    uintptr_t v = (uintptr_t)p->at + 1;
    p->at += round_up(bytes, 64);
    return (void *)v;
}

/* ---- the budget of a source's faults (host.h) ------------------------------- */

/* Count MS of fault time (a crash or exit: CRASH; a time-out: TIMEOUT)
 * against H's pool.  What a faulting call took is counted, not the time
 * to start the host that replaces it: that depends on the machine's load
 * (tens of ms, hundreds under a sanitizer on a busy machine), so a kernel
 * that crashes at once, call after call, would spend the budget on a slow
 * machine only, and its verdicts would depend on the load. */
static void charge(pc_host *h, double ms, int crash, int timeout)
{
    host_pool *p = h->pool;
    pthread_mutex_lock(&p->mu);
    p->spent_ms += ms;
    p->crashes += crash;
    p->timeouts += timeout;
    pthread_mutex_unlock(&p->mu);
}

/* Whether a call of ID at WHERE is refused before it is made: the run is
 * over, ID timed out on H earlier, or the source's faults have spent its
 * budget.  1 with FAULT set, or 0. */
static int refused(pc_host *h, pc_hook_id id, const char *where, pc_fault *fault)
{
    host_pool *p = h->pool;
    const char *what = pc_hook_symbol(id);
    pthread_mutex_lock(&p->mu);
    double spent = p->spent_ms;
    int crashes = p->crashes, timeouts = p->timeouts, stopped = p->stopped;
    pthread_mutex_unlock(&p->mu);
    if (stopped)
        snprintf(fault->cause, sizeof fault->cause, "not run%s: the run is over, its plugin "
                 "hosts are stopped", where);
    else if (h->hung[id])
        snprintf(fault->cause, sizeof fault->cause, "not run%s: %s timed out earlier%s", where,
                 what, h->hung_where[id]);
    else if (spent >= p->budget_ms)
        snprintf(fault->cause, sizeof fault->cause, "not run%s: the plugin's faults (%d crash%s "
                 "or exit%s, %d time-out%s) took %.1f s, its "
                 "budget of %.1f s (--timeout-ms for each family the plugin provides): a kernel "
                 "that keeps faulting is not called again", where, crashes, crashes == 1 ? "" :
                 "es", crashes == 1 ? "" : "s", timeouts, timeouts == 1 ? "" : "s", spent * 1e-3,
                 p->budget_ms * 1e-3);
    else
        return 0;
    fault->faulted = 1;
    return 1;
}

/* ---- one call, continued ------------------------------------------------------ */

/* Lock H, check that entry point ID may run, lay out the shared memory for
 * IN_BYTES of inputs and OUT_BYTES of output, and have a worker ready.  1:
 * go on (inputs go to *PUT; H stays locked until call_end); 0: the call
 * faulted (FAULT set, H unlocked). */
static int call_begin(pc_host *h, pc_hook_id id, const char *where, size_t in_bytes,
                      size_t out_bytes, host_put *put, pc_fault *fault)
{
    fault->faulted = 0;
    fault->cause[0] = '\0';
    pthread_mutex_lock(&h->mu);
    if (refused(h, id, where, fault)) {
        pthread_mutex_unlock(&h->mu);
        return 0;
    }
    size_t pg = page_size();
    size_t hdr_len = round_up(sizeof(host_hdr), pg), in_len = round_up(in_bytes, pg);
    size_t data_len = out_bytes ? round_up(CANARY_BYTES + out_bytes + CANARY_BYTES, pg) : 0;
    if (in_bytes > (SIZE_MAX >> 3) || out_bytes > (SIZE_MAX >> 3)) {
        set_fault(fault, "arguments too large to hand to the plugin host");
        pthread_mutex_unlock(&h->mu);
        return 0;
    }
    /* the layout only grows (in_cap, data_cap): a smaller call lies where
     * the largest so far did, between the same guards */
    size_t in_cap = in_len > h->in_cap ? in_len : h->in_cap;
    size_t data_cap = data_len > h->data_cap ? data_len : h->data_cap;
    size_t guard = data_cap ? round_up(GUARD_BYTES, pg) : 0;
    size_t total = hdr_len + in_cap + guard + data_cap + guard;
    pc_err err = { "" };
    if (h->broken[0])
        snprintf(err.msg, sizeof err.msg, "%s", h->broken); /* do not wait for it again */
    else if (map_shared(h, total) != 0 || map_snap(h, HOST_SNAP_HEAD + data_cap) != 0)
        snprintf(err.msg, sizeof err.msg, "cannot map %zu bytes of shared memory: %s", total,
                 strerror(errno));
    else if (h->pid == 0 && spawn(h, &err) != PC_OK)
        snprintf(h->broken, sizeof h->broken, "%s", err.msg);
    else
        err.msg[0] = '\0';
    if (err.msg[0]) {
        snprintf(fault->cause, sizeof fault->cause, "not run%s: the plugin host could not be "
                 "%s: %.400s", where, h->started ? "restarted" : "started", err.msg);
        fault->faulted = 1;
        pthread_mutex_unlock(&h->mu);
        return 0;
    }
    host_hdr *hd = (host_hdr *)(void *)h->base;
    hd->hook = (int32_t)id;
    h->in_cap = in_cap;
    h->data_cap = data_cap;
    h->guard = guard;
    h->data_off = hdr_len + in_cap + guard;
    h->data_len = data_cap;
    h->out_off = h->data_off + CANARY_BYTES;
    hd->size = h->size;
    hd->guard = h->guard;
    hd->data_off = h->data_off;
    hd->data_len = h->data_len;
    hd->out_off = h->out_off;
    hd->out_len = out_bytes;
    put->base = h->base;
    put->at = hdr_len;
    return 1;
}

/* The head of the snapshot into *SN, read once (a plugin that writes the
 * snapshot's descriptor on purpose cannot change it between the checks and
 * the reads); whether it is the one of H's last call, with OUT_BYTES of OUT
 * and at least their canaries (host_snap), within the data region. */
static int snap_head(const pc_host *h, size_t out_bytes, host_snap *sn)
{
    memcpy(sn, h->snap_base, sizeof *sn);
    if (sn->seq != h->seq) return 0;
    if (out_bytes == 0) return 1;
    return sn->len >= CANARY_BYTES + out_bytes + CANARY_BYTES && sn->len <= h->data_len;
}

/* Run the call laid out by call_begin with the arguments ARGS (SIZE
 * bytes); OUT_BYTES of OUT are copied in and, after a clean return, back
 * from the snapshot the worker made when the entry point returned (its
 * canaries checked there, and its return value read there: host_proto.h).
 * Unlocks H.  The return value, or a fault. */
static int64_t call_end(pc_host *h, pc_hook_id id, const char *where, const void *args,
                        size_t size, void *out, size_t out_bytes, pc_fault *fault)
{
    host_hdr *hd = (host_hdr *)(void *)h->base;
    const char *what = pc_hook_symbol(id);
    memcpy(hd->args, args, size);
    if (out_bytes) {
        memset(h->base + h->data_off, CANARY_BYTE, h->data_len);
        if (out) memcpy(h->base + h->out_off, out, out_bytes);
    }
    hd->seq = ++h->seq;
    hd->sig = 0;
    char c = 'c';
    int64_t ret = 0;
    host_snap sn;
    double t0 = now_ms();
    int status = 0, r = send(h->ctl, &c, 1, MSG_NOSIGNAL) == 1 ? await_worker(h, h->timeout_ms,
                                                                               &status) : 0;
    if (r == 0 && h->pid > 0) kill_worker(h, &status); /* the send failed: it is dying */
    if (r <= 0) charge(h, now_ms() - t0, r == 0, r < 0); /* the worker died or hung */
    char cause[PC_ERR_LEN];
    if (r < 0) {
        snprintf(cause, sizeof cause, "timed out after %ld ms in %s%s (killed; raise "
                 "--timeout-ms if it is only slow)", h->timeout_ms, what, where);
        h->hung[id] = 1;
        snprintf(h->hung_where[id], sizeof h->hung_where[id], "%s", where);
        set_fault(fault, cause);
    } else if (r == 0) {
        describe_death(h, status, what, where, out_bytes, cause, sizeof cause);
        set_fault(fault, cause);
    } else if (!snap_head(h, out_bytes, &sn)) {
        set_fault(fault, "the plugin host answered without making the call");
    } else if (check_canaries(h->snap_base + HOST_SNAP_HEAD, (size_t)sn.len, out_bytes, cause,
                              sizeof cause, what, where)) {
        set_fault(fault, cause);
    } else {
        ret = sn.ret;
        if (out_bytes && out) memcpy(out, h->snap_base + HOST_SNAP_HEAD + CANARY_BYTES, out_bytes);
    }
    if (fault->faulted) pc_host_take_output(h);
    pthread_mutex_unlock(&h->mu);
    return ret;
}

/* ---- the calls, generated from hooks.def ------------------------------------- */

/* " at pos=A..B" for ascending consecutive positions, else the first few. */
static void at_pos(char *buf, size_t len, const char *label, const int64_t *pos, size_t n)
{
    if (n == 0 || !pos) { snprintf(buf, len, " with n=0"); return; }
    int consecutive = 1;
    for (size_t r = 1; r < n && consecutive; r++)
        consecutive = pos[r - 1] < INT64_MAX && pos[r] == pos[r - 1] + 1; /* no overflow at INT64_MAX */
    if (n == 1)
        snprintf(buf, len, " at %s=%" PRId64, label, pos[0]);
    else if (consecutive)
        snprintf(buf, len, " at %s=%" PRId64 "..%" PRId64, label, pos[0], pos[n - 1]);
    else {
        int w = snprintf(buf, len, " at %s=", label);
        for (size_t r = 0; r < n && r < 4 && w > 0 && (size_t)w < len; r++)
            w += snprintf(buf + w, len - (size_t)w, "%s%" PRId64, r ? "," : "", pos[r]);
        if (n > 4 && w > 0 && (size_t)w < len)
            snprintf(buf + w, len - (size_t)w, ",... (%zu positions)", n);
    }
}

static void at_qk(char *buf, size_t len, const int64_t *q, size_t nq, const int64_t *k, size_t nk)
{
    snprintf(buf, len, " at nq=%zu nk=%zu (qpos %" PRId64 ".., kpos %" PRId64 "..)", nq, nk,
             nq && q ? q[0] : 0, nk && k ? k[0] : 0);
}

#define PC_AT_POS(L, P, N) at_pos(where, len, L, hook_args->P, hook_args->N)
#define PC_AT_ATT(N, D, C) snprintf(where, len, " at n=%zu d=%d causal=%d", hook_args->N, \
                                    hook_args->D, hook_args->C)
#define PC_AT_HEADS(H) snprintf(where, len, " at heads=%d", hook_args->H)
#define PC_AT_QK(Q, NQ, K, NK) at_qk(where, len, hook_args->Q, hook_args->NQ, hook_args->K, \
                                     hook_args->NK)
#define PC_AT_NONE where[0] = '\0'

/* For each hook: " at pos=..." from its arguments; then the call itself:
 * arguments into the struct, inputs into the shared memory, run. */
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT)                                   \
    static void where_##NAME(const host_args_##NAME *hook_args, char *where,    \
                             size_t len)                                       \
    {                                                                          \
        (void)hook_args; (void)len;                                            \
        AT;                                                                    \
    }                                                                          \
    RET pc_host_##NAME(pc_host *h, pc_fault *fault PC_PARAMS(ARGS))            \
    {                                                                          \
        host_args_##NAME a_;                                                   \
        host_args_##NAME *hook_args = &a_;                                     \
        void *hook_out = NULL;                                                 \
        size_t hook_in = 0;                                                    \
        _Static_assert(sizeof a_ <= HOST_ARGS, "HOST_ARGS too small");         \
        memset(&a_, 0, sizeof a_);                                             \
        (void)hook_args;                                                       \
        PC_STORE(ARGS)                                                         \
        PC_OUT_GET(ARGS)                                                       \
        PC_IN_SIZE(ARGS)                                                       \
        char where[160];                                                       \
        where_##NAME(&a_, where, sizeof where);                                \
        host_put hook_put;                                                     \
        if (!call_begin(h, PC_HOOK_##NAME, where, hook_in, PC_OUT_BYTES(ARGS),  \
                        &hook_put, fault))                                     \
            return 0;                                                          \
        PC_IN_PUT(ARGS)                                                        \
        return (RET)call_end(h, PC_HOOK_##NAME, where, &a_, sizeof a_, hook_out, \
                             PC_OUT_BYTES(ARGS), fault);                       \
    }
#include "hooks.def"
#undef PC_HOOK
#undef PC_AT_POS
#undef PC_AT_ATT
#undef PC_AT_HEADS
#undef PC_AT_QK
#undef PC_AT_NONE

/* ---- the host ------------------------------------------------------------------ */

/* Ask an idle worker to kill what the plugin started (host_worker.c) and
 * to exit; wait for that at most 2 s.  Its process group is killed after. */
static void quit_worker(pc_host *h)
{
    char c = 'q';
    int status;
    if (h->pid > 0 && send(h->ctl, &c, 1, MSG_NOSIGNAL) == 1)
        await_worker(h, 2000, &status);
}

/* H's worker asked to end, then killed with its group (everything the
 * plugin started in it gone); its scratch folder removed. */
static void host_end(pc_host *h)
{
    pthread_mutex_lock(&h->mu);
    pc_host_take_output(h);
    quit_worker(h);
    kill_worker(h, NULL);
    if (h->scratch) pc_out_remove_tree(h->scratch);
    pthread_mutex_unlock(&h->mu);
}

/* H ended and freed. */
static void host_free(pc_host *h)
{
    host_end(h);
    if (h->base) munmap(h->base, h->size);
    if (h->snap_base) munmap((void *)(uintptr_t)h->snap_base, h->snap_size);
    if (h->shm >= 0) close(h->shm);
    if (h->snap >= 0) close(h->snap);
    if (h->outfd >= 0) close(h->outfd);
    if (h->life[0] >= 0) close(h->life[0]);
    if (h->life[1] >= 0) close(h->life[1]);
    pthread_mutex_destroy(&h->mu);
    free(h->argv);
    free(h->scratch);
    free(h->path);
    free(h->name);
    free(h);
}

/* The hosts of POOL (NULL ones skipped) and POOL itself. */
static void pool_free(host_pool *p)
{
    for (int k = 0; k < p->n; k++)
        if (p->hosts[k]) host_free(p->hosts[k]);
    for (int k = 0; k < p->n_writable; k++) free(p->writable[k]);
    free(p->writable);
    free(p->hosts);
    pthread_mutex_destroy(&p->mu);
    free(p);
}

/* H's worker's command line (host_proto.h). */
static int make_argv(pc_host *h)
{
    const host_pool *p = h->pool;
    h->argv = calloc((size_t)p->n_writable + HOST_ARGC_MIN + 1, sizeof *h->argv);
    if (!h->argv) return -1;
    char *fixed[HOST_ARGC_MIN] = { (char *)"pecheck", (char *)HOST_ARGV1, h->path, h->mem, h->cpu,
                                   h->scratch, h->abi, (char *)(p->network ? "1" : "0") };
    memcpy(h->argv, fixed, sizeof fixed);
    for (int k = 0; k < p->n_writable; k++) h->argv[HOST_ARGC_MIN + k] = p->writable[k];
    return 0;
}

/* Its shared memory: a memfd sealed against shrinking, which the worker
 * inherits as HOST_FD_SHM (map_shared); its output; its lifeline; its
 * scratch folder.  -1 with errno. */
static int host_files(pc_host *h)
{
    h->shm = memfd_create("pecheck-plugin-shm", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    h->snap = memfd_create("pecheck-plugin-snapshot", MFD_CLOEXEC | MFD_ALLOW_SEALING);
    h->outfd = memfd_create("pecheck-plugin-output", MFD_CLOEXEC);
    if (h->shm < 0 || h->snap < 0 || h->outfd < 0 || pipe2(h->life, O_CLOEXEC) != 0 ||
        map_shared(h, round_up(sizeof(host_hdr), page_size())) != 0 ||
        map_snap(h, HOST_SNAP_HEAD) != 0 ||
        fcntl(h->shm, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0 ||
        fcntl(h->snap, F_ADD_SEALS, F_SEAL_SHRINK | F_SEAL_SEAL) != 0)
        return -1;
    h->scratch = pc_fs_scratch_new();
    return h->scratch ? make_argv(h) : -1;
}

/* One host of POOL to *OUT, its worker not started yet.  An error when out
 * of memory or descriptors, or when no scratch folder can be made. */
static pc_status host_new(const char *path, const char *name, const pc_host_limits *lim,
                          host_pool *pool, pc_host **out, pc_err *err)
{
    pc_host *h = calloc(1, sizeof *h);
    *out = NULL;
    if (!h || !(h->path = strdup(path)) || !(h->name = strdup(name))) {
        if (h) free(h->path);
        free(h);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    h->pool = pool;
    h->timeout_ms = lim->timeout_ms > 0 ? lim->timeout_ms : 1;
    snprintf(h->mem, sizeof h->mem, "%ld", lim->mem_mb > 0 ? lim->mem_mb : 0);
    snprintf(h->cpu, sizeof h->cpu, "%ld", lim->cpu_s > 0 ? lim->cpu_s : 0);
    snprintf(h->abi, sizeof h->abi, "%d", pool->landlock_abi);
    h->pidfd = h->ctl = h->life[0] = h->life[1] = h->shm = h->snap = h->outfd = -1;
    pthread_mutex_init(&h->mu, NULL);
    if (host_files(h) != 0) {
        pc_status st = pc_seterr(err, PC_EINTERNAL, "cannot create the plugin host's shared "
                                 "memory or scratch folder: %s", strerror(errno));
        host_free(h);
        return st;
    }
    *out = h;
    return PC_OK;
}

/* The --plugin-writable folders of LIM into POOL, each resolved (the
 * host's rule is on the folder itself).  PC_EINPUT naming one that is not
 * a folder. */
static pc_status pool_writable(host_pool *p, const pc_host_limits *lim, pc_err *err)
{
    if (lim->n_writable <= 0) return PC_OK;
    p->writable = calloc((size_t)lim->n_writable, sizeof *p->writable);
    if (!p->writable) return pc_seterr(err, PC_ENOMEM, "out of memory");
    for (int k = 0; k < lim->n_writable; k++) {
        struct stat sb;
        char *real = realpath(lim->writable[k], NULL);
        if (!real || stat(real, &sb) != 0 || !S_ISDIR(sb.st_mode)) {
            free(real);
            return pc_seterr(err, PC_EINPUT, "--plugin-writable %s: not a folder (give a folder "
                             "the plugin may write in)", lim->writable[k]);
        }
        p->writable[p->n_writable++] = real;
    }
    return PC_OK;
}

/* A pool of N hosts' shared part to *OUT (its hosts not made yet). */
static pc_status pool_new(int n, const pc_host_limits *lim, host_pool **out, pc_err *err)
{
    host_pool *p = calloc(1, sizeof *p);
    *out = NULL;
    if (!p || !(p->hosts = calloc((size_t)n, sizeof *p->hosts))) {
        free(p);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    pthread_mutex_init(&p->mu, NULL);
    p->n = n;
    p->budget_ms = (double)(lim->timeout_ms > 0 ? lim->timeout_ms : 1);
    p->landlock_abi = pc_fs_landlock_abi();
    p->network = lim->network != 0;
    pc_status st = pool_writable(p, lim, err);
    if (st != PC_OK) {
        pool_free(p);
        return st;
    }
    *out = p;
    return PC_OK;
}

pc_status pc_host_open(const char *path, const char *name, const pc_host_limits *lim,
                       pc_host **out, int *version, pc_err *err)
{
    *out = NULL;
    *version = -1;
    /* the processes the plugin starts come to pecheck when their parent
     * dies, so that ending a host reaps them all (end_group) */
    prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0);
    int n = lim->hosts < 1 ? 1 : lim->hosts > PC_HOST_MAX ? PC_HOST_MAX : lim->hosts;
    host_pool *pool;
    pc_status st = pool_new(n, lim, &pool, err);
    if (st != PC_OK) return st;
    for (int k = 0; k < n && st == PC_OK; k++)
        st = host_new(path, name, lim, pool, &pool->hosts[k], err);
    /* the first host loads the plugin now (its errors are the input's);
     * the others at their first call */
    if (st == PC_OK) st = spawn(pool->hosts[0], err);
    if (st != PC_OK) {
        pool_free(pool);
        return st;
    }
    *version = ((host_hdr *)(void *)pool->hosts[0]->base)->version;
    *out = pool->hosts[0];
    return PC_OK;
}

void pc_host_stop(pc_host *h)
{
    if (!h) return;
    host_pool *p = h->pool;
    pthread_mutex_lock(&p->mu);
    p->stopped = 1;
    pthread_mutex_unlock(&p->mu);
    for (int k = 0; k < p->n; k++) host_end(p->hosts[k]);
}

void pc_host_close(pc_host *h)
{
    if (h) pool_free(h->pool);
}

int pc_host_count(const pc_host *h)
{
    return h->pool->n;
}

pc_host *pc_host_at(const pc_host *h, int k)
{
    return h->pool->hosts[(unsigned)k % (unsigned)h->pool->n];
}

void pc_host_set_fault_budget(pc_host *h, double ms)
{
    pthread_mutex_lock(&h->pool->mu);
    h->pool->budget_ms = ms;
    pthread_mutex_unlock(&h->pool->mu);
}

int pc_host_landlock_abi(const pc_host *h)
{
    return h->pool->landlock_abi;
}

int pc_host_network(const pc_host *h)
{
    return h->pool->network;
}

int pc_host_budget_spent(const pc_host *h)
{
    host_pool *p = h->pool;
    pthread_mutex_lock(&p->mu);
    int spent = p->spent_ms >= p->budget_ms;
    pthread_mutex_unlock(&p->mu);
    return spent;
}

int pc_host_timed_out(const pc_host *h)
{
    int any = 0;
    for (int k = 0; k < h->pool->n && !any; k++) {
        pc_host *p = h->pool->hosts[k];
        pthread_mutex_lock(&p->mu);
        for (int i = 0; i < PC_HOOK_N; i++) any |= p->hung[i];
        pthread_mutex_unlock(&p->mu);
    }
    return any;
}

int pc_host_has(const pc_host *h, pc_hook_id hook)
{
    return (unsigned)hook < PC_HOOK_N && (h->pool->hosts[0]->found >> hook & 1);
}

void pc_host_mangled(const pc_host *h, char *buf, size_t len)
{
    snprintf(buf, len, "%s", h->pool->hosts[0]->mangled);
}

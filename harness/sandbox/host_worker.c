/* host_worker.c: the plugin host process (see host.h and host_proto.h).
 *
 * `pecheck __plugin-host PATH` loads the plugin and serves its entry
 * points, one call at a time, until pecheck closes the control socket or
 * kills it.  It is a fresh exec of pecheck: none of pecheck's state, atexit
 * handlers, floating-point environment or threads are here, so whatever the
 * plugin's constructors, destructors or calls do stays in this process.
 * Before it loads the plugin it seals itself (host_seal.h): no capability,
 * a seccomp filter that keeps signals, ptrace and the like away from every
 * process but itself, and writes out of every folder but its scratch folder
 * (host_fs.h), its TMPDIR. */
#include <dirent.h>
#include <dlfcn.h>
#include <errno.h>
#include <fcntl.h>
#include <link.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/prctl.h>
#include <sys/stat.h>
#include <sys/uio.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#include "host_proto.h"
#include "host_seal.h"

/* ---- the calls, generated from hooks.def --------------------------------- */

/* An input array's place: HDR->args holds its offset in the shared memory
 * plus one (0: NULL). */
static void *pc_host_fix(unsigned char *base, const void *off)
{
    uintptr_t v = (uintptr_t)off;
    return v ? base + (v - 1) : NULL;
}

#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT)                                    \
    static int64_t invoke_##NAME(void *fn, unsigned char *hook_base, void *argp, \
                                 unsigned char *hook_out, size_t out_room)     \
    {                                                                          \
        host_args_##NAME *hook_args = argp;                                    \
        RET (*f)(PC_PROTO(ARGS));                                              \
        memcpy(&f, &fn, sizeof f); /* object to function pointer (POSIX) */    \
        PC_IN_FIX(ARGS)                                                        \
        PC_OUT_SET(ARGS)                                                       \
        (void)hook_args; (void)hook_out; (void)hook_base; (void)out_room;      \
        return (int64_t)f(PC_CALL_ARGS(ARGS));                                 \
    }
/* ABI version 2: the struct rebuilt from its members, completed and
 * checked against OUT's room by FINISH before the plugin sees it (a struct
 * pecheck would not have written: the worker exits, reported as a fault) */
#define PC_HOOK_ARGS(NAME, SYMBOL, TYPE, FINISH, RET, ARGS, AT)                 \
    static int64_t invoke_##NAME(void *fn, unsigned char *hook_base, void *argp, \
                                 unsigned char *hook_out, size_t out_room)     \
    {                                                                          \
        host_args_##NAME *hook_args = argp;                                    \
        RET (*f)(const TYPE *);                                                \
        memcpy(&f, &fn, sizeof f); /* object to function pointer (POSIX) */    \
        PC_IN_FIX(ARGS)                                                        \
        PC_OUT_SET(ARGS)                                                       \
        TYPE hook_s;                                                           \
        memset(&hook_s, 0, sizeof hook_s);                                     \
        PC_PACK(ARGS)                                                          \
        if (FINISH(&hook_s, out_room) != 0) _exit(122);                         \
        return (int64_t)f(&hook_s);                                            \
    }
#define PC_ENTRY(NAME, SYMBOL, RET, ARGS, AT) PC_HOOK(NAME, SYMBOL, RET, ARGS, AT)
#include "hooks.def"
#undef PC_HOOK
#undef PC_HOOK_ARGS
#undef PC_ENTRY

typedef int64_t (*invoke_fn)(void *fn, unsigned char *base, void *argp, unsigned char *out,
                             size_t out_room);

static const invoke_fn invokers[PC_HOOK_N] = {
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) invoke_##NAME,
#define PC_ENTRY(NAME, SYMBOL, RET, ARGS, AT) PC_HOOK(NAME, SYMBOL, RET, ARGS, AT)
#include "hooks.def"
#undef PC_HOOK
#undef PC_ENTRY
};

/* ---- the process ---------------------------------------------------------- */

static unsigned char *base;   /* the shared memory as mapped here */
static int sealed;            /* the seccomp filter is on (pc_host_seal) */
static size_t mapped;
static host_hdr *hdr;

/* LeakSanitizer's exit-time check, asked by ASan builds (make check
 * SANITIZE=1) whether to run (sanitizer/lsan_interface.h documents this
 * hook; an ordinary build never calls it).  A plugin that ends the worker
 * with exit() would otherwise have the leaks of foreign code reported, and
 * the worker exit with LeakSanitizer's status instead of the plugin's: off
 * by design in the worker, whose memory is the plugin's business.  In
 * pecheck's own process the check is unchanged. */
static volatile int in_worker;
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return in_worker;
}

/* A fatal signal: record it (and where, relative to the shared memory),
 * then die of it with the default action. */
static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (hdr) {
        uintptr_t a = (uintptr_t)si->si_addr, b = (uintptr_t)base;
        hdr->sig = sig;
        hdr->addr = a;
        hdr->addr_in = a >= b && a - b < mapped;
        hdr->addr_off = a >= b ? a - b : 0;
    }
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig); /* blocked in the handler: delivered when it returns */
}

/* Stack for the handler, so a stack overflow is caught too (MINSIGSTKSZ is
 * not a constant in recent glibc; 64 KiB covers any of its values). */
static unsigned char alt_stack[65536];

static void setup_signals(void)
{
    struct rlimit rl = { 0, 0 };
    setrlimit(RLIMIT_CORE, &rl); /* a crash of code under test dumps no core */
    stack_t ss;
    memset(&ss, 0, sizeof ss);
    ss.ss_sp = alt_stack;
    ss.ss_size = sizeof alt_stack;
    sigaltstack(&ss, NULL);
    struct sigaction sa;
    memset(&sa, 0, sizeof sa);
    sa.sa_sigaction = on_fatal;
    sa.sa_flags = SA_SIGINFO | SA_ONSTACK;
    sigemptyset(&sa.sa_mask);
    sigaction(SIGSEGV, &sa, NULL);
    sigaction(SIGBUS, &sa, NULL);
    signal(SIGPIPE, SIG_DFL);
}

/* The guard pages in place (serve): left from one call to the next of
 * the same layout, so that a run of calls with OUT in the same place makes
 * no mprotect call (pecheck keeps the layout while calls fit it: the
 * accuracy gate's blocks and their single-position calls share one);
 * moved when the layout grows, lifted before a call without a layout,
 * forgotten when the memory is mapped again.  Between calls only pecheck
 * writes the shared memory, through its own mapping, which has no guards. */
static unsigned char *guard_lo, *guard_hi;
static size_t guard_len;

static void lift_guards(void)
{
    if (!guard_len) return;
    mprotect(guard_lo, guard_len, PROT_READ | PROT_WRITE);
    mprotect(guard_hi, guard_len, PROT_READ | PROT_WRITE);
    guard_len = 0;
}

/* Guards of LEN bytes at G1 and G2; -1 when they cannot be placed. */
static int place_guards(unsigned char *g1, unsigned char *g2, size_t len)
{
    if (guard_len && g1 == guard_lo && g2 == guard_hi && len == guard_len) return 0;
    lift_guards();
    if (mprotect(g1, len, PROT_NONE) != 0 || mprotect(g2, len, PROT_NONE) != 0) return -1;
    guard_lo = g1;
    guard_hi = g2;
    guard_len = len;
    return 0;
}

/* Map the shared memory again when pecheck has grown it. */
static int map_shared(size_t want)
{
    if (base && mapped >= want) return 0;
    guard_len = 0; /* the old mapping's guards go with it */
    if (base) munmap(base, mapped);
    void *p = mmap(NULL, want, PROT_READ | PROT_WRITE, MAP_SHARED, HOST_FD_SHM, 0);
    if (p == MAP_FAILED) { base = NULL; hdr = NULL; return -1; }
    base = p;
    mapped = want;
    hdr = p;
    return 0;
}

/* The first name of the library's dynamic string table that looks like a
 * C++-mangled entry point (_Z...pecheck_...), into BUF. */
static void find_mangled(void *handle, char *buf, size_t len)
{
    buf[0] = '\0';
    struct link_map *lm = NULL;
    if (dlinfo(handle, RTLD_DI_LINKMAP, &lm) != 0 || !lm || !lm->l_ld) return;
    const char *strtab = NULL;
    size_t strsz = 0;
    for (const ElfW(Dyn) *d = lm->l_ld; d->d_tag != DT_NULL; d++) {
        if (d->d_tag == DT_STRSZ) strsz = (size_t)d->d_un.d_val;
        if (d->d_tag == DT_STRTAB) {
            ElfW(Addr) a = d->d_un.d_ptr;
            if (a < lm->l_addr) a += lm->l_addr; /* not relocated by this loader */
            strtab = (const char *)a;
        }
    }
    if (!strtab) return;
    for (size_t k = 0; k < strsz; k += strlen(strtab + k) + 1)
        if (!strncmp(strtab + k, "_Z", 2) && strstr(strtab + k, "pecheck_")) {
            snprintf(buf, len, "%s", strtab + k);
            return;
        }
}

/* RLIMIT_AS of MEM_MB MiB and RLIMIT_CPU of CPU_S seconds (SIGXCPU when
 * spent, SIGKILL a second later), when given (argv, "0": none). */
static void set_limits(const char *mem_mb, const char *cpu_s)
{
    long mem = mem_mb ? strtol(mem_mb, NULL, 10) : 0, cpu = cpu_s ? strtol(cpu_s, NULL, 10) : 0;
    if (mem > 0) {
        struct rlimit rl = { (rlim_t)mem << 20, (rlim_t)mem << 20 };
        setrlimit(RLIMIT_AS, &rl);
    }
    if (cpu > 0) {
        struct rlimit rl = { (rlim_t)cpu, (rlim_t)cpu + 1 };
        setrlimit(RLIMIT_CPU, &rl);
    }
}

/* dlopen PATH, look up every entry point, call the ABI version one. */
static void load(const char *path, void *fn[PC_HOOK_N])
{
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(hdr->scratch, HOST_SCRATCH, "%s", e ? e : "dlopen failed");
        hdr->load_rc = 1;
        return;
    }
    hdr->found = 0;
    for (int k = 0; k < PC_HOOK_N; k++) {
        dlerror();
        fn[k] = dlsym(h, pc_hook_symbol((pc_hook_id)k));
        if (fn[k]) hdr->found |= (uint64_t)1 << k;
    }
    find_mangled(h, hdr->mangled, sizeof hdr->mangled);
    if (!fn[PC_HOOK_abi_version]) {
        snprintf(hdr->scratch, HOST_SCRATCH, "undefined symbol: %s",
                 pc_hook_symbol(PC_HOOK_abi_version));
        hdr->load_rc = 2;
        return;
    }
    host_args_abi_version a;
    memset(&a, 0, sizeof a);
    hdr->version = (int32_t)invokers[PC_HOOK_abi_version](fn[PC_HOOK_abi_version], base, &a, NULL,
                                                          0);
    hdr->load_rc = 0;
}

/* The bytes of the data region of DATA_LEN bytes, OUT of OUT_LEN bytes at
 * LEAD, that go to the snapshot: to the end of OUT's first
 * HOST_CANARY_BYTES of trailing canary, or the whole region when a byte
 * after that changed (host_snap); 0 for a call without OUT. */
static size_t snap_len(const unsigned char *data, size_t data_len, size_t lead, size_t out_len)
{
    if (out_len == 0) return 0;
    size_t end = lead + out_len + HOST_CANARY_BYTES;
    if (end >= data_len || !host_all_canary(data + end, data_len - end)) return data_len;
    return end;
}

/* The snapshot of call SEQ, which returned RET: its head and the LEN bytes
 * of the data region at DATA as they are now, written to HOST_FD_SNAP in
 * one system call, so that nothing a thread of the plugin writes there
 * later reaches pecheck (host_proto.h). */
static void snapshot(uint64_t seq, int64_t ret, const unsigned char *data, size_t len)
{
    host_snap head;
    memset(&head, 0, sizeof head);
    head.seq = seq;
    head.ret = ret;
    head.len = len;
    struct iovec iov[2] = { { &head, sizeof head }, { (void *)(uintptr_t)data, len } };
    ssize_t n;
    do n = pwritev(HOST_FD_SNAP, iov, len ? 2 : 1, 0);
    while (n < 0 && errno == EINTR);
    if (n != (ssize_t)(sizeof head + len)) _exit(HOST_EXIT_SNAPSHOT); /* a memfd writes all or fails */
}

/* One call, as HDR describes it. */
static void serve(void *fn[PC_HOOK_N])
{
    /* the plugin may scribble over the header: what the call needs is
     * copied first */
    int id = hdr->hook;
    uint64_t seq = hdr->seq;
    size_t guard = (size_t)hdr->guard, data_off = (size_t)hdr->data_off;
    size_t data_len = (size_t)hdr->data_len, out_off = (size_t)hdr->out_off;
    size_t out_len = (size_t)hdr->out_len;
    if (guard && (data_off + data_len + guard > mapped || guard > data_off ||
                  out_off < data_off || out_off > data_off + data_len ||
                  out_len > data_off + data_len - out_off))
        _exit(124); /* not a layout pecheck wrote: reported as an exit */
    if (!guard) out_off = 0; /* no output */
    unsigned char *g1 = base + data_off - guard, *g2 = base + data_off + data_len;
    if (!guard) lift_guards(); /* the inputs may lie where an earlier call's guards are */
    if (guard && place_guards(g1, g2, guard) != 0)
        _exit(125); /* cannot place the guards: reported as an exit */
    _Alignas(64) unsigned char args[HOST_ARGS];
    memcpy(args, hdr->args, sizeof args);
    /* OUT's room: to the end of the data pages (its canary included) */
    size_t room = guard ? data_off + data_len - out_off : 0;
    int64_t r = (id >= 0 && id < PC_HOOK_N && fn[id])
              ? invokers[id](fn[id], base, args, base + out_off, room) : -1;
    /* the guards stay (place_guards) */
    snapshot(seq, r, base + data_off,
             guard ? snap_len(base + data_off, data_len, out_off - data_off, out_len) : 0);
}

/* Without the seccomp filter (another architecture): kill every process
 * the plugin started, then return.  The worker is a child subreaper
 * (PR_SET_CHILD_SUBREAPER): a descendant whose parent died, one that left
 * the process group with setsid() included, becomes its child; so killing
 * the children, reaping them and looking again reaches them all.  Bounded
 * to 2 s (PECHECK kills the group after that anyway).  With the filter no
 * process can leave the worker's process group (setsid and setpgid fail),
 * and the worker may signal nothing but that group: pecheck kills it. */
static void kill_descendants(void)
{
    pid_t self = getpid();
    for (int round = 0; round < 200; round++) {
        int found = 0;
        DIR *d = opendir("/proc");
        struct dirent *e;
        while (d && (e = readdir(d)) != NULL) {
            char path[300], buf[512];
            if (e->d_name[0] < '1' || e->d_name[0] > '9') continue;
            snprintf(path, sizeof path, "/proc/%s/stat", e->d_name);
            FILE *f = fopen(path, "r");
            if (!f) continue;
            size_t n = fread(buf, 1, sizeof buf - 1, f);
            fclose(f);
            buf[n] = '\0';
            const char *rp = strrchr(buf, ')'); /* after the command name */
            long ppid = 0;
            char state = 0;
            if (rp && sscanf(rp + 1, " %c %ld", &state, &ppid) == 2 && ppid == (long)self) {
                kill((pid_t)strtol(e->d_name, NULL, 10), SIGKILL);
                found = 1;
            }
        }
        if (d) closedir(d);
        while (waitpid(-1, NULL, WNOHANG) > 0) {}
        if (!found) return;
        struct timespec ts = { 0, 10000000 }; /* 10 ms for reparenting */
        nanosleep(&ts, NULL);
    }
}

/* When pecheck is gone (the lifeline pipe hangs up: its write end was
 * pecheck's alone), even while a call hangs: kill what the plugin started
 * and exit (sealed: the whole process group, this worker included). */
static void *watchdog(void *arg)
{
    (void)arg;
    for (;;) {
        struct pollfd p = { HOST_FD_LIFE, POLLIN, 0 };
        int r = poll(&p, 1, -1);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0 || (p.revents & (POLLHUP | POLLERR | POLLNVAL))) break;
        char c;
        if (read(HOST_FD_LIFE, &c, 1) == 0) break; /* EOF: no writer left */
    }
    if (sealed) kill(0, SIGKILL); /* does not return */
    kill_descendants();
    _exit(0);
}

/* The descriptors pecheck handed over are not for programs the plugin
 * runs. */
static void start_watchdog(void)
{
    for (int fd = HOST_FD_CTL; fd <= HOST_FD_SNAP; fd++)
        fcntl(fd, F_SETFD, FD_CLOEXEC);
    pthread_t t;
    pthread_attr_t at;
    pthread_attr_init(&at);
    pthread_attr_setdetachstate(&at, PTHREAD_CREATE_DETACHED);
    if (pthread_create(&t, &at, watchdog, NULL) != 0) _exit(123);
    pthread_attr_destroy(&at);
}

static int read_byte(char *c)
{
    for (;;) {
        ssize_t n = read(HOST_FD_CTL, c, 1);
        if (n == 1) return 1;
        if (n < 0 && errno == EINTR) continue;
        return 0; /* pecheck is gone */
    }
}

static void write_byte(char c)
{
    while (write(HOST_FD_CTL, &c, 1) < 0 && errno == EINTR) {}
}

int pc_host_main(int argc, char **argv)
{
    in_worker = 1;
    setup_signals();
#ifdef PR_SET_CHILD_SUBREAPER
    prctl(PR_SET_CHILD_SUBREAPER, 1); /* orphans of the plugin come here (kill_descendants) */
#endif
    struct stat sb;
    if (argc < HOST_ARGC_MIN || fstat(HOST_FD_SHM, &sb) != 0 || sb.st_size <= 0 ||
        map_shared((size_t)sb.st_size) != 0)
        _exit(126);
    void *fn[PC_HOOK_N];
    memset(fn, 0, sizeof fn);
    pc_host_fs fs = { (int)strtol(argv[6], NULL, 10), argv[5], argv + HOST_ARGC_MIN,
                      argc - HOST_ARGC_MIN, !strcmp(argv[7], "1") };
    setenv("TMPDIR", fs.scratch, 1); /* the plugin's temporary files go to its scratch folder */
    sealed = pc_host_seal(&fs); /* before the watchdog thread, which inherits it */
    if (sealed == -2) _exit(HOST_EXIT_LANDLOCK);
    if (sealed < 0) _exit(126);
    write_byte('s'); /* started and sealed: the plugin's time begins (host.c, start_host) */
    start_watchdog();
    set_limits(argv[3], argv[4]);
    load(argv[2], fn);
    write_byte('l');
    if (hdr->load_rc != 0) _exit(0);
    char c;
    while (read_byte(&c) && c == 'c') {
        if (map_shared((size_t)hdr->size) != 0) _exit(126);
        serve(fn);
        write_byte('r');
    }
    /* 'q' or pecheck gone: no destructors of the plugin (nothing of them can
     * matter), but nothing it started may outlive the run (sealed: all of
     * it is in this process group, which pecheck kills after the answer) */
    if (!sealed) kill_descendants();
    write_byte('q');
    _exit(0);
}

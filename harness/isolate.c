/* isolate.c: hooks run in a forked child with a time limit and a guarded
 * output buffer (see isolate.h for the layout and the outcomes). */
#include <errno.h>
#include <inttypes.h>
#include <poll.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>
#ifdef __linux__
#include <sys/prctl.h>
#endif
#include "canary.h"
#include "isolate.h"

/* Guard regions on each side of the data pages: 64 KiB of PROT_NONE
 * (address space only, no memory), so that a write up to 64 KiB outside
 * OUT faults with an address we can place; farther writes land in other
 * mappings of the child or fault without that description. */
#define GUARD_BYTES ((size_t)65536)

/* Canary bytes on each side of OUT: 64 B, one cache line, so that OUT starts
 * 64-byte aligned (what SIMD stores may assume) and a write of one vector
 * past either end is caught by the canary rather than the guard page. */
#define CANARY_BYTES 64
#define CANARY_BYTE 0xA5 /* an arbitrary pattern; as a float 0xA5A5A5A5 is -2.9e-16 */

/* ---- the shared header ------------------------------------------------ */

typedef struct shared_hdr {
    volatile int done;        /* the hook returned */
    volatile int rc;          /* its return value */
    volatile int64_t ret64;   /* pecheck_learned_max_len's value */
    volatile int sig;         /* fatal signal caught in the child */
    volatile uintptr_t addr;  /* its si_addr (SIGSEGV, SIGBUS) */
    char scratch[PC_ISO_SCRATCH];
} shared_hdr;

/* One call: a shared mapping and where OUT lies in it. */
typedef struct mapping {
    unsigned char *base;
    size_t len, page, guard;
    shared_hdr *hdr;
    unsigned char *data;      /* first byte after the first guard page */
    size_t data_len;          /* data pages (canaries + OUT) */
    unsigned char *out;       /* data + CANARY_BYTES */
    size_t out_bytes;
} mapping;

static int map_call(mapping *m, size_t out_bytes)
{
    memset(m, 0, sizeof *m);
    long pg = sysconf(_SC_PAGESIZE);
    m->page = pg > 0 ? (size_t)pg : 4096;
    size_t hdr_len = (sizeof(shared_hdr) + m->page - 1) / m->page * m->page;
    m->out_bytes = out_bytes;
    m->data_len = 0;
    if (out_bytes > 0) {
        size_t need = CANARY_BYTES + out_bytes + CANARY_BYTES;
        if (need < out_bytes || need > SIZE_MAX - m->page) return -1; /* no wrap in the rounding below */
        m->data_len = (need + m->page - 1) / m->page * m->page;
    }
    /* [header][guard][data][guard] */
    m->guard = (GUARD_BYTES + m->page - 1) / m->page * m->page;
    m->len = hdr_len + (out_bytes > 0 ? m->guard + m->data_len + m->guard : 0);
    void *p = mmap(NULL, m->len, PROT_READ | PROT_WRITE, MAP_SHARED | MAP_ANONYMOUS, -1, 0);
    if (p == MAP_FAILED) return -1;
    m->base = p;
    m->hdr = p;
    if (out_bytes > 0) {
        unsigned char *g1 = m->base + hdr_len;
        m->data = g1 + m->guard;
        unsigned char *g2 = m->data + m->data_len;
        if (mprotect(g1, m->guard, PROT_NONE) != 0 || mprotect(g2, m->guard, PROT_NONE) != 0) {
            munmap(m->base, m->len);
            return -1;
        }
        m->out = m->data + CANARY_BYTES;
        memset(m->data, CANARY_BYTE, m->data_len);
    }
    return 0;
}

static void unmap_call(mapping *m)
{
    if (m->base) munmap(m->base, m->len);
    m->base = NULL;
}

/* ---- the child -------------------------------------------------------- */

static shared_hdr *child_hdr; /* set in the child only, for the signal handler */

/* Set in the isolated child before it runs code under test. */
static volatile int in_isolated_child;

/* LeakSanitizer's exit-time check, asked by ASan builds (make check
 * SANITIZE=1) whether to run; an ordinary build never calls it.
 * (sanitizer/lsan_interface.h documents this hook; the sanitizer runtime
 * reads it when the process exits.)  The leak check is about pecheck's own
 * memory, so it is off in an isolated child: the child is a fork of
 * pecheck, and when the code under test ends it with exit() the check runs
 * in a copy of the address space whose other threads (the parent's
 * --threads workers) do not exist.  Blocks those threads point to read as
 * leaked (the child then exits with status 1 instead of the plugin's 0),
 * and stopping threads that are not there can block the check until the
 * call's time limit: both turned an exit() in a hook into a flaky cause.
 * The parent's own check at its exit is unchanged. */
int __lsan_is_turned_off(void);
int __lsan_is_turned_off(void)
{
    return in_isolated_child;
}

static void on_fatal(int sig, siginfo_t *si, void *uc)
{
    (void)uc;
    if (child_hdr) {
        child_hdr->sig = sig;
        child_hdr->addr = (uintptr_t)si->si_addr;
    }
    /* back to the default action; the signal is blocked while we run, so
     * this raise is delivered (and kills) when we return */
    struct sigaction dfl;
    memset(&dfl, 0, sizeof dfl);
    dfl.sa_handler = SIG_DFL;
    sigaction(sig, &dfl, NULL);
    raise(sig);
}

/* Stack for the handler, so a stack overflow is caught too (MINSIGSTKSZ is
 * not a constant in recent glibc; 64 KiB covers any of its values). */
static unsigned char alt_stack[65536];

static void child_setup(shared_hdr *hdr)
{
    child_hdr = hdr;
    in_isolated_child = 1;
    setpgid(0, 0);
#ifdef __linux__
    /* die with pecheck (Ctrl-C on pecheck must not leave a hung child) */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
#endif
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
    sigset_t none;
    sigemptyset(&none);
    sigprocmask(SIG_SETMASK, &none, NULL);
}

/* ---- waiting with a time limit ---------------------------------------- */

static double now_ms(void)
{
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec * 1e3 + (double)ts.tv_nsec * 1e-6;
}

/* Wait for PID at most TIMEOUT_MS; returns 1 when it exited (STATUS set),
 * 0 on timeout (the child and its group are then killed and reaped). */
static int wait_child(pid_t pid, long timeout_ms, int *status)
{
    double deadline = now_ms() + (double)timeout_ms;
    int exited = 0;
#ifdef SYS_pidfd_open
    int fd = (int)syscall(SYS_pidfd_open, pid, 0);
    if (fd >= 0) {
        for (;;) {
            double left = deadline - now_ms();
            if (left <= 0) break;
            struct pollfd pfd = { fd, POLLIN, 0 };
            int r = poll(&pfd, 1, (int)(left + 1.0));
            if (r > 0) { exited = 1; break; }
            if (r < 0 && errno != EINTR) break;
        }
        close(fd);
        if (exited) {
            while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
            return 1;
        }
    } else
#endif
    {
        /* no pidfd: poll waitpid with a sleep growing from 20 us to 2 ms */
        long sleep_ns = 20000;
        for (;;) {
            pid_t r = waitpid(pid, status, WNOHANG);
            if (r == pid) return 1;
            if (r < 0 && errno != EINTR) break;
            if (now_ms() >= deadline) break;
            struct timespec ts = { 0, sleep_ns };
            nanosleep(&ts, NULL);
            if (sleep_ns < 2000000) sleep_ns *= 2;
        }
    }
    kill(-pid, SIGKILL);
    kill(pid, SIGKILL);
    while (waitpid(pid, status, 0) < 0 && errno == EINTR) {}
    return 0;
}

/* ---- one isolated call -------------------------------------------------- */

typedef int (*invoke_fn)(void *arg, shared_hdr *hdr, unsigned char *out);

static const char *sig_name(int sig)
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
    default:      return NULL;
    }
}

/* Where ADDR lies relative to OUT, for a fault message. */
static void describe_addr(const mapping *m, uintptr_t a, char *buf, size_t len)
{
    if (m->out_bytes > 0) {
        uintptr_t out = (uintptr_t)m->out, end = out + m->out_bytes;
        uintptr_t lo = (uintptr_t)m->data - m->guard, hi = (uintptr_t)m->data + m->data_len + m->guard;
        if (a >= end && a < hi) {
            snprintf(buf, len, " (address %#" PRIxPTR ", %" PRIuPTR " bytes after the end of OUT: "
                     "out-of-bounds access)", a, a - end);
            return;
        }
        if (a >= lo && a < out) {
            snprintf(buf, len, " (address %#" PRIxPTR ", %" PRIuPTR " bytes before the start of OUT: "
                     "out-of-bounds access)", a, out - a);
            return;
        }
    }
    snprintf(buf, len, a ? " (address %#" PRIxPTR ")" : " (address 0: NULL pointer)", a);
}

/* Canary check: bytes changed before and after OUT. */
static int check_canaries(const mapping *m, char *buf, size_t len, const char *what, const char *where)
{
    if (m->out_bytes == 0) return 0;
    /* the scan is proved with Frama-C WP (harness/canary.c) */
    pc_canary_report cr;
    if (!pc_canary_check(m->data, m->data_len, CANARY_BYTES, m->out_bytes, CANARY_BYTE, &cr))
        return 0;
    size_t before = cr.before, after = cr.after, first_before = cr.first_before,
           first_after = cr.first_after;
    /* A byte equal to the canary is invisible: the counts are lower bounds. */
    if (after)
        snprintf(buf, len, "%s wrote outside OUT%s: %zu byte(s) changed after its end "
                 "(the first at byte %zu past the end, float %zu of a %zu-float OUT)%s",
                 what, where, after, first_after, first_after / 4 + m->out_bytes / 4,
                 m->out_bytes / 4, before ? ", and bytes before its start" : "");
    else
        snprintf(buf, len, "%s wrote outside OUT%s: %zu byte(s) changed before its start "
                 "(the farthest %zu bytes before it)", what, where, before, first_before);
    return 1;
}

typedef struct outcome {
    int faulted;       /* crash, exit, timeout or out-of-bounds write */
    int timed_out;
    int rc;
    int64_t ret64;
    char cause[PC_ERR_LEN];
} outcome;

/* Run INVOKE(ARG) in a child.  OUT_BYTES of OUT are copied in from IO and,
 * after a clean return, back to IO.  WHAT names the code, WHERE the input
 * (" at pos=..."). */
static int iso_exec(const char *what, const char *where, long timeout_ms, size_t out_bytes,
                    void *io, invoke_fn invoke, void *arg, outcome *oc, char *scratch)
{
    memset(oc, 0, sizeof *oc);
    mapping m;
    if (map_call(&m, out_bytes) != 0) {
        snprintf(oc->cause, sizeof oc->cause, "cannot map %zu bytes of shared memory for %s: %s",
                 out_bytes, what, strerror(errno));
        return -1;
    }
    if (out_bytes > 0 && io) memcpy(m.out, io, out_bytes);
    fflush(NULL); /* nothing buffered is written twice by the child */
    pid_t pid = fork();
    if (pid < 0) {
        snprintf(oc->cause, sizeof oc->cause, "cannot fork to run %s: %s", what, strerror(errno));
        unmap_call(&m);
        return -1;
    }
    if (pid == 0) {
        child_setup(m.hdr);
        int rc = invoke(arg, m.hdr, m.out);
        m.hdr->rc = rc;
        m.hdr->done = 1;
        _exit(0);
    }
    setpgid(pid, pid); /* also done by the child: whichever runs first */
    int status = 0;
    int exited = wait_child(pid, timeout_ms, &status);
    char addr[160] = "";
    if (!exited) {
        oc->faulted = oc->timed_out = 1;
        snprintf(oc->cause, sizeof oc->cause, "timed out after %ld ms in %s%s (killed; "
                 "raise --timeout-ms if it is only slow)", timeout_ms, what, where);
    } else if (WIFSIGNALED(status)) {
        int sig = WTERMSIG(status);
        const char *name = sig_name(sig);
        char num[24];
        if (!name) { snprintf(num, sizeof num, "signal %d", sig); name = num; }
        if (m.hdr->sig == sig && (sig == SIGSEGV || sig == SIGBUS))
            describe_addr(&m, m.hdr->addr, addr, sizeof addr);
        oc->faulted = 1;
        snprintf(oc->cause, sizeof oc->cause, "%s in %s%s%s", name, what, where, addr);
    } else if (!m.hdr->done || WEXITSTATUS(status) != 0) {
        oc->faulted = 1;
        snprintf(oc->cause, sizeof oc->cause, "%s exited with status %d%s instead of returning",
                 what, WIFEXITED(status) ? WEXITSTATUS(status) : -1, where);
    } else if (check_canaries(&m, oc->cause, sizeof oc->cause, what, where)) {
        oc->faulted = 1;
    } else {
        oc->rc = m.hdr->rc;
        oc->ret64 = m.hdr->ret64;
        if (out_bytes > 0 && io) memcpy(io, m.out, out_bytes);
        if (scratch) memcpy(scratch, m.hdr->scratch, PC_ISO_SCRATCH);
    }
    unmap_call(&m);
    return 0;
}

/* ---- the wrapper -------------------------------------------------------- */

enum { H_SIN, H_ROPE, H_MAXLEN, H_LEARNED, H_ATT,
       H_T5_BUCKET, H_T5_BIAS, H_ALIBI_SLOPES, H_ALIBI_BIAS, H_TXL, H_N };
static const char *const hook_names[H_N] = {
    "pecheck_sinusoidal_f32", "pecheck_rope_f32", "pecheck_learned_max_len",
    "pecheck_learned_f32", "pecheck_attention_f32", "pecheck_t5_bucket", "pecheck_t5_bias",
    "pecheck_alibi_slopes", "pecheck_alibi_bias", "pecheck_txl_score"
};

#define ISO_MAGIC 0x150C0DEu

typedef struct iso_ctx {
    pc_impl self;             /* first: the wrapper handed out */
    unsigned magic;
    const pc_impl *inner;
    long timeout_ms;
    pthread_mutex_t mu;
    int n_faults;
    char cause[PC_ERR_LEN];   /* the fault at the lowest position since the last clear */
    int64_t cause_key;        /* its call's first position (INT64_MAX: a consequence) */
    int hung[H_N];            /* a call of this hook timed out */
    char hung_where[H_N][128];
} iso_ctx;

/* The arguments of one hook call (the fields its hook uses). */
typedef struct call {
    const pc_impl *inner;
    int hook;
    const int64_t *pos;       /* pos, or REL for t5_bucket */
    size_t n;                 /* n, or nq */
    int d;
    double base;
    int layout;
    const float *x, *wq, *wk, *wv;  /* attention; rope's X; txl: q, k, u, v */
    const float *w;           /* t5 emb, txl wr */
    int causal;               /* also t5's bidirectional */
    int heads, num_buckets, max_distance;
    const int64_t *kpos;
    size_t nk;
} call;

static int invoke_hook(void *arg, shared_hdr *hdr, unsigned char *outb)
{
    const call *c = arg;
    const pc_impl *in = c->inner;
    float *out = (float *)(void *)outb;
    switch (c->hook) {
    case H_SIN:    return in->sinusoidal(in->ctx, c->pos, c->n, c->d, c->base, c->layout, out);
    case H_ROPE:   return in->rope(in->ctx, c->pos, c->n, c->d, c->base, c->layout, c->x, out);
    case H_MAXLEN: hdr->ret64 = in->learned_max_len(in->ctx); return 0;
    case H_LEARNED: return in->learned(in->ctx, c->pos, c->n, c->d, out);
    case H_ATT:    return in->attention(in->ctx, c->n, c->d, c->x, c->wq, c->wk, c->wv,
                                        c->causal, out);
    case H_T5_BUCKET: return in->t5_bucket(in->ctx, c->pos, c->n, c->causal, c->num_buckets,
                                           c->max_distance, (int32_t *)(void *)outb);
    case H_T5_BIAS: return in->t5_bias(in->ctx, c->w, c->heads, c->causal, c->num_buckets,
                                       c->max_distance, c->pos, c->n, c->kpos, c->nk, out);
    case H_ALIBI_SLOPES: return in->alibi_slopes(in->ctx, c->heads, out);
    case H_ALIBI_BIAS: return in->alibi_bias(in->ctx, c->heads, c->pos, c->n, c->kpos, c->nk,
                                             c->causal, out);
    case H_TXL:    return in->txl_score(in->ctx, c->n, c->nk, c->d, c->base, c->layout, c->x,
                                        c->wq, c->wk, c->wv, c->w, c->pos, c->kpos, out);
    default:       return -1;
    }
}

/* " at pos=A..B" for ascending consecutive positions, else the first few. */
static void describe_pos(const char *label, const int64_t *pos, size_t n, char *buf, size_t len)
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

static void describe_call(const call *c, char *buf, size_t len)
{
    switch (c->hook) {
    case H_MAXLEN: buf[0] = '\0'; return;
    case H_ATT:
        snprintf(buf, len, " at n=%zu d=%d causal=%d", c->n, c->d, c->causal);
        return;
    case H_T5_BUCKET: describe_pos("rel", c->pos, c->n, buf, len); return;
    case H_ALIBI_SLOPES: snprintf(buf, len, " at heads=%d", c->heads); return;
    case H_T5_BIAS: case H_ALIBI_BIAS: case H_TXL:
        snprintf(buf, len, " at nq=%zu nk=%zu (qpos %" PRId64 ".., kpos %" PRId64 "..)", c->n,
                 c->nk, c->n && c->pos ? c->pos[0] : 0, c->nk && c->kpos ? c->kpos[0] : 0);
        return;
    default: describe_pos("pos", c->pos, c->n, buf, len); return;
    }
}

/* Keep the cause of the call with the lowest first position (KEY), so that
 * the cause reported does not depend on which thread faulted first; calls
 * skipped because the hook hung earlier pass INT64_MAX (a consequence, not
 * a cause). */
static void record(iso_ctx *ic, const char *cause, int64_t key)
{
    pthread_mutex_lock(&ic->mu);
    if (ic->n_faults++ == 0 || key < ic->cause_key) {
        snprintf(ic->cause, sizeof ic->cause, "%s", cause);
        ic->cause_key = key;
    }
    pthread_mutex_unlock(&ic->mu);
}

/* a * b * c elements of SIZE bytes, or SIZE_MAX on overflow */
static size_t bytes3(size_t a, size_t b, size_t c, size_t size)
{
    size_t v = size;
    const size_t f[3] = { a, b, c };
    for (int k = 0; k < 3; k++) {
        if (f[k] != 0 && v > SIZE_MAX / f[k]) return SIZE_MAX;
        v *= f[k];
    }
    return v;
}

static size_t nonneg(int v) { return v > 0 ? (size_t)v : 0; }

/* The first position a call covers (0 for calls without positions). */
static int64_t call_key(const call *c)
{
    return c->n && c->pos ? c->pos[0] : 0;
}

static int run_call(iso_ctx *ic, call *c, void *out, size_t out_bytes, int64_t *ret64)
{
    char where[160];
    describe_call(c, where, sizeof where);
    pthread_mutex_lock(&ic->mu);
    int hung = ic->hung[c->hook];
    char hung_where[128];
    snprintf(hung_where, sizeof hung_where, "%s", ic->hung_where[c->hook]);
    pthread_mutex_unlock(&ic->mu);
    if (hung) {
        char cause[PC_ERR_LEN];
        snprintf(cause, sizeof cause, "not run%s: %s timed out earlier%s", where,
                 hook_names[c->hook], hung_where);
        record(ic, cause, INT64_MAX);
        return PC_ISO_FAULT;
    }
    if (out_bytes == SIZE_MAX) {
        record(ic, "output too large to isolate", call_key(c));
        return PC_ISO_FAULT;
    }
    c->inner = ic->inner;
    outcome oc;
    if (iso_exec(hook_names[c->hook], where, ic->timeout_ms, out_bytes, out,
                 invoke_hook, c, &oc, NULL) != 0 || oc.faulted) {
        record(ic, oc.cause, call_key(c));
        if (oc.timed_out) {
            pthread_mutex_lock(&ic->mu);
            ic->hung[c->hook] = 1;
            snprintf(ic->hung_where[c->hook], sizeof ic->hung_where[c->hook], "%s", where);
            pthread_mutex_unlock(&ic->mu);
        }
        return PC_ISO_FAULT;
    }
    if (ret64) *ret64 = oc.ret64;
    return oc.rc;
}

static call call0(int hook)
{
    call c;
    memset(&c, 0, sizeof c);
    c.hook = hook;
    return c;
}

static int w_sinusoidal(void *ctx, const int64_t *pos, size_t n, int d, double base,
                        int layout, float *out)
{
    call c = call0(H_SIN);
    c.pos = pos; c.n = n; c.d = d; c.base = base; c.layout = layout;
    return run_call(ctx, &c, out, bytes3(n, nonneg(d), 1, sizeof(float)), NULL);
}

static int w_rope(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                  const float *x, float *out)
{
    call c = call0(H_ROPE);
    c.pos = pos; c.n = n; c.d = d; c.base = base; c.layout = layout; c.x = x;
    return run_call(ctx, &c, out, bytes3(n, nonneg(d), 1, sizeof(float)), NULL);
}

static int64_t w_max_len(void *ctx)
{
    call c = call0(H_MAXLEN);
    int64_t v = 0;
    int rc = run_call(ctx, &c, NULL, 0, &v);
    return rc == 0 ? v : PC_ISO_FAULT;
}

static int w_learned(void *ctx, const int64_t *pos, size_t n, int d, float *out)
{
    call c = call0(H_LEARNED);
    c.pos = pos; c.n = n; c.d = d;
    return run_call(ctx, &c, out, bytes3(n, nonneg(d), 1, sizeof(float)), NULL);
}

static int w_attention(void *ctx, size_t n, int d, const float *x, const float *wq,
                       const float *wk, const float *wv, int causal, float *out)
{
    call c = call0(H_ATT);
    c.n = n; c.d = d; c.x = x; c.wq = wq; c.wk = wk; c.wv = wv; c.causal = causal;
    return run_call(ctx, &c, out, bytes3(n, nonneg(d), 1, sizeof(float)), NULL);
}

static int w_t5_bucket(void *ctx, const int64_t *rel, size_t n, int bidirectional,
                       int num_buckets, int max_distance, int32_t *out)
{
    call c = call0(H_T5_BUCKET);
    c.pos = rel; c.n = n; c.causal = bidirectional; c.num_buckets = num_buckets;
    c.max_distance = max_distance;
    return run_call(ctx, &c, out, bytes3(n, 1, 1, sizeof(int32_t)), NULL);
}

static int w_t5_bias(void *ctx, const float *emb, int heads, int bidirectional, int num_buckets,
                     int max_distance, const int64_t *qpos, size_t nq, const int64_t *kpos,
                     size_t nk, float *out)
{
    call c = call0(H_T5_BIAS);
    c.w = emb; c.heads = heads; c.causal = bidirectional; c.num_buckets = num_buckets;
    c.max_distance = max_distance; c.pos = qpos; c.n = nq; c.kpos = kpos; c.nk = nk;
    return run_call(ctx, &c, out, bytes3(nonneg(heads), nq, nk, sizeof(float)), NULL);
}

static int w_alibi_slopes(void *ctx, int heads, float *out)
{
    call c = call0(H_ALIBI_SLOPES);
    c.heads = heads;
    return run_call(ctx, &c, out, bytes3(nonneg(heads), 1, 1, sizeof(float)), NULL);
}

static int w_alibi_bias(void *ctx, int heads, const int64_t *qpos, size_t nq,
                        const int64_t *kpos, size_t nk, int causal, float *out)
{
    call c = call0(H_ALIBI_BIAS);
    c.heads = heads; c.pos = qpos; c.n = nq; c.kpos = kpos; c.nk = nk; c.causal = causal;
    return run_call(ctx, &c, out, bytes3(nonneg(heads), nq, nk, sizeof(float)), NULL);
}

static int w_txl(void *ctx, size_t nq, size_t nk, int d, double base, int layout,
                 const float *q, const float *k, const float *u, const float *v,
                 const float *wr, const int64_t *qpos, const int64_t *kpos, float *out)
{
    call c = call0(H_TXL);
    c.n = nq; c.nk = nk; c.d = d; c.base = base; c.layout = layout; c.x = q; c.wq = k;
    c.wk = u; c.wv = v; c.w = wr; c.pos = qpos; c.kpos = kpos;
    return run_call(ctx, &c, out, bytes3(nq, nk, 1, sizeof(float)), NULL);
}

pc_impl *pc_isolate_wrap(const pc_impl *inner, long timeout_ms)
{
    iso_ctx *ic = calloc(1, sizeof *ic);
    if (!ic) return NULL;
    ic->magic = ISO_MAGIC;
    ic->inner = inner;
    ic->timeout_ms = timeout_ms > 0 ? timeout_ms : 1;
    pthread_mutex_init(&ic->mu, NULL);
    pc_impl *w = &ic->self;
    w->name = inner->name;
    w->description = inner->description;
    w->family_hint = inner->family_hint;
    w->expect_pass = inner->expect_pass;
    w->flaw = inner->flaw;
    w->ctx = ic;
    w->sinusoidal = inner->sinusoidal ? w_sinusoidal : NULL;
    w->rope = inner->rope ? w_rope : NULL;
    w->learned_max_len = inner->learned_max_len ? w_max_len : NULL;
    w->learned = inner->learned ? w_learned : NULL;
    w->attention = inner->attention ? w_attention : NULL;
    w->angles = NULL; /* not part of the plugin ABI */
    w->pos_min = inner->pos_min;
    w->pos_max = inner->pos_max;
    w->pos_bounded = inner->pos_bounded;
    w->t5_bucket = inner->t5_bucket ? w_t5_bucket : NULL;
    w->t5_bias = inner->t5_bias ? w_t5_bias : NULL;
    w->alibi_slopes = inner->alibi_slopes ? w_alibi_slopes : NULL;
    w->alibi_bias = inner->alibi_bias ? w_alibi_bias : NULL;
    w->txl_score = inner->txl_score ? w_txl : NULL;
    return w;
}

void pc_isolate_free(pc_impl *wrapped)
{
    if (!wrapped || !pc_isolate_is(wrapped)) return;
    iso_ctx *ic = wrapped->ctx;
    pthread_mutex_destroy(&ic->mu);
    free(ic);
}

int pc_isolate_is(const pc_impl *impl)
{
    return impl && impl->ctx == (const void *)impl && ((const iso_ctx *)impl->ctx)->magic == ISO_MAGIC;
}

const pc_impl *pc_isolate_inner(const pc_impl *impl)
{
    return pc_isolate_is(impl) ? ((const iso_ctx *)impl->ctx)->inner : NULL;
}

int pc_isolate_fault(const pc_impl *impl, char *cause, size_t len)
{
    if (!pc_isolate_is(impl)) return 0;
    iso_ctx *ic = impl->ctx;
    pthread_mutex_lock(&ic->mu);
    int n = ic->n_faults;
    if (n && cause && len) snprintf(cause, len, "%s", ic->cause);
    pthread_mutex_unlock(&ic->mu);
    return n;
}

void pc_isolate_clear(const pc_impl *impl)
{
    if (!pc_isolate_is(impl)) return;
    iso_ctx *ic = impl->ctx;
    pthread_mutex_lock(&ic->mu);
    ic->n_faults = 0;
    ic->cause[0] = '\0';
    pthread_mutex_unlock(&ic->mu);
}

/* ---- arbitrary code ------------------------------------------------------ */

typedef struct run_arg {
    int (*fn)(void *arg, char *scratch);
    void *arg;
} run_arg;

static int invoke_run(void *arg, shared_hdr *hdr, unsigned char *out)
{
    (void)out;
    const run_arg *r = arg;
    return r->fn(r->arg, hdr->scratch);
}

pc_status pc_isolate_run(const char *what, long timeout_ms,
                         int (*fn)(void *arg, char *scratch), void *arg,
                         int *rc, char *scratch, pc_err *err)
{
    run_arg r = { fn, arg };
    outcome oc;
    if (iso_exec(what, "", timeout_ms > 0 ? timeout_ms : 1, 0, NULL, invoke_run, &r, &oc,
                 scratch) != 0)
        return pc_seterr(err, PC_EINTERNAL, "%s", oc.cause);
    if (oc.faulted)
        return pc_seterr(err, PC_FAIL, "%s", oc.cause);
    *rc = oc.rc;
    return PC_OK;
}

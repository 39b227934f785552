/* host.h: run a plugin's code out of pecheck's process, so that pecheck
 * survives whatever it does.
 *
 * A pc_host is one plugin host process (host_worker.c, a fresh exec of
 * pecheck in a session of its own) that dlopens the plugin and serves its
 * entry points (hooks.def), one call at a time, many calls each: the plugin
 * is never loaded into pecheck's own process, so its constructors,
 * destructors, floating-point environment, exit() and crashes stay in the
 * worker.  The worker's stdout and stderr are captured (pc_host_output),
 * its stdin is /dev/null.  It runs in a session of its own and seals
 * itself before loading the plugin (host_seal.h: no capability, a seccomp
 * filter that keeps signals, ptrace and the like to itself and its process
 * group, which no process of the plugin can leave, no file's metadata
 * changed and, unless LIM->network, no network; host_fs.h: writes only
 * in a scratch folder of its own, by Landlock or the seccomp fallback);
 * pecheck is not dumpable (main.c), so its /proc/PID/mem is out of the
 * worker's reach.  A worker that crashes, exits or hangs is killed with
 * its process group, whose processes are reaped (pecheck is their child
 * subreaper), and replaced at the next call; pc_host_stop ends every
 * host the same way, which the commands do before they write any output.
 * When pecheck
 * itself dies (even SIGKILL, even during a hanging call), the worker's
 * lifeline pipe hangs up and it kills its group.  Without the filter
 * (another architecture) the worker, a child subreaper, kills every
 * process the plugin started one by one instead (a process that left the
 * group with setsid() and whose worker was killed rather than closed then
 * survives).  Each call runs with a time limit and a guarded output
 * buffer:
 *
 *   - OUT lives in shared memory (a memfd mapped by both, sealed against
 *     shrinking: the plugin cannot take pages from under pecheck) laid out as
 *       [guard 64 KiB][canary 64 B][OUT][canary >= 64 B][guard 64 KiB]
 *     (guards are PROT_NONE).  OUT starts 64-byte aligned.  A write just
 *     outside OUT lands on a canary byte (seen after the call, harness/
 *     canary.c); a write farther out hits a guard page (SIGSEGV, whose
 *     address is recorded).  OUT is copied in from the caller's buffer
 *     before the call, so the hook sees what an in-process call would,
 *     and back after it from the snapshot the worker made as the call
 *     returned (host_proto.h): what the plugin writes later is not seen.
 *     The layout only grows, so calls of different sizes share one place
 *     and the worker's guards stay put.
 *     Inputs (positions, X, W*) are copied into the shared memory.
 *   - the call gets TIMEOUT_MS of wall-clock time (then SIGKILL, with its
 *     process group) and no core file (RLIMIT_CORE 0).
 *
 * Outcome of one call (pc_fault, hook.h):
 *   - the hook returned R (OUT intact around it): R is returned, no fault;
 *     a nonzero R is the implementation's own error;
 *   - it died by a signal, exited without returning (exit() in the hook),
 *     ran past the time limit, or wrote outside OUT: FAULT->faulted is set
 *     and FAULT->cause names it, e.g.
 *       "SIGSEGV in <symbol> at pos=768..1023 (address
 *        0x7f..., 4 bytes after the end of OUT: out-of-bounds access)"
 *   - after a time-out, further calls of that entry point are not made
 *     (they would hang too): they fault at once ("not run ... timed out
 *     earlier ...").
 *
 *   - the faults of a source (its pool) share one budget: the time its
 *     calls that crashed, exited or timed out took (not the restarts of
 *     the hosts: host.c says why), at most the time limit until
 *     pc_host_set_fault_budget says otherwise; once spent, every later
 *     call of the source faults at once
 *     ("not run ...: the plugin's faults ... took ..."), so a kernel that
 *     crashes slowly, call after call, ends in bounded time.
 *
 * NaN/Inf in OUT is not judged here: the checks see it (with a witness).
 *
 * A pool: pc_host_open returns the first of LIM->hosts hosts (a fixed
 * number, --plugin-hosts, not the thread count), each a worker process as
 * above with its own shared memory, time-outs, output, limits and
 * restarts; pc_host_at gives the others.  The first loads the plugin at
 * once, the others at their first call (a failure then is that call's
 * fault: "not run ...: the plugin host could not be started: ...").  A
 * caller that spreads calls over the pool (the accuracy engine) makes them
 * parallel; each host's state is its own, so the caller keeps each host's
 * sequence of calls independent of its threads.
 * Thread safety: calls may come from several threads; each host serves
 * one call at a time. */
#ifndef PECHECK_HOST_H
#define PECHECK_HOST_H

#include "hook.h"
#include "harness/base/status.h"

typedef struct pc_host pc_host;

/* The hosts of a pool by default (--plugin-hosts): a plugin's calls on two
 * cores, as a built-in's on `make bench`'s two threads (its goal 2: a
 * plugin's gate within 1.25 times the built-in's).  A fixed number, not the
 * core count, so that a stateful plugin sees the same calls on every
 * machine and with any --threads. */
#define PC_HOST_POOL 2

/* The most hosts of a pool: each is a process with 4 descriptors here,
 * and no machine pecheck runs on gives a plugin more cores to use well. */
#define PC_HOST_MAX 64

/* Limits of a plugin host. */
typedef struct pc_host_limits {
    long timeout_ms;          /* wall-clock time of each call */
    long mem_mb;              /* each worker's address space in MiB (RLIMIT_AS); 0: unlimited */
    long cpu_s;               /* each worker's CPU seconds (RLIMIT_CPU); 0: unlimited */
    int hosts;                /* hosts in the pool, 1..PC_HOST_MAX (fewer than 1: 1) */
    const char *const *writable; /* --plugin-writable: folders the hosts may write besides
                               * their scratch folders (host_fs.h) */
    int n_writable;
    int network;              /* --plugin-network: the hosts keep the network (host_seal.h) */
} pc_host_limits;

/* Load the plugin at PATH (as given to dlopen) under LIM (a time limit per
 * call; memory and CPU limits of the worker, set before it loads PATH).  A
 * worker that spends its CPU time dies of SIGXCPU (that call's cause) and
 * is replaced with a fresh budget.
 * PC_EINPUT with a one-line message when it does not load (dlerror's
 * text), lacks the ABI version entry point, crashes, exits or hangs while
 * loading, or names a --plugin-writable that is not a folder; the message
 * starts with NAME.  The ABI version it reported goes to *VERSION.  Returns
 * PC_OK with *OUT set otherwise.  pecheck becomes a child subreaper. */
pc_status pc_host_open(const char *path, const char *name, const pc_host_limits *lim,
                       pc_host **out, int *version, pc_err *err);
/* End every host of H's pool: each worker and every process it started
 * killed and reaped, its scratch folder removed; later calls fault ("the
 * run is over").  Its output stays readable (pc_host_output). */
void pc_host_stop(pc_host *h);
void pc_host_close(pc_host *h);   /* H, the first: the whole pool (stopped first) */

/* The budget of the faults of H's pool, MS milliseconds (see above). */
void pc_host_set_fault_budget(pc_host *h, double ms);

/* The Landlock ABI the hosts seal their file system with, 0 for the
 * seccomp fallback (host_fs.h). */
int pc_host_landlock_abi(const pc_host *h);

/* Whether the hosts keep the network (--plugin-network, host_seal.h). */
int pc_host_network(const pc_host *h);

/* The number of hosts in H's pool, and its host K (0: the first; K taken
 * modulo that number). */
int pc_host_count(const pc_host *h);
pc_host *pc_host_at(const pc_host *h, int k);

/* Has a call on any host of H's pool timed out (so that its entry point is
 * not called again there)? */
int pc_host_timed_out(const pc_host *h);

/* Have the faults of H's pool spent its budget (so that no call is made
 * any more)? */
int pc_host_budget_spent(const pc_host *h);

/* Does the plugin export entry point H? */
int pc_host_has(const pc_host *h, pc_hook_id hook);

/* The symbols the library defines that look like C++-mangled entry points
 * (_Z...pecheck_...), for a hint when none of the table is exported: the
 * first such name goes to BUF (empty when none). */
void pc_host_mangled(const pc_host *h, char *buf, size_t len);

/* The last bytes (at most LEN - 1) the plugin wrote to its stdout and
 * stderr, which are captured (never pecheck's own): the pool's hosts' in
 * turn, each one's last 2 KiB (read 2 KiB at most each time, whatever the
 * size of the file; NUL bytes left out, other control characters but
 * newline and tab shown as '?'); returns their count. */
size_t pc_host_output(pc_host *h, char *buf, size_t len);

/* RET pc_host_NAME(const pc_host *h, pc_fault *fault, arguments...) for
 * each hook of hooks.def. */
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) \
    RET pc_host_##NAME(pc_host *h, pc_fault *fault PC_PARAMS(ARGS));
#include "hooks.def"
#undef PC_HOOK

#endif

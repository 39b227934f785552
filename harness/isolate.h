/* isolate.h: run code under test in a forked child, with a time limit and
 * a guarded output buffer, so that pecheck survives whatever it does.
 *
 * pc_isolate_wrap() turns any pc_impl into one whose hooks each fork a
 * child that makes the call (theft's approach to properties that crash or
 * hang).  The caller sees the same hook signatures, so the accuracy engine
 * and the properties need no change.  Per call:
 *
 *   - OUT lives in shared memory (mmap MAP_SHARED) laid out as
 *       [guard 64 KiB][canary 64 B][OUT][canary >= 64 B][guard 64 KiB]
 *     (guards are PROT_NONE).  OUT starts 64-byte aligned.  A write
 *     just outside OUT lands on a canary byte (seen after the call); a
 *     write farther out hits a guard page (SIGSEGV, whose address the child
 *     records).  OUT is copied in from the caller's buffer before the call
 *     and back after it, so the hook sees what an in-process call would.
 *     Inputs (positions, X, W*) are read from the child's copy-on-write
 *     image of the caller's memory.
 *   - the child gets TIMEOUT_MS of wall-clock time (then SIGKILL, with its
 *     process group) and no core file (RLIMIT_CORE 0).
 *
 * Outcome of one call, as the caller sees it:
 *   - the hook returned R (OUT intact around it): R is returned; a nonzero
 *     R is the implementation's own error (e.g. "layout not supported");
 *   - the child died by a signal, exited without returning (exit() in the
 *     hook), ran past the time limit, or wrote outside OUT: PC_ISO_FAULT is
 *     returned and a FAULT is recorded with its cause, e.g.
 *       "SIGSEGV in pecheck_sinusoidal_f32 at pos=1001..1024 (address
 *        0x7f... , 4 bytes after the end of OUT)"
 *     The caller (cmd_check, cmd_accuracy) reads the record with
 *     pc_isolate_fault() and reports the check as failed with that cause:
 *     a crash is never mistaken for "layout not supported".
 *   - after a TIMEOUT, further calls of that hook are not made (they would
 *     hang too): they return PC_ISO_FAULT at once and are recorded.
 *
 * NaN/Inf in OUT is not judged here: the checks see it (with a witness).
 * Thread safety: calls may come from several threads; each call has its own
 * mapping, the fault record is guarded by a mutex. */
#ifndef PECHECK_ISOLATE_H
#define PECHECK_ISOLATE_H

#include <stdint.h>
#include "impl.h"
#include "status.h"

/* Returned by an isolated hook when the call faulted (crash, timeout,
 * out-of-bounds write).  An arbitrary value a plugin is unlikely to return;
 * the fault record, not this value, is what decides. */
#define PC_ISO_FAULT (-31337)

/* Wrap INNER (its hooks and ctx are used in the child; INNER must outlive
 * the wrapper).  The wrapper has INNER's name and description; the hook
 * names in messages are the ABI's (pecheck_sinusoidal_f32, ...).
 * Returns NULL when out of memory. */
pc_impl *pc_isolate_wrap(const pc_impl *inner, long timeout_ms);
void pc_isolate_free(pc_impl *wrapped);

/* Is IMPL a wrapper made by pc_isolate_wrap?  Its inner pc_impl, or NULL. */
int pc_isolate_is(const pc_impl *impl);
const pc_impl *pc_isolate_inner(const pc_impl *impl);

/* Number of faults recorded since the last pc_isolate_clear (0 for an impl
 * that is not a wrapper); the first fault's cause goes to CAUSE (may be
 * NULL) when there is one. */
int pc_isolate_fault(const pc_impl *impl, char *cause, size_t len);
void pc_isolate_clear(const pc_impl *impl);

/* Run FN(ARG) in a forked child under the same limits, for code that is
 * not a hook (e.g. dlopen + pecheck_abi_version while loading a plugin).
 * FN may write up to PC_ISO_SCRATCH bytes to SCRATCH (shared, zeroed
 * first) and returns an int.  Returns PC_OK with *RC set, or PC_FAIL with a
 * cause in ERR ("SIGSEGV in WHAT", "timed out after T ms in WHAT", ...),
 * or another error when the child cannot be started. */
#define PC_ISO_SCRATCH 1024
pc_status pc_isolate_run(const char *what, long timeout_ms,
                         int (*fn)(void *arg, char *scratch), void *arg,
                         int *rc, char *scratch, pc_err *err);

#endif

/* canary.h: the canary scan of an isolated call's output region (see
 * host.h for the layout).  Split out of host.c so that Frama-C WP
 * proves it (make prove, docs/proofs.md): host.c itself uses POSIX
 * calls (fork, sigaltstack, prctl, pidfd) that Frama-C's libc lacks. */
#ifndef PECHECK_CANARY_H
#define PECHECK_CANARY_H

#include <stddef.h>

/* Changed canary bytes around OUT. */
typedef struct pc_canary_report {
    size_t before;        /* bytes changed in the leading canary */
    size_t after;         /* bytes changed in the trailing canary */
    size_t first_before;  /* distance from OUT's start of the farthest changed byte before it */
    size_t first_after;   /* offset past OUT's end of the first changed byte after it */
} pc_canary_report;

/* DATA[0 .. DATA_LEN) is [LEAD canary bytes][OUT_BYTES of OUT][canary
 * bytes to DATA_LEN]; every canary byte was set to BYTE before the call.
 * Counts the canary bytes that differ from BYTE now, on each side, into
 * R, and returns 1 when there is any, 0 when none.  Reads DATA[0 .. LEAD)
 * and DATA[LEAD + OUT_BYTES .. DATA_LEN) only (never OUT: the plugin's
 * output is not judged here).  Requires LEAD + OUT_BYTES <= DATA_LEN. */
int pc_canary_check(const unsigned char *data, size_t data_len, size_t lead, size_t out_bytes,
                    unsigned char byte, pc_canary_report *r);

#endif

/* served.h: a RoPE kernel served by the process that started pecheck.
 *
 * The Python package's check_rotation gates the user's own PyTorch
 * rotation: it starts `pecheck check --serve W,R ...` and answers each
 * call of an ABI v2 kernel (pecheck_rope_v2, include/pecheck_plugin.h) by
 * calling the user's function on the tensor pecheck sends.  pecheck writes
 * one request a call on fd W and reads its reply on fd R (the protocol:
 * docs/python.md "The served kernel's protocol"); the gate and the
 * properties call the kernel as they call a plugin's (families/rope/
 * gate_v2.c), so the same verdicts, bounds and causes come back.
 *
 * One implementation under test per target name (--serve-targets q,k:
 * the rotation's q and its k, gated separately), all served over the same
 * pipes, one call at a time.  The serving process is the user's own, so
 * it is not sealed as a plugin host is; what it sends back is only ever
 * read as the call's output, after the reply's header and length are
 * checked (a reply that does not fit is a fault of the call, and the
 * channel is not used again). */
#ifndef PECHECK_SERVED_H
#define PECHECK_SERVED_H

#include "impl.h"
#include "hook.h"
#include "harness/base/status.h"

/* The magic numbers of a request and of a reply, and the version. */
#define PC_SERVED_REQUEST 0x50435251u
#define PC_SERVED_REPLY   0x50435250u
#define PC_SERVED_VERSION 1u
/* Bytes of a request's and a reply's header. */
#define PC_SERVED_REQ_HEADER 72
#define PC_SERVED_REP_HEADER 16
/* Request flag: cos and sin follow the positions. */
#define PC_SERVED_COS_SIN 1u

/* The implementations under test of one channel. */
typedef struct pc_served_args {
    int fd_w, fd_r;           /* requests out, replies in */
    const char *targets;      /* comma-separated names, e.g. "q,k" */
    int dtype;                /* PECHECK_DTYPE_* the kernel takes */
    int cos_sin;              /* requests carry the certified cos and sin */
} pc_served_args;

/* Open one pc_impl per target of A into OUT[0..*N) (at most MAX); each
 * has only the rope_v2 hook.  PC_EINPUT naming --serve when a fd is not
 * open or a name is empty or repeated. */
pc_status pc_served_open(const pc_served_args *a, pc_impl **out, int max, int *n, pc_err *err);
void pc_served_close(pc_impl *impl);

/* Is IMPL served (pc_served_open)? */
int pc_served_is(const pc_impl *impl);
/* The one dtype a served IMPL takes (PECHECK_DTYPE_*), -1 for any other
 * implementation (which is called in every dtype). */
int pc_served_dtype(const pc_impl *impl);
/* Whether a served IMPL's calls carry the certified cos and sin. */
int pc_served_wants_cos_sin(const pc_impl *impl);

/* PC_EINPUT (exit 2: no verdict) when served IMPL's channel broke during
 * the run (the serving process ended or answered out of protocol): the
 * verdicts made after it judged nothing of the kernel.  PC_OK otherwise. */
pc_status pc_served_status(const pc_impl *impl, pc_err *err);

/* One call of served IMPL on A (in place: A->out == A->x), with COS and
 * SIN (A->n_tokens x A->rotary_dim/2 each, token-major: the certified
 * A cos and A sin of each token's pairs) when it wants them, else NULL.
 * The kernel's return code (nonzero: not supported, reported as skipped),
 * or nonzero with FAULT set when the channel broke (EOF, a short or
 * malformed reply): FAULT->cause says which. */
int pc_served_rope(const pc_impl *impl, pc_fault *fault, const pecheck_rope_args *a,
                   const float *cos, const float *sin);

#endif

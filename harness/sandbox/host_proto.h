/* host_proto.h: what pecheck and its plugin host process share (host.c,
 * host_worker.c): the worker's command line and file descriptors, the
 * header of the shared memory, and the arguments of each entry point as a
 * struct (generated from hooks.def).
 *
 * One call: pecheck writes the hook's arguments into HDR->args (input
 * arrays replaced by their offset in the shared memory, plus one; 0 for
 * NULL), the input arrays at their offsets, OUT (between its canaries and
 * guard regions) at HDR->out_off and the call's number in HDR->seq; it
 * sends one byte on the control socket.  The worker protects the guard
 * regions (once: the layout stays while calls fit it), calls the entry
 * point and, as soon as it returns, writes the snapshot (host_snap: the
 * call's number, what it returned, then [canary][OUT][canary] as they are
 * at that moment) into the snapshot memfd with one pwritev, and answers
 * one byte.  pecheck judges the snapshot, never the shared memory the
 * plugin's threads can still write: a thread that goes on writing OUT
 * after the call returned changes no verdict.  The worker never maps the
 * snapshot (no pointer of the plugin's reaches it). */
#ifndef PECHECK_HOST_PROTO_H
#define PECHECK_HOST_PROTO_H

#include <stdint.h>
#include <string.h>
#include "hook.h"
#include "v2args.h"

/* The worker is pecheck itself, run as `pecheck __plugin-host PATH MEM_MB
 * CPU_S SCRATCH LANDLOCK_ABI NETWORK [WRITABLE...]` (the limits of
 * pc_host_limits, "0": none; its scratch folder, the Landlock ABI to seal
 * it with, "0": the seccomp fallback, "1" when --plugin-network leaves it
 * the network, and the --plugin-writable folders: host_fs.h)
 * (main.c hands it to pc_host_main) with these descriptors: */
#define HOST_ARGV1 "__plugin-host"
#define HOST_ARGC_MIN 8       /* up to NETWORK */
/* Its exit status when the Landlock domain pecheck asked for could not be
 * made (it then loads nothing). */
#define HOST_EXIT_LANDLOCK 121
#define HOST_FD_CTL 3         /* control socket: one byte each way per call */
#define HOST_FD_SHM 4         /* the shared memory (a memfd sealed against shrinking) */
#define HOST_FD_LIFE 5        /* a pipe's read end; only pecheck holds its write end,
                               * so it hangs up when pecheck is gone */
#define HOST_FD_SNAP 6        /* the snapshot (a memfd sealed against shrinking, written
                               * by pwritev only: not mapped in the worker) */
/* The worker's exit status when it cannot write a snapshot (reported as an
 * exit in the call). */
#define HOST_EXIT_SNAPSHOT 119
/* 0 is /dev/null; 1 and 2 are a memfd that pecheck reads (the plugin's
 * output is captured, never written to pecheck's stdout or stderr). */

/* pecheck's own start in a new host (the exec of pecheck, its dynamic
 * linking, the seal; no code of the plugin runs yet) is waited for this
 * long, not --timeout-ms: the plugin's time limit begins at the worker's
 * 's' byte.  The start takes 1 to 3 ms on a quiet machine (a -O2 build)
 * and can take hundreds under load or a sanitizer build, which made a
 * small --timeout-ms fire on a plugin that had not run yet; 60 s is a
 * limit only a stuck start reaches. */
#define HOST_START_MS 60000L

/* Canary bytes on each side of OUT: 64 B, one cache line, so that OUT starts
 * 64-byte aligned (what SIMD stores may assume) and a write of one vector
 * past either end is caught by the canary rather than the guard page. */
#define HOST_CANARY_BYTES 64
#define HOST_CANARY_BYTE 0xA5 /* an arbitrary pattern; as a float 0xA5A5A5A5 is -2.9e-16 */

/* Whether the N bytes at P are all HOST_CANARY_BYTE: the first 64 one by
 * one, then each byte against the one 64 before it with memcmp (the C
 * library's vector compare; by induction every byte is the canary), cheap
 * enough for the trailing canary of a call much smaller than the layout
 * (a single position after 255: 128 KiB at d = 128), and no state shared
 * between threads. */
static inline int host_all_canary(const unsigned char *p, size_t n)
{
    size_t head = n < 64 ? n : 64;
    for (size_t k = 0; k < head; k++)
        if (p[k] != HOST_CANARY_BYTE) return 0;
    return n == head || memcmp(p + head, p, n - head) == 0;
}

#define HOST_SCRATCH 1024     /* dlerror's text while loading */
#define HOST_ARGS 512         /* room for the largest args struct */
#define HOST_MANGLED 128

typedef struct host_hdr {
    /* written by pecheck before a call */
    uint64_t size;            /* bytes of the shared memory now (it only grows) */
    int32_t hook;             /* pc_hook_id */
    uint64_t guard;           /* bytes of each guard region (0: no output) */
    uint64_t data_off;        /* [canary][OUT][canary], page aligned, between guards */
    uint64_t data_len;
    uint64_t out_off;         /* OUT */
    uint64_t out_len;         /* its bytes */
    uint64_t seq;             /* the call's number, for its snapshot */
    unsigned char args[HOST_ARGS];
    /* written by the worker */
    volatile int32_t sig;     /* fatal signal caught */
    volatile int32_t addr_in; /* its address lies in the shared memory ... */
    volatile uint64_t addr_off; /* ... at this offset */
    volatile uint64_t addr;   /* the address itself */
    /* written by the worker while loading */
    int32_t load_rc;          /* 0 loaded, 1 dlopen failed, 2 no ABI version entry point */
    int32_t version;          /* what the ABI version entry point returned */
    uint64_t found;           /* bit H: entry point H is exported */
    char mangled[HOST_MANGLED]; /* a _Z...pecheck_... symbol, if any */
    char scratch[HOST_SCRATCH];
} host_hdr;

/* The head of the snapshot: the call whose return it records, what the
 * entry point returned, and the bytes of the data region that follow it (at
 * HOST_SNAP_HEAD: 64 bytes on, so that OUT stays 64-byte aligned): the
 * leading canary, OUT and its first HOST_CANARY_BYTES of trailing canary;
 * the rest of the trailing canary (to the guard: the layout's, for a call
 * smaller than the largest) only when a byte of it changed (the worker
 * compares it at the return, host_all_canary), so that a call of one
 * position copies 640 bytes, not 128 KiB. */
typedef struct host_snap {
    uint64_t seq;
    int64_t ret;
    uint64_t len;
    unsigned char pad[40];
} host_snap;
#define HOST_SNAP_HEAD sizeof(host_snap)
_Static_assert(sizeof(host_snap) == 64, "host_snap: 64 bytes");

/* For each entry point: its arguments as a struct. */
#define PC_HOOK(NAME, SYMBOL, RET, ARGS, AT) \
    typedef struct host_args_##NAME { PC_FIELDS(ARGS) char end_; } host_args_##NAME;
#define PC_ENTRY(NAME, SYMBOL, RET, ARGS, AT) PC_HOOK(NAME, SYMBOL, RET, ARGS, AT)
#include "hooks.def"
#undef PC_HOOK
#undef PC_ENTRY

/* The worker's main (argv: pecheck HOST_ARGV1 PATH ... as above); never
 * returns. */
int pc_host_main(int argc, char **argv);

#endif

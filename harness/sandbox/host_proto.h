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

/* The head of the snapshot: the call whose return it records and what the
 * entry point returned; 64 bytes, so that the data region after it (at
 * HOST_SNAP_HEAD) keeps OUT 64-byte aligned. */
typedef struct host_snap {
    uint64_t seq;
    int64_t ret;
    unsigned char pad[48];
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

/* host_proto.h: what pecheck and its plugin host process share (host.c,
 * host_worker.c): the worker's command line and file descriptors, the
 * header of the shared memory, and the arguments of each entry point as a
 * struct (generated from hooks.def).
 *
 * One call: pecheck writes the hook's arguments into HDR->args (input
 * arrays replaced by their offset in the shared memory, plus one; 0 for
 * NULL), the input arrays at their offsets, and OUT (between its canaries
 * and guard regions) at HDR->out_off; it sends one byte on the control
 * socket.  The worker protects the guard regions, calls the entry point,
 * stores the return value, sets HDR->done and answers one byte. */
#ifndef PECHECK_HOST_PROTO_H
#define PECHECK_HOST_PROTO_H

#include <stdint.h>
#include "hook.h"
#include "v2args.h"

/* The worker is pecheck itself, run as `pecheck __plugin-host PATH MEM_MB
 * CPU_S SCRATCH LANDLOCK_ABI [WRITABLE...]` (the limits of pc_host_limits,
 * "0": none; its scratch folder, the Landlock ABI to seal it with, "0": the
 * seccomp fallback, and the --plugin-writable folders: host_fs.h)
 * (main.c hands it to pc_host_main) with these descriptors: */
#define HOST_ARGV1 "__plugin-host"
#define HOST_ARGC_MIN 7       /* up to LANDLOCK_ABI */
/* Its exit status when the Landlock domain pecheck asked for could not be
 * made (it then loads nothing). */
#define HOST_EXIT_LANDLOCK 121
#define HOST_FD_CTL 3         /* control socket: one byte each way per call */
#define HOST_FD_SHM 4         /* the shared memory (a memfd sealed against shrinking) */
#define HOST_FD_LIFE 5        /* a pipe's read end; only pecheck holds its write end,
                               * so it hangs up when pecheck is gone */
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
    unsigned char args[HOST_ARGS];
    /* written by the worker */
    volatile int32_t done;    /* the entry point returned */
    volatile int64_t ret64;   /* what it returned */
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

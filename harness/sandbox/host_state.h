/* host_state.h: the state of a plugin host and of its pool, private to
 * host.c and host_output.c (the sandbox's callers see only host.h). */
#ifndef PC_HOST_STATE_H
#define PC_HOST_STATE_H

#include <pthread.h>
#include <stdint.h>
#include <sys/types.h>
#include "host.h"
#include "host_proto.h"

/* Guard regions on each side of the data pages: 64 KiB of PROT_NONE in the
 * worker (address space only, no memory), so that a write up to 64 KiB
 * outside OUT faults with an address we can place; farther writes land in
 * other mappings of the worker or fault without that description. */
#define GUARD_BYTES ((size_t)65536)

/* Canary bytes on each side of OUT, and their value (host_proto.h). */
#define CANARY_BYTES HOST_CANARY_BYTES
#define CANARY_BYTE HOST_CANARY_BYTE

/* The captured stdout and stderr of the plugin kept for messages: the last
 * 2 KiB (a few lines of a CUDA or assertion error). */
#define OUTPUT_KEEP 2048

/* What the hosts of a pool share: their number, the budget of their
 * faults (host.h), the file system seal and the folders it leaves
 * writable besides each host's scratch folder. */
typedef struct host_pool {
    int n;
    pc_host **hosts;          /* hosts[0], which pc_host_open returned, owns the pool */
    pthread_mutex_t mu;       /* guards the budget */
    double budget_ms;         /* the time the source's faults may take in all */
    double spent_ms;          /* what they took */
    int crashes, timeouts;    /* the faults counted in it */
    int stopped;              /* pc_host_stop: no call is made any more */
    int landlock_abi;         /* host_fs.h: >= 1 Landlock of that ABI, 0 the fallback */
    char **writable;          /* --plugin-writable folders, resolved */
    int n_writable;
    int network;              /* --plugin-network */
} host_pool;

struct pc_host {
    char *path;               /* what dlopen gets */
    char *name;               /* for messages: the path as given */
    long timeout_ms;
    char mem[24], cpu[24];    /* the worker's limits, for its command line (0: none) */
    char abi[16];             /* the Landlock ABI, for its command line (0: the fallback) */
    char **argv;              /* its command line (host_proto.h) */
    pthread_mutex_t mu;       /* one call at a time; guards everything below */
    pid_t pid;                /* the worker, 0 when none is running */
    int pidfd, ctl;           /* its pidfd (-1 without) and control socket */
    int shm;                  /* the shared memory (memfd, sealed against shrinking), kept
                               * across workers */
    int life[2];              /* the lifeline pipe (HOST_FD_LIFE): the write end stays here */
    unsigned char *base;      /* mapped here */
    size_t size;
    int snap;                 /* the snapshot (memfd, sealed against shrinking; HOST_FD_SNAP),
                               * kept across workers */
    const unsigned char *snap_base; /* mapped here, read-only */
    size_t snap_size;
    uint64_t seq;             /* the number of the last call */
    int outfd;                /* the worker's stdout and stderr (memfd) */
    off_t out_seen;           /* where the next look at it starts */
    char output[OUTPUT_KEEP]; /* the last bytes the plugin wrote */
    size_t output_len;
    uint64_t found;           /* bit H: entry point H is exported */
    char mangled[HOST_MANGLED];
    int hung[PC_HOOK_N];      /* a call of this entry point timed out */
    char hung_where[PC_HOOK_N][160];
    char broken[PC_ERR_LEN];  /* why a replacement worker could not load */
    /* the current call's layout, as pecheck set it: the copy in the shared
     * header is for the worker, and the plugin could overwrite that one */
    size_t guard, data_off, data_len, out_off;
    /* the largest inputs and data region of the calls so far (page
     * multiples): the layout is made for them, so that a smaller call fits
     * in the same place and the worker's guards stay where they are */
    size_t in_cap, data_cap;
    int started;              /* a worker of it loaded the plugin once (a failure: "restarted") */
    char *scratch;            /* the worker's scratch folder (host_fs.h), kept across workers */
    host_pool *pool;
};

/* Read what the plugin wrote since the last look into H->output (its last
 * OUTPUT_KEEP bytes; host_output.c).  H locked. */
void pc_host_take_output(pc_host *h);

#endif

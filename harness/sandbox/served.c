/* served.c: a RoPE kernel served by the process that started pecheck
 * (served.h; the protocol: docs/python.md "The served kernel's protocol"). */
#include <errno.h>
#include <fcntl.h>
#include <pthread.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "served.h"
#include "v2args.h"

/* The pipes, shared by the channel's targets; one call at a time. */
typedef struct served_chan {
    int fd_w, fd_r;
    int dtype, cos_sin;
    int refs;                 /* targets still open */
    int broken;               /* a call met EOF or a malformed reply: no more calls */
    char broke[160];          /* why */
    pthread_mutex_t mu;
} served_chan;

typedef struct served_target {
    served_chan *chan;
    uint32_t index;
    char name[64];
} served_target;

/* ---- writing and reading whole buffers --------------------------------- */

static int write_all(int fd, const void *buf, size_t len)
{
    const unsigned char *p = buf;
    while (len) {
        ssize_t w = write(fd, p, len);
        if (w < 0 && errno == EINTR) continue;
        if (w <= 0) return -1;
        p += w;
        len -= (size_t)w;
    }
    return 0;
}

/* 0: LEN bytes read; 1: EOF before them; -1: an error. */
static int read_all(int fd, void *buf, size_t len)
{
    unsigned char *p = buf;
    while (len) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR) continue;
        if (r < 0) return -1;
        if (r == 0) return 1;
        p += r;
        len -= (size_t)r;
    }
    return 0;
}

/* ---- one call ------------------------------------------------------------ */

static void put32(unsigned char *h, size_t off, uint32_t v) { memcpy(h + off, &v, 4); }
static void put64(unsigned char *h, size_t off, uint64_t v) { memcpy(h + off, &v, 8); }

/* The request's header (docs/python.md: offsets and fields). */
static void request_header(unsigned char h[PC_SERVED_REQ_HEADER], uint32_t target,
                           const pecheck_rope_args *a, uint32_t flags, uint64_t tensor_bytes)
{
    memset(h, 0, PC_SERVED_REQ_HEADER);
    put32(h, 0, PC_SERVED_REQUEST);
    put32(h, 4, PC_SERVED_VERSION);
    put32(h, 8, target);
    put32(h, 12, (uint32_t)a->heads);
    put32(h, 16, (uint32_t)a->head_dim);
    put32(h, 20, (uint32_t)a->rotary_dim);
    put32(h, 24, (uint32_t)a->layout);
    put32(h, 28, (uint32_t)a->dtype_in);
    put32(h, 32, (uint32_t)a->n_axes);
    put32(h, 36, flags);
    put64(h, 40, (uint64_t)a->n_tokens);
    put64(h, 48, (uint64_t)a->stride_token);
    put64(h, 56, (uint64_t)a->stride_head);
    put64(h, 64, tensor_bytes);
}

static int broken(served_chan *c, pc_fault *fault, const char *why)
{
    c->broken = 1;
    snprintf(c->broke, sizeof c->broke, "%s", why);
    fault->faulted = 1;
    snprintf(fault->cause, sizeof fault->cause, "the served kernel's channel: %s", why);
    return PC_HOOK_FAULTED;
}

static int send_request(served_chan *c, uint32_t target, const pecheck_rope_args *a,
                        const float *cos, const float *sin, size_t bytes)
{
    unsigned char h[PC_SERVED_REQ_HEADER];
    size_t half = a->n_tokens * (size_t)(a->rotary_dim / 2);
    request_header(h, target, a, cos ? PC_SERVED_COS_SIN : 0u, bytes);
    if (write_all(c->fd_w, h, sizeof h)
        || write_all(c->fd_w, a->pos_axes, a->n_tokens * (size_t)a->n_axes * sizeof(int64_t)))
        return -1;
    if (cos && (write_all(c->fd_w, cos, half * sizeof *cos)
                || write_all(c->fd_w, sin, half * sizeof *sin)))
        return -1;
    return write_all(c->fd_w, a->x, bytes);
}

/* The reply: the kernel's return code, the rotated tensor in A->out. */
static int read_reply(served_chan *c, pc_fault *fault, const pecheck_rope_args *a, size_t bytes)
{
    unsigned char h[PC_SERVED_REP_HEADER];
    uint32_t magic;
    int32_t rc;
    uint64_t len;
    int r = read_all(c->fd_r, h, sizeof h);
    if (r) return broken(c, fault, r > 0 ? "end of file (the serving process stopped answering)"
                                         : "cannot read a reply");
    memcpy(&magic, h, 4);
    memcpy(&rc, h + 4, 4);
    memcpy(&len, h + 8, 8);
    if (magic != PC_SERVED_REPLY) return broken(c, fault, "a reply without its magic number");
    if (rc == 0 && len != bytes) return broken(c, fault, "a reply whose tensor has another size");
    if (rc != 0 && len > 4096) return broken(c, fault, "a refusal whose reason is too long");
    if (rc == 0) {
        r = read_all(c->fd_r, a->out, bytes);
        return r ? broken(c, fault, "a reply cut short") : 0;
    }
    char why[4097];
    if (read_all(c->fd_r, why, (size_t)len)) return broken(c, fault, "a refusal cut short");
    return rc;
}

int pc_served_rope(const pc_impl *impl, pc_fault *fault, const pecheck_rope_args *a,
                   const float *cos, const float *sin)
{
    served_target *t = impl->ctx;
    served_chan *c = t->chan;
    fault->faulted = 0;
    fault->cause[0] = '\0';
    char why[160];
    if (pc_rope_v2_invalid(a, SIZE_MAX, why, sizeof why) || a->x != a->out) {
        snprintf(fault->cause, sizeof fault->cause, "not called: the arguments refused: %s",
                 a->x != a->out ? "not in place" : why);
        return PC_V2_REFUSED;
    }
    size_t bytes = pc_v2_rope_span(a->n_tokens, a->heads, a->stride_token, a->stride_head,
                                   a->head_dim) * pc_v2_esize(a->dtype_in);
    pthread_mutex_lock(&c->mu);
    int rc;
    if (c->broken) {
        fault->faulted = 1;
        snprintf(fault->cause, sizeof fault->cause, "not called: the served kernel's channel "
                 "broke earlier (%s)", c->broke);
        rc = PC_HOOK_FAULTED;
    } else if (send_request(c, t->index, a, c->cos_sin ? cos : NULL, sin, bytes))
        rc = broken(c, fault, errno == EPIPE ? "the serving process closed its end"
                                             : "cannot write a request");
    else
        rc = read_reply(c, fault, a, bytes);
    pthread_mutex_unlock(&c->mu);
    return rc;
}

/* The pc_impl hook (impl.h, hooks.def): a call without cos and sin, which a
 * target that wants them declines. */
static int served_rope_v2(void *ctx, size_t size, const int64_t *pos, size_t n_tokens, int heads,
                          int head_dim, int rotary_dim, int layout, int64_t stride_token,
                          int64_t stride_head, int dtype_in, int dtype_out, const unsigned char *x,
                          unsigned char *out, const double *freqs, double attention_factor,
                          const char *schedule, const char *schedule_json,
                          const int64_t *pos_axes, int n_axes, const int *pair_axis)
{
    served_target *t = ctx;
    if (t->chan->cos_sin) return PECHECK_V2_UNSUPPORTED;
    pecheck_rope_args a = {
        size, pos, n_tokens, heads, head_dim, rotary_dim, layout, stride_token, stride_head,
        dtype_in, dtype_out, x ? x : out, out, freqs, attention_factor, schedule, schedule_json,
        pos_axes, n_axes, pair_axis
    };
    pc_impl impl = { .ctx = t };
    pc_fault f;
    return pc_served_rope(&impl, &f, &a, NULL, NULL);
}

/* ---- opening and closing ------------------------------------------------ */

static pc_status chan_new(const pc_served_args *a, served_chan **out, pc_err *err)
{
    if (fcntl(a->fd_w, F_GETFD) < 0 || fcntl(a->fd_r, F_GETFD) < 0)
        return pc_seterr(err, PC_EINPUT, "--serve %d,%d: not an open file descriptor pair (the "
                         "option is the Python package's check_rotation; docs/python.md)",
                         a->fd_w, a->fd_r);
    served_chan *c = calloc(1, sizeof *c);
    if (!c) return pc_seterr(err, PC_ENOMEM, "out of memory");
    /* neither plugin hosts nor anything pecheck starts inherit the pipes */
    fcntl(a->fd_w, F_SETFD, FD_CLOEXEC);
    fcntl(a->fd_r, F_SETFD, FD_CLOEXEC);
    /* a serving process that ends is an error of the call, not a SIGPIPE */
    signal(SIGPIPE, SIG_IGN);
    c->fd_w = a->fd_w;
    c->fd_r = a->fd_r;
    c->dtype = a->dtype;
    c->cos_sin = a->cos_sin;
    pthread_mutex_init(&c->mu, NULL);
    *out = c;
    return PC_OK;
}

static void chan_release(served_chan *c)
{
    if (--c->refs > 0) return;
    close(c->fd_w);
    close(c->fd_r);
    pthread_mutex_destroy(&c->mu);
    free(c);
}

/* Target K named by the LEN bytes at NAME. */
static pc_status target_new(served_chan *c, uint32_t k, const char *name, size_t len,
                            pc_impl **out, pc_err *err)
{
    served_target *t = calloc(1, sizeof *t);
    pc_impl *impl = calloc(1, sizeof *impl);
    if (!t || !impl) {
        free(t);
        free(impl);
        return pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    t->chan = c;
    t->index = k;
    memcpy(t->name, name, len);
    c->refs++;
    impl->name = t->name;
    impl->description = "a RoPE rotation served by the calling process (--serve)";
    impl->family_hint = "rope";
    impl->expect_pass = 1;
    impl->ctx = t;
    impl->rope_v2 = served_rope_v2;
    *out = impl;
    return PC_OK;
}

/* NAME (LEN bytes) is empty, too long, or one of OUT[0..N). */
static int bad_name(const char *name, size_t len, pc_impl **out, int n)
{
    if (len == 0 || len >= sizeof ((served_target *)0)->name) return 1;
    for (int k = 0; k < n; k++)
        if (strlen(out[k]->name) == len && !memcmp(out[k]->name, name, len)) return 1;
    return 0;
}

pc_status pc_served_open(const pc_served_args *a, pc_impl **out, int max, int *n, pc_err *err)
{
    served_chan *c = NULL;
    *n = 0;
    pc_status st = chan_new(a, &c, err);
    const char *s = a->targets ? a->targets : "rotation";
    while (st == PC_OK) {
        size_t len = strcspn(s, ",");
        if (*n >= max || bad_name(s, len, out, *n))
            st = pc_seterr(err, PC_EINPUT, "--serve-targets '%s': expected distinct names of 1 to "
                           "63 characters, comma-separated, at most %d", a->targets, max);
        else st = target_new(c, (uint32_t)*n, s, len, &out[*n], err);
        if (st == PC_OK) ++*n;
        if (!s[len]) break;
        s += len + 1;
    }
    if (st != PC_OK && c) {
        if (*n == 0) { c->refs = 1; chan_release(c); } /* no target holds it */
        for (int k = 0; k < *n; k++) pc_served_close(out[k]); /* the last frees it */
        *n = 0;
    }
    return st;
}

void pc_served_close(pc_impl *impl)
{
    if (!impl) return;
    served_target *t = impl->ctx;
    chan_release(t->chan);
    free(t);
    free(impl);
}

pc_status pc_served_status(const pc_impl *impl, pc_err *err)
{
    const served_chan *c = ((const served_target *)impl->ctx)->chan;
    if (!c->broken) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "--serve: the served kernel's channel broke: %s; no verdict "
                     "(the process serving it, e.g. Python's check_rotation, says why)", c->broke);
}

int pc_served_is(const pc_impl *impl)
{
    return impl && impl->rope_v2 == served_rope_v2;
}

int pc_served_dtype(const pc_impl *impl)
{
    return pc_served_is(impl) ? ((const served_target *)impl->ctx)->chan->dtype : -1;
}

int pc_served_wants_cos_sin(const pc_impl *impl)
{
    return pc_served_is(impl) && ((const served_target *)impl->ctx)->chan->cos_sin;
}

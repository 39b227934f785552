/* reftable_test.c: the certified reference table computed by several
 * threads (each with its own pc_freqs) is the same as computed by one, and
 * the timing driver of `make bench` (scripts/bench.sh).
 *
 * Usage:
 *   reftable_test                         TAP: 3000 positions, d = 128,
 *                                         sinusoidal and RoPE, f32 and f64,
 *                                         1 thread vs 3 threads: same bits;
 *                                         f32 sinusoidal: vector path vs
 *                                         scalar fast path: same bits
 *   reftable_test --bench FAMILY NPOS THREADS [--f64] [--mpfr] [--scalar]
 *                                         one line: seconds, pairs, fast/MPFR
 *                                         counts, checksum.  The table rows
 *                                         are computed block by block and
 *                                         discarded (streaming, as `pecheck
 *                                         reference` into a pipe would):
 *                                         binary32 only unless --f64;
 *                                         --mpfr: the Ziv loop alone;
 *                                         --scalar: no vector path (the
 *                                         binary32 sinusoidal rows use the
 *                                         vector path, reference/vecpath.c).
 * The checksum is an order-independent sum of the rows' bit patterns. */
#include <inttypes.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>
#include <mpfr.h>
#include "harness/base/rng.h"
#include "reference/fastpath.h"

#define D 128
#define BASE 10000.0
#define BLOCK 256 /* rows per block, as the accuracy engine */
#define SEED 20260422u

typedef struct job {
    int rope, need64, mpfr, scalar;
    int64_t npos;
    int64_t next;              /* next block */
    pthread_mutex_t mu;
    uint64_t sum;              /* checksum */
    uint64_t fast, slow, vec, undec;
    int failed;
} job;

/* Row hash: sum of the 64-bit words weighted by odd multipliers 2k+1
 * (independent multiplies, unlike a chain of FNV steps, which would cost as
 * much as the vector path computing the row; swapping two words changes
 * it), then one FNV-1a step into H; tail bytes FNV-1a. */
static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *b = p;
    uint64_t a = 0;
    size_t k = 0;
    for (; k + 8 <= n; k += 8) {
        uint64_t w;
        memcpy(&w, b + k, sizeof w);
        a += w * (uint64_t)(k / 4 + 1); /* 2 (k/8) + 1 */
    }
    h = (h ^ a) * 0x100000001b3u;
    for (; k < n; k++) h = (h ^ b[k]) * 0x100000001b3u;
    return h;
}

static void *work(void *arg)
{
    job *j = arg;
    pc_freqs *f = pc_freqs_new(D, pc_schedule_geometric(BASE));
    /* RoPE inputs: a pool of BLOCK rows drawn once, row p uses pool row
     * p mod BLOCK (as the numpy timing reuses one chunk of inputs; drawing
     * normals per row would cost more than the reference itself) */
    float *o32 = malloc(BLOCK * D * sizeof *o32), *x = malloc(BLOCK * D * sizeof *x);
    for (int r = 0; x && r < BLOCK; r++)
        pc_normal_row(SEED, (uint64_t)r, D, x + (size_t)r * D);
    double *o64 = malloc(BLOCK * D * sizeof *o64);
    uint64_t sum = 0;
    int failed = !f || !o32 || !o64 || !x;
    if (f && j->mpfr) pc_freqs_use_fast(f, 0);
    if (f && j->scalar) pc_freqs_use_vec(f, 0);
    for (;;) {
        pthread_mutex_lock(&j->mu);
        int64_t b = j->next++;
        pthread_mutex_unlock(&j->mu);
        int64_t p0 = b * BLOCK;
        if (failed || p0 >= j->npos) break;
        int64_t n = j->npos - p0 < BLOCK ? j->npos - p0 : BLOCK;
        for (int64_t r = 0; r < n && !failed; r++) {
            float *r32 = o32 + r * D;
            double *r64 = j->need64 ? o64 + r * D : NULL;
            pc_status st;
            if (j->rope) {
                st = pc_ref_rope_row(f, p0 + r, 0, x + (size_t)((p0 + r) % BLOCK) * D, r32, r64);
            } else {
                st = pc_ref_sinusoidal_row(f, p0 + r, 0, r32, r64);
            }
            if (st != PC_OK) failed = 1;
            uint64_t h = mix(0xcbf29ce484222325u, r32, D * sizeof *r32);
            if (r64) h = mix(h, r64, D * sizeof *r64);
            sum += h * (uint64_t)(2 * (p0 + r) + 1); /* position-weighted, order-free */
        }
    }
    pthread_mutex_lock(&j->mu);
    j->sum += sum;
    j->failed |= failed;
    if (f) {
        uint64_t a, s;
        pc_freqs_stats(f, &a, &s);
        j->fast += a;
        j->slow += s;
        pc_freqs_vec_stats(f, &a, &s);
        j->vec += a;
        j->undec += s;
    }
    pthread_mutex_unlock(&j->mu);
    pc_freqs_free(f);
    free(o32); free(o64); free(x);
    mpfr_free_cache(); /* this thread's MPFR caches */
    return NULL;
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Compute the table with THREADS threads; returns seconds. */
static double run(job *j, int threads)
{
    j->next = 0; j->sum = 0; j->fast = j->slow = j->vec = j->undec = 0; j->failed = 0;
    pthread_mutex_init(&j->mu, NULL);
    pthread_t tid[256];
    if (threads > 256) threads = 256;
    double t0 = now();
    int started = 0;
    for (int t = 1; t < threads; t++)
        if (pthread_create(&tid[started], NULL, work, j) == 0) started++;
    work(j);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    double t1 = now();
    pthread_mutex_destroy(&j->mu);
    return t1 - t0;
}

int main(int argc, char **argv)
{
    if (argc >= 5 && !strcmp(argv[1], "--bench")) {
        job j;
        memset(&j, 0, sizeof j);
        j.rope = !strcmp(argv[2], "rope");
        j.npos = atoll(argv[3]);
        int threads = atoi(argv[4]);
        if (threads < 1) threads = (int)sysconf(_SC_NPROCESSORS_ONLN);
        for (int k = 5; k < argc; k++) {
            if (!strcmp(argv[k], "--f64")) j.need64 = 1;
            if (!strcmp(argv[k], "--mpfr")) j.mpfr = 1;
            if (!strcmp(argv[k], "--scalar")) j.scalar = 1;
        }
        double s = run(&j, threads);
        printf("seconds %.6f pairs %" PRId64 " fast %" PRIu64 " mpfr %" PRIu64 " threads %d "
               "checksum %016" PRIx64 " vec %" PRIu64 " undecided %" PRIu64 "%s\n", s,
               j.npos * (D / 2), j.fast, j.slow, threads, j.sum, j.vec, j.undec,
               j.failed ? " FAILED" : "");
        return j.failed;
    }
    printf("1..6\n");
    int fails = 0, t = 0;
    for (int rope = 0; rope < 2; rope++)
        for (int need64 = 0; need64 < 2; need64++) {
            job a, b;
            memset(&a, 0, sizeof a);
            a.rope = rope; a.need64 = need64; a.npos = 3000;
            b = a;
            run(&a, 1);
            run(&b, 3);
            int ok = !a.failed && !b.failed && a.sum == b.sum;
            fails += !ok;
            printf("%s %d - %s table, %s: 1 thread and 3 threads give the same bits "
                   "(checksum %016" PRIx64 ")\n", ok ? "ok" : "not ok", ++t,
                   rope ? "rope" : "sinusoidal", need64 ? "f32+f64" : "f32", a.sum);
        }
    /* 5, 6: the binary32 tables by the vector path and by the scalar fast
     * path alone: the same bits (both are correctly rounded) */
    for (int rope = 0; rope < 2; rope++) {
        job a, b;
        memset(&a, 0, sizeof a);
        a.npos = 3000;
        a.rope = rope;
        b = a;
        b.scalar = 1;
        run(&a, 2);
        run(&b, 2);
        int ok = !a.failed && !b.failed && a.sum == b.sum && a.vec > 0 && b.vec == 0;
        fails += !ok;
        printf("%s %d - %s f32: vector path (%" PRIu64 " pairs) and scalar path give the "
               "same bits (checksum %016" PRIx64 ")\n", ok ? "ok" : "not ok", ++t,
               rope ? "rope" : "sinusoidal", a.vec, a.sum);
    }
    return fails != 0;
}

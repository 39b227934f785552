/* cmd_reference.c: `pecheck reference`: the certified table as .npy, for
 * the families with certified rows (families/family.h, pc_rows.export_row):
 *
 * sinusoidal: shape (n, d), the layout's column order.
 * rope:       shape (n, d/2, 2): [r, i, 0] = cos(pos_r * omega_i),
 *             [r, i, 1] = sin(pos_r * omega_i) (one pair per frequency;
 *             --layout does not apply).
 * Values are correctly rounded to the --dtype: f32 (default), f64, f16
 * ('<f2'), or bf16 ('<u2' bit patterns, what `--table --dtype bf16` reads).
 * f16 and bf16 come from the binary32 row, or from the binary64 row where a
 * binary32 value lies on a midpoint of the narrow format (reference/narrow.h
 * says why that is the correct rounding).
 *
 * The table is streamed: --threads workers (default: every core) claim
 * blocks of rows in order, each with its own pc_freqs, and a finished block
 * at the head of the file is written at once by whichever worker holds no
 * other; a worker waits while its block would not fit the window of
 * REF_WINDOW_PER_THREAD blocks a thread, so memory does not grow with the
 * table.  Every value is correctly rounded, so the file is the same for any
 * thread count.  It goes to a temporary renamed over --out only when whole
 * (output.h). */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include "harness/engine/accuracy.h"
#include "cli.h"
#include "harness/io/npy.h"
#include "harness/base/progress.h"
#include "families/family.h"
#include "harness/sources/sources.h"
#include "reference/narrow.h"
#include "reference/reference.h"
#include "families/spec_sched.h"

/* Values in a block: 2^16 (256 KiB of f32, 512 KiB of f64), at least one
 * row; small enough to keep the window in a few MiB, large enough that a
 * block is one write() of the file and the lock is rare. */
#define REF_BLOCK_VALUES 65536

/* Blocks a thread may have in flight: as the accuracy engine's window
 * (harness/engine/accuracy.c), enough to hide uneven block times. */
#define REF_WINDOW_PER_THREAD 4

typedef struct ref_slot {
    int ready;
    pc_status st;
    int64_t undecided;        /* with st PC_EINTERNAL: a row's narrow rounding
                                 is not decided (-1: the precision ceiling) */
    unsigned char *bytes;     /* the block as the file holds it */
} ref_slot;

typedef struct ref_run {
    const pc_opts *o;
    const pc_spec *spec;      /* the family's encoding: its width, layout, schedule */
    const pc_rows *rows;
    int dtype, layout;
    uint64_t n, d;            /* rows, values a row */
    size_t item;              /* bytes a value in the file */
    uint64_t blk_rows, nblk;
    pthread_mutex_t mu;
    pthread_cond_t cv;
    uint64_t next, head;      /* next block to claim; next to write */
    int writing, stop;
    int direct;               /* a regular file: each block written in place */
    uint64_t fail_blk;        /* with direct: the first failed block so far */
    int eno;                  /* errno of a failed write */
    ref_slot *ring;
    uint64_t window;
    pc_npy_out *w;
    pc_status st;             /* first failure, in file order */
    int64_t undecided;        /* its slot's */
    uint64_t done;            /* rows written */
    pc_progress *pr;          /* updated by the calling thread only */
    pc_schedule sched;        /* the frequency schedule */
} ref_run;

typedef struct ref_worker {
    ref_run *r;
    ref_slot own;             /* its block, when written in place */
    pc_freqs *fr;
    float *row32;             /* a row's binary32 values (f16, bf16) */
    double *row64;            /* and binary64 ones, where those are needed */
    pthread_t tid;
} ref_worker;

/* Row POS narrowed to 16 bits into OUT: from its binary32 values, or from
 * its binary64 ones if a binary32 value is a midpoint (narrow.h);
 * PC_EINTERNAL with *UNDECIDED = POS if a binary64 value is one too. */
static pc_status row16(ref_run *r, ref_worker *k, int64_t pos, uint16_t *out, int64_t *undecided)
{
    int bf = r->dtype == PC_DT_BF16;
    pc_status st = r->rows->export_row(k->fr, pos, r->layout, r->spec->d, k->row32, NULL);
    if (st != PC_OK || pc_narrow16_row(k->row32, NULL, (size_t)r->d, bf, out)) return st;
    st = r->rows->export_row(k->fr, pos, r->layout, r->spec->d, NULL, k->row64);
    if (st == PC_OK && !pc_narrow16_row(NULL, k->row64, (size_t)r->d, bf, out)) {
        *undecided = pos;
        st = PC_EINTERNAL;
    }
    return st;
}

static int host_le(void)
{
    uint16_t one = 1;
    unsigned char b;
    memcpy(&b, &one, 1);
    return b == 1;
}

/* COUNT values of ITEM bytes reversed in place (a big-endian host). */
static void to_le(unsigned char *p, size_t count, size_t item)
{
    for (size_t k = 0; k < count; k++, p += item)
        for (size_t a = 0, b = item - 1; a < b; a++, b--) {
            unsigned char t = p[a];
            p[a] = p[b];
            p[b] = t;
        }
}

/* Block B into slot S, as the file holds it (little-endian). */
static pc_status ref_block(ref_run *r, ref_worker *k, uint64_t b, ref_slot *s)
{
    unsigned char *bytes = s->bytes;
    s->undecided = -1;
    uint64_t r0 = b * r->blk_rows, r1 = r->n - r0 < r->blk_rows ? r->n : r0 + r->blk_rows;
    pc_status st = k->fr ? PC_OK : PC_ENOMEM;
    for (uint64_t row = r0; row < r1 && st == PC_OK; row++) {
        int64_t pos = r->o->pos_lo + (int64_t)row;
        unsigned char *at = bytes + (row - r0) * r->d * r->item;
        if (r->dtype == PC_DT_F32 || r->dtype == PC_DT_F64)
            st = r->rows->export_row(k->fr, pos, r->layout, r->spec->d,
                                     r->dtype == PC_DT_F32 ? (float *)(void *)at : NULL,
                                     r->dtype == PC_DT_F64 ? (double *)(void *)at : NULL);
        else
            st = row16(r, k, pos, (uint16_t *)(void *)at, &s->undecided);
    }
    if (!host_le()) to_le(bytes, (size_t)((r1 - r0) * r->d), r->item);
    return st;
}

/* Write every finished block at the head of the file, unless another
 * worker is at it (caller holds the lock; released during the write). */
static void ref_flush(ref_run *r)
{
    while (!r->writing && !r->stop && r->head < r->nblk) {
        ref_slot *s = &r->ring[r->head % r->window];
        if (!s->ready) break;
        if (s->st != PC_OK) { r->st = s->st; r->undecided = s->undecided; r->stop = 1; break; }
        uint64_t r0 = r->head * r->blk_rows;
        uint64_t rows = r->n - r0 < r->blk_rows ? r->n - r0 : r->blk_rows;
        r->writing = 1;
        pthread_mutex_unlock(&r->mu);
        pc_status st = pc_npy_out_write(r->w, s->bytes, (size_t)(rows * r->d * r->item));
        pthread_mutex_lock(&r->mu);
        r->writing = 0;
        if (st != PC_OK) { r->st = st; r->stop = 1; break; }
        s->ready = 0;
        r->head++;
        r->done += rows;
        pthread_cond_broadcast(&r->cv);
    }
}

/* Block B is over with status ST; direct: its ROWS were written in place
 * (caller holds the lock).  The first failure in file order is kept. */
static void ref_direct_done(ref_run *r, uint64_t b, const ref_slot *s, pc_status st,
                            uint64_t rows, int eno)
{
    r->done += rows;
    if (st == PC_OK) {
        pc_npy_out_wrote(r->w, (size_t)(rows * r->d * r->item));
        return;
    }
    if (!r->stop || b < r->fail_blk) {
        r->fail_blk = b;
        r->st = st;
        r->undecided = s->undecided;
        r->eno = eno;
    }
    r->stop = 1;
}

/* Worker: claim blocks in order until none is left or the run stopped;
 * a block is written in place (direct), or joins the ring to be written
 * in order.  IS_MAIN (the calling thread) also draws the progress line. */
static void ref_work(ref_worker *k, int is_main)
{
    ref_run *r = k->r;
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->direct && !r->stop && r->next < r->nblk && r->next >= r->head + r->window)
            pthread_cond_wait(&r->cv, &r->mu);
        if (r->stop || r->next >= r->nblk) break;
        uint64_t b = r->next++;
        ref_slot *s = r->direct ? &k->own : &r->ring[b % r->window];
        uint64_t done = r->done;
        pthread_mutex_unlock(&r->mu);
        if (is_main) pc_progress_update(r->pr, done, r->n);
        pc_status st = ref_block(r, k, b, s);
        uint64_t r0 = b * r->blk_rows;
        uint64_t rows = r->n - r0 < r->blk_rows ? r->n - r0 : r->blk_rows;
        int eno = 0;
        if (r->direct && st == PC_OK)
            st = pc_npy_out_pwrite(r->w, s->bytes, (size_t)(rows * r->d * r->item),
                                   r0 * r->d * r->item, &eno);
        pthread_mutex_lock(&r->mu);
        if (r->direct) {
            ref_direct_done(r, b, s, st, rows, eno);
            continue;
        }
        s->st = st;
        s->ready = 1;
        ref_flush(r);
    }
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
}

static void *ref_thread(void *arg)
{
    ref_worker *k = arg;
    ref_work(k, 0);
    mpfr_free_cache(); /* this thread's MPFR caches */
    return NULL;
}

static void ref_free(ref_run *r, ref_worker *k, int nt)
{
    for (uint64_t i = 0; r->ring && i < r->window; i++) free(r->ring[i].bytes);
    free(r->ring);
    for (int t = 0; k && t < nt; t++) {
        pc_freqs_free(k[t].fr);
        free(k[t].own.bytes);
        free(k[t].row32); free(k[t].row64);
    }
    free(k);
}

/* NT workers' scratch, and their blocks: one each (direct) or the ring;
 * PC_ENOMEM when short. */
static pc_status ref_alloc(ref_run *r, ref_worker **kp, int nt)
{
    size_t blk = (size_t)(r->blk_rows * r->d * r->item);
    r->window = r->direct ? 0 : (uint64_t)nt * REF_WINDOW_PER_THREAD;
    r->ring = r->direct ? NULL : calloc((size_t)r->window, sizeof *r->ring);
    ref_worker *k = *kp = calloc((size_t)nt, sizeof *k);
    if ((!r->direct && !r->ring) || !k) return PC_ENOMEM;
    for (uint64_t i = 0; i < r->window; i++)
        if (!(r->ring[i].bytes = malloc(blk))) return PC_ENOMEM;
    for (int t = 0; t < nt; t++) {
        if (r->direct && !(k[t].own.bytes = malloc(blk))) return PC_ENOMEM;
        k[t].r = r;
        k[t].fr = pc_freqs_new(r->spec->d, r->sched);
        k[t].row32 = malloc((size_t)r->d * sizeof(float));
        k[t].row64 = malloc((size_t)r->d * sizeof(double));
        if (!k[t].fr || !k[t].row32 || !k[t].row64) return PC_ENOMEM;
    }
    return PC_OK;
}

/* Compute and write the table with NT threads (fewer if some cannot
 * start: the same file). */
static pc_status ref_stream(ref_run *r, int nt)
{
    ref_worker *k = NULL;
    pc_status st = ref_alloc(r, &k, nt);
    if (st == PC_OK) {
        int started = 1;
        for (int t = 1; t < nt; t++) {
            if (pthread_create(&k[t].tid, NULL, ref_thread, &k[t]) != 0) break;
            started++;
        }
        ref_work(&k[0], 1);
        for (int t = 1; t < started; t++) pthread_join(k[t].tid, NULL);
        st = r->st;
    }
    ref_free(r, k, nt);
    return st;
}

/* The table of N rows of D values of FAM, positions from O->pos_lo, to
 * O->out: header, then the streamed blocks; the temporary is renamed over
 * O->out only when every block was written. */
static pc_status ref_write(const pc_opts *o, const pc_spec *spec, pc_schedule sched,
                           uint64_t n, uint64_t d, pc_err *err)
{
    static const char *const descr[] = { "<f4", "<u2", "<f2", "<f8" }; /* by pc_dtype */
    static const size_t item[] = { 4, 2, 2, 8 };
    size_t shape[3] = { (size_t)n, (size_t)d, 1 };
    int rank = 2;
    const pc_family *fam = spec->family;
    if (fam->rows->export_pairs) { shape[1] = (size_t)d / 2; shape[2] = 2; rank = 3; }
    pc_npy_out w;
    pc_status st = pc_npy_out_open(&w, o->out, descr[o->dtype], rank, shape, err);
    if (st != PC_OK) return st;
    ref_run r;
    memset(&r, 0, sizeof r);
    r.o = o; r.spec = spec; r.rows = fam->rows; r.dtype = o->dtype;
    r.layout = spec->layout < 0 ? 0 : spec->layout;
    r.n = n; r.d = d; r.item = item[o->dtype]; r.w = &w; r.sched = sched;
    r.direct = w.seekable;
    r.blk_rows = d < REF_BLOCK_VALUES ? REF_BLOCK_VALUES / d : 1;
    r.nblk = (n + r.blk_rows - 1) / r.blk_rows;
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    pc_progress pr;
    pc_progress_start(&pr, "reference", o->quiet);
    r.pr = &pr;
    int nt = o->threads > 0 ? o->threads : pc_cores();
    if ((uint64_t)nt > r.nblk) nt = (int)r.nblk;
    st = ref_stream(&r, nt);
    pc_progress_end(&pr);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cv);
    if (st == PC_OK || (st == PC_EWRITE && !r.direct)) /* a failed fwrite: close says why */
        return pc_npy_out_close(&w, 1, err);
    pc_npy_out_close(&w, 0, NULL);
    if (st == PC_EWRITE)
        return pc_seterr(err, PC_EWRITE, "%s: write failed: %s", o->out, strerror(r.eno));
    if (st == PC_ENOMEM)
        return pc_seterr(err, PC_ENOMEM, "out of memory for the table's blocks");
    if (st == PC_EINTERNAL && r.undecided >= 0)
        return pc_seterr(err, PC_EINTERNAL, "reference: the %s rounding of a value at position "
                         "%lld is not decided by its binary64 rounding (a midpoint of %s); "
                         "export f32 or f64", pc_dtype_name(o->dtype), (long long)r.undecided,
                         pc_dtype_name(o->dtype));
    return pc_seterr(err, PC_EINTERNAL, "reference: precision ceiling reached");
}

int pc_cmd_reference(int argc, char **argv)
{
    pc_opts o;
    pc_err err = { "" };
    pc_opts_defaults(&o);
    pc_status st = pc_opts_parse(argc, argv, PC_OPTS_REFERENCE, 0, &o, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    const pc_family *fam = pc_family_find(o.family);
    if (!fam || !fam->rows || !fam->rows->export_row) {
        char names[160], hint[64];
        pc_family_names(names, sizeof names, 0, 1, NULL);
        if (!o.family)
            return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--family is required (%s)", names), &err);
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--family: expected %s, got '%s'%s",
                                     names, o.family, pc_family_hint(o.family, hint, sizeof hint)),
                           &err);
    }
    if (!o.out)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--out FILE.npy is required"), &err);

    /* the family's encoding; a RoPE frequency schedule (--hf-config,
     * --rope-scaling, ...): the exported cache is A cos, A sin of the
     * scaled frequencies */
    pc_specs specs;
    if ((st = pc_sources_options_of(&o, fam, &err)) != PC_OK) return pc_cli_fail(st, &err);
    st = pc_specs_resolve(&o.given, &specs, &err);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    const pc_spec *spec = pc_specs_of(&specs, fam);
    if ((st = pc_spec_usable(spec, &err)) != PC_OK) {
        pc_specs_release(&specs);
        return pc_cli_fail(st, &err);
    }
    if (!spec->d_known || (!o.pos_set && !spec->rows)) {
        pc_specs_release(&specs);
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, !spec->d_known
                                     ? "--d is required (or a config that gives the width: "
                                       "--hf-config)"
                                     : "--positions A:B is required (or position ids that give "
                                       "the rows)"), &err);
    }
    if (!o.pos_set) { o.pos_lo = 0; o.pos_hi = spec->rows - 1; } /* the ids' rows */
    uint64_t n = (uint64_t)(o.pos_hi - o.pos_lo) + 1, d = (uint64_t)spec->d;
    pc_acc_cfg acfg;
    memset(&acfg, 0, sizeof acfg);
    acfg.family = fam->name;
    acfg.d = spec->d;
    acfg.base = spec->base;
    acfg.pos_hi = o.pos_hi;
    pc_spec_sched sched;
    st = pc_spec_schedule(spec, &acfg, &sched, &err);
    if (st != PC_OK) { pc_specs_release(&specs); return pc_cli_fail(st, &err); }
    if (!o.quiet && acfg.sched_note)
        fprintf(stderr, "pecheck: %s\n", acfg.sched_note);
    st = ref_write(&o, spec, acfg.sched ? *acfg.sched : pc_schedule_geometric(spec->base), n, d,
                   &err);
    pc_spec_sched_release(&sched);
    pc_specs_release(&specs);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    if (!o.quiet)
        fprintf(stderr, "pecheck: wrote %s (%llu positions x %llu, %s)\n", o.out,
                (unsigned long long)n, (unsigned long long)d, pc_dtype_name(o.dtype));
    return PC_EXIT_PASS;
}

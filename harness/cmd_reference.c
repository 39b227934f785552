/* cmd_reference.c: `pecheck reference`: the certified table as .npy, for
 * the families with certified rows (families/family.h, pc_rows.export_row):
 *
 * sinusoidal: shape (n, d), the layout's column order.
 * rope:       shape (n, d/2, 2): [r, i, 0] = cos(pos_r * omega_i),
 *             [r, i, 1] = sin(pos_r * omega_i) (one pair per frequency;
 *             --layout does not apply).
 * Values are correctly rounded to the --dtype (f32 default, or f64).
 * Rows are computed in blocks of REF_BLOCK by --threads workers (default:
 * every core), each with its own pc_freqs; every value is correctly
 * rounded, so the file is the same for any thread count.  Binary32 rows use
 * the vector path (reference/vecpath.c) through pc_ref_sinusoidal_row /
 * pc_ref_sincos_row32. */
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <mpfr.h>
#include "accuracy.h"
#include "cli.h"
#include "npy.h"
#include "progress.h"
#include "../families/family.h"
#include "../families/rope/options.h"
#include "../reference/reference.h"

/* Largest table written in one file: 2^28 values (1 GiB as f32). */
#define PC_REF_MAX_VALUES ((uint64_t)1 << 28)

/* Rows a worker claims at a time: as the accuracy engine's blocks (256),
 * small enough to balance the threads, large enough to make the lock rare. */
#define REF_BLOCK 256

typedef struct ref_run {
    const pc_opts *o;
    const pc_rows *rows;
    int f64, layout;
    uint64_t n, d;
    void *buf;
    pthread_mutex_t mu;
    uint64_t next, done;      /* next block to claim; rows finished */
    pc_status st;             /* first failure */
    pc_progress *pr;          /* updated by the calling thread only */
    pc_schedule sched;        /* the frequency schedule */
} ref_run;

/* One row of the table into BUF. */
static pc_status ref_row(ref_run *r, pc_freqs *fr, uint64_t row)
{
    int64_t pos = r->o->pos_lo + (int64_t)row;
    float *o32 = r->f64 ? NULL : (float *)r->buf + row * r->d;
    double *o64 = r->f64 ? (double *)r->buf + row * r->d : NULL;
    return r->rows->export_row(fr, pos, r->layout, r->o->d, o32, o64);
}

/* Worker: claim blocks until none is left or a row failed.  MAIN (the
 * calling thread, IS_MAIN) also draws the progress line. */
static void ref_work(ref_run *r, pc_freqs *fr, int is_main)
{
    for (;;) {
        pthread_mutex_lock(&r->mu);
        uint64_t b = r->next++, done = r->done;
        int stop = r->st != PC_OK;
        pthread_mutex_unlock(&r->mu);
        if (is_main) pc_progress_update(r->pr, done, r->n);
        uint64_t r0 = b * REF_BLOCK;
        if (stop || r0 >= r->n) return;
        uint64_t r1 = r->n - r0 < REF_BLOCK ? r->n : r0 + REF_BLOCK;
        pc_status st = fr ? PC_OK : PC_ENOMEM;
        for (uint64_t row = r0; row < r1 && st == PC_OK; row++)
            st = ref_row(r, fr, row);
        pthread_mutex_lock(&r->mu);
        r->done += r1 - r0;
        if (st != PC_OK && r->st == PC_OK) r->st = st;
        pthread_mutex_unlock(&r->mu);
    }
}

static void *ref_thread(void *arg)
{
    ref_run *r = arg;
    pc_freqs *fr = pc_freqs_new(r->o->d, r->sched);
    ref_work(r, fr, 0);
    pc_freqs_free(fr);
    mpfr_free_cache(); /* this thread's MPFR caches */
    return NULL;
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
        char names[160];
        pc_family_names(names, sizeof names, 0, 1, NULL);
        if (!o.family)
            return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--family is required (%s)", names), &err);
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--family: expected %s, got '%s'",
                                     names, o.family), &err);
    }
    if (!o.d_set)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--d is required"), &err);
    if (!o.pos_set)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--positions A:B is required"), &err);
    if (!o.out)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--out FILE.npy is required"), &err);
    if (o.dtype != PC_DT_F32 && o.dtype != PC_DT_F64)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "--dtype: reference writes f32 or f64"), &err);

    uint64_t n = (uint64_t)(o.pos_hi - o.pos_lo) + 1, d = (uint64_t)o.d;
    if (n > PC_REF_MAX_VALUES / d)
        return pc_cli_fail(pc_seterr(&err, PC_EINPUT, "table of %llu x %llu values is larger than "
                           "the 2^28 values one file may hold; split the positions",
                           (unsigned long long)n, (unsigned long long)d), &err);
    int f64 = o.dtype == PC_DT_F64;
    /* a RoPE frequency schedule (--hf-config, --rope-scaling, ...): the
     * exported cache is A cos, A sin of the scaled frequencies */
    st = pc_rope_opts_resolve(&o, &err);
    pc_acc_cfg acfg;
    memset(&acfg, 0, sizeof acfg);
    acfg.family = fam->name;
    acfg.d = o.d;
    acfg.base = o.base;
    acfg.pos_hi = o.pos_hi;
    pc_rope_cfg rc = { .set = 0 };
    if (st == PC_OK) st = pc_rope_cfg_apply(&o, &acfg, &rc, &err);
    if (st != PC_OK) { pc_rope_opts_release(&o); return pc_cli_fail(st, &err); }
    pc_schedule sched = acfg.sched ? *acfg.sched : pc_schedule_geometric(o.base);
    void *buf = malloc((size_t)(n * d) * (f64 ? sizeof(double) : sizeof(float)));
    pc_freqs *fr = pc_freqs_new(o.d, sched);
    if (!buf || !fr) {
        free(buf); pc_freqs_free(fr); pc_rope_cfg_release(&rc); pc_rope_opts_release(&o);
        return pc_cli_fail(pc_seterr(&err, PC_ENOMEM, "out of memory for the table"), &err);
    }
    if (!o.quiet && acfg.sched_note)
        fprintf(stderr, "pecheck: %s\n", acfg.sched_note);
    pc_progress pr;
    pc_progress_start(&pr, "reference", o.quiet);
    ref_run run = { &o, fam->rows, f64, o.layout < 0 ? 0 : o.layout, n, d, buf,
                    PTHREAD_MUTEX_INITIALIZER, 0, 0, PC_OK, &pr, sched };
    uint64_t nblk = (n + REF_BLOCK - 1) / REF_BLOCK;
    int nt = o.threads > 0 ? o.threads : pc_cores();
    if ((uint64_t)nt > nblk) nt = (int)nblk;
    pthread_t tid[1024];
    int started = 0;
    for (int t = 1; t < nt && t < 1024; t++) /* fewer threads: same result */
        if (pthread_create(&tid[started], NULL, ref_thread, &run) == 0) started++;
    ref_work(&run, fr, 1);
    for (int t = 0; t < started; t++) pthread_join(tid[t], NULL);
    pthread_mutex_destroy(&run.mu);
    st = run.st;
    pc_progress_end(&pr);
    pc_freqs_free(fr);
    pc_rope_cfg_release(&rc);
    pc_rope_opts_release(&o);
    if (st == PC_ENOMEM) {
        free(buf);
        return pc_cli_fail(pc_seterr(&err, PC_ENOMEM, "out of memory for a worker thread"), &err);
    }
    if (st != PC_OK) {
        free(buf);
        return pc_cli_fail(pc_seterr(&err, PC_EINTERNAL, "reference: precision ceiling reached"), &err);
    }
    size_t shape[3] = { (size_t)n, (size_t)d, 1 };
    int rank = 2;
    if (fam->rows->export_pairs) { shape[1] = (size_t)d / 2; shape[2] = 2; rank = 3; }
    st = f64 ? pc_npy_write_f64(o.out, buf, rank, shape, &err)
             : pc_npy_write_f32(o.out, buf, rank, shape, &err);
    free(buf);
    if (st != PC_OK) return pc_cli_fail(st, &err);
    if (!o.quiet)
        fprintf(stderr, "pecheck: wrote %s (%llu positions x %d, %s)\n", o.out,
                (unsigned long long)n, o.d, f64 ? "f64" : "f32");
    return PC_EXIT_PASS;
}

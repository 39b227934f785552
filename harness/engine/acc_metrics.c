/* acc_metrics.c: the accuracy engine's metrics (their merge, RMS, NMSE,
 * one element's check) and its block split (blocks of positions, the
 * blocks of a shard), apart from the comparison loop (accuracy.c) that
 * uses them; accuracy.h declares them. */
#include <math.h>
#include <string.h>
#include <unistd.h>
#include "accuracy.h"
#include "model.h"

void pc_metrics_init(pc_metrics *m)
{
    memset(m, 0, sizeof *m);
    pc_xsum_init(&m->xsq_err);
    pc_xsum_init(&m->xsq_ref);
}

static void take(pc_witness *dst, const pc_witness *src) { *dst = *src; }

void pc_metrics_finish(pc_metrics *m)
{
    /* exact total of the merged blocks plus the running block sum, rounded once */
    pc_xsum t = m->xsq_err;
    pc_xsum_add(&t, m->blk_sq_err);
    m->sum_sq_err = pc_xsum_value(&t);
    t = m->xsq_ref;
    pc_xsum_add(&t, m->blk_sq_ref);
    m->sum_sq_ref = pc_xsum_value(&t);
}

void pc_metrics_merge_raw(pc_metrics *a, const pc_metrics *b)
{
    a->count += b->count;
    a->n_over += b->n_over;
    a->n_exact += b->n_exact;
    a->n_nonfinite += b->n_nonfinite;
    /* exact: B's merged blocks and B's own running block sum */
    pc_xsum_merge(&a->xsq_err, &b->xsq_err);
    pc_xsum_add(&a->xsq_err, b->blk_sq_err);
    pc_xsum_merge(&a->xsq_ref, &b->xsq_ref);
    pc_xsum_add(&a->xsq_ref, b->blk_sq_ref);
    if (b->max_ulp > a->max_ulp) a->max_ulp = b->max_ulp;
    /* strictly greater: the earliest element wins ties, whatever the merge tree */
    if (b->worst.valid && (!a->worst.valid || b->max_ratio > a->max_ratio)) {
        a->max_ratio = b->max_ratio;
        take(&a->worst, &b->worst);
    }
    if (b->worst_abs.valid && (!a->worst_abs.valid || b->max_abs > a->max_abs)) {
        a->max_abs = b->max_abs;
        take(&a->worst_abs, &b->worst_abs);
    }
    if (b->first_over.valid && !a->first_over.valid)
        take(&a->first_over, &b->first_over);
}

void pc_metrics_merge(pc_metrics *a, const pc_metrics *b)
{
    pc_metrics_merge_raw(a, b);
    pc_metrics_finish(a);
}

double pc_rms(const pc_metrics *m)
{
    return m->count ? sqrt(m->sum_sq_err / (double)m->count) : 0.0;
}

double pc_nmse(const pc_metrics *m)
{
    /* ggml test-backend-ops: sum (ref - got)^2 / sum ref^2 */
    return m->sum_sq_ref > 0 ? m->sum_sq_err / m->sum_sq_ref : 0.0;
}

double pc_check_element(pc_witness *w)
{
    if (!isfinite(w->got)) {
        w->err = (double)INFINITY;
        w->ulp = (double)INFINITY;
        return (double)INFINITY;
    }
    w->err = fabs((double)w->got - w->ref);
    w->ulp = w->err / pc_ulp32(w->ref32);
    return w->bound > 0 ? w->err / w->bound : (w->err > 0 ? (double)INFINITY : 0.0);
}

int pc_cores(void)
{
    long n = sysconf(_SC_NPROCESSORS_ONLN);
    return n >= 1 ? (n > 1024 ? 1024 : (int)n) : 1;
}

int64_t pc_acc_nblocks(int64_t pos_lo, int64_t pos_hi)
{
    return (pos_hi - pos_lo) / PC_ACC_BLOCK + 1;
}

void pc_acc_shard_blocks(int64_t nb, int k, int n, int64_t *b0, int64_t *b1)
{
    if (n < 1 || k < 1 || k > n) { k = 1; n = 1; }
    /* the first nb % n shards get one block more; no overflow for any nb */
    int64_t q = nb / n, r = nb % n;
    *b0 = q * (k - 1) + (k - 1 < r ? k - 1 : r);
    *b1 = q * k + (k < r ? k : r);
}

/* accuracy.c: the generic comparison engine of the accuracy gate.
 *
 * For each block of positions: the implementation fills GOT, the certified
 * reference fills REF32/REF64, and every element is held to the precision
 * model's bound (model.h).  Families differ only in how GOT and REF are made,
 * which their descriptor's rows say (families/family.h: the call, the
 * reference, and whether a row rotates an input vector); the metrics are
 * shared.  One worker's block (its rows, each element's bound, the
 * witnesses' split) is acc_block.c's; the metrics and the block split
 * acc_metrics.c's; this file runs the blocks in parallel and merges them
 * in position order. */
#include <math.h>
#include <mpfr.h>
#include <pthread.h>
#include <stdlib.h>
#include <string.h>
#include "accuracy.h"
#include "acc_block.h"
#include "fitmodel.h"
#include "fitsums.h"
#include "harness/sandbox/hook.h"
#include "harness/sandbox/call.h"
#include "harness/base/dtype.h"
#include "harness/base/progress.h"
#include "rowdigest.h"
#include "families/family.h"
#include "reference/reference.h"

typedef pc_acc_block block;
typedef pc_acc_cols cols;

/* ---- the parallel block loop ------------------------------------------ *
 * Workers claim blocks in increasing order; each block's metrics go to a
 * ring of PC_ACC_WINDOW slots, and whoever completes a block merges every
 * ready block at the head of the ring, in position order.  A worker waits
 * when its next block would not fit the window, so memory is bounded by
 * the window whatever the number of positions.  The first block (in
 * position order) that ends the run (reference error, implementation
 * error) stops the merge there: what follows it is discarded, exactly as
 * the single-threaded loop would. */

#define PC_ACC_WINDOW_PER_THREAD 4 /* slots per worker: enough to hide uneven block times */

/* The fit's part of a lane's block: made, not wanted, or its call failed. */
enum { FIT_NONE = 0, FIT_MADE, FIT_FAILED };

/* One layout's outcome of one block. */
typedef struct lane_out {
    pc_status st;             /* its reference rows */
    int rc;
    pc_fault fault;           /* the implementation's call faulted (plugins) */
    pc_metrics m;
    int fit;                  /* FIT_*: the fit's sums (FIT_MADE) in FITB */
    pc_fault fit_fault;       /* FIT_FAILED: whether the fit call faulted */
    pc_fitb *fitb;            /* d/2 block sums (the ring's, run.fitb) */
    double fit_s;             /* seconds of its fit work (call and sums) */
    int alone;                /* RC or FAULT came from the last position's call alone */
} lane_out;

typedef struct slot {
    int ready;
    double work_s;            /* seconds the block's work took */
    lane_out lane[PC_ACC_LANES];
} slot;

/* One layout of the run: its configuration, its result, and the column
 * of the shared reference rows each of its columns reads. */
typedef struct lane {
    const pc_acc_cfg *cfg;
    pc_acc_result *res;
    int ended;                /* merged up to the block that ended it */
    int64_t call_end;         /* the first block whose call failed: later ones are not made */
    cols cols;                /* its columns' pairs, partners and reference columns */
    /* the fitted model's sums (cfg->fit): the first block whose fit call
     * failed (later ones make none), whether its sums have stopped, the
     * unit rows its calls rotate (rows with an input), its seconds */
    int64_t fit_end;
    int fit_over;
    float *fit_x;
    double fit_s;
} lane;

typedef struct run {
    const pc_impl *impl;
    const pc_rows *rows;      /* the family's rows */
    int nl;                   /* layouts run together */
    lane lanes[PC_ACC_LANES];
    int share;                /* one reference row serves every layout (rows without input) */
    int64_t b0, b1;           /* blocks of this shard */
    pthread_mutex_t mu;
    pthread_cond_t cv;
    int64_t next, merged;     /* next block to claim, next to merge */
    int hosts;                /* block b's calls go to host b % hosts (a built-in: 1) */
    pc_impl *via;             /* [hosts]: the implementation calling each host */
    int64_t *next_call;       /* [hosts]: host k's first block whose calls are not over */
    int stop;
    slot *ring;
    int64_t window;
    /* outcome, in position order */
    pc_status st;             /* reference error */
    int64_t st_lo, st_hi;
    uint64_t done, total;
    pc_progress pr;
    struct worker *workers;   /* [0] runs in the calling thread */
    pc_fitb *fitb;            /* the fit's block sums: window x nl x d/2 */
    double pbar;              /* the fit's mean position (fitmodel.h) */
    double busy_s;            /* the workers' seconds, every merged block's */
} run;

typedef struct worker {
    run *r;
    block b;
    pthread_t tid;
} worker;

/* Block BLK: its N positions, the first P0 and the last HI (a sampled
 * run's blocks are PC_ACC_BLOCK entries of its list). */
static void block_range(const run *r, int64_t blk, int64_t *p0, size_t *n, int64_t *hi)
{
    const pc_acc_cfg *c = r->lanes[0].cfg;
    int64_t first = blk * (int64_t)PC_ACC_BLOCK;
    int64_t left = c->positions ? (int64_t)c->n_positions - first : c->pos_hi - c->pos_lo - first + 1;
    *n = (size_t)(left < PC_ACC_BLOCK ? left : PC_ACC_BLOCK);
    *p0 = c->positions ? c->positions[first] : c->pos_lo + first;
    *hi = c->positions ? c->positions[first + (int64_t)*n - 1] : *p0 + (int64_t)*n - 1;
}

static void block_positions(const run *r, int64_t blk, size_t n, int64_t *pos)
{
    const pc_acc_cfg *c = r->lanes[0].cfg;
    int64_t first = blk * (int64_t)PC_ACC_BLOCK;
    for (size_t k = 0; k < n; k++)
        pos[k] = c->positions ? c->positions[first + (int64_t)k] : c->pos_lo + first + (int64_t)k;
}

void pc_acc_impl_note(char *buf, size_t len, const char *impl, int rc, int first,
                      int layout, int64_t lo, int64_t hi)
{
    if (first)
        snprintf(buf, len, "%s returned %d for layout %s: layout not supported", impl, rc,
                 pc_layout_name(layout));
    else
        snprintf(buf, len, "%s returned error %d at positions %lld..%lld", impl, rc,
                 (long long)lo, (long long)hi);
}

/* The fit's sums of lane LN's part O of the head block P0..HI (N
 * positions): added to the run's, or they stop there with the reason
 * (caller holds the lock). */
static void merge_fit(lane *ln, const lane_out *o, int64_t p0, int64_t hi, size_t n)
{
    pc_acc_result *res = ln->res;
    ln->fit_s += o->fit_s;
    if (!ln->cfg->fit || ln->fit_over) return;
    if (o->fit == FIT_MADE) {
        pc_fitp_add_block(ln->cfg->fit, o->fitb, p0, (int64_t)n);
        return;
    }
    ln->fit_over = 1;
    /* its own call failed, or the lane's (the accuracy gate's verdict) */
    int failed = o->fit == FIT_FAILED;
    int faulted = failed ? o->fit_fault.faulted : o->fault.faulted;
    snprintf(res->fit_note, sizeof res->fit_note, "the implementation %s at positions %lld..%lld",
             faulted ? "faulted" : "declined the call", (long long)p0, (long long)hi);
}

/* Lane LN's part O of the head block P0..HI: merged, or the lane ends
 * there (caller holds the lock). */
static void merge_lane(run *r, lane *ln, const lane_out *o, int64_t p0, int64_t hi, size_t n)
{
    pc_acc_result *res = ln->res;
    res->impl_alone = o->alone;
    if (o->fault.faulted) {
        /* a crash, exit, hang or write outside OUT: a failure with its
         * cause, never "layout not supported" */
        res->status = PC_FAIL;
        res->faulted = 1;
        res->fault_lo = p0;
        if (o->alone) pc_acc_alone_note(res->note, sizeof res->note, o->fault.cause, hi, p0);
        else snprintf(res->note, sizeof res->note, "%.255s", o->fault.cause);
        ln->ended = 1;
    } else if (o->rc != 0) {
        /* declining the first call means "this layout is not supported";
         * declining a position alone after its block's call returned is a
         * failure (a decode step's call) */
        int first = r->merged == r->b0 && !o->alone;
        res->status = first ? PC_SKIP : PC_FAIL;
        res->impl_rc = o->rc;
        res->impl_rc_lo = p0;
        res->impl_rc_hi = hi;
        pc_acc_impl_note(res->note, sizeof res->note, r->impl->name, o->rc, first,
                         ln->cfg->layout, p0, hi);
        if (o->alone) {
            char what[128];
            snprintf(what, sizeof what, "%.80s returned error %d", r->impl->name, o->rc);
            pc_acc_alone_note(res->note, sizeof res->note, what, hi, p0);
        }
        ln->ended = 1;
    } else {
        pc_metrics_merge_raw(&res->m, &o->m);
    }
    merge_fit(ln, o, p0, hi, n);
}

/* May a call of LN, a lane that ended, still be made after the block being
 * merged? (take_turn: up to its first failure + H - 1) */
static int calls_left(const run *r, const lane *ln)
{
    return r->merged - ln->call_end < r->hosts - 1;
}

/* Merge every ready block at the head of the ring (caller holds the lock);
 * the run stops at a reference error or when every lane has ended. */
static void merge_ready(run *r)
{
    while (!r->stop && r->merged < r->b1) {
        slot *s = &r->ring[r->merged % r->window];
        if (!s->ready) break;
        int64_t p0, hi;
        size_t n;
        block_range(r, r->merged, &p0, &n, &hi);
        int live = 0;
        for (int l = 0; l < r->nl && !r->stop; l++) {
            lane *ln = &r->lanes[l];
            if (ln->ended) { live |= calls_left(r, ln); continue; }
            if (s->lane[l].st != PC_OK) {
                r->st = s->lane[l].st;
                r->st_lo = p0;
                r->st_hi = hi;
                r->stop = 1;
                break;
            }
            merge_lane(r, ln, &s->lane[l], p0, hi, n);
            r->done += n;
            live |= !ln->ended || calls_left(r, ln);
        }
        if (r->stop) break;
        r->busy_s += s->work_s;
        s->ready = 0;
        r->merged++;
        pc_progress_update(&r->pr, r->done, r->total);
        if (!live) r->stop = 1;
    }
    pthread_cond_broadcast(&r->cv);
}

/* A plugin's calls are spread over its hosts (host.h): block b's calls go to
 * host b % H (H = --plugin-hosts, a fixed number, never the thread count),
 * and call (b, l), block b's of layout l, is made once every call of the
 * blocks up to b - H is over, and only if none of layout l's at those
 * blocks failed (declined or faulted).  So each host gets its calls in
 * (block, layout) order, and which calls are made depends only on what
 * earlier calls returned: a stateful plugin sees the same sequence on each
 * host, and the first fault in position order is the same, whatever the
 * number of threads.  H = 1: one call at a time in (block, layout) order,
 * a layout's calls ending at its first failure.  Built-ins are called in
 * parallel (H = 1, no wait). */

/* Are the calls of every block up to UPTO over? (caller holds the lock) */
static int calls_over(const run *r, int64_t upto)
{
    for (int k = 0; k < r->hosts; k++)
        if (r->next_call[k] <= upto) return 0;
    return 1;
}

/* Whether call (BLK, L) is to be made (not once the run stopped), and
 * into *FIT whether its fit call (rows with an input) or sums are: by the
 * same rule, on the fit's own failures (accuracy.h, cfg->fit). */
static int take_turn(run *r, int l, int64_t blk, int *fit)
{
    pthread_mutex_lock(&r->mu);
    while (r->impl->host && !calls_over(r, blk - r->hosts) && !r->stop)
        pthread_cond_wait(&r->cv, &r->mu);
    int go = !r->stop && blk - r->hosts < r->lanes[l].call_end;
    *fit = go && r->lanes[l].cfg->fit && blk - r->hosts < r->lanes[l].fit_end;
    pthread_mutex_unlock(&r->mu);
    return go;
}

/* Call (BLK, L) is over; FAILED: it failed; FIT_FAILED: its fit call
 * failed.  Whether BLK's values of lane L can still count (no call of it
 * failed before BLK). */
static int end_turn(run *r, int l, int64_t blk, int failed, int fit_failed)
{
    pthread_mutex_lock(&r->mu);
    if (failed && blk < r->lanes[l].call_end) r->lanes[l].call_end = blk;
    if (fit_failed && blk < r->lanes[l].fit_end) r->lanes[l].fit_end = blk;
    if (l == r->nl - 1) r->next_call[blk % r->hosts] = blk + r->hosts;
    int counts = blk <= r->lanes[l].call_end;
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    return counts;
}

/* The implementation calling block BLK's host. */
static const pc_impl *host_of(const run *r, int64_t blk)
{
    return r->hosts > 1 ? &r->via[blk % r->hosts] : r->impl;
}

/* Point the worker's block at lane L: its configuration, rows and inputs. */
static void use_lane(run *r, block *b, int l)
{
    b->cfg = r->lanes[l].cfg;
    b->got = b->lane_got[l];
    b->x = b->lane_x[l];
}

/* Whether any lane may still be called at block BLK. */
static int any_lane_live(run *r, int64_t blk)
{
    int live = 0;
    pthread_mutex_lock(&r->mu);
    for (int l = 0; l < r->nl; l++) live |= !r->stop && blk <= r->lanes[l].call_end;
    pthread_mutex_unlock(&r->mu);
    return live;
}

/* The rotation of (1, 0) on every pair of the block's N positions into
 * B->fit_got (rows with an input: the fit's z), made in lane L's turn
 * right after its own call, so that a plugin sees one fixed sequence of
 * calls whatever the threads.  FIT_MADE, or FIT_FAILED (O->fit_fault). */
static int fit_call(const run *r, block *b, const pc_impl *via, int l, size_t n, lane_out *o)
{
    const pc_acc_cfg *c = b->cfg;
    int rc = r->rows->call(via, &o->fit_fault, b->pos, n, c->d, c->base, c->layout,
                           r->lanes[l].fit_x, b->fit_got);
    return rc != 0 || o->fit_fault.faulted ? FIT_FAILED : FIT_MADE;
}

/* e^{i theta} of the block's K-th position, per pair, into B->fct, B->fst
 * (called for K = 0, 1, ... in turn): rows without an input, the certified
 * binary64 rows (sin and cos of the exact angle correctly rounded, times
 * A: shared, in lane 0's layout) over A.  Rows with an input: binary64
 * sincos of p omega_i at the block's first position (fitmodel.c), then
 * position by position the product by e^{i omega_i} (sincos of omega_i):
 * each product's roundings move the pair by at most 2^-51, and e^{i omega_i}
 * is within 2^-53 of its value, so over the block's 255 steps the pair
 * stays within 255 (2^-51 + 2^-53) < 2^-42 of binary64 sincos(p omega_i) in
 * angle and norm, 2^-20 times the fit's smallest bounds (e_0 and R, 4u =
 * 2^-22: docs/fitted-model.md) and below sincos's own argument rounding
 * (p omega 2^-53) past p omega = 2^11; each block starts afresh, so the
 * values do not depend on how the blocks are split. */
static void fit_theta(const run *r, block *b, size_t k)
{
    int h = b->cfg->d / 2, rl = r->lanes[0].cfg->layout;
    if (!r->share && k == 0) {
        for (int i = 0; i < h; i++)
            sincos((double)b->pos[0] * b->omega[i], &b->fst[i], &b->fct[i]);
        return;
    }
    if (!r->share) {
        for (int i = 0; i < h; i++) {
            double c = b->fct[i], s = b->fst[i];
            b->fct[i] = c * b->fc1[i] - s * b->fs1[i];
            b->fst[i] = s * b->fc1[i] + c * b->fs1[i];
        }
        return;
    }
    const double *y = b->ref64 + k * (size_t)b->cfg->d;
    for (int i = 0; i < h; i++) {
        b->fst[i] = y[rl ? i : 2 * i];
        b->fct[i] = y[rl ? i + h : 2 * i + 1];
    }
    if (b->att != 1.0 || b->scaled)
        for (int i = 0; i < h; i++) {
            double a = pc_blk_pair_factor(b, b->pos[k], i);
            b->fst[i] /= a;
            b->fct[i] /= a;
        }
}

/* z / A of the block's K-th row, per pair, into B->fc, B->fs: the rotation
 * of (1, 0), (A cos, A sin), of rows with an input; the (sin, cos) of the
 * row itself otherwise. */
static void fit_z(const run *r, block *b, size_t k)
{
    int h = b->cfg->d / 2, lay = b->cfg->layout, in = r->rows->input;
    const float *y = (in ? b->fit_got : b->got) + k * (size_t)b->cfg->d;
    for (int i = 0; i < h; i++) {
        double u = (double)y[lay ? i : 2 * i], v = (double)y[lay ? i + h : 2 * i + 1];
        b->fc[i] = in ? u : v;
        b->fs[i] = in ? v : u;
    }
    if (b->att != 1.0 || b->scaled)
        for (int i = 0; i < h; i++) {
            double a = pc_blk_pair_factor(b, b->pos[k], i);
            b->fc[i] /= a;
            b->fs[i] /= a;
        }
}

/* The fit's sums of the block's N rows of B's lane into O, timed. */
static void fit_block(const run *r, block *b, size_t n, lane_out *o)
{
    double t0 = pc_now();
    pc_fit_row row = { b->fc, b->fs, b->fct, b->fst };
    int h = b->cfg->d / 2;
    pc_fitb_init(o->fitb, h);
    for (size_t k = 0; k < n; k++) {
        fit_z(r, b, k);
        fit_theta(r, b, k);
        pc_fitb_add(o->fitb, h, &row, b->pos[k], k, r->pbar);
    }
    o->fit = FIT_MADE;
    o->fit_s += pc_now() - t0;
}

static void lane_out_init(lane_out *o)
{
    o->st = PC_OK;
    o->rc = 0;
    o->alone = 0;
    memset(&o->fault, 0, sizeof o->fault);
    memset(&o->fit_fault, 0, sizeof o->fit_fault);
    pc_metrics_init(&o->m);
    o->fit = FIT_NONE;
    o->fit_s = 0.0;
}

/* Lane L's call of block BLK, in its turn, and for rows with an input the
 * fit's call (in the same turn, on the same host, so each host's sequence
 * of calls stays fixed) and sums; whether the call succeeded and counts
 * into *CALLED, whether the fit's sums are still to be made into *FIT. */
static void lane_calls(run *r, block *b, int64_t blk, int l, size_t n, lane_out *o,
                       int *called, int *fit)
{
    *called = take_turn(r, l, blk, fit);
    use_lane(r, b, l);
    const pc_impl *via = host_of(r, blk);
    if (*called) o->rc = pc_blk_call(b, via, n, &o->fault, &o->alone);
    int failed = *called && (o->rc != 0 || o->fault.faulted);
    *fit &= !failed && b->fc != NULL;
    if (*fit && r->rows->input) {
        double t0 = pc_now();
        o->fit = fit_call(r, b, via, l, n, o);
        o->fit_s += pc_now() - t0;
    }
    int counts = end_turn(r, l, blk, failed, o->fit == FIT_FAILED);
    *called &= !failed && counts;
    *fit &= counts;
    if (!counts) o->fit = FIT_NONE; /* the lane ended before BLK: not merged */
    if (*fit && r->rows->input && o->fit == FIT_MADE) fit_block(r, b, n, o);
    *fit &= !r->rows->input;
}

/* The hashes of the block's N rows of B's lane into its digest (rows of
 * distinct blocks: distinct entries, no lock). */
static void digest_rows(block *b, size_t n)
{
    pc_row_digest *g = b->cfg->digest;
    int d = b->cfg->d;
    for (size_t k = 0; k < n; k++)
        if (b->pos[k] >= g->lo && b->pos[k] <= g->hi)
            g->hash[b->pos[k] - g->lo] = pc_row_hash(b->got + k * (size_t)d, d);
}

/* Block BLK (its N positions in B->pos) into S.  Rows without an input: the
 * reference rows first (once, in lane 0's layout; they do not depend on
 * the implementation, so a plugin's calls, which may wait for their turn,
 * overlap with other blocks' work), then every lane's call and metrics.  Rows with
 * an input: each lane's call draws its input, then its reference rows.
 * The fit's sums (cfg->fit) after each lane's call (rows with an input,
 * from their own call) or metrics (rows without, from the same rows). */
static void work_block(run *r, block *b, int64_t blk, size_t n, slot *s)
{
    double t0 = pc_now();
    int called[PC_ACC_LANES], fit[PC_ACC_LANES];
    pc_status shared = PC_OK;
    if (r->share && any_lane_live(r, blk)) {
        use_lane(r, b, 0);
        shared = pc_blk_ref_rows(b, n);
    }
    for (int l = 0; l < r->nl; l++) {
        lane_out_init(&s->lane[l]);
        lane_calls(r, b, blk, l, n, &s->lane[l], &called[l], &fit[l]);
    }
    for (int l = 0; l < r->nl; l++) {
        if (!called[l]) continue;
        use_lane(r, b, l);
        lane_out *o = &s->lane[l];
        o->st = r->share ? shared : pc_blk_ref_rows(b, n);
        if (o->st == PC_OK) pc_blk_fill_rows(b, n, &r->lanes[l].cols, &o->m);
        if (o->st == PC_OK && fit[l]) fit_block(r, b, n, o);
        if (b->cfg->digest) digest_rows(b, n);
    }
    s->work_s = pc_now() - t0;
}

static void *work(void *arg)
{
    worker *w = arg;
    run *r = w->r;
    slot *s = malloc(sizeof *s);
    pthread_mutex_lock(&r->mu);
    for (;;) {
        while (!r->stop && r->next < r->b1 && r->next >= r->merged + r->window)
            pthread_cond_wait(&r->cv, &r->mu);
        if (!s && !r->stop) { r->st = PC_ENOMEM; r->stop = 1; }
        if (r->stop || r->next >= r->b1) break;
        int64_t blk = r->next++;
        pthread_mutex_unlock(&r->mu);

        int64_t p0, hi;
        size_t n;
        block_range(r, blk, &p0, &n, &hi);
        block_positions(r, blk, n, w->b.pos);
        for (int l = 0; l < r->nl; l++) /* the ring slot's own block sums */
            s->lane[l].fitb = r->fitb ? r->fitb + ((blk % r->window) * r->nl + l)
                                                  * (r->lanes[0].cfg->d / 2) : NULL;
        work_block(r, &w->b, blk, n, s);
        s->ready = 1;

        pthread_mutex_lock(&r->mu);
        r->ring[blk % r->window] = *s;
        merge_ready(r);
    }
    pthread_cond_broadcast(&r->cv);
    pthread_mutex_unlock(&r->mu);
    free(s);
    if (w != &r->workers[0])
        mpfr_free_cache(); /* MPFR's caches are per thread: free this thread's */
    return NULL;
}

/* Worker 0 in this thread, the others in their own (fewer threads if
 * some cannot start: the same result). */
static void run_workers(run *r, int nt)
{
    worker *w = r->workers;
    int started = 1;
    for (int t = 1; t < nt; t++) {
        if (pthread_create(&w[t].tid, NULL, work, &w[t]) != 0) break;
        started++;
    }
    work(&w[0]);
    for (int t = 1; t < started; t++) pthread_join(w[t].tid, NULL);
}

/* The merged metrics, the verdicts and the witnesses' error split. */
static pc_status finish(run *r, pc_err *err)
{
    for (int l = 0; l < r->nl; l++)
        pc_metrics_finish(&r->lanes[l].res->m);
    if (r->st == PC_ENOMEM)
        return pc_seterr(err, PC_ENOMEM, "out of memory for a block");
    if (r->st != PC_OK)
        return pc_seterr(err, r->st, "reference failed at positions %lld..%lld (precision "
                         "ceiling reached)", (long long)r->st_lo, (long long)r->st_hi);
    block *b = &r->workers[0].b;
    for (int l = 0; l < r->nl; l++) {
        pc_acc_result *res = r->lanes[l].res;
        if (res->status != PC_OK) continue;
        use_lane(r, b, l);
        res->status = res->m.n_over ? PC_FAIL : PC_OK;
        pc_blk_split_witness(b, &res->m.worst);
        pc_blk_split_witness(b, &res->m.worst_abs);
        pc_blk_split_witness(b, &res->m.first_over);
    }
    return PC_OK;
}

/* A sampled run's positions: ascending, in [0, 2^53], no shards. */
static pc_status check_positions(const pc_acc_cfg *cfg, pc_err *err)
{
    if (cfg->shard_n > 1)
        return pc_seterr(err, PC_EINPUT, "accuracy: a sampled run takes no shards");
    for (size_t k = 0; k < cfg->n_positions; k++)
        if (cfg->positions[k] < 0 || cfg->positions[k] > PC_POS_MAX
            || (k > 0 && cfg->positions[k] <= cfg->positions[k - 1]))
            return pc_seterr(err, PC_EINPUT, "accuracy: sampled positions must ascend in [0, 2^53]");
    return PC_OK;
}

/* The run's parameters, and its family (with certified rows) into *FAM. */
static pc_status check_cfg(const pc_acc_cfg *cfg, const pc_family **fam, pc_err *err)
{
    pc_status st = pc_ref_check_params(cfg->d, cfg->base, err);
    if (st != PC_OK) return st;
    if (cfg->pos_lo < 0 || cfg->pos_hi > PC_POS_MAX || cfg->pos_lo > cfg->pos_hi)
        return pc_seterr(err, PC_EINPUT, "positions must satisfy 0 <= A <= B <= 2^53");
    if (cfg->positions && (st = check_positions(cfg, err)) != PC_OK) return st;
    int shard_n = cfg->shard_n > 0 ? cfg->shard_n : 1, shard_k = cfg->shard_n > 0 ? cfg->shard_k : 1;
    if (shard_k < 1 || shard_k > shard_n)
        return pc_seterr(err, PC_EINPUT, "--shard: K must be in [1, N], got %d/%d", shard_k, shard_n);
    *fam = pc_family_find(cfg->family);
    if (!*fam || !(*fam)->rows) {
        char names[160];
        pc_family_names(names, sizeof names, 0, 1, NULL);
        return pc_seterr(err, PC_EINPUT, "accuracy: family '%s' has no certified reference "
                         "(use %s)", cfg->family, names);
    }
    if ((cfg->strict == PC_CLASS_HF || cfg->strict == PC_CLASS_GGML) && !cfg->form
        && cfg->tol_abs < 0)
        return pc_seterr(err, PC_EINPUT, "--formulation %s: %s is RoPE's (--family rope); the %s "
                         "family has the classes default and cr (--strict)",
                         pc_model_class_name(cfg->strict), cfg->strict == PC_CLASS_HF
                         ? "transformers' float32 frequency code" : "llama.cpp's rope", cfg->family);
    return PC_OK;
}

/* Lane L's columns: pairs, partners, and where each reads the shared
 * reference rows (lane 0's layout: the same column in the same layout), or
 * itself when each lane has its own. */
static pc_status lane_cols(run *r, int l, pc_err *err)
{
    const pc_acc_cfg *c = r->lanes[l].cfg;
    cols *cl = &r->lanes[l].cols;
    cl->pair = malloc((size_t)c->d * sizeof *cl->pair);
    cl->mate = malloc((size_t)c->d * sizeof *cl->mate);
    cl->ref = malloc((size_t)c->d * sizeof *cl->ref);
    if (!cl->pair || !cl->mate || !cl->ref)
        return pc_seterr(err, PC_ENOMEM, "out of memory for d = %d", c->d);
    int h = c->d / 2, ref_layout = r->lanes[0].cfg->layout;
    for (int j = 0; j < c->d; j++) {
        int pair, first;
        cl->mate[j] = pc_blk_pair_of(c->layout, c->d, j, &pair, &first);
        cl->pair[j] = pair;
        int a = ref_layout == 0 ? 2 * pair : pair, b = ref_layout == 0 ? 2 * pair + 1 : pair + h;
        cl->ref[j] = !r->share || c->layout == ref_layout ? j : first ? a : b;
    }
    return PC_OK;
}

static void run_free(run *r, int nt)
{
    for (int t = 0; r->workers && t < nt; t++) pc_blk_free(&r->workers[t].b);
    for (int l = 0; l < r->nl; l++) {
        free(r->lanes[l].cols.pair); free(r->lanes[l].cols.mate); free(r->lanes[l].cols.ref);
        free(r->lanes[l].fit_x);
    }
    free(r->fitb);
    free(r->ring);
    free(r->workers);
    free(r->via);
    free(r->next_call);
}

/* The implementation calling each host, and each host's first block. */
static pc_status hosts_alloc(run *r, pc_err *err)
{
    int h = r->hosts = pc_impl_hosts(r->impl);
    r->via = calloc((size_t)h, sizeof *r->via);
    r->next_call = calloc((size_t)h, sizeof *r->next_call);
    if (!r->via || !r->next_call) return pc_seterr(err, PC_ENOMEM, "out of memory");
    for (int k = 0; k < h; k++) {
        pc_impl_on_host(r->impl, k, &r->via[k]);
        r->next_call[k] = r->b0 + ((k - r->b0 % h) % h + h) % h;
    }
    return PC_OK;
}

/* The fit's block sums in the ring, and each lane's unit rows (rows with
 * an input: 1 in the first member of every pair, 0 elsewhere: the
 * rotation of (1, 0)); -1 when out of memory.  Nothing without cfg->fit. */
static int fit_alloc(run *r)
{
    const pc_acc_cfg *c0 = r->lanes[0].cfg;
    size_t h = (size_t)c0->d / 2, d = (size_t)c0->d;
    if (!c0->fit || c0->positions) return 0;
    r->pbar = pc_fitm_pbar(c0->pos_lo, c0->pos_hi);
    r->fitb = calloc((size_t)r->window * (size_t)r->nl * h, sizeof *r->fitb);
    if (!r->fitb) return -1;
    for (int l = 0; l < r->nl && r->rows->input; l++) {
        float *x = r->lanes[l].fit_x = calloc(PC_ACC_BLOCK * d, sizeof *x);
        if (!x) return -1;
        int lay = r->lanes[l].cfg->layout;
        for (size_t k = 0; k < PC_ACC_BLOCK; k++)
            for (size_t i = 0; i < h; i++) x[k * d + (lay ? i : 2 * i)] = 1.0f;
    }
    return 0;
}

/* The ring, the workers' blocks and the lanes' maps of NT threads. */
static pc_status run_alloc(run *r, int nt, pc_err *err)
{
    const pc_acc_cfg *cfg = r->lanes[0].cfg;
    r->window = (int64_t)nt * PC_ACC_WINDOW_PER_THREAD;
    r->ring = calloc((size_t)r->window, sizeof *r->ring);
    r->workers = calloc((size_t)nt, sizeof *r->workers);
    if (!r->ring || !r->workers)
        return pc_seterr(err, PC_ENOMEM, "out of memory for %d threads", nt);
    pc_status st = hosts_alloc(r, err);
    for (int t = 0; t < nt && st == PC_OK; t++) {
        r->workers[t].r = r;
        st = pc_blk_new(&r->workers[t].b, r->impl, cfg, r->rows, r->nl, err);
    }
    if (st == PC_OK && fit_alloc(r) != 0)
        st = pc_seterr(err, PC_ENOMEM, "out of memory for the fitted model's sums");
    for (int l = 0; l < r->nl && st == PC_OK; l++) {
        st = lane_cols(r, l, err);
        use_lane(r, &r->workers[0].b, l);
        if (st == PC_OK) pc_blk_budget_reach(&r->workers[0].b, r->lanes[l].res);
    }
    return st;
}

/* Positions of the run's blocks (a shard's), for the progress line. */
static uint64_t run_positions(const run *r)
{
    const pc_acc_cfg *cfg = r->lanes[0].cfg;
    if (r->b1 <= r->b0) return 0;
    if (cfg->positions) return (uint64_t)cfg->n_positions;
    int64_t plo, phi, hi;
    size_t n;
    block_range(r, r->b0, &plo, &n, &hi);
    block_range(r, r->b1 - 1, &phi, &n, &hi);
    return (uint64_t)(hi - plo + 1);
}

/* The shared part of every lane's setup: the shard's blocks, the threads. */
static int run_setup(run *r)
{
    const pc_acc_cfg *cfg = r->lanes[0].cfg;
    int shard_n = cfg->shard_n > 0 ? cfg->shard_n : 1, shard_k = cfg->shard_n > 0 ? cfg->shard_k : 1;
    int64_t nb = cfg->positions ? ((int64_t)cfg->n_positions + PC_ACC_BLOCK - 1) / PC_ACC_BLOCK
                                : pc_acc_nblocks(cfg->pos_lo, cfg->pos_hi);
    pc_acc_shard_blocks(nb, shard_k, shard_n, &r->b0, &r->b1);
    r->next = r->merged = r->b0;
    int observed = 0;
    for (int l = 0; l < r->nl; l++) {
        r->lanes[l].call_end = INT64_MAX;
        r->lanes[l].fit_end = INT64_MAX;
        observed |= r->lanes[l].cfg->observe != NULL;
    }
    int64_t nblk = r->b1 - r->b0;
    int nt = observed ? 1 : cfg->threads > 0 ? cfg->threads : pc_cores();
    if (nt > nblk) nt = nblk > 0 ? (int)nblk : 1;
    r->total = run_positions(r) * (uint64_t)r->nl;
    return nt;
}

/* A lane's digest is complete when the run covered the whole range (no
 * shard, no sampled positions, every block merged) and none of the lane's
 * calls failed (rowdigest.h). */
static void digests_close(run *r, pc_status st)
{
    const pc_acc_cfg *c0 = r->lanes[0].cfg;
    int whole = st == PC_OK && !c0->positions && r->b0 == 0 && r->merged == r->b1
             && r->b1 == pc_acc_nblocks(c0->pos_lo, c0->pos_hi);
    for (int l = 0; l < r->nl; l++) {
        pc_row_digest *g = r->lanes[l].cfg->digest;
        const pc_acc_result *res = r->lanes[l].res;
        if (!g) continue;
        g->complete = whole && !r->lanes[l].ended && !res->faulted && !res->impl_rc
                   && res->status != PC_SKIP;
    }
}

/* The pass's WALL seconds: one pass served every layout, each is given an
 * equal share of it; the fitted model's sums are part of that work, and
 * their share of it, the workers' measured fit seconds over all their
 * seconds (merged blocks), goes to the layout's fit_seconds (the
 * fitted-model verdict's), the rest to its accuracy verdict's seconds. */
static void pass_seconds(run *r, double wall)
{
    for (int l = 0; l < r->nl; l++) {
        pc_acc_result *res = r->lanes[l].res;
        double f = r->busy_s > 0 ? wall * r->lanes[l].fit_s / r->busy_s : 0.0;
        res->fit_seconds = f;
        res->seconds = wall / r->nl - f;
        if (res->seconds < 0) res->seconds = 0;
    }
}

pc_status pc_accuracy_run_layouts(const pc_impl *impl, const pc_acc_cfg *cfgs, int nl,
                                  pc_acc_result *res, pc_err *err)
{
    if (nl < 1 || nl > PC_ACC_LANES)
        return pc_seterr(err, PC_EINTERNAL, "accuracy: %d layouts in one run", nl);
    const pc_family *fam = NULL;
    for (int l = 0; l < nl; l++) {
        memset(&res[l], 0, sizeof res[l]);
        pc_metrics_init(&res[l].m);
        pc_status st = check_cfg(&cfgs[l], &fam, err);
        if (st != PC_OK) return st;
    }
    if (!fam->provides(impl)) {
        for (int l = 0; l < nl; l++) {
            res[l].status = PC_SKIP;
            snprintf(res[l].note, sizeof res[l].note, "%s does not implement the %s family",
                     impl->name, cfgs[l].family);
        }
        return PC_OK;
    }
    /* the budget's u: binary32's, whatever the storage (its own u_s) */
    for (int l = 0; l < nl; l++) res[l].u = PC_MODEL_U32;

    run r;
    memset(&r, 0, sizeof r);
    r.impl = impl;
    r.rows = fam->rows;
    r.nl = nl;
    r.share = !fam->rows->input;
    for (int l = 0; l < nl; l++) { r.lanes[l].cfg = &cfgs[l]; r.lanes[l].res = &res[l]; }
    int nt = run_setup(&r);
    pc_status st = run_alloc(&r, nt, err);
    if (st != PC_OK) { run_free(&r, nt); return st; }
    pthread_mutex_init(&r.mu, NULL);
    pthread_cond_init(&r.cv, NULL);
    pc_progress_start(&r.pr, impl->name, cfgs[0].quiet);
    double t0 = pc_now();
    run_workers(&r, nt);
    pc_progress_end(&r.pr);
    st = finish(&r, err);
    digests_close(&r, st);
    pass_seconds(&r, pc_now() - t0);
    pthread_mutex_destroy(&r.mu);
    pthread_cond_destroy(&r.cv);
    run_free(&r, nt);
    return st;
}

pc_status pc_accuracy_run(const pc_impl *impl, const pc_acc_cfg *cfg,
                          pc_acc_result *res, pc_err *err)
{
    return pc_accuracy_run_layouts(impl, cfg, 1, res, err);
}

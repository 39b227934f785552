/* table.c: .npy positional-encoding tables as implementations under test.
 *
 * A table is read when it is used, never held: pc_table_open reads its
 * header and makes one pass over its rows (table_scan.h: NaN/Inf, the
 * layout, a RoPE cache's base), and the hooks read the rows of the
 * positions they are asked for (pread, any number of threads at once).
 * Memory does not grow with the table's length: a block of rows per call
 * and per pass. */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"
#include "harness/io/npy.h"
#include "table.h"
#include "families/spec.h" /* PC_SPEC_BLOCKS_MAX */
#include "table_scan.h"
#include "families/family.h"
#include "reference/reference.h"
#include "ACSL/pecheck.acsl" /* ACSL predicates: comments only */

#define TABLE_MAGIC 0x7AB1Eu

/* The hooks' return value when a read of the file failed (its message:
 * pc_table_status); any nonzero value is an error to the engine. */
#define TABLE_EREAD 4

/* Tables under this many values are scanned by one thread: 2^20 values,
 * some milliseconds of work, against the start of the threads. */
#define TABLE_SCAN_ONE_THREAD ((size_t)1 << 20)

/* The first read that failed, kept for pc_table_status (the hooks run on
 * several threads; their return value cannot carry a message). */
typedef struct table_fault {
    pthread_mutex_t mu;
    int failed;
    pc_status st;
    pc_err err;
} table_fault;

typedef struct table {
    pc_impl impl;         /* first: what is handed out */
    unsigned magic;
    pc_table_info info;
    char *name, *path, *sin_path;
    char description[256];
    size_t rows, cols;    /* of each file */
    pc_npy_file fa;       /* sinusoidal: the table; rope: cos */
    pc_npy_file fs;       /* rope: sin */
    int bf16;             /* the files hold bfloat16 bit patterns (<u2) */
    /* an (n, d) RoPE cache of column blocks, each the half layout of its own
     * pairs (pc_table_args.col_blocks), read into the whole width's half
     * layout (pc_table_unblock); N_BLOCKS 0: the columns as they are */
    int blocks[PC_SPEC_BLOCKS_MAX];
    int n_blocks;
    /* read in blocks by pc_table_read_blocked: the shape found at open
     * (INFO and the blocks then), restored by it */
    int reread;
    pc_table_info found;
    int found_blocks[PC_SPEC_BLOCKS_MAX];
    int found_n_blocks;
    table_fault *fault;
} table;

static table *table_of(const pc_impl *impl)
{
    if (!impl || impl->ctx != (const void *)impl) return NULL;
    table *t = impl->ctx;
    return t->magic == TABLE_MAGIC ? t : NULL;
}

const pc_table_info *pc_table_info_of(const pc_impl *impl)
{
    table *t = table_of(impl);
    return t ? &t->info : NULL;
}

pc_status pc_table_status(const pc_impl *impl, pc_err *err)
{
    table *t = table_of(impl);
    if (!t) return PC_OK;
    pthread_mutex_lock(&t->fault->mu);
    pc_status st = t->fault->failed ? t->fault->st : PC_OK;
    if (st != PC_OK) pc_seterr(err, st, "%s", t->fault->err.msg);
    pthread_mutex_unlock(&t->fault->mu);
    return st;
}

/* Keep the first failure E of status ST. */
static void record_fault(table *t, pc_status st, const pc_err *e)
{
    pthread_mutex_lock(&t->fault->mu);
    if (!t->fault->failed) {
        t->fault->failed = 1;
        t->fault->st = st;
        t->fault->err = *e;
    }
    pthread_mutex_unlock(&t->fault->mu);
}

/* The row lookup and the serving of rows (row_of, rows_in, serve_rows,
 * sin_serve) carry ACSL contracts proved by Frama-C WP (make prove,
 * docs/proofs.md): a position outside the table's rows is rejected before
 * anything is written, and every row read lies inside the table.
 * read_rows does the file's I/O, outside WP's memory model: its contract
 * is assumed, its arguments are proved to satisfy it. */

/*@ // A table as pc_table_open leaves it: ROWS x COLS binary32 values in
    // its file, row r holding position pos_lo + r, positions in [0, 2^53].
    predicate table_ok(table *t) =
      \valid_read(t) && \valid(t->fault) &&
      1 <= t->rows && 1 <= t->cols && t->rows * t->cols <= SIZE_MAX &&
      0 <= t->info.pos_lo && t->info.pos_hi == t->info.pos_lo + t->rows - 1 &&
      t->info.pos_hi <= PC_ACSL_POS_MAX;

    // POS is a position the table has a row for.
    predicate table_has(table *t, integer pos) =
      t->info.pos_lo <= pos <= t->info.pos_hi;

    // Every position of POS[0 .. n) has a row.
    predicate table_has_all(table *t, int64_t *pos, integer n) =
      \forall integer r; 0 <= r < n ==> table_has(t, pos[r]);
*/

/* Row of POS, or -1 when POS is not in the table. */
/*@ requires table: table_ok(t);
    assigns \nothing;
    behavior in_range:
      assumes has: table_has(t, pos);
      ensures row: \result == pos - t->info.pos_lo;
      ensures in: 0 <= \result < t->rows;
    behavior out_of_range:
      assumes has_not: !table_has(t, pos);
      ensures rejected: \result == -1;
    complete behaviors;
    disjoint behaviors;
*/
static int64_t row_of(const table *t, int64_t pos)
{
    if (pos < t->info.pos_lo || pos > t->info.pos_hi) return -1;
    return pos - t->info.pos_lo;
}

/* 1 when every POS[0 .. N) has a row in T, else 0. */
/*@ requires table: table_ok(t);
    requires valid_pos: pc_valid_positions(pos, n);
    assigns \nothing;
    behavior in_range:
      assumes all_in: table_has_all(t, pos, n);
      ensures ok: \result == 1;
    behavior out_of_range:
      assumes some_out: !table_has_all(t, pos, n);
      ensures rejected: \result == 0;
    complete behaviors;
    disjoint behaviors;
*/
static int rows_in(const table *t, const int64_t *pos, size_t n)
{
    /*@ loop invariant rows: 0 <= r <= n;
        loop invariant checked: table_has_all(t, pos, r);
        loop assigns r;
        loop variant n - r; */
    for (size_t r = 0; r < n; r++)
        if (row_of(t, pos[r]) < 0) return 0;
    return 1;
}

/* OUT[0 .. N * cols) = rows ROW .. ROW + N - 1 of F, a file of T, as
 * binary32 (bfloat16 bit patterns decoded): 0, or -1 when the read
 * failed (the failure kept in T's fault record, pc_table_status). */
/*@ requires table: table_ok(t);
    requires rows: row + n <= t->rows;
    requires size: pc_size_ok(n, t->cols);
    requires valid_out: \valid(out + (0 .. n * t->cols - 1));
    requires separated: \separated(out + (0 .. n * t->cols - 1), t->fault);
    assigns out[0 .. n * t->cols - 1], *t->fault;
    ensures result: \result == 0 || \result == -1;
*/
static int read_rows(const table *t, const pc_npy_file *f, size_t row, size_t n, float *out);

/* OUT row r (W = cols floats) = the table row of POS[r], for r < N, read
 * a run of consecutive positions at a time.  Every position has a row
 * (rows_in said so).  0, or -1 when a read failed. */
/*@ requires table: table_ok(t);
    requires width: w == t->cols;
    requires valid_pos: pc_valid_positions(pos, n);
    requires all_in: table_has_all(t, pos, n);
    requires size: pc_size_ok(n, w);
    requires valid_out: \valid(out + (0 .. n * w - 1));
    requires separated: \separated(out + (0 .. n * w - 1), pos + (0 .. n - 1), t, t->fault);
    assigns out[0 .. n * w - 1], *t->fault;
    ensures result: \result == 0 || \result == -1;
*/
static int serve_rows(const table *t, const int64_t *pos, size_t n, size_t w, float *out)
{
    size_t r = 0;
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * w - 1], *t->fault;
        loop variant n - r; */
    while (r < n) {
        size_t row = (size_t)row_of(t, pos[r]);
        size_t run = 1;
        /*@ loop invariant run: 1 <= run <= n - r;
            loop invariant rows_in: row + run <= t->rows;
            loop assigns run;
            loop variant n - r - run; */
        while (run < n - r && pos[r + run] > pos[r] && (uint64_t)(pos[r + run] - pos[r]) == run)
            run++;
        //@ assert out_in: r * w + run * w <= n * w;
        if (read_rows(t, &t->fa, row, run, out + r * w) != 0) return -1;
        r += run;
    }
    return 0;
}

static int read_rows(const table *t, const pc_npy_file *f, size_t row, size_t n, float *out)
{
    pc_err e = { "" };
    pc_status st = pc_npy_file_f32(f, row * t->cols, n * t->cols, out, &e);
    if (st != PC_OK) {
        record_fault((table *)t, st, &e);
        return -1;
    }
    if (t->bf16) pc_bf16_decode(out, n * t->cols);
    if (pc_table_unblock(out, n, t->cols, t->blocks, t->n_blocks) != 0) {
        record_fault((table *)t, pc_seterr(&e, PC_ENOMEM, "%s: out of memory for a row", t->path),
                     &e);
        return -1;
    }
    return 0;
}

/* ---- hooks ------------------------------------------------------------- */

/*@ requires table: table_ok(t);
    requires sinusoidal: t->info.d == t->cols;
    requires valid_pos: pc_valid_positions(pos, n);
    requires size: pc_size_ok(n, d);
    requires valid_out: \valid(out + (0 .. n * d - 1));
    requires separated: \separated(out + (0 .. n * d - 1), pos + (0 .. n - 1), t, t->fault);
    behavior wrong_shape:
      assumes other: d != t->info.d || layout != t->info.layout;
      assigns \nothing;
      ensures declined: \result == 1 || \result == 2;
    behavior in_range:
      assumes same: d == t->info.d && layout == t->info.layout;
      assumes all_in: table_has_all(t, pos, n);
      assigns out[0 .. n * d - 1], *t->fault;
      ensures ok: \result == 0 || \result == TABLE_EREAD;
    behavior out_of_range:
      assumes same: d == t->info.d && layout == t->info.layout;
      assumes some_out: !table_has_all(t, pos, n);
      assigns \nothing;
      ensures rejected: \result == 3;
    complete behaviors;
    disjoint behaviors;
*/
static int sin_serve(const table *t, const int64_t *pos, size_t n, int d, int layout, float *out)
{
    if (d != t->info.d) return 2;
    if (layout != t->info.layout) return 1;
    if (!rows_in(t, pos, n)) return 3;
    return serve_rows(t, pos, n, (size_t)d, out) == 0 ? 0 : TABLE_EREAD;
}

/* N rows of D values whose pairs store their second member first ([cos |
 * sin] in the half layout, (cos, sin) pairs interleaved:
 * pc_table_args.pair_swap) swapped in place into sin first. */
static void swap_pairs(float *out, size_t n, int d, int layout)
{
    size_t h = (size_t)d / 2;
    for (size_t r = 0; r < n; r++)
        for (size_t i = 0; i < h; i++) {
            float *row = out + r * (size_t)d;
            size_t a = layout ? i : 2 * i, b = layout ? i + h : 2 * i + 1;
            float x = row[a];
            row[a] = row[b];
            row[b] = x;
        }
}

static int sin_hook(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                    float *out)
{
    (void)base; /* a table has its base baked in; the gate's --base is what it is held to */
    const table *t = ctx;
    int rc = sin_serve(t, pos, n, d, layout, out);
    if (rc == 0 && t->info.pair_swapped) swap_pairs(out, n, d, layout);
    return rc;
}

/* A lookup table (learned): row r of OUT (N x D) = the row of POS[r];
 * 2 for another width, 3 (OUT untouched) when a position has no row. */
static int lookup_hook(void *ctx, const int64_t *pos, size_t n, int d, float *out)
{
    const table *t = ctx;
    if (d != t->info.d) return 2;
    if (!rows_in(t, pos, n)) return 3;
    return serve_rows(t, pos, n, (size_t)d, out) == 0 ? 0 : TABLE_EREAD;
}

static int64_t lookup_max_len(void *ctx)
{
    const table *t = ctx;
    return (int64_t)t->rows;
}

/* X's N rows rotated by the cached rows C, S (cos, sin) into OUT, pair by
 * pair of LAYOUT: an (n, d) cache has a value for each output column, an
 * (n, d/2) one a value per pair (pc_cache_rotate). */
static void rotate_rows(const table *t, int layout, size_t n, const float *x, const float *c,
                        const float *s, float *out)
{
    size_t d = (size_t)t->info.d, h = d / 2, w = t->cols;
    int full = t->info.full_width;
    for (size_t r = 0; r < n; r++) {
        const float *xr = x + r * d, *cr = c + r * w, *sr = s + r * w;
        float *o = out + r * d;
        if (full && layout == PECHECK_LAYOUT_HALF) { /* the common cache: one plain loop */
            for (size_t i = 0; i < h; i++)
                pc_cache_rotate(xr[i], xr[i + h], cr[i], sr[i], cr[i + h], sr[i + h], &o[i],
                                &o[i + h]);
            continue;
        }
        for (size_t i = 0; i < h; i++) {
            size_t a = layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i : i;
            size_t b = layout == PECHECK_LAYOUT_INTERLEAVED ? 2 * i + 1 : i + h;
            size_t ca = full ? a : i, cb = full ? b : i;
            pc_cache_rotate(xr[a], xr[b], cr[ca], sr[ca], cr[cb], sr[cb], &o[a], &o[b]);
        }
    }
}

/* Rows of cos and sin read by the RoPE hook at a time (2 x 256 KiB of
 * binary32 at most, at least one row). */
#define ROPE_READ_VALUES 65536

static int rope_hook(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                     const float *x, float *out)
{
    (void)base;
    table *t = ctx;
    if (d != t->info.d) return 2;
    if (t->info.layout >= 0 && layout != t->info.layout) return 1;
    if (layout != PECHECK_LAYOUT_INTERLEAVED && layout != PECHECK_LAYOUT_HALF) return 1;
    if (!rows_in(t, pos, n)) return 3;
    size_t w = t->cols, most = w < ROPE_READ_VALUES ? ROPE_READ_VALUES / w : 1;
    if (most > n) most = n;
    float *c = malloc(most * w * sizeof *c), *s = malloc(most * w * sizeof *s);
    int rc = 0;
    if (!c || !s) {
        pc_err e;
        record_fault(t, pc_seterr(&e, PC_ENOMEM, "%s: out of memory for %zu rows", t->path, most), &e);
        rc = TABLE_EREAD;
    }
    for (size_t r = 0; rc == 0 && r < n;) {
        size_t row = (size_t)row_of(t, pos[r]), run = 1;
        while (run < most && run < n - r && pos[r + run] > pos[r] &&
               (uint64_t)(pos[r + run] - pos[r]) == run)
            run++;
        if (read_rows(t, &t->fa, row, run, c) != 0 || read_rows(t, &t->fs, row, run, s) != 0)
            rc = TABLE_EREAD;
        else
            rotate_rows(t, layout, run, x + r * (size_t)d, c, s, out + r * (size_t)d);
        r += run;
    }
    free(c);
    free(s);
    return rc;
}

/* ---- loading ------------------------------------------------------------ */

static pc_status load(const char *path, const char *what, pc_npy_file *a, pc_err *err)
{
    pc_status st = pc_npy_file_open(path, a, err);
    if (st == PC_EIO) st = PC_EINPUT; /* a missing or unreadable table is bad input (exit 2) */
    if (st != PC_OK) return st;
    if (a->dtype[1] == 'i')
        return pc_seterr(err, PC_EINPUT, "%s: %s holds values, not integers (<i8: position ids "
                         "are given with --position-ids)", path, what);
    /* (1, n, d): torch's batch of one (HF's rotary modules return cos and
     * sin so); the same bytes as its (n, d) rows, read as them, as the
     * Python package drops leading dimensions of size 1 (docs/python.md) */
    if (a->rank == 3 && a->shape[0] == 1) {
        a->rank = 2;
        a->shape[0] = a->shape[1];
        a->shape[1] = a->shape[2];
        a->shape[2] = 1;
    }
    if (a->rank != 2)
        return pc_seterr(err, PC_EINPUT, "%s: %s must have shape (n, d) or (1, n, d), got rank %d%s",
                         path, what, a->rank, a->rank == 3 ? ": of a batch, save one row's "
                         "table (t[0])" : "");
    return PC_OK;
}

/* The storage type of a table read as NPY_DTYPE, with the options. */
static pc_status storage_of(const pc_table_args *o, const char *path, const char *npy_dtype,
                            pc_table_info *in, pc_err *err)
{
    const char *t = npy_dtype;
    if (!strcmp(t, "<u2")) {
        if (o->dtype != PC_DT_BF16)
            return pc_seterr(err, PC_EINPUT, "%s: <u2 holds 16-bit patterns: pass --dtype bf16 for "
                             "a bfloat16 cache saved as its bits", path);
        in->dtype = PC_DT_BF16;
        snprintf(in->dtype_note, sizeof in->dtype_note, "bfloat16 storage (<u2 bit patterns, --dtype bf16)");
    } else if (!strcmp(t, "<f2")) {
        if (o->dtype_set && o->dtype != PC_DT_F16)
            return pc_seterr(err, PC_EINPUT, "%s: a <f2 table is float16, not --dtype %s", path,
                             pc_dtype_name(o->dtype));
        in->dtype = PC_DT_F16;
        snprintf(in->dtype_note, sizeof in->dtype_note, "float16 storage (<f2)%s",
                 o->dtype_set ? "" : ": judged as float16 values computed in float32");
    } else {
        in->dtype = o->dtype_set ? o->dtype : PC_DT_F32;
        in->file_f64 = !strcmp(t, "<f8");
        snprintf(in->dtype_note, sizeof in->dtype_note, "%s%s", in->dtype == PC_DT_F32 ? "float32 values"
                 : "half-precision values widened to float32 (", in->dtype == PC_DT_F32 ? ""
                 : o->dtype == PC_DT_BF16 ? "--dtype bf16)" : "--dtype f16)");
    }
    return PC_OK;
}

void pc_table_adjust_cfg(const pc_table_info *t, pc_acc_cfg *cfg)
{
    cfg->d = t->d;
    cfg->pos_lo = t->pos_lo;
    cfg->pos_hi = t->pos_hi;
    cfg->dtype = t->dtype;
    if (t->base_fitted) {
        cfg->base = t->base;
        cfg->base_from = "fitted from the table; no base given";
    }
    /* a half-precision cache: values computed in binary32, stored once */
    cfg->storage = t->dtype == PC_DT_BF16 || t->dtype == PC_DT_F16;
}

/* The first NaN or Inf of the scan (the cos file's, unless the sin
 * file's is on an earlier row), and their count. */
static void take_nonfinite(table *t, const pc_table_scan *sc)
{
    pc_table_info *in = &t->info;
    const pc_scan_nonfinite *a = &sc->nf[0], *s = &sc->nf[1];
    uint64_t total = a->count + s->count;
    in->nonfinite = (int)(total > INT32_MAX ? INT32_MAX : total);
    if (!total) return;
    int sin = !a->count || (s->count && s->k / t->cols < a->k / t->cols);
    const pc_scan_nonfinite *f = sin ? s : a;
    in->nf_pos = in->pos_lo + (int64_t)(f->k / t->cols);
    in->nf_col = (int)(f->k % t->cols);
    in->nf_val = f->value;
    in->nf_file = sin ? t->sin_path : t->path;
}

/* What the options say of a RoPE cache's shape (the rest from counts). */
typedef struct shape_opts {
    int d_set, d, layout;
    size_t cols;
    const char *layout_from;  /* where LAYOUT came from (NULL or "": --layout) */
} shape_opts;

/* "(--layout)", or where the layout came from */
static const char *given_layout(const shape_opts *so, char *buf, size_t len)
{
    snprintf(buf, len, "(%.150s)", so->layout_from && so->layout_from[0] ? so->layout_from
                                                                           : "--layout");
    return buf;
}

/* Whether a RoPE cache of C columns is (n, d) and its layout, from the
 * options and BAD[l], the repeated column pairs that differ under layout
 * l of PAIRS: --d says it; without --d, (n, d) when some layout's
 * repeated columns are (nearly) all equal: a real (n, d/2) cache has
 * distinct frequencies in those columns, equal only where cos/sin round
 * alike (near position 0), so under 10% of its column pairs match; a
 * (n, d) cache with a few corrupted entries still matches in over 90%
 * (and its mismatches are then reported).  Its layout: --layout, else the
 * one with fewer differing pairs (half when both have none). */
static void cache_shape(const void *ctx, const size_t bad[2], size_t pairs, pc_cache_shape *sh)
{
    const shape_opts *o = ctx;
    size_t c = o->cols, best = bad[0] < bad[1] ? bad[0] : bad[1];
    sh->full = o->d_set ? (size_t)o->d == c : c % 2 == 0 && best <= pairs / 10;
    if (!sh->full)
        sh->layout = o->layout; /* -1: either layout */
    else if (o->layout >= 0)
        sh->layout = o->layout;
    else
        sh->layout = bad[0] == 0 && bad[1] == 0 ? 1 : bad[1] <= bad[0] ? 1 : 0;
}

static pc_status setup_rope(table *t, const shape_opts *so, const pc_table_scan *sc, pc_err *err)
{
    pc_table_info *in = &t->info;
    size_t c = t->cols;
    const size_t *bad = sc->bad;
    pc_cache_shape sh;
    cache_shape(so, bad, 2 * t->rows * (c / 2), &sh);
    int full = sh.full;
    in->full_width = full;
    in->d = full ? (int)c : (int)(2 * c);
    /* more columns than a head has and fewer rows than columns, the rows a
     * head's width: the (d, n) transpose of a cache (cos.T saved) */
    char hint[200] = "";
    if ((in->d > PC_D_MAX || in->d % 2) && t->rows < c && t->rows >= 2 && t->rows <= PC_D_MAX
        && t->rows % 2 == 0)
        snprintf(hint, sizeof hint, "; its %zu rows and %zu columns are the shape of an (n, d) "
                 "cache transposed: save the cache, not its transpose (cos, not cos.T)",
                 t->rows, c);
    if (in->d < 2 || in->d > PC_D_MAX || in->d % 2)
        return pc_seterr(err, PC_EINPUT, "%s: %zu columns give d = %d; RoPE needs an even d in "
                         "[2, %d] (a table's rows are positions, its columns dims)%s", t->path, c,
                         in->d, PC_D_MAX, hint);
    if (!full) {
        in->layout = so->layout; /* -1: either layout */
        snprintf(in->layout_note, sizeof in->layout_note, "(n, d/2) cache: one column per pair, "
                 "usable with either layout%s", so->d_set ? "" : " (no repeated columns found)");
        return PC_OK;
    }
    int layout = sh.layout;
    char from[208];
    in->layout = layout;
    if (bad[layout] == 0)
        snprintf(in->layout_note, sizeof in->layout_note, "(n, d) cache, layout %s %s: %s",
                 layout ? "half" : "interleaved",
                 so->layout >= 0 ? given_layout(so, from, sizeof from) : "detected",
                 layout ? "columns j and j+d/2 are equal (cat(freqs, freqs))"
                        : "columns 2i and 2i+1 are equal (repeat_interleave)");
    else
        snprintf(in->layout_note, sizeof in->layout_note, "(n, d) cache, layout %s %s, but "
                 "%zu repeated column pairs differ", layout ? "half" : "interleaved",
                 so->layout >= 0 ? given_layout(so, from, sizeof from) : "(closest)", bad[layout]);
    if (bad[0] == 0 && bad[1] == 0 && so->layout < 0)
        snprintf(in->layout_note + strlen(in->layout_note),
                 sizeof in->layout_note - strlen(in->layout_note),
                 " (both layouts fit these rows; pass --layout)");
    in->dup_within = sc->loose[layout];
    if (sc->loose[layout])
        snprintf(in->layout_note + strlen(in->layout_note),
                 sizeof in->layout_note - strlen(in->layout_note),
                 " (some repeated values differ within 2 ulps of the storage)");
    in->other_layout_fits = so->layout >= 0 && bad[layout] > 0 && bad[!layout] == 0;
    in->dup_mismatch = (int)(bad[layout] > INT32_MAX ? INT32_MAX : bad[layout]);
    if (bad[layout])
        snprintf(in->dup_note, sizeof in->dup_note, "%s", sc->first[layout]);
    return PC_OK;
}

/* Sinusoidal layout from the scan's sums (table_scan.h): the columns that
 * hold sin and cos of one angle. */
static int sin_layout(const table *t, const pc_table_scan *sc, char *note, size_t len)
{
    if (t->cols / 2 == 1) {
        snprintf(note, len, "d = 2: both layouts are the same table (interleaved used)");
        return 0;
    }
    double e[2] = { sc->e[0], sc->e[1] };
    int layout = e[1] < e[0] ? 1 : 0;
    if (sc->used) { e[0] /= (double)sc->used; e[1] /= (double)sc->used; }
    snprintf(note, len, "layout %s detected: mean |sin^2+cos^2-1| of columns (0, 1) is %.3g, "
             "of columns (0, d/2) %.3g", layout ? "half" : "interleaved", e[0], e[1]);
    return layout;
}

/* FAMILY's descriptor, which a table may hold (PC_FAM_TABLES); rows that
 * rotate an input come as a (cos, sin) cache pair (RoPE), so SIN_PATH is
 * given exactly for them. */
static pc_status table_family(const char *family, const char *sin_path, const pc_family **fam,
                              pc_err *err)
{
    *fam = pc_family_find(family);
    if (!*fam || !((*fam)->flags & PC_FAM_TABLES) || !((*fam)->rows || (*fam)->max_len)) {
        char names[160];
        pc_family_names(names, sizeof names, PC_FAM_TABLES, 0, NULL);
        return pc_seterr(err, PC_EINPUT, "--table: tables are %s, not '%s'", names, family);
    }
    if (!(*fam)->rows) { /* a lookup table: one file, rows from position 0 */
        if (sin_path)
            return pc_seterr(err, PC_EINPUT, "--table-sin is for RoPE caches, not --family %s",
                             (*fam)->name);
        return PC_OK;
    }
    if ((*fam)->rows->input && !sin_path)
        return pc_seterr(err, PC_EINPUT, "--family %s with --table COS.npy needs --table-sin SIN.npy",
                         (*fam)->name);
    if (!(*fam)->rows->input && sin_path)
        return pc_seterr(err, PC_EINPUT, "--table-sin is for RoPE caches (--family %s)",
                         pc_family_for_table(1) ? pc_family_for_table(1)->name : "?");
    return PC_OK;
}

/* The base the table's frequencies fit (the family's diagnosis: RoPE's
 * fit, families/rope/fit.h), from the scan's read of the rows where the
 * family takes points (pc_points_fit), else through the hook.  No base
 * given (no --base, no --hf-config or --rope-scaling): the fitted one,
 * rounded to 3 significant digits, is what the table is checked against;
 * one that is not within 0.1% of such a number (HunYuan's 11158839.9) is
 * taken as fitted under --assume-fitted, else the note says the default
 * base was used; a given --base that the table contradicts is reported. */
static void fit_base(table *t, const pc_family *fam, const pc_table_args *o,
                     const pc_table_scan *sc)
{
    pc_table_info *in = &t->info;
    double r, b;
    if (o->scheduled || !fam->diagnosis) return; /* a schedule's own base (--hf-config ...) */
    if (sc->fit) {
        if (!sc->fit_ok) return; /* not a clean geometric table */
        r = sc->fit_base;
        b = sc->fit_raw;
    } else if (!fam->diagnosis->table_base ||
               !fam->diagnosis->table_base(&t->impl, in->d, in->layout < 0 ? 1 : in->layout,
                                           in->pos_lo, in->pos_hi, pc_model_u(in->dtype), &r, &b))
        return;
    if (!o->base_set && isfinite(r)) {
        in->base = r;
        in->base_fitted = 1;
        snprintf(in->base_note, sizeof in->base_note, "base %.17g fitted from the table (%.9g; "
                 "no --base given): the table is checked against it", r, b);
    } else if (!o->base_set && o->assume_fitted) {
        in->base = b;
        in->base_fitted = 1;
        snprintf(in->base_note, sizeof in->base_note, "base %.17g fitted from the table (not a "
                 "number of 3 significant digits; no --base given, --assume-fitted): the table "
                 "is checked against it", b);
    } else if (!o->base_set) {
        snprintf(in->base_note, sizeof in->base_note, "warning: the table fits base %.9g (not 3 "
                 "significant digits): checked against the default base %.17g; pass the model's "
                 "--base, or --assume-fitted", b, o->base);
    } else if (fabs(r / o->base - 1.0) > 1e-3) {
        snprintf(in->base_note, sizeof in->base_note, "warning: --base %.17g, but the table's "
                 "frequencies fit base %.9g", o->base, b);
    }
}

/* A table of encodings (sinusoidal) or a lookup table (LOOKUP: learned):
 * even d columns in [2, PC_D_MAX], as --d says; a lookup table's rows are
 * positions 0..n-1 (E[pos], pos < max_len). */
static pc_status check_width(const pc_table_args *o, const char *path, const pc_npy_file *a,
                             int lookup, pc_err *err)
{
    size_t c = a->shape[1];
    if (c < 2 || c % 2 || c > PC_D_MAX)
        return pc_seterr(err, PC_EINPUT, "%s: d = %zu columns; a %s table needs an even d in "
                         "[2, %d]", path, c, lookup ? "learned" : "sinusoidal", PC_D_MAX);
    if (o->d_set && (size_t)o->d != c)
        return pc_seterr(err, PC_EINPUT, "--d %d contradicts %s's shape (%zu, %zu)", o->d, path,
                         a->shape[0], c);
    if (lookup && o->pos_start != 0)
        return pc_seterr(err, PC_EINPUT, "--pos-start %" PRId64 ": a learned table's row r is "
                         "position r (E[pos] for pos < max_len); drop --pos-start", o->pos_start);
    return PC_OK;
}

/* The files' shapes and types against each other and the options
 * (LOOKUP: a learned table). */
static pc_status check_files(const pc_table_args *o, const char *path, const char *sin_path, int rope,
                             int lookup, const pc_npy_file *a, const pc_npy_file *s,
                             pc_table_info *probe, pc_err *err)
{
    if (rope && (a->shape[0] != s->shape[0] || a->shape[1] != s->shape[1]))
        return pc_seterr(err, PC_EINPUT, "%s has shape (%zu, %zu) but %s has shape (%zu, %zu): the "
                         "cos and sin caches must match", path, a->shape[0], a->shape[1], sin_path,
                         s->shape[0], s->shape[1]);
    /* rows pos_start .. pos_start + rows - 1, the last at most 2^53 */
    if (a->shape[0] - 1 > (size_t)(PC_POS_MAX - o->pos_start))
        return pc_seterr(err, PC_EINPUT, "%s: %zu rows from --pos-start %" PRId64 " pass position 2^53",
                         path, a->shape[0], o->pos_start);
    size_t c = a->shape[1];
    pc_status st = rope ? PC_OK : check_width(o, path, a, lookup, err);
    if (st == PC_OK) st = storage_of(o, path, a->dtype, probe, err);
    if (st == PC_OK && rope && strcmp(a->dtype, s->dtype) != 0)
        st = pc_seterr(err, PC_EINPUT, "%s is %s but %s is %s: the cos and sin caches must have "
                       "one dtype", path, a->dtype, sin_path, s->dtype);
    if (st == PC_OK && rope && o->d_set && (size_t)o->d != c && (size_t)o->d != 2 * c)
        st = pc_seterr(err, PC_EINPUT, "--d %d contradicts %s's shape (%zu, %zu): a RoPE "
                       "cache has d/2 or d columns", o->d, path, a->shape[0], c);
    return st;
}

/* The table's fields once its files are open and checked. */
static pc_status table_new(const char *path, const char *sin_path, int rope, table **out,
                           pc_err *err)
{
    table *t = calloc(1, sizeof *t);
    *out = t;
    if (!t) return pc_seterr(err, PC_ENOMEM, "out of memory");
    t->magic = TABLE_MAGIC;
    t->impl.ctx = t;
    t->fa.fd = t->fs.fd = -1;
    t->fault = calloc(1, sizeof *t->fault);
    t->path = strdup(path);
    t->sin_path = rope ? strdup(sin_path) : NULL;
    t->name = strdup(path); /* the name is the (cos) table's path */
    if (t->fault) pthread_mutex_init(&t->fault->mu, NULL);
    if (!t->fault || !t->path || !t->name || (rope && !t->sin_path))
        return pc_seterr(err, PC_ENOMEM, "out of memory for %s", path);
    return PC_OK;
}

/* --dtype bf16 or f16 on a float32 table says its values are that type's
 * widened: a value the type cannot hold says they are not (they would be
 * judged under the half type's looser bound), exit 2 with the first. */
static pc_status widened_holds(const table *t, const pc_table_scan *sc, pc_err *err)
{
    int f = sc->off[0].count ? 0 : 1;
    const pc_scan_nonfinite *off = &sc->off[f];
    if (!off->count) return PC_OK;
    const char *ty = pc_dtype_name(t->info.dtype);
    const char *type = t->info.dtype == PC_DT_BF16 ? "bfloat16" : "float16";
    return pc_seterr(err, PC_EINPUT, "--dtype %s: %.200s holds %s values that are not %s "
                     "numbers (%" PRIu64 " of them; the first: row %zu, column %zu: %a = %.9g), "
                     "so it is no %s cache widened to %s; drop --dtype %s", ty,
                     f ? t->sin_path : t->path, t->fa.dtype, type,
                     sc->off[0].count + sc->off[1].count, off->k / t->cols, off->k % t->cols,
                     off->value, off->value, type, t->fa.itemsize == 8 ? "float64" : "float32", ty);
}

/* One read of the rows (table_scan.h), and what it says: NaN/Inf, the
 * layout, d, a RoPE cache's base (FAM's fit); a lookup table (LOOKUP) has
 * no pairs. */
static pc_status analyse(table *t, const pc_family *fam, const pc_table_args *o, int rope,
                         int lookup, pc_err *err)
{
    pc_table_info *in = &t->info;
    shape_opts so = { o->d_set, o->d, o->layout, t->cols, o->layout_from };
    if (t->n_blocks) { so.d_set = 1; so.d = (int)t->cols; } /* blocks divide an (n, d) cache */
    pc_table_scan sc;
    memset(&sc, 0, sizeof sc);
    sc.a = &t->fa;
    sc.s = rope ? &t->fs : NULL;
    sc.rows = t->rows;
    sc.cols = t->cols;
    sc.bf16 = t->bf16;
    sc.blocks = t->blocks;
    sc.n_blocks = t->n_blocks;
    sc.dtype = in->dtype;
    sc.widened = (in->dtype == PC_DT_BF16 || in->dtype == PC_DT_F16) && !t->bf16
                 && strcmp(t->fa.dtype, "<f2") != 0;
    sc.pos_lo = in->pos_lo;
    sc.choose = cache_shape;
    sc.choose_ctx = &so;
    if (rope && !o->scheduled && fam->diagnosis) sc.fit = fam->diagnosis->table_points;
    /* a small table in this thread (its threads would cost more than they save) */
    sc.threads = t->rows * t->cols < TABLE_SCAN_ONE_THREAD ? 1 : o->threads > 0 ? o->threads : pc_cores();
    sc.fit_u_s = pc_model_u(in->dtype);
    pc_status st = pc_table_scan_run(&sc, err);
    if (st == PC_OK) st = widened_holds(t, &sc, err);
    if (st == PC_OK) take_nonfinite(t, &sc);
    if (st == PC_OK && rope)
        st = setup_rope(t, &so, &sc, err);
    else if (st == PC_OK && lookup) {
        in->d = (int)t->cols;
        in->layout = -1; /* rows are looked up whole: no pairs */
        snprintf(in->layout_note, sizeof in->layout_note, "a lookup table (no pair layout)");
    } else if (st == PC_OK && o->layout >= 0) {
        in->d = (int)t->cols;
        in->layout = o->layout;
        snprintf(in->layout_note, sizeof in->layout_note, "layout %s (--layout)",
                 pc_layout_name(o->layout));
    } else if (st == PC_OK) {
        in->d = (int)t->cols;
        in->layout = sin_layout(t, &sc, in->layout_note, sizeof in->layout_note);
    }
    if (st == PC_OK && !rope && !lookup && o->pair_swap) { /* the order is not the layout's */
        size_t u = strlen(in->layout_note);
        in->pair_swapped = 1;
        if (u < sizeof in->layout_note)
            snprintf(in->layout_note + u, sizeof in->layout_note - u, "; %s read as sin first",
                     in->layout ? "[cos | sin]" : "(cos, sin) pairs");
    }
    if (st == PC_OK && rope) fit_base(t, fam, o, &sc);
    return st;
}

/* O's column blocks (pc_table_args.col_blocks) into T when T is the (n, d)
 * cache they divide; an (n, d/2) cache (one column per pair) has its
 * pairs in the blocks' order already.  PC_EINPUT for a width of neither. */
static pc_status take_blocks(table *t, const pc_table_args *o, pc_err *err)
{
    size_t sum = 0;
    for (int k = 0; k < o->n_col_blocks; k++) sum += (size_t)o->col_blocks[k];
    if (o->n_col_blocks < 1 || 2 * t->cols == sum) return PC_OK;
    if (t->cols != sum || o->n_col_blocks > PC_SPEC_BLOCKS_MAX)
        return pc_seterr(err, PC_EINPUT, "%s has %zu columns but its %d blocks of columns (each "
                         "axis' dims in a half layout of its own) sum to %zu: a cache has d or "
                         "d/2 columns", t->path, t->cols, o->n_col_blocks, sum);
    memcpy(t->blocks, o->col_blocks, (size_t)o->n_col_blocks * sizeof *t->blocks);
    t->n_blocks = o->n_col_blocks;
    return PC_OK;
}

int pc_table_blocks(const pc_impl *impl, int *blocks)
{
    const table *t = table_of(impl);
    if (!t || !t->n_blocks) return 0;
    memcpy(blocks, t->blocks, (size_t)t->n_blocks * sizeof *blocks);
    return t->n_blocks;
}

int pc_table_set_blocks(const pc_impl *impl, const int *blocks, int n_blocks)
{
    table *t = table_of(impl);
    size_t sum = 0;
    for (int k = 0; k < n_blocks; k++) sum += (size_t)blocks[k];
    if (!t || !t->info.full_width || t->info.layout != PECHECK_LAYOUT_HALF || n_blocks < 0
        || n_blocks > PC_SPEC_BLOCKS_MAX || (n_blocks && sum != t->cols))
        return -1;
    if (n_blocks) memcpy(t->blocks, blocks, (size_t)n_blocks * sizeof *blocks);
    t->n_blocks = n_blocks;
    return 0;
}

int pc_table_read_blocked(const pc_impl *impl, const int *blocks, int n_blocks)
{
    table *t = table_of(impl);
    if (!t || !t->impl.rope || n_blocks < 0 || n_blocks > PC_SPEC_BLOCKS_MAX) return -1;
    if (n_blocks == 0) {
        if (!t->reread) return -1;
        t->info = t->found;
        memcpy(t->blocks, t->found_blocks, sizeof t->blocks);
        t->n_blocks = t->found_n_blocks;
        t->reread = 0;
        return 0;
    }
    size_t sum = 0;
    for (int k = 0; k < n_blocks; k++) {
        if (blocks[k] < 2 || blocks[k] % 2) return -1; /* a block is pairs of columns */
        sum += (size_t)blocks[k];
    }
    if (sum != t->cols || t->cols > PC_D_MAX) return -1;
    if (!t->reread) {
        t->found = t->info;
        memcpy(t->found_blocks, t->blocks, sizeof t->blocks);
        t->found_n_blocks = t->n_blocks;
        t->reread = 1;
    }
    memcpy(t->blocks, blocks, (size_t)n_blocks * sizeof *blocks);
    t->n_blocks = n_blocks;
    t->info.full_width = 1;
    t->info.d = (int)t->cols;
    t->info.layout = PECHECK_LAYOUT_HALF;
    snprintf(t->info.layout_note, sizeof t->info.layout_note, "(n, d) cache read as %d blocks "
             "of columns, each axis' dims the half layout of its own pairs ([c c | c' c'], "
             "ChatGLM-6B's position_encoding_2d): found by identify, the whole width's "
             "layouts do not repeat its columns", n_blocks);
    return 0;
}

int pc_table_set_pos_start(const pc_impl *impl, int64_t lo)
{
    table *t = table_of(impl);
    if (!t || lo < 0 || (int64_t)t->rows - 1 > PC_POS_MAX - lo) return -1;
    t->info.pos_lo = lo;
    t->info.pos_hi = lo + (int64_t)t->rows - 1;
    t->impl.pos_min = t->info.pos_lo; /* as table_impl sets them */
    t->impl.pos_max = t->info.pos_hi;
    return 0;
}

int pc_table_file_column(const pc_impl *impl, int col)
{
    const table *t = table_of(impl);
    if (!t || !t->n_blocks || col < 0) return col;
    int h = (int)(t->cols / 2), second = col >= h, j = second ? col - h : col;
    for (int k = 0, c = 0, p = 0; k < t->n_blocks; k++) { /* pc_table_unblock, inverted */
        int half = t->blocks[k] / 2;
        if (j < p + half) return c + (second ? half : 0) + (j - p);
        c += 2 * half;
        p += half;
    }
    return col;
}

/* The layout note of a blocked cache says how its columns were read. */
static void note_blocks(table *t)
{
    pc_table_info *in = &t->info;
    size_t u = strlen(in->layout_note);
    if (u < sizeof in->layout_note)
        snprintf(in->layout_note + u, sizeof in->layout_note - u, "; read as %d blocks of "
                 "columns, each axis' dims the half layout of its own pairs ([c c | c' c'])",
                 t->n_blocks);
}

/* The implementation's fields of a table (its info's family and positions
 * set): the hooks of a RoPE cache, a lookup table or a sinusoidal one. */
static void table_impl(table *t, int rope, int lookup)
{
    pc_impl *im = &t->impl;
    snprintf(t->description, sizeof t->description, "%s table (%zu, %zu), positions %" PRId64
             "..%" PRId64 "%s%.150s", t->info.family, t->rows, t->cols, t->info.pos_lo,
             t->info.pos_hi, rope ? ", sin cache " : "", rope ? t->sin_path : "");
    im->name = t->name;
    im->description = t->description;
    im->family_hint = t->info.family;
    im->expect_pass = 1;
    im->ctx = t;
    im->pos_min = t->info.pos_lo; /* properties draw positions from the rows */
    im->pos_max = t->info.pos_hi;
    im->pos_bounded = 1;
    if (rope) im->rope = rope_hook;
    else if (lookup) { im->learned = lookup_hook; im->learned_max_len = lookup_max_len; }
    else im->sinusoidal = sin_hook;
}

pc_status pc_table_open(const pc_table_args *o, const char *path, const char *sin_path,
                        const char *family, pc_impl **out, pc_err *err)
{
    *out = NULL;
    const pc_family *fam;
    pc_status st = table_family(family, sin_path, &fam, err);
    if (st != PC_OK) return st;
    int rope = fam->rows && fam->rows->input; /* a (cos, sin) cache pair */
    int lookup = !fam->rows;                   /* a learned table */
    pc_npy_file a, s;
    memset(&s, 0, sizeof s);
    s.fd = -1;
    pc_table_info probe;
    memset(&probe, 0, sizeof probe);
    st = load(path, rope ? "a RoPE cos cache" : lookup ? "a learned table" : "a sinusoidal table",
              &a, err);
    if (st == PC_OK && rope) st = load(sin_path, "a RoPE sin cache", &s, err);
    if (st == PC_OK) st = check_files(o, path, sin_path, rope, lookup, &a, &s, &probe, err);
    if (st == PC_OK && o->id_rows > 0 && (int64_t)a.shape[0] != o->id_rows)
        st = pc_seterr(err, PC_EINPUT, "%s has %zu rows but the position ids have %lld: give one "
                       "row of ids per row of the table (ids of another image or grid?)", path,
                       a.shape[0], (long long)o->id_rows);
    table *t = NULL;
    if (st == PC_OK) st = table_new(path, sin_path, rope, &t, err);
    if (t) { t->fa = a; t->fs = s; } /* the table owns the files from here */
    else { pc_npy_file_close(&a); pc_npy_file_close(&s); }
    if (st == PC_OK) {
        pc_table_info *in = &t->info;
        t->rows = a.shape[0];
        t->cols = a.shape[1];
        t->bf16 = a.dtype[1] == 'u';
        in->family = fam->name;
        in->path = t->path;
        in->sin_path = t->sin_path;
        in->pos_lo = o->pos_start;
        in->pos_hi = o->pos_start + (int64_t)t->rows - 1;
        in->dtype = probe.dtype;
        in->file_f64 = probe.file_f64;
        memcpy(in->dtype_note, probe.dtype_note, sizeof in->dtype_note);
        table_impl(t, rope, lookup); /* the hook: a family's fit may call it */
        st = rope ? take_blocks(t, o, err) : PC_OK;
        if (st == PC_OK) st = analyse(t, fam, o, rope, lookup, err);
        if (st == PC_OK && t->n_blocks) note_blocks(t);
    }
    if (st != PC_OK) {
        if (t) pc_table_close(&t->impl);
        return st;
    }
    *out = &t->impl;
    return PC_OK;
}

void pc_table_close(pc_impl *impl)
{
    table *t = table_of(impl);
    if (!t) return;
    pc_npy_file_close(&t->fa);
    pc_npy_file_close(&t->fs);
    if (t->fault) pthread_mutex_destroy(&t->fault->mu);
    free(t->fault); free(t->path); free(t->sin_path); free(t->name);
    free(t);
}

/* table_scan.c: one read of a .npy table's rows at open (table_scan.h). */
#include <inttypes.h>
#include <math.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "table_scan.h"
#include "harness/cli/opts.h" /* enum pc_dtype */
#include "harness/base/half.h"

/* Values of each file read at a time: 128 KiB of binary32 (at least one
 * row). */
#define SCAN_VALUES 32768

void pc_bf16_decode(float *v, size_t n)
{
    for (size_t k = 0; k < n; k++) {
        uint32_t u = (uint32_t)v[k] << 16;
        memcpy(&v[k], &u, sizeof u);
    }
}

int pc_table_unblock(float *v, size_t rows, size_t cols, const int *blocks, int n_blocks)
{
    if (n_blocks < 1) return 0;
    float *row = malloc(cols * sizeof *row);
    if (!row) return -1;
    size_t h = cols / 2;
    for (size_t r = 0; r < rows; r++) {
        float *x = v + r * cols;
        memcpy(row, x, cols * sizeof *row);
        for (size_t k = 0, c = 0, p = 0; k < (size_t)n_blocks; k++) {
            size_t half = (size_t)blocks[k] / 2; /* the block's pairs */
            for (size_t m = 0; m < half; m++) {
                x[p + m] = row[c + m];
                x[h + p + m] = row[c + half + m];
            }
            c += 2 * half;
            p += half;
        }
    }
    free(row);
    return 0;
}

/* ROWS rows from ROW0 of F into V (binary32, bfloat16 decoded, a blocked
 * cache's columns in the half layout of the whole width). */
static pc_status read_rows(const pc_table_scan *s, const pc_npy_file *f, size_t row0, size_t rows,
                           float *v, pc_err *err)
{
    pc_status st = pc_npy_file_f32(f, row0 * s->cols, rows * s->cols, v, err);
    if (st == PC_OK && s->bf16) pc_bf16_decode(v, rows * s->cols);
    if (st == PC_OK && pc_table_unblock(v, rows, s->cols, s->blocks, s->n_blocks) != 0)
        st = pc_seterr(err, PC_ENOMEM, "out of memory for a row of %zu values", s->cols);
    return st;
}

/* ---- repeated columns (RoPE (n, d) caches) --------------------------------- */

/* ulp of the storage type DT at |x| (binary32's spacing for f32; the
 * 8- and 11-bit significands of bfloat16 and float16, float16's
 * subnormal spacing 2^-24 below 2^-14). */
static void storage_bits(int dt, int *bits, int *emin)
{
    *bits = dt == PC_DT_BF16 ? 8 : dt == PC_DT_F16 ? 11 : 24;
    *emin = dt == PC_DT_F16 ? -13 : -125;
}

static double storage_ulp(int dt, float x)
{
    int e, bits, emin;
    storage_bits(dt, &bits, &emin);
    frexpf(fabsf(x), &e); /* |x| in [2^(e-1), 2^e) */
    if (x == 0.0f || e < emin) e = emin;
    return ldexp(1.0, e - bits);
}

/* An upper bound of the 2-ulp tolerance at m = max(|x|, |y|) that costs
 * two operations: 2 ulp(m) = 2^(e-bits+1) <= m 2^(2-bits) when e is m's
 * own exponent (m >= 2^(e-1)), and 2^(emin-bits+1) where the exponent is
 * clamped at emin; so 2 ulp(m) <= max(m SCALE, FLOOR), exactly computed
 * (powers of 2). */
typedef struct dup_far { double scale, floor; } dup_far;

static dup_far dup_far_of(int dt)
{
    int bits, emin;
    storage_bits(dt, &bits, &emin);
    dup_far f = { ldexp(1.0, 2 - bits), ldexp(1.0, emin - bits + 1) };
    return f;
}

/* Repeated columns X and Y agree: bit for bit, or within 2 ulps of the
 * storage (a vectorised cos or sin may round the same angle differently
 * at different positions of a SIMD vector: each result is within an ulp
 * of the exact value, so two of them are within 2 ulps).  *LOOSE is set
 * when they agree only within the ulps.  Values farther apart than the
 * bound FAR of the tolerance differ without computing it (NaN and Inf,
 * never within ulps, land there too). */
static inline int dup_equal(int dt, dup_far far, float x, float y, int *loose)
{
    uint32_t ux, uy;
    memcpy(&ux, &x, sizeof ux);
    memcpy(&uy, &y, sizeof uy);
    if (ux == uy) return 1;
    double diff = fabs((double)x - (double)y), ax = fabs((double)x), ay = fabs((double)y);
    double lim = (ax > ay ? ax : ay) * far.scale;
    if (!(diff <= (lim > far.floor ? lim : far.floor))) return 0; /* NaN too */
    double tol = 2.0 * storage_ulp(dt, fabsf(x) > fabsf(y) ? x : y);
    if (isfinite(x) && isfinite(y) && diff <= tol) { *loose = 1; return 1; }
    return 0;
}

/* A share of the scan (one thread's): pairs [P0, P1) of the repeated
 * columns, columns [C0, C1) for NaN/Inf, pairs [F0, F1) of the fit, and
 * (SUMS) the sinusoidal sums; its own counts, joined in scan_join. */
typedef struct first_diff {
    int set;
    size_t row, pair;         /* its place: the first in (row, pair) order */
    char text[200];
} first_diff;

typedef struct scan_part {
    pc_table_scan *s;
    size_t p0, p1, c0, c1;
    int f0, f1, sums;
    pc_cache_shape sh;        /* the fit's */
    int counts;               /* count (else the fit only) */
    pc_status st;
    pc_err err;
    pc_scan_nonfinite nf[2];
    pc_scan_nonfinite off[2];
    size_t bad[2];
    int loose[2];
    first_diff first[2][2];   /* [layout][file] */
    double e[2];
    size_t used;
    void *share;              /* the fit's share: pairs F0 .. F1 - 1 */
    float *a, *sn;            /* a block of rows of each file */
    double *fc, *fs;          /* one row of the fit */
    size_t rows;              /* rows a block holds */
    pthread_t tid;
} scan_part;

/* Row ROW of V's column pairs of [P0, P1) under LAYOUT that differ
 * (dup_equal), counted into P->bad[LAYOUT]; the first described in FIRST
 * (when still empty; SIN: of the sin cache).  First a count without a
 * branch (the compiler vectorises it): pairs bit for bit equal, pairs
 * farther apart than the bound of the tolerance, and the others, whose
 * tolerance is computed one by one when there are any; one by one too
 * while FIRST is empty. */
/* Lanes of pairs counted at a time without a branch (a constant trip
 * count: the compiler vectorises the loop at -O2). */
#define SCAN_LANES 16

/* Of N pairs (X[STRIDE i], Y[STRIDE i]): those that differ bit for bit
 * and are farther apart than FAR's bound (so not within the 2 ulps:
 * dup_equal), into *AWAY; the other differing ones into *UNSURE. */
static inline void dup_lanes(const float *x, const float *y, size_t stride, size_t n, dup_far far,
                             size_t *away, size_t *unsure)
{
    size_t a = 0, u = 0;
    for (size_t i = 0; i < n; i++) {
        float xf = x[stride * i], yf = y[stride * i];
        uint32_t ux, uy;
        memcpy(&ux, &xf, sizeof ux);
        memcpy(&uy, &yf, sizeof uy);
        double dx = (double)xf, dy = (double)yf, diff = fabs(dx - dy);
        double ax = fabs(dx), ay = fabs(dy), m = ax > ay ? ax : ay, lim = m * far.scale;
        lim = lim > far.floor ? lim : far.floor;
        size_t ne = ux != uy, out = !(diff <= lim); /* NaN: out */
        a += ne & out;
        u += ne & !out;
    }
    *away += a;
    *unsure += u;
}

/* Pairs [P0, P1) of ROW one by one: dup_equal's count into P->bad[LAYOUT],
 * the first that differs described in FIRST (when still empty). */
static void dup_exact(scan_part *p, int layout, int sin, const float *row, size_t r,
                      first_diff *first)
{
    pc_table_scan *s = p->s;
    size_t h = s->cols / 2;
    dup_far far = dup_far_of(s->dtype);
    for (size_t i = p->p0; i < p->p1; i++) {
        size_t ca = layout ? i : 2 * i, cb = layout ? i + h : 2 * i + 1;
        float x = row[ca], y = row[cb];
        if (dup_equal(s->dtype, far, x, y, &p->loose[layout])) continue;
        p->bad[layout]++;
        if (first->set) continue;
        first->set = 1;
        first->row = r;
        first->pair = i;
        snprintf(first->text, sizeof first->text, "%s row %zu (pos %" PRId64 "): column %zu = %a "
                 "(%.9g) but column %zu = %a (%.9g)", sin ? "sin" : "cos", r,
                 s->pos_lo + (int64_t)r, ca, (double)x, (double)x, cb, (double)y, (double)y);
    }
}

/* Row R (ROW) of the part's pairs under LAYOUT (SIN: of the sin cache):
 * counted by dup_lanes, whose count is final when every differing pair is
 * far apart and the first difference is already described; otherwise one
 * by one (dup_exact). */
static void dup_row(scan_part *p, int layout, int sin, const float *row, size_t r,
                    first_diff *first)
{
    pc_table_scan *s = p->s;
    size_t h = s->cols / 2, far_n = 0, unsure = 0, i = p->p0;
    dup_far far = dup_far_of(s->dtype);
    for (; i + SCAN_LANES <= p->p1; i += SCAN_LANES) {
        if (layout) dup_lanes(row + i, row + i + h, 1, SCAN_LANES, far, &far_n, &unsure);
        else dup_lanes(row + 2 * i, row + 2 * i + 1, 2, SCAN_LANES, far, &far_n, &unsure);
    }
    if (layout) dup_lanes(row + i, row + i + h, 1, p->p1 - i, far, &far_n, &unsure);
    else dup_lanes(row + 2 * i, row + 2 * i + 1, 2, p->p1 - i, far, &far_n, &unsure);
    if (!unsure && (!far_n || first->set)) p->bad[layout] += far_n;
    else dup_exact(p, layout, sin, row, r, first);
}

/* ---- the sinusoidal layout ------------------------------------------------- */

/* Columns (0, 1) (interleaved) or (0, c/2) (half) hold sin and cos of the
 * same angle pos*omega_0 = pos, so sin^2 + cos^2 - 1 is about 0 for the
 * right layout and not the other: its sums over the N rows V, in row
 * order, of rows whose three values are finite. */
static void sin_layout_rows(scan_part *p, const float *v, size_t n)
{
    size_t c = p->s->cols, h = c / 2;
    for (size_t r = 0; r < n; r++) {
        double x = (double)v[r * c], c0 = (double)v[r * c + 1], c1 = (double)v[r * c + h];
        if (!isfinite(x) || !isfinite(c0) || !isfinite(c1)) continue;
        p->e[0] += fabs(x * x + c0 * c0 - 1.0);
        p->e[1] += fabs(x * x + c1 * c1 - 1.0);
        p->used++;
    }
}

/* ---- NaN and Inf ----------------------------------------------------------- */

/* The non-finite values of columns [P->c0, P->c1) of the N rows V (row R0
 * on) of F into NF: counted without a branch first; a <f8 value is judged
 * as read (a finite one may round to Inf in binary32). */
static pc_status nonfinite_rows(scan_part *p, const pc_npy_file *f, const float *v, size_t r0,
                                size_t n, pc_scan_nonfinite *nf)
{
    size_t c = p->s->cols;
    unsigned odd = 0;
    for (size_t r = 0; r < n; r++) {
        const unsigned char *b = (const unsigned char *)(v + r * c);
        size_t j = p->c0;
        for (; j + SCAN_LANES <= p->c1; j += SCAN_LANES)
            for (size_t i = 0; i < SCAN_LANES; i++) {
                uint32_t u;
                memcpy(&u, b + 4 * (j + i), sizeof u);
                odd |= (u & 0x7f800000u) == 0x7f800000u ? 1u : 0u;
            }
        for (; j < p->c1; j++)
            odd |= isfinite(v[r * c + j]) ? 0u : 1u;
    }
    if (!odd) return PC_OK;
    for (size_t r = 0; r < n; r++)
        for (size_t j = p->c0; j < p->c1; j++) {
            float x = v[r * c + j];
            if (isfinite(x)) continue;
            size_t k = (r0 + r) * c + j;
            double val = (double)x;
            if (f->itemsize == 8) {
                pc_status st = pc_npy_file_f64(f, k, 1, &val, &p->err);
                if (st != PC_OK) return st;
                if (isfinite(val)) continue;
            }
            if (nf->count++ == 0) { nf->k = k; nf->value = val; }
        }
    return PC_OK;
}

/* The finite values of columns [P->c0, P->c1) of the N rows V (row R0 on)
 * that the storage type S->dtype cannot hold, into OFF: a half-precision
 * cache widened to float32 holds none (the widening is exact). */
static void off_storage_rows(const scan_part *p, const float *v, size_t r0, size_t n,
                             pc_scan_nonfinite *off)
{
    size_t c = p->s->cols;
    for (size_t r = 0; r < n; r++)
        for (size_t j = p->c0; j < p->c1; j++) {
            float x = v[r * c + j];
            if (!isfinite(x) || pc_round_to(p->s->dtype, x) == x) continue;
            if (off->count++ == 0) { off->k = (r0 + r) * c + j; off->value = (double)x; }
        }
}

/* ---- the base's fit -------------------------------------------------------- */

/* Pairs of a cache read as SH: d/2 of an (n, d) cache, one a column else. */
static int shape_pairs(const pc_table_scan *s, pc_cache_shape sh)
{
    return (int)(sh.full ? s->cols / 2 : s->cols);
}

/* What the table's hook gives for the rotation of (1, 0) in pairs [F0,
 * F1) of the N rows C, S (cos and sin, read as P->sh), fed to the part's
 * fit: pair i's columns are a = i, b = i + d/2 (half) or a = 2i,
 * b = 2i + 1 (interleaved) of an (n, d) cache, column i for both of an
 * (n, d/2) one; the same binary32 operations as the hook
 * (pc_cache_rotate). */
static void fit_rows(scan_part *p, const float *c, const float *sn, size_t n)
{
    pc_cache_shape sh = p->sh;
    size_t w = p->s->cols, h = (size_t)shape_pairs(p->s, sh);
    for (size_t r = 0; r < n; r++) {
        const float *cr = c + r * w, *sr = sn + r * w;
        for (int i = p->f0; i < p->f1; i++) {
            size_t a = (size_t)i, b = (size_t)i;
            if (sh.full) {
                a = sh.layout ? (size_t)i : (size_t)(2 * i);
                b = sh.layout ? (size_t)i + h : a + 1;
            }
            float oa, ob;
            pc_cache_rotate(1.0f, 0.0f, cr[a], sr[a], cr[b], sr[b], &oa, &ob);
            p->fc[i - p->f0] = (double)oa;
            p->fs[i - p->f0] = (double)ob;
        }
        p->s->fit->row(p->share, p->fc, p->fs);
    }
}

/* ---- a part's read --------------------------------------------------------- */

/* Block [R0, R0 + N) of both files into P. */
static pc_status read_block(scan_part *p, size_t r0, size_t n)
{
    pc_table_scan *s = p->s;
    pc_status st = read_rows(s, s->a, r0, n, p->a, &p->err);
    if (st == PC_OK && s->s) st = read_rows(s, s->s, r0, n, p->sn, &p->err);
    return st;
}

/* The counts of block [R0, R0 + N), read into P. */
static pc_status count_block(scan_part *p, size_t r0, size_t n)
{
    pc_table_scan *s = p->s;
    pc_status st = nonfinite_rows(p, s->a, p->a, r0, n, &p->nf[0]);
    if (st == PC_OK && s->s) st = nonfinite_rows(p, s->s, p->sn, r0, n, &p->nf[1]);
    if (st != PC_OK) return st;
    if (s->widened) {
        off_storage_rows(p, p->a, r0, n, &p->off[0]);
        if (s->s) off_storage_rows(p, p->sn, r0, n, &p->off[1]);
    }
    if (!s->s) {
        if (p->sums && s->cols / 2 > 1) sin_layout_rows(p, p->a, n);
        return PC_OK;
    }
    if (s->cols % 2) return PC_OK;
    for (size_t r = 0; r < n; r++)
        for (int l = 0; l < 2; l++) {
            dup_row(p, l, 0, p->a + r * s->cols, r0 + r, &p->first[l][0]);
            dup_row(p, l, 1, p->sn + r * s->cols, r0 + r, &p->first[l][1]);
        }
    return PC_OK;
}

/* Rows [R0, R1) of the part's share. */
static pc_status part_rows(scan_part *p, size_t r0, size_t r1)
{
    for (size_t b = r0; b < r1; b += p->rows) {
        size_t n = r1 - b < p->rows ? r1 - b : p->rows;
        pc_status st = read_block(p, b, n);
        if (st == PC_OK && p->counts) st = count_block(p, b, n);
        if (st != PC_OK) return st;
        if (p->share) fit_rows(p, p->a, p->sn, n); /* a share of no pair counts rows too */
    }
    return PC_OK;
}

static void *part_run(void *arg)
{
    scan_part *p = arg;
    p->st = part_rows(p, 0, p->s->rows);
    return NULL;
}

static void part_free(scan_part *p)
{
    free(p->a); free(p->sn); free(p->fc); free(p->fs);
    if (p->share) p->s->fit->drop(p->share);
    p->share = NULL;
}

/* Part K of N of the scan (COUNTS: the counts too; the fit's pairs of SH
 * when S->fit): its share and buffers. */
static pc_status part_new(pc_table_scan *s, scan_part *p, int k, int n, int counts,
                          pc_cache_shape sh)
{
    memset(p, 0, sizeof *p);
    p->s = s;
    size_t hd = s->cols / 2, hf = s->fit ? (size_t)shape_pairs(s, sh) : 0;
    size_t uk = (size_t)k, un = (size_t)n;
    p->p0 = hd * uk / un; p->p1 = hd * (uk + 1) / un;
    p->c0 = s->cols * uk / un; p->c1 = s->cols * (uk + 1) / un;
    p->f0 = (int)(hf * uk / un); p->f1 = (int)(hf * (uk + 1) / un);
    p->sums = k == 0;
    p->counts = counts;
    p->sh = sh;
    p->rows = s->cols < SCAN_VALUES ? SCAN_VALUES / s->cols : 1;
    if (p->rows > s->rows) p->rows = s->rows;
    p->a = malloc(p->rows * s->cols * sizeof *p->a);
    p->sn = s->s ? malloc(p->rows * s->cols * sizeof *p->sn) : NULL;
    p->fc = malloc((hf ? hf : 1) * sizeof *p->fc);
    p->fs = malloc((hf ? hf : 1) * sizeof *p->fs);
    int ok = p->a && (!s->s || p->sn) && p->fc && p->fs;
    if (ok && s->fit) ok = (p->share = s->fit->share(p->f1 - p->f0)) != NULL;
    if (!ok) {
        part_free(p);
        return pc_seterr(&p->err, PC_ENOMEM, "%s: out of memory", s->a->path);
    }
    return PC_OK;
}

/* ---- the scan -------------------------------------------------------------- */

/* S->threads, at most one a repeated pair (and SCAN_MAX_THREADS). */
static int scan_threads(const pc_table_scan *s)
{
    int t = s->threads < 1 ? 1 : s->threads;
    if ((size_t)t > s->cols / 2 && s->cols >= 2) t = (int)(s->cols / 2);
    return t < 1 ? 1 : t > SCAN_MAX_THREADS ? SCAN_MAX_THREADS : t;
}

/* Run the N parts, part 0 in this thread (the others' own; a thread that
 * cannot start is run here: the same results). */
static void run_parts(scan_part *parts, int n)
{
    int started[SCAN_MAX_THREADS] = { 0 };
    for (int k = 1; k < n; k++)
        started[k] = pthread_create(&parts[k].tid, NULL, part_run, &parts[k]) == 0;
    part_run(&parts[0]);
    for (int k = 1; k < n; k++) {
        if (started[k]) pthread_join(parts[k].tid, NULL);
        else part_run(&parts[k]);
    }
}

/* Keep FROM if it comes before INTO (row, then pair). */
static void first_of(first_diff *into, const first_diff *from)
{
    if (from->set && (!into->set || from->row < into->row ||
                      (from->row == into->row && from->pair < into->pair)))
        *into = *from;
}

static void nonfinite_of(pc_scan_nonfinite *into, const pc_scan_nonfinite *from)
{
    if (from->count && (!into->count || from->k < into->k)) {
        into->k = from->k;
        into->value = from->value;
    }
    into->count += from->count;
}

/* The parts' counts into S (sums: part 0's, in row order). */
static void join_counts(pc_table_scan *s, const scan_part *parts, int n)
{
    first_diff first[2][2];
    memset(first, 0, sizeof first);
    for (int k = 0; k < n; k++) {
        const scan_part *p = &parts[k];
        for (int f = 0; f < 2; f++) {
            nonfinite_of(&s->nf[f], &p->nf[f]);
            nonfinite_of(&s->off[f], &p->off[f]);
        }
        for (int l = 0; l < 2; l++) {
            s->bad[l] += p->bad[l];
            s->loose[l] |= p->loose[l];
            first_of(&first[l][0], &p->first[l][0]);
            first_of(&first[l][1], &p->first[l][1]);
        }
    }
    s->e[0] = parts[0].e[0];
    s->e[1] = parts[0].e[1];
    s->used = parts[0].used;
    for (int l = 0; l < 2; l++)
        snprintf(s->first[l], sizeof s->first[l], "%s",
                 first[l][0].set ? first[l][0].text : first[l][1].text);
}

/* The parts' shares of the fit (taken from them) joined and ended into
 * S's results. */
static void join_fit(pc_table_scan *s, scan_part *parts, int n, pc_cache_shape sh)
{
    void *shares[SCAN_MAX_THREADS];
    for (int k = 0; k < n; k++) {
        shares[k] = parts[k].share;
        parts[k].share = NULL;
    }
    s->fit_shape = sh;
    s->fit_ok = s->fit->end(shares, n, 2 * shape_pairs(s, sh), s->fit_u_s, &s->fit_base,
                            &s->fit_raw);
}

/* One pass of N parts (COUNTS: with the counts; the fit as SH); their
 * first error into ERR. */
static pc_status pass(pc_table_scan *s, scan_part *parts, int n, int counts, pc_cache_shape sh,
                      pc_err *err)
{
    pc_status st = PC_OK;
    int made = 0;
    for (; made < n && st == PC_OK; made++) {
        st = part_new(s, &parts[made], made, n, counts, sh);
        if (st != PC_OK) *err = parts[made].err;
    }
    if (st != PC_OK) made--;
    if (st == PC_OK) {
        run_parts(parts, n);
        for (int k = 0; k < n && st == PC_OK; k++)
            if ((st = parts[k].st) != PC_OK) *err = parts[k].err;
    }
    if (st == PC_OK && counts) join_counts(s, parts, n);
    if (st == PC_OK && s->fit) join_fit(s, parts, n, sh);
    for (int k = 0; k < made; k++) part_free(&parts[k]);
    return st;
}

/* The shape the counts of the first block choose: its counts alone. */
static pc_status first_guess(pc_table_scan *s, pc_cache_shape *sh, pc_err *err)
{
    scan_part p;
    pc_cache_shape none = { 0, 1 };
    const pc_points_fit *fit = s->fit;
    s->fit = NULL;
    pc_status st = part_new(s, &p, 0, 1, 1, none);
    s->fit = fit;
    if (st != PC_OK) { *err = p.err; return st; }
    st = part_rows(&p, 0, p.rows);
    if (st != PC_OK) *err = p.err;
    else s->choose(s->choose_ctx, p.bad, 2 * p.rows * (s->cols / 2), sh);
    part_free(&p);
    return st;
}

static int same_shape(pc_cache_shape x, pc_cache_shape y)
{
    return x.full == y.full && (!x.full || x.layout == y.layout);
}

pc_status pc_table_scan_run(pc_table_scan *s, pc_err *err)
{
    memset(s->nf, 0, sizeof s->nf);
    s->bad[0] = s->bad[1] = 0;
    s->loose[0] = s->loose[1] = 0;
    s->e[0] = s->e[1] = 0.0;
    s->used = 0;
    s->first[0][0] = s->first[1][0] = '\0';
    s->fit_ok = 0;
    s->reads = 1;
    scan_part parts[SCAN_MAX_THREADS];
    int n = scan_threads(s);
    pc_cache_shape sh = { 0, 1 };
    pc_status st = s->fit ? first_guess(s, &sh, err) : PC_OK;
    if (st == PC_OK) st = pass(s, parts, n, 1, sh, err);
    if (!s->s || s->cols % 2) s->bad[0] = s->bad[1] = SIZE_MAX;
    if (st != PC_OK || !s->fit) return st;
    pc_cache_shape last;
    s->choose(s->choose_ctx, s->bad, 2 * s->rows * (s->cols / 2), &last);
    if (same_shape(last, sh)) return PC_OK;
    /* the first rows chose another layout than all of them: the fit again */
    s->reads = 2;
    return pass(s, parts, n, 0, last, err);
}

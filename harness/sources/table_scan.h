/* table_scan.h: what pc_table_open learns of a .npy table in one read of
 * its rows (table_scan.c), block by block, in memory that does not grow
 * with the table:
 *   - its NaN and Inf values (the count, the first in row order);
 *   - a RoPE cache pair: for each layout, the repeated columns (j and
 *     j + c/2, or 2i and 2i + 1) that differ;
 *   - a sinusoidal table: how well columns (0, 1) and (0, c/2) hold sin and
 *     cos of one angle (the layout);
 *   - a RoPE cache pair: the points the base's fit reads (its family's
 *     pc_points_fit, families/family.h), the rotation of (1, 0) in every
 *     pair as the table's hook computes it, for the layout the counts
 *     choose.  The layout is chosen from the first block's counts, then
 *     from all of them: when the two differ (a table whose first rows fit
 *     another layout), the fit is made again from a second read.
 * The threads share the work by pairs (and columns); what they count is
 * joined in a fixed order, so the results do not depend on their number. */
#ifndef PECHECK_TABLE_SCAN_H
#define PECHECK_TABLE_SCAN_H

#include <stddef.h>
#include <stdint.h>
#include "harness/io/npy.h"
#include "harness/base/status.h"
#include "families/family.h"

#define SCAN_MAX_THREADS 16

/* How a RoPE cache of C columns is read (table.h): FULL (n, d), or one
 * column per pair (n, d/2); LAYOUT of the full one (0 interleaved, 1 half;
 * -1 either, for an (n, d/2) one). */
typedef struct pc_cache_shape {
    int full;
    int layout;
} pc_cache_shape;

/* The rotation of X = (x_a, x_b) by a pair's cached (cos, sin) in
 * binary32, as the framework does (table.h):
 *   out_a = x_a cos_a - x_b sin_a,  out_b = x_b cos_b + x_a sin_b. */
static inline void pc_cache_rotate(float xa, float xb, float cos_a, float sin_a, float cos_b,
                                   float sin_b, float *oa, float *ob)
{
    float pa = xa * cos_a, qa = xb * sin_a;
    float pb = xb * cos_b, qb = xa * sin_b;
    *oa = pa - qa;
    *ob = pb + qb;
}

/* The first value out of line in a scan: its place and value. */
typedef struct pc_scan_nonfinite {
    uint64_t count;
    size_t k;                 /* of the first: row-major index */
    double value;             /* as read, before rounding to binary32 */
} pc_scan_nonfinite;

typedef struct pc_table_scan {
    /* in */
    const pc_npy_file *a, *s; /* the table (cos); the sin cache or NULL */
    size_t rows, cols;
    int bf16;                 /* values are bfloat16 bit patterns (<u2) */
    const int *blocks;        /* the columns in blocks of these widths, each a half layout
                               * of its own (pc_table_unblock); N_BLOCKS 0: none */
    int n_blocks;
    int dtype;                /* the storage (enum pc_dtype): the 2-ulp tolerance */
    int widened;              /* 1: the values are said to be DTYPE's (bf16, f16) widened
                               * to float32 (--dtype on a <f4 table): count those that
                               * are not (OFF) */
    int64_t pos_lo;
    /* the cache's shape from counts: BAD[l] the repeated column pairs
     * that differ under layout l (SIZE_MAX: c odd), of PAIRS compared */
    void (*choose)(const void *ctx, const size_t bad[2], size_t pairs, pc_cache_shape *out);
    const void *choose_ctx;
    const pc_points_fit *fit; /* the base's fit (a RoPE cache pair; NULL: none) */
    int threads;              /* threads sharing the work (at most SCAN_MAX_THREADS and
                               * one a repeated pair): the same results for any */
    double fit_u_s;           /* the storage's unit, the fit's argument */
    /* out */
    pc_scan_nonfinite nf[2];  /* of A and of S */
    pc_scan_nonfinite off[2]; /* WIDENED: finite values DTYPE cannot hold, of A and of S */
    size_t bad[2];            /* RoPE, c even: per layout; else SIZE_MAX */
    int loose[2];             /* some repeated pair agrees only within 2 ulps */
    char first[2][200];       /* the first that differs, per layout */
    double e[2];              /* sinusoidal: mean |sin^2+cos^2-1| of (0, 1), (0, c/2) */
    size_t used;              /* sinusoidal: rows with those three values finite */
    pc_cache_shape fit_shape; /* what the fit read */
    int fit_ok;               /* the fit's end: a clean geometric base in FIT_RAW */
    double fit_base, fit_raw; /* rounded as a config says it (NaN: not round), and as fitted */
    int reads;                /* reads of the rows (1, or 2 when the fit was made again) */
} pc_table_scan;

/* Read S->a (and S->s) once and fill the outputs; errors of the reads
 * (PC_EINPUT, PC_EIO naming the file) or PC_ENOMEM. */
pc_status pc_table_scan_run(pc_table_scan *s, pc_err *err);

/* ROWS rows of COLS values in V, whose columns are N_BLOCKS blocks of the
 * widths BLOCKS (summing to COLS), each block the half layout of its own
 * pairs (pair m of a block of w columns at m and w/2 + m: ChatGLM-6B's
 * 2-D RoPE, one rotate_half per position axis), put in place in the half
 * layout of the whole width: the blocks' pairs in turn, pair i at i and
 * COLS/2 + i.  0, or -1 when out of memory (V unchanged). */
int pc_table_unblock(float *v, size_t rows, size_t cols, const int *blocks, int n_blocks);

/* Bits of bfloat16 values, read as the integers they are (<u2), to the
 * values, in place (exact: bfloat16 is binary32's top half). */
void pc_bf16_decode(float *v, size_t n);

#endif

/* table.h: a positional-encoding table saved as .npy, as an implementation
 * under test.
 *
 *   sinusoidal: PE.npy of shape (n, d): row r is position P + r
 *               (P = --pos-start); the hook serves those rows and declines
 *               any other position, d or layout.
 *   rope:       COS.npy and SIN.npy of the same shape, (n, d/2) (one column
 *               per pair: either layout) or (n, d) (the framework caches
 *               that repeat the frequencies: cat(freqs, freqs) for the half
 *               layout, repeat_interleave for the interleaved one).  The
 *               hook rotates the engine's X with the cached values in
 *               binary32, as the framework does:
 *                 out_a = x_a cos_a - x_b sin_a,  out_b = x_b cos_b + x_a sin_b
 *               for each pair (a, b) of the layout.
 *   learned:    E.npy of shape (max_len, d): row r is position r (a lookup
 *               table, nn.Embedding's weight); the hook serves those rows
 *               and rejects any other position without writing OUT.
 *
 * d comes from the table's shape (an error when it contradicts --d); the
 * gate's position range is exactly the table's rows (pc_table_info).  The
 * values are converted exactly by the .npy reader and rounded to binary32
 * (exact for <f4 and <f2 tables).
 *
 * A table is not held in memory: pc_table_open reads its rows once
 * (table_scan.h: NaN/Inf, the layout, a RoPE cache's base) and the hooks
 * read the rows they serve from the file (a pipe's bytes, which come only
 * once, are kept: npy.h), so memory does not grow with the table. */
#ifndef PECHECK_TABLE_H
#define PECHECK_TABLE_H

#include <stdint.h>
#include "harness/sandbox/impl.h"
#include "harness/base/status.h"
#include "harness/base/dtype.h"

typedef struct pc_table_info {
    const char *family;       /* a family with PC_FAM_TABLES (families/family.h) */
    const char *path, *sin_path;
    int d;
    int64_t pos_lo, pos_hi;   /* positions of the first and last row */
    int layout;               /* 0, 1, or -1: either (a (n, d/2) RoPE cache) */
    char layout_note[400];    /* how the layout was found */
    int full_width;           /* RoPE: (n, d) cache */
    int pair_swapped;         /* sinusoidal: read with each pair's members swapped
                               * (pc_table_args.pair_swap) */
    /* storage: the type the values are stored in (enum pc_dtype): <f2 is
     * float16, <u2 bfloat16 bit patterns (--dtype bf16), <f4 float32 or,
     * with --dtype bf16/f16, a half-precision cache widened to float32 */
    int dtype;
    int file_f64;             /* a <f8 file: its values rounded to binary32 on reading */
    char dtype_note[160];
    int dup_within;           /* RoPE (n, d): repeated column pairs equal only within 2 ulps */
    /* RoPE: the base the table's frequencies fit (families/rope/fit.h):
     * used when no base was given (BASE_FITTED), else compared with it */
    double base;
    int base_fitted;
    char base_note[200];
    /* the first NaN or Inf in the table(s), in row order */
    int nonfinite;            /* count */
    int64_t nf_pos;
    int nf_col;
    double nf_val;
    const char *nf_file;
    /* RoPE (n, d) caches: columns that must repeat but differ */
    int dup_mismatch;         /* count of mismatching column pairs (over rows) */
    char dup_note[256];       /* the first: row, columns, values */
    int other_layout_fits;    /* the layout given contradicts the columns, and every
                               * repeated column pair of the other layout is equal */
} pc_table_info;

/* The accuracy gate's settings a table fixes: d, positions, storage. */
struct pc_acc_cfg;
void pc_table_adjust_cfg(const pc_table_info *t, struct pc_acc_cfg *cfg);

/* What a table is opened with: the encoding options of its family's spec
 * (families/spec.h) and the run's storage options. */
typedef struct pc_table_args {
    int d, d_set;             /* --d: must agree with the shape */
    int layout;               /* --layout (-1: detected) */
    const char *layout_from;  /* where LAYOUT came from, NULL or "": --layout */
    int64_t id_rows;          /* the family's position ids' rows (the spec's ROWS; 0: none):
                               * a table has one row per row of ids */
    int pair_swap;            /* the rows store each pair's second member first (the
                               * family's spec, pc_spec.pair_swap): swapped on reading */
    double base;              /* the spec's base */
    int base_set;             /* --base given (else a base is fitted) */
    int scheduled;            /* the spec has its own schedule (its base is the schedule's) */
    int assume_fitted;        /* --assume-fitted: the fitted base whatever its digits */
    int64_t pos_start;        /* --pos-start: the position of the first row */
    int dtype, dtype_set;     /* --dtype */
    int threads;              /* --threads: for the read at open (0: every core) */
    const int *col_blocks;    /* an (n, d) RoPE cache's columns in blocks, each the half
                               * layout of its own pairs (the family's spec, pc_spec.col_blocks):
                               * put in the half layout of the whole width on reading */
    int n_col_blocks;
} pc_table_args;

/* Open a table (FAMILY a table family; SIN_PATH for a cache pair) with O.
 * PC_EINPUT with a message naming the file on any defect of the files or
 * a contradiction with the options. */
pc_status pc_table_open(const pc_table_args *o, const char *path, const char *sin_path,
                        const char *family, pc_impl **out, pc_err *err);
void pc_table_close(pc_impl *impl);

/* The first read of IMPL's files that failed in a hook's call (a file
 * cut short or unreadable after it was opened; the hook returned nonzero):
 * its status (PC_EINPUT, PC_EIO, PC_ENOMEM) and message in ERR.  PC_OK
 * when none failed or IMPL is not a table. */
pc_status pc_table_status(const pc_impl *impl, pc_err *err);

/* IMPL's column blocks (pc_table_args.col_blocks) into BLOCKS (room for
 * PC_SPEC_BLOCKS_MAX): their count, 0 when its columns are read as they
 * are or IMPL is not a table. */
int pc_table_blocks(const pc_impl *impl, int *blocks);
/* Read IMPL's columns from now on in the N_BLOCKS blocks BLOCKS (0: as
 * they are): a likely cause re-reading a cache in another column layout,
 * once the check is over (no call of IMPL's hooks may run meanwhile).  0,
 * or -1 (nothing changed) when IMPL is no (n, d) RoPE cache whose width
 * the blocks sum to. */
int pc_table_set_blocks(const pc_impl *impl, const int *blocks, int n_blocks);
/* Read IMPL, a RoPE cache of C columns, from now on as an (n, C) cache
 * (d = C, layout half) whose columns are the N_BLOCKS blocks BLOCKS (even,
 * summing to C), each the half layout of its own pairs, whatever shape
 * its open found (an (n, d/2) one: no layout of the whole width repeats
 * ChatGLM-6B's columns); N_BLOCKS 0: back to the shape found at open.
 * For identify, which tries the blocks as a hypothesis (no call of IMPL's
 * hooks may run meanwhile).  0, or -1 (nothing changed). */
int pc_table_read_blocked(const pc_impl *impl, const int *blocks, int n_blocks);
/* Read IMPL's rows from now on as those of positions LO.. (the first row
 * at LO; 0, or -1 (nothing changed) when IMPL is no table or the rows would
 * pass 2^53): identify's gate of a table whose rows it places at a whole
 * offset from the --pos-start given, run at the positions check_args name
 * and put back once it is over (no other call of IMPL's hooks meanwhile). */
int pc_table_set_pos_start(const pc_impl *impl, int64_t lo);
/* The file's own column of IMPL's column COL as pecheck reads it (the half
 * layout of the whole width, pc_table_unblock): COL itself unless the
 * table is read in blocks (each axis' dims a half layout of their own). */
int pc_table_file_column(const pc_impl *impl, int col);

/* The table behind IMPL, or NULL when IMPL is not a table. */
const pc_table_info *pc_table_info_of(const pc_impl *impl);

#endif

/* npy.h: read and write NumPy .npy files holding float tables.
 *
 * pecheck reads reference and exported positional-encoding tables from .npy
 * files (format spec: numpy.lib.format, versions 1.0, 2.0 and 3.0).  Only
 * what a PE table can be is accepted: a little-endian, C-order array of
 * float16, float32 or float64 with rank 1, 2 or 3 (rank 3 for RoPE tables
 * laid out as (n, d/2, 2)) and no zero dimension, and int64 arrays of
 * integers within 2^53 (RoPE position ids).  Everything else is
 * rejected with PC_EINPUT and a one-line message that names the defect.
 *
 * Values are converted to double EXACTLY: every binary16, binary32 and
 * binary64 value, subnormals, infinities and signed zeros included, is a
 * binary64 value.  NaN and Inf are NOT rejected here: the caller reports
 * them.  (A float32 signalling NaN comes back quiet; a float16 NaN keeps
 * its payload, shifted into the top of the double's significand.)
 *
 * Byte order: '<' is little-endian.  '=' (native) is read as little-endian,
 * which is what it means on the little-endian hosts pecheck supports, and
 * is reported as '<' in pc_npy.dtype.  '>' (big-endian) is rejected, and
 * so is '|' ("not applicable"), which numpy never writes for floats. */
#ifndef PECHECK_NPY_H
#define PECHECK_NPY_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "output.h"
#include "harness/base/status.h"

/* Limits */
#define PC_NPY_MAX_RANK 3
/* The largest header length accepted: 65535 * 16 bytes.  numpy's reader
 * (numpy/lib/format.py, _MAX_HEADER_SIZE in 1.24) stops at 10000 by
 * default; 65535*16 leaves room for any header a writer could mean, while
 * a corrupt length field cannot make us parse megabytes. */
#define PC_NPY_MAX_HEADER ((size_t)65535 * 16)
/* Largest .npy read from a pipe or device (its size is not known up front):
 * 1 GiB, a d = 8192 binary32 table of 32768 positions; larger tables are
 * read from regular files, whose size bounds the read. */
#define PC_NPY_STREAM_MAX ((size_t)1 << 30)

/* An array read from a .npy file. */
typedef struct pc_npy {
    int     rank;          /* 1, 2 or 3 */
    size_t  shape[3];      /* dimensions, row-major; unused dims = 1 */
    size_t  count;         /* product of shape */
    char    dtype[4];      /* "<f2", "<f4", "<f8", "<u2" or "<i8" ('=' reads as '<');
                              "<u2": 16-bit patterns, DATA holds the integers;
                              "<i8": integers of magnitude <= 2^53 (others refused);
                              "<i2", "<i4": pc_npy_read_numbers only */
    double *data;          /* COUNT values, row-major, converted exactly;
                              malloc'd, released by pc_npy_free */
} pc_npy;

/* Reading */

/* Parse the .npy file held in BUF[0..LEN).  On success returns PC_OK and
 * fills OUT; otherwise returns PC_EINPUT (a defect in the bytes),
 * PC_ENOMEM or PC_EINTERNAL (a NULL OUT), leaves OUT empty (data NULL, safe
 * to pc_npy_free) and writes a one-line message without a path to ERR
 * (which may be NULL).  BUF may be NULL when LEN is 0.  Never reads outside
 * BUF[0..LEN), whatever the bytes. */
pc_status pc_npy_parse(const unsigned char *buf, size_t len, pc_npy *out, pc_err *err);

/* Read and parse the file at PATH.  Errors as pc_npy_parse, the message
 * prefixed with "PATH: ".  A path that cannot be opened or read, or is a
 * directory, gives PC_EIO; an empty file gives PC_EINPUT. */
pc_status pc_npy_read(const char *path, pc_npy *out, pc_err *err);

/* The same for a table of numbers that may be integers: also '<i2',
 * '<i4' and '<i8' (dtype "<iN"), every value exactly a double (|v| <=
 * 2^53, else PC_EINPUT).  For tables of integers (T5 buckets). */
pc_status pc_npy_parse_numbers(const unsigned char *buf, size_t len, pc_npy *out, pc_err *err);
pc_status pc_npy_read_numbers(const char *path, pc_npy *out, pc_err *err);

/* Release A's data and reset A to empty.  A may be NULL. */
void      pc_npy_free(pc_npy *a);

/* Reading in pieces: a table's values are read when they are used, so
 * that memory does not grow with the file.  pc_npy_file_open reads and
 * checks the header (every check of pc_npy_read, the values' length
 * against the file's size included, with the same messages); a regular
 * file stays open and its values are read with pread, by any number of
 * threads at once; a pipe or device (whose bytes come once) is read whole
 * at open, up to PC_NPY_STREAM_MAX.  pc_npy_file_f64 converts values
 * V0 .. V0+N-1 (row-major) exactly, as pc_npy_read does;
 * pc_npy_file_f32 rounds them to binary32 (exact for <f2, <f4 and <u2; a
 * <f4 signalling NaN comes back quiet, as through binary64).  A file cut
 * short after it was opened gives PC_EINPUT, a failed read PC_EIO, each
 * naming the file; values outside the array, PC_EINTERNAL. */
typedef struct pc_npy_file {
    int     rank;
    size_t  shape[3];      /* as pc_npy */
    size_t  count;
    char    dtype[4];
    size_t  itemsize;      /* 2, 4 or 8 */
    size_t  off;           /* the values' first byte */
    char   *path;
    FILE   *in;            /* a regular file (fd its descriptor), or NULL */
    int     fd;
    unsigned char *mem;    /* else the whole stream (mem_len bytes) */
    size_t  mem_len;
} pc_npy_file;

pc_status pc_npy_file_open(const char *path, pc_npy_file *f, pc_err *err);
pc_status pc_npy_file_f64(const pc_npy_file *f, size_t v0, size_t n, double *out, pc_err *err);
pc_status pc_npy_file_f32(const pc_npy_file *f, size_t v0, size_t n, float *out, pc_err *err);
/* Close F (safe on a closed or zeroed one). */
void      pc_npy_file_close(pc_npy_file *f);

/* Writing */

/* Write DATA (RANK dims given by SHAPE[0..RANK), row-major) to PATH as a
 * little-endian, C-order .npy file of '<f4' or '<f8': version 1.0, or 2.0
 * only if the header does not fit a 2-byte length (never for rank <= 3).
 * The header is padded so the data starts at a multiple of 64 bytes, as
 * numpy does.  The bytes go to PATH.tmp.<pid>, which is then renamed to
 * PATH, so a failed write never leaves a partial file at PATH.
 * RANK must be 1..3 and every dimension at least 1 (what the reader
 * accepts); otherwise PC_EINPUT.  File errors give PC_EIO. */
pc_status pc_npy_write_f32(const char *path, const float *data, int rank,
                           const size_t *shape, pc_err *err);
pc_status pc_npy_write_f64(const char *path, const double *data, int rank,
                           const size_t *shape, pc_err *err);

/* Streaming: the header first, then the values in row-major order as
 * little-endian bytes, in pieces as they are ready; nothing is held.
 * pc_npy_out_open takes DESCR "<f2", "<f4", "<f8" or "<u2" (bfloat16 bit
 * patterns, as the reader takes them with --dtype bf16), checks RANK and
 * SHAPE as above and writes the header to PATH's temporary (output.h).
 * pc_npy_out_write appends LEN bytes: PC_EWRITE once a write failed,
 * PC_EINTERNAL past the announced size.  pc_npy_out_close with COMMIT
 * renames the temporary over PATH, only when every byte the header
 * announced was written (else PC_EINTERNAL, the temporary removed);
 * without COMMIT it removes the temporary. */
typedef struct pc_npy_out {
    pc_out out;
    size_t data_off; /* the header's length: where the values start */
    int seekable;  /* a regular file: pc_npy_out_pwrite may be used */
    size_t left;   /* bytes still to write */
    int ok;        /* every write so far succeeded */
    int eno;       /* else the errno of the first that did not */
    int over;      /* a write went past the announced size */
} pc_npy_out;

pc_status pc_npy_out_open(pc_npy_out *w, const char *path, const char *descr, int rank,
                          const size_t *shape, pc_err *err);
pc_status pc_npy_out_write(pc_npy_out *w, const void *bytes, size_t len);
pc_status pc_npy_out_close(pc_npy_out *w, int commit, pc_err *err);
/* A SEEKABLE output may instead be written in pieces in any order, from
 * several threads at once: pc_npy_out_pwrite writes LEN bytes at byte OFF
 * of the values (PC_EWRITE with the errno in *ENO if it could not), and
 * touches nothing shared; the caller then counts them with
 * pc_npy_out_wrote, one thread at a time. */
pc_status pc_npy_out_pwrite(pc_npy_out *w, const void *bytes, size_t len, uint64_t off, int *eno);
void pc_npy_out_wrote(pc_npy_out *w, size_t len);

#endif

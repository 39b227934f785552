/* npy.c: NumPy .npy reader and writer (see npy.h).
 *
 * File layout (numpy.lib.format):
 *   bytes 0..5   magic "\x93NUMPY"
 *   byte  6, 7   major, minor version: 1.0, 2.0 or 3.0
 *   then         header length HLEN: 2 bytes LE (1.0) or 4 bytes LE (2.0, 3.0)
 *   then         HLEN bytes of header: a Python dict literal
 *                {'descr': '<f4', 'fortran_order': False, 'shape': (5000, 64), }
 *                padded with spaces and ended by '\n' (latin-1 in 1.0/2.0,
 *                utf-8 in 3.0; only ASCII matters to us, see parse_header)
 *   then         the array bytes, exactly count * itemsize of them.
 *
 * The reader never trusts a length: every read is checked against the
 * buffer's end before it happens, and every size product is checked for
 * size_t overflow before it is formed. */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* fileno, fsync, getpid, pwrite; sync_file_range (Linux) */
#endif
#include <fcntl.h>

#include "input.h"
#include "npy.h"
#include "output.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <unistd.h>
#include "ACSL/harness.acsl" /* ACSL predicates: comments only */

static const unsigned char npy_magic[6] = { 0x93, 'N', 'U', 'M', 'P', 'Y' };

/* Dims kept for messages; a header may list more (rank > 3 is rejected,
 * but the message still says how many there were). */
#define NPY_MSG_DIMS 8

/* ------------------------------------------------------------------ */
/* Message helpers                                                      */
/* ------------------------------------------------------------------ */

/* Copy S[0..N) into DST (DSTSZ >= 8 bytes) so that it can sit inside a
 * one-line message: bytes outside printable ASCII, and backslashes, become
 * \xNN; a string that does not fit ends with "...". */
static void printable(char *dst, size_t dstsz, const unsigned char *s, size_t n)
{
    size_t o = 0;
    for (size_t i = 0; i < n; i++) {
        unsigned c = s[i];
        size_t need = (c >= 0x20 && c < 0x7f && c != '\\') ? 1 : 4;
        if (o + need + 4 > dstsz) {     /* keep room for "..." and NUL */
            memcpy(dst + o, "...", 3);
            o += 3;
            break;
        }
        if (need == 1)
            dst[o++] = (char)c;
        else {
            snprintf(dst + o, 5, "\\x%02x", c);
            o += 4;
        }
    }
    dst[o] = '\0';
}

/* Python's spelling of a shape tuple: "()", "(5000,)", "(2, 3)".  NDIMS is
 * how many dims the header had, of which min(NDIMS, NPY_MSG_DIMS) are in
 * DIMS. */
static void fmt_shape(char *dst, size_t dstsz, const size_t *dims, size_t ndims)
{
    size_t o = 0;
    size_t shown = ndims < NPY_MSG_DIMS ? ndims : NPY_MSG_DIMS;
    int n = snprintf(dst, dstsz, "(");
    o = (size_t)n;
    for (size_t i = 0; i < shown && o < dstsz; i++) {
        n = snprintf(dst + o, dstsz - o, "%s%zu", i ? ", " : "", dims[i]);
        if (n < 0)
            break;
        o += (size_t)n;
    }
    if (o < dstsz) {
        if (ndims > shown)
            snprintf(dst + o, dstsz - o, ", ... %zu dims)", ndims);
        else
            snprintf(dst + o, dstsz - o, ndims == 1 ? ",)" : ")");
    }
}

/* ------------------------------------------------------------------ */
/* Header dict parser                                                   */
/* ------------------------------------------------------------------ */

/* What the header says. */
typedef struct npy_header {
    int have_descr, have_fortran, have_shape;
    char dtype[4];                 /* canonical "<fN" once descr is accepted */
    size_t itemsize;               /* 2, 4 or 8 */
    int fortran;
    size_t ndims;                  /* entries in the shape tuple */
    size_t dims[NPY_MSG_DIMS];     /* the first NPY_MSG_DIMS of them */
} npy_header;

typedef struct hparse {
    const unsigned char *begin, *p, *end;
    pc_err *err;
} hparse;

static int is_space(unsigned c)
{
    return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

static void skip_ws(hparse *h)
{
    while (h->p < h->end && is_space(*h->p))
        h->p++;
}

/* "malformed header: expected WHAT at byte N (near '...')" */
static pc_status syntax(hparse *h, const char *what)
{
    char near[40];
    size_t left = (size_t)(h->end - h->p);
    if (left == 0)
        return pc_seterr(h->err, PC_EINPUT,
                         "malformed header: expected %s at byte %zu (end of header)",
                         what, (size_t)(h->p - h->begin));
    printable(near, sizeof near, h->p, left < 16 ? left : 16);
    return pc_seterr(h->err, PC_EINPUT,
                     "malformed header: expected %s at byte %zu (near '%s')",
                     what, (size_t)(h->p - h->begin), near);
}

/* A Python string literal without escapes: '...' or "...".  The header
 * strings numpy writes ('descr', '<f4', ...) never need escapes. */
static pc_status parse_str(hparse *h, const unsigned char **s, size_t *n, const char *what)
{
    if (h->p == h->end || (*h->p != '\'' && *h->p != '"'))
        return syntax(h, what);
    unsigned char q = *h->p;
    const unsigned char *start = h->p + 1;
    const unsigned char *e = start;
    while (e < h->end && *e != q && *e != '\n') {
        if (*e == '\\') {
            h->p = e;
            return syntax(h, "a string without escapes");
        }
        e++;
    }
    if (e == h->end || *e == '\n') {
        h->p = e;
        return syntax(h, "the closing quote of a string");
    }
    *s = start;
    *n = (size_t)(e - start);
    h->p = e + 1;
    return PC_OK;
}

static int str_is(const unsigned char *s, size_t n, const char *lit)
{
    return strlen(lit) == n && memcmp(s, lit, n) == 0;
}

/* descr: a string such as '<f4'.  Accepts '<f2', '<f4', '<f8' and the same
 * with '=' (native order: little-endian on every host pecheck supports). */
static pc_status parse_descr(hparse *h, npy_header *hd)
{
    const unsigned char *s;
    size_t n;
    char shown[40];
    pc_status st;

    if (h->p < h->end && (*h->p == '[' || *h->p == '{'))
        return pc_seterr(h->err, PC_EINPUT,
                         "unsupported dtype: structured (record) dtype "
                         "(expected <f2, <f4 or <f8)");
    if ((st = parse_str(h, &s, &n, "a dtype string after 'descr':")) != PC_OK)
        return st;
    printable(shown, sizeof shown, s, n);
    if (n == 3 && (s[0] == '<' || s[0] == '=') && s[1] == 'f'
        && (s[2] == '2' || s[2] == '4' || s[2] == '8')) {
        hd->dtype[0] = '<';
        hd->dtype[1] = 'f';
        hd->dtype[2] = (char)s[2];
        hd->dtype[3] = '\0';
        hd->itemsize = (size_t)(s[2] - '0');
        return PC_OK;
    }
    /* '<u2': 16-bit patterns (bfloat16 caches saved as their bits); the
     * values are the integers, the caller decodes them (--dtype bf16) */
    if (n == 3 && (s[0] == '<' || s[0] == '=') && s[1] == 'u' && s[2] == '2') {
        memcpy(hd->dtype, "<u2", 4);
        hd->itemsize = 2;
        return PC_OK;
    }
    /* '<i2', '<i4', '<i8': integers (T5 bucket tables), accepted by
     * pc_npy_read_numbers (pc_npy_parse_numbers); '<i8' also by the other
     * readers (RoPE position ids).  A value is converted exactly when
     * |v| <= 2^53, else the file is refused (ints) */
    if (n == 3 && (s[0] == '<' || s[0] == '=') && s[1] == 'i'
        && (s[2] == '2' || s[2] == '4' || s[2] == '8')) {
        hd->dtype[0] = '<';
        hd->dtype[1] = 'i';
        hd->dtype[2] = (char)s[2];
        hd->dtype[3] = '\0';
        hd->itemsize = (size_t)(s[2] - '0');
        return PC_OK;
    }
    if (n == 3 && s[0] == '>' && s[1] == 'f')
        return pc_seterr(h->err, PC_EINPUT,
                         "unsupported dtype '%s': big-endian data is not supported "
                         "(expected <f2, <f4 or <f8)", shown);
    if (n == 3 && s[0] == '|' && s[1] == 'f')
        return pc_seterr(h->err, PC_EINPUT,
                         "unsupported dtype '%s': byte order '|' is not valid for floats "
                         "(expected <f2, <f4 or <f8)", shown);
    return pc_seterr(h->err, PC_EINPUT,
                     "unsupported dtype '%s' (expected <f2, <f4 or <f8)", shown);
}

/* fortran_order: True or False (numpy requires a bool). */
static pc_status parse_fortran(hparse *h, npy_header *hd)
{
    const unsigned char *s = h->p;
    while (h->p < h->end && ((*h->p >= 'A' && *h->p <= 'Z') || (*h->p >= 'a' && *h->p <= 'z')
                             || (*h->p >= '0' && *h->p <= '9') || *h->p == '_'))
        h->p++;
    size_t n = (size_t)(h->p - s);
    if (str_is(s, n, "True"))
        hd->fortran = 1;
    else if (str_is(s, n, "False"))
        hd->fortran = 0;
    else {
        h->p = s;
        return syntax(h, "True or False after 'fortran_order':");
    }
    return PC_OK;
}

/* shape: a tuple of non-negative ints: (), (5000,), (2, 3), (2, 3,).
 * "(5)" is an int in Python, not a tuple, and is rejected as numpy does.
 * A Python 2 long suffix ("5L") is accepted; old numpy wrote it. */
static pc_status parse_shape(hparse *h, npy_header *hd)
{
    int comma = 0;
    if (h->p == h->end || *h->p != '(')
        return syntax(h, "a tuple '(...)' after 'shape':");
    h->p++;
    skip_ws(h);
    hd->ndims = 0;
    while (h->p < h->end && *h->p != ')') {
        if (*h->p == '-')
            return pc_seterr(h->err, PC_EINPUT,
                             "negative dimension in shape (dim %zu)", hd->ndims);
        if (*h->p < '0' || *h->p > '9')
            return syntax(h, "a dimension (a non-negative integer) in 'shape'");
        const unsigned char *digits = h->p;
        size_t v = 0;
        while (h->p < h->end && *h->p >= '0' && *h->p <= '9') {
            size_t d = (size_t)(*h->p - '0');
            if (v > (SIZE_MAX - d) / 10) {
                char shown[40];
                const unsigned char *e = h->p;
                while (e < h->end && *e >= '0' && *e <= '9')
                    e++;
                printable(shown, sizeof shown, digits, (size_t)(e - digits));
                return pc_seterr(h->err, PC_EINPUT,
                                 "dimension %zu of shape (%s) overflows size_t",
                                 hd->ndims, shown);
            }
            v = v * 10 + d;
            h->p++;
        }
        if (h->p < h->end && (*h->p == 'L' || *h->p == 'l'))
            h->p++;
        if (hd->ndims < NPY_MSG_DIMS)
            hd->dims[hd->ndims] = v;
        hd->ndims++;
        skip_ws(h);
        if (h->p < h->end && *h->p == ',') {
            comma = 1;
            h->p++;
            skip_ws(h);
        } else if (h->p < h->end && *h->p != ')')
            return syntax(h, "',' or ')' in 'shape'");
    }
    if (h->p == h->end)
        return syntax(h, "')' closing 'shape'");
    h->p++;
    if (hd->ndims == 1 && !comma)
        return pc_seterr(h->err, PC_EINPUT,
                         "malformed header: shape (%zu) is not a tuple (write (%zu,))",
                         hd->dims[0], hd->dims[0]);
    return PC_OK;
}

/* The dict: '{' then key: value pairs in any order, separated by commas,
 * optional trailing comma, '}' and only whitespace after it.  Exactly the
 * keys 'descr', 'fortran_order' and 'shape', each once. */
static pc_status parse_header(const unsigned char *b, size_t n, npy_header *hd, pc_err *err)
{
    hparse h = { b, b, b + n, err };
    pc_status st;

    memset(hd, 0, sizeof *hd);
    skip_ws(&h);
    if (h.p == h.end || *h.p != '{')
        return syntax(&h, "'{' opening the header dict");
    h.p++;
    for (;;) {
        const unsigned char *k;
        size_t kn;
        skip_ws(&h);
        if (h.p < h.end && *h.p == '}')
            break;
        if ((st = parse_str(&h, &k, &kn, "a quoted key or '}'")) != PC_OK)
            return st;
        skip_ws(&h);
        if (h.p == h.end || *h.p != ':')
            return syntax(&h, "':' after a key");
        h.p++;
        skip_ws(&h);
        int *seen;
        pc_status (*value)(hparse *, npy_header *);
        if (str_is(k, kn, "descr")) {
            seen = &hd->have_descr;
            value = parse_descr;
        } else if (str_is(k, kn, "fortran_order")) {
            seen = &hd->have_fortran;
            value = parse_fortran;
        } else if (str_is(k, kn, "shape")) {
            seen = &hd->have_shape;
            value = parse_shape;
        } else {
            char shown[40];
            printable(shown, sizeof shown, k, kn);
            return pc_seterr(err, PC_EINPUT,
                             "unexpected key '%s' in header (expected 'descr', "
                             "'fortran_order' and 'shape')", shown);
        }
        if (*seen) {
            char shown[40];
            printable(shown, sizeof shown, k, kn);
            return pc_seterr(err, PC_EINPUT, "duplicate key '%s' in header", shown);
        }
        *seen = 1;
        if ((st = value(&h, hd)) != PC_OK)
            return st;
        skip_ws(&h);
        if (h.p < h.end && *h.p == ',') {
            h.p++;
            continue;
        }
        if (h.p < h.end && *h.p == '}')
            break;
        return syntax(&h, "',' or '}' after a value");
    }
    h.p++; /* '}' */
    skip_ws(&h);
    if (h.p != h.end)
        return syntax(&h, "only whitespace after the closing '}'");
    if (!hd->have_descr)
        return pc_seterr(err, PC_EINPUT, "header lacks key 'descr'");
    if (!hd->have_fortran)
        return pc_seterr(err, PC_EINPUT, "header lacks key 'fortran_order'");
    if (!hd->have_shape)
        return pc_seterr(err, PC_EINPUT, "header lacks key 'shape'");
    return PC_OK;
}

/* ------------------------------------------------------------------ */
/* Value conversion                                                     */
/* ------------------------------------------------------------------ */

/* The conversion and the size computation below carry ACSL contracts
 * proved by Frama-C WP (make prove, docs/proofs.md): every read of the
 * file's bytes stays inside the buffer, every write inside the output, no
 * shift is out of range, and the element and byte counts are either exact
 * or rejected (never wrapped).  The bit reinterpretations (memcpy between
 * an integer and a float) are outside WP's memory model: their one-line
 * contracts (assigns \result \from bits) are assumed, not proved. */

/* IEEE binary16 bits -> the bits of the same value as a double, built bit
 * by bit so it is exact and needs no libm:
 *   exponent field 0:    +-M * 2^-24 (zero or subnormal), normalised here;
 *   exponent field 31:   inf (M == 0) or NaN (payload moved to the top);
 *   otherwise:           +-(1 + M/2^10) * 2^(E-15). */
/*@ assigns \result \from h; */
static uint64_t half_bits(uint16_t h)
{
    uint64_t sign = (uint64_t)(h >> 15) << 63;
    uint32_t e = (h >> 10) & 0x1fu;
    uint64_t m = h & 0x3ffu;
    uint64_t bits;

    if (e == 0x1f)
        bits = sign | ((uint64_t)0x7ff << 52) | (m << 42);
    else if (e != 0)
        bits = sign | ((uint64_t)(e - 15 + 1023) << 52) | (m << 42);
    else if (m == 0)
        bits = sign;
    else {
        /* value = m * 2^-24 with the top set bit of m at K (0..9):
         * 2^(K-24) * (m / 2^K), significand bits (m - 2^K) << (52 - K). */
        int k = 9;
        /*@ loop invariant top: 0 <= k <= 9;
            loop assigns k;
            loop variant k; */
        while (!(m >> k)) {
            //@ assert nonzero: k != 0 || (m >> k) == m;
            k--;
        }
        bits = sign | ((uint64_t)(k - 24 + 1023) << 52)
               | ((m & ~((uint64_t)1 << k)) << (52 - k));
    }
    return bits;
}

/* The double whose bits are BITS (memcpy: no aliasing issue). */
/*@ assigns \result \from bits; */
static double double_of_bits(uint64_t bits)
{
    double d;
    memcpy(&d, &bits, sizeof d);
    return d;
}

/* The float whose bits are BITS, widened to double (exact). */
/*@ assigns \result \from bits; */
static double double_of_f32_bits(uint32_t bits)
{
    float f;
    memcpy(&f, &bits, sizeof f);
    return (double)f;
}

/* The N <= 8 bytes at P as a little-endian integer. */
/*@ requires size: n <= 8;
    requires valid: \valid_read(p + (0 .. n - 1));
    assigns \result \from p[0 .. n - 1];
*/
static uint64_t load_le(const unsigned char *p, size_t n)
{
    uint64_t v = 0;
    /*@ loop invariant left: 0 <= i <= n;
        loop assigns i, v;
        loop variant i; */
    for (size_t i = n; i-- > 0;)
        v = (v << 8) | p[i];
    return v;
}

/* COUNT items of ITEMSIZE bytes at P (binary16, 32 or 64, little-endian)
 * -> OUT[0 .. COUNT), each converted exactly. */
/*@ requires item: itemsize == 2 || itemsize == 4 || itemsize == 8;
    requires fits: count * itemsize <= SIZE_MAX;
    requires valid_in: \valid_read(p + (0 .. count * itemsize - 1));
    requires valid_out: \valid(out + (0 .. count - 1));
    requires separated: \separated(p + (0 .. count * itemsize - 1), out + (0 .. count - 1));
    assigns out[0 .. count - 1] \from p[0 .. count * itemsize - 1];
*/
static void convert(const unsigned char *p, size_t itemsize, size_t count, double *out)
{
    /*@ loop invariant done: 0 <= i <= count;
        loop invariant at: p == \at(p, Pre) + i * itemsize;
        loop assigns i, p, out[0 .. count - 1];
        loop variant count - i; */
    for (size_t i = 0; i < count; i++, p += itemsize) {
        //@ assert item_in: i * itemsize + itemsize <= count * itemsize;
        uint64_t u = load_le(p, itemsize);
        if (itemsize == 2)
            out[i] = double_of_bits(half_bits((uint16_t)u));
        else if (itemsize == 4)
            out[i] = double_of_f32_bits((uint32_t)u);
        else
            out[i] = double_of_bits(u);
    }
}

/* COUNT 16-bit little-endian integers at P -> OUT (exact). */
/*@ requires valid_in: \valid_read(p + (0 .. 2 * count - 1));
    requires valid_out: \valid(out + (0 .. count - 1));
    assigns out[0 .. count - 1] \from p[0 .. 2 * count - 1];
*/
static void bits16(const unsigned char *p, size_t count, double *out)
{
    /*@ loop invariant done: 0 <= i <= count;
        loop assigns i, out[0 .. count - 1];
        loop variant count - i; */
    for (size_t i = 0; i < count; i++)
        out[i] = (double)((unsigned)p[2 * i] | (unsigned)p[2 * i + 1] << 8);
}

/* COUNT little-endian two's-complement integers of ITEMSIZE bytes at P ->
 * OUT, exactly; the index of the first beyond +-2^53 (not a binary64
 * integer for sure), or COUNT when none is. */
static size_t ints(const unsigned char *p, size_t itemsize, size_t count, double *out)
{
    unsigned shift = (unsigned)(64 - 8 * itemsize);
    for (size_t i = 0; i < count; i++, p += itemsize) {
        int64_t v = (int64_t)(load_le(p, itemsize) << shift) >> shift; /* sign-extended */
        if (v > ((int64_t)1 << 53) || v < -((int64_t)1 << 53)) return i;
        out[i] = (double)v;
    }
    return count;
}

/* Outcomes of shape_size. */
#define NPY_SHAPE_OK        0
#define NPY_SHAPE_ZERO      1 /* dims[*bad] is 0 */
#define NPY_SHAPE_COUNT_OVF 2 /* the element count overflows size_t */
#define NPY_SHAPE_BYTES_OVF 3 /* the byte count overflows size_t */

/* The element count and byte count of a shape DIMS[0 .. NDIMS) of
 * ITEMSIZE-byte items, or the first defect met (dims in order): a zero
 * dim, or a product that does not fit a size_t.  Never wraps. */
/*@ requires rank: 1 <= ndims <= PC_NPY_MAX_RANK;
    requires item: itemsize == 2 || itemsize == 4 || itemsize == 8;
    requires valid_dims: \valid_read(dims + (0 .. ndims - 1));
    requires valid_res: \valid(count) && \valid(nbytes) && \valid(bad);
    requires separated: \separated(count, nbytes, bad, dims + (0 .. ndims - 1));
    assigns *count, *nbytes, *bad;
    ensures zero_dim: \result == NPY_SHAPE_ZERO ==> *bad < ndims && dims[*bad] == 0;
    behavior fits:
      assumes no_zero: npy_all_pos(dims, ndims);
      assumes small: npy_prod(dims, ndims) * itemsize <= SIZE_MAX;
      ensures ok: \result == NPY_SHAPE_OK;
      ensures count: *count == npy_prod(dims, ndims);
      ensures nbytes: *nbytes == npy_prod(dims, ndims) * itemsize;
    behavior too_large:
      assumes no_zero: npy_all_pos(dims, ndims);
      assumes large: npy_prod(dims, ndims) * itemsize > SIZE_MAX;
      ensures overflow: \result == NPY_SHAPE_COUNT_OVF || \result == NPY_SHAPE_BYTES_OVF;
    behavior zero:
      assumes some_zero: npy_some_zero(dims, ndims);
      ensures rejected: \result == NPY_SHAPE_ZERO || \result == NPY_SHAPE_COUNT_OVF;
    complete behaviors;
    disjoint behaviors;
*/
static int shape_size(const size_t *dims, size_t ndims, size_t itemsize, size_t *count,
                      size_t *nbytes, size_t *bad)
{
    size_t c = 1;
    //@ for fits: assert total: 0 <= npy_prod(dims, ndims) <= SIZE_MAX;
    *count = 0;
    *nbytes = 0;
    *bad = 0;
    /*@ loop invariant done: 0 <= i <= ndims;
        loop invariant product: c == npy_prod(dims, i);
        loop invariant nonzero: npy_all_pos(dims, i);
        loop assigns i, c, *bad;
        loop variant ndims - i; */
    for (size_t i = 0; i < ndims; i++) {
        if (dims[i] == 0) {
            *bad = i;
            return NPY_SHAPE_ZERO;
        }
        if (c > SIZE_MAX / dims[i]) {
            //@ assert wraps: c * dims[i] > SIZE_MAX;
            //@ for fits: assert prefix: c * dims[i] <= npy_prod(dims, ndims);
            //@ for fits: assert unreachable: \false;
            return NPY_SHAPE_COUNT_OVF;
        }
        c *= dims[i];
    }
    if (c > SIZE_MAX / itemsize) {
        //@ assert wraps: c * itemsize > SIZE_MAX;
        return NPY_SHAPE_BYTES_OVF;
    }
    //@ assert whole: c == npy_prod(dims, ndims);
    //@ assert fits: c * itemsize <= SIZE_MAX;
    *count = c;
    *nbytes = c * itemsize;
    return NPY_SHAPE_OK;
}

/* ------------------------------------------------------------------ */
/* Reading                                                              */
/* ------------------------------------------------------------------ */

/* What the bytes before a .npy file's values say: the header, checked,
 * and where the values start and how many there are.  BUF holds the first
 * AVAIL bytes of a file of LEN bytes, AVAIL >= min(LEN, NPY_HEAD_MAX) (the
 * magic, the version, the length field and the longest header accepted):
 * every check of pc_npy_parse but the conversion, the data's length
 * against LEN included; BUF is read only below prefix + header length. */
#define NPY_HEAD_MAX (12 + PC_NPY_MAX_HEADER)

typedef struct npy_desc {
    npy_header hd;
    size_t off;    /* the values' first byte */
    size_t count;  /* values */
    size_t nbytes; /* count * itemsize */
} npy_desc;

static pc_status npy_describe(const unsigned char *buf, size_t avail, size_t len, npy_desc *d,
                              pc_err *err)
{
    npy_header *hd = &d->hd;
    char shp[160];
    pc_status st;

    /* Magic and version. */
    if (len == 0)
        return pc_seterr(err, PC_EINPUT, "empty input (0 bytes), not a .npy file");
    size_t m = len < sizeof npy_magic ? len : sizeof npy_magic;
    if (memcmp(buf, npy_magic, m) != 0) {
        char shown[40];
        printable(shown, sizeof shown, buf, m);
        return pc_seterr(err, PC_EINPUT,
                         "bad magic: not a .npy file (starts with '%s', expected '\\x93NUMPY')",
                         shown);
    }
    if (len < 8)
        return pc_seterr(err, PC_EINPUT,
                         "truncated header: %zu bytes, too short for the magic and version", len);
    unsigned major = buf[6], minor = buf[7];
    if (major < 1 || major > 3 || minor != 0)
        return pc_seterr(err, PC_EINPUT,
                         "unsupported version %u.%u (expected 1.0, 2.0 or 3.0)", major, minor);

    /* Header length and header. */
    size_t lenbytes = major == 1 ? 2 : 4;
    size_t prefix = 8 + lenbytes;
    if (len < prefix)
        return pc_seterr(err, PC_EINPUT,
                         "truncated header: %zu bytes, too short for the version %u.0 "
                         "header length field", len, major);
    uint64_t hlen64 = load_le(buf + 8, lenbytes);
    if (hlen64 > PC_NPY_MAX_HEADER)
        return pc_seterr(err, PC_EINPUT,
                         "header too long: header length %llu exceeds the limit of %zu bytes",
                         (unsigned long long)hlen64, PC_NPY_MAX_HEADER);
    size_t hlen = (size_t)hlen64;
    if (hlen > len - prefix)
        return pc_seterr(err, PC_EINPUT,
                         "truncated header: header length %zu is more than the %zu bytes "
                         "left in the file (header too long, or file cut short)",
                         hlen, len - prefix);
    if (prefix + hlen > avail) /* the caller's promise broken */
        return pc_seterr(err, PC_EINTERNAL, "npy_describe: %zu bytes read, the header needs %zu",
                         avail, prefix + hlen);
    if ((st = parse_header(buf + prefix, hlen, hd, err)) != PC_OK)
        return st;

    /* What the header describes. */
    fmt_shape(shp, sizeof shp, hd->dims, hd->ndims);
    if (hd->fortran && hd->ndims > 1) /* rank 0 or 1: the same bytes in either order */
        return pc_seterr(err, PC_EINPUT,
                         "Fortran order (fortran_order: True, shape %s) is not read; save the "
                         "array in C order: numpy.save(path, numpy.ascontiguousarray(a))", shp);
    if (hd->ndims == 0 || hd->ndims > PC_NPY_MAX_RANK)
        return pc_seterr(err, PC_EINPUT,
                         "rank %zu (shape %s): expected rank 1, 2 or 3", hd->ndims, shp);
    size_t count, nbytes, bad;
    int shape_st = shape_size(hd->dims, hd->ndims, hd->itemsize, &count, &nbytes, &bad);
    if (shape_st == NPY_SHAPE_ZERO) {
        if (bad == 0)
            return pc_seterr(err, PC_EINPUT, "table has 0 rows (shape %s)", shp);
        return pc_seterr(err, PC_EINPUT,
                         "shape %s has a zero dimension (dim %zu): table is empty", shp, bad);
    }
    if (shape_st == NPY_SHAPE_COUNT_OVF)
        return pc_seterr(err, PC_EINPUT,
                         "shape %s: element count overflows size_t", shp);
    if (shape_st == NPY_SHAPE_BYTES_OVF)
        return pc_seterr(err, PC_EINPUT,
                         "shape %s of %s: byte count overflows size_t", shp, hd->dtype);

    /* The data: exactly NBYTES after the header. */
    size_t off = prefix + hlen;
    size_t have = len - off;
    if (have < nbytes)
        return pc_seterr(err, PC_EINPUT,
                         "truncated data: shape %s of %s needs %zu bytes, "
                         "the file has %zu after the header", shp, hd->dtype, nbytes, have);
    if (have > nbytes)
        return pc_seterr(err, PC_EINPUT,
                         "trailing data: %zu bytes after the array data (shape %s of %s "
                         "needs %zu bytes, the file has %zu after the header)",
                         have - nbytes, shp, hd->dtype, nbytes, have);
    d->off = off;
    d->count = count;
    d->nbytes = nbytes;
    return PC_OK;
}

/* The rank, shape and dtype of D into OUT's fields (its data untouched). */
static void describe_into(const npy_desc *d, int *rank, size_t shape[3], size_t *count,
                          char dtype[4])
{
    *rank = (int)d->hd.ndims;
    for (size_t i = 0; i < 3; i++)
        shape[i] = i < d->hd.ndims ? d->hd.dims[i] : 1;
    *count = d->count;
    memcpy(dtype, d->hd.dtype, 4);
}

/* N values of ITEMSIZE bytes at P (<u2: 16-bit integers, <iN: N-byte
 * integers, else binary16, 32 or 64) -> OUT, exactly (the proved
 * conversions above); the index of the first integer beyond 2^53 in
 * magnitude, or N when none is. */
static size_t values_of(const unsigned char *p, const char *dtype, size_t itemsize, size_t n,
                        double *out)
{
    if (dtype[1] == 'u')
        bits16(p, n, out);
    else if (dtype[1] == 'i')
        return ints(p, itemsize, n, out);
    else
        convert(p, itemsize, n, out);
    return n;
}

/* <i2 and <i4 are read by pc_npy_read_numbers only (ALLOW_INT). */
static pc_status int_refused(const npy_desc *d, int allow_int, pc_err *err)
{
    if (d->hd.dtype[1] == 'i' && d->hd.itemsize != 8 && !allow_int)
        return pc_seterr(err, PC_EINPUT, "unsupported dtype '%s' (expected <f2, <f4 or <f8)",
                         d->hd.dtype);
    return PC_OK;
}

/* pc_npy_parse, with <i2 and <i4 arrays when ALLOW_INT. */
static pc_status parse_npy(const unsigned char *buf, size_t len, int allow_int, pc_npy *out,
                           pc_err *err)
{
    npy_desc d;
    pc_status st;

    if (!out)
        return pc_seterr(err, PC_EINTERNAL, "pc_npy_parse: NULL output");
    memset(out, 0, sizeof *out);
    if (!buf && len > 0)
        return pc_seterr(err, PC_EINTERNAL, "pc_npy_parse: NULL buffer");
    if ((st = npy_describe(buf, len, len, &d, err)) != PC_OK)
        return st;
    if ((st = int_refused(&d, allow_int, err)) != PC_OK)
        return st;
    if (d.count > SIZE_MAX / sizeof(double)) {
        char shp[160];
        fmt_shape(shp, sizeof shp, d.hd.dims, d.hd.ndims);
        return pc_seterr(err, PC_EINPUT,
                         "shape %s: too large to convert to double (size_t overflow)", shp);
    }
    double *data = malloc(d.count * sizeof(double));
    if (!data) {
        char shp[160];
        fmt_shape(shp, sizeof shp, d.hd.dims, d.hd.ndims);
        return pc_seterr(err, PC_ENOMEM,
                         "out of memory for %zu values (shape %s)", d.count, shp);
    }
    size_t big = values_of(buf + d.off, d.hd.dtype, d.hd.itemsize, d.count, data);
    if (big < d.count) {
        free(data);
        return pc_seterr(err, PC_EINPUT, "value %zu of the %s array is beyond 2^53 in "
                         "magnitude", big, d.hd.dtype);
    }
    describe_into(&d, &out->rank, out->shape, &out->count, out->dtype);
    out->data = data;
    return PC_OK;
}

pc_status pc_npy_parse(const unsigned char *buf, size_t len, pc_npy *out, pc_err *err)
{
    return parse_npy(buf, len, 0, out, err);
}

pc_status pc_npy_parse_numbers(const unsigned char *buf, size_t len, pc_npy *out, pc_err *err)
{
    return parse_npy(buf, len, 1, out, err);
}

/* Open PATH for reading (a FIFO without a writer is an error, not a hang)
 * and stat it: PC_EIO naming PATH when it cannot be opened or is a
 * directory. */
static pc_status open_input(const char *path, FILE **f, struct stat *sb, pc_err *err)
{
    pc_status ost = pc_in_open(path, f, err);
    if (ost != PC_OK)
        return ost;
    if (fstat(fileno(*f), sb) != 0) {
        int saved = errno;
        fclose(*f);
        *f = NULL;
        return pc_seterr(err, PC_EIO, "%s: cannot stat: %s", path, strerror(saved));
    }
    if (S_ISDIR(sb->st_mode)) {
        fclose(*f);
        *f = NULL;
        return pc_seterr(err, PC_EIO, "%s: is a directory, not a .npy file", path);
    }
    return PC_OK;
}

/* Read F (PATH, stat SB) to its end into *BUF (*N bytes, malloc'd).  A
 * regular file's size is known (one spare byte shows EOF without a second
 * allocation); a pipe grows the buffer, up to PC_NPY_STREAM_MAX.  Stops at
 * once when the first bytes are not a .npy's magic (pc_npy_parse then
 * says "bad magic"), so that /dev/zero or a stray device is refused
 * without reading it all.  Closes F. */
static pc_status read_stream(FILE *f, const char *path, const struct stat *sb, unsigned char **buf,
                             size_t *len, pc_err *err)
{
    size_t cap = 1 << 16;
    if (S_ISREG(sb->st_mode) && sb->st_size > 0 && (uintmax_t)sb->st_size < SIZE_MAX)
        cap = (size_t)sb->st_size + 1;
    size_t n = 0;
    unsigned char *b = malloc(cap);
    pc_status st = PC_OK;
    if (!b)
        st = pc_seterr(err, PC_ENOMEM, "%s: out of memory for %zu bytes", path, cap);
    while (st == PC_OK) {
        n += fread(b + n, 1, cap - n, f);
        if (n < cap || memcmp(b, npy_magic, sizeof npy_magic) != 0)
            break;
        if (!S_ISREG(sb->st_mode) && cap >= PC_NPY_STREAM_MAX)
            st = pc_seterr(err, PC_EINPUT, "%s: not a regular file and larger than %zu bytes "
                           "(write the table to a file)", path, (size_t)PC_NPY_STREAM_MAX);
        else if (cap > SIZE_MAX / 2)
            st = pc_seterr(err, PC_EINPUT, "%s: file too large", path);
        unsigned char *nb = st == PC_OK ? realloc(b, cap * 2) : NULL;
        if (st == PC_OK && !nb)
            st = pc_seterr(err, PC_ENOMEM, "%s: out of memory for %zu bytes", path, cap * 2);
        if (st == PC_OK) {
            b = nb;
            cap *= 2;
        }
    }
    if (st == PC_OK && ferror(f))
        st = pc_seterr(err, PC_EIO, "%s: read error: %s", path, strerror(errno));
    fclose(f);
    if (st == PC_OK && n == 0)
        st = pc_seterr(err, PC_EINPUT, "%s: empty file (0 bytes), not a .npy file", path);
    if (st != PC_OK) {
        free(b);
        return st;
    }
    *buf = b;
    *len = n;
    return PC_OK;
}

/* pc_npy_read, with <i2 and <i4 arrays when ALLOW_INT. */
static pc_status read_npy(const char *path, int allow_int, pc_npy *out, pc_err *err)
{
    pc_err e;
    struct stat sb;
    FILE *f;

    if (out)
        memset(out, 0, sizeof *out);
    if (!path || !out)
        return pc_seterr(err, PC_EINTERNAL, "pc_npy_read: NULL argument");
    pc_status st = open_input(path, &f, &sb, err);
    if (st != PC_OK)
        return st;
    unsigned char *buf;
    size_t n;
    if ((st = read_stream(f, path, &sb, &buf, &n, err)) != PC_OK)
        return st;
    st = parse_npy(buf, n, allow_int, out, &e);
    free(buf);
    if (st != PC_OK)
        return pc_seterr(err, st, "%s: %s", path, e.msg);
    return PC_OK;
}

pc_status pc_npy_read(const char *path, pc_npy *out, pc_err *err)
{
    return read_npy(path, 0, out, err);
}

pc_status pc_npy_read_numbers(const char *path, pc_npy *out, pc_err *err)
{
    return read_npy(path, 1, out, err);
}

/* ------------------------------------------------------------------ */
/* Reading a file in pieces                                             */
/* ------------------------------------------------------------------ */

/* LEN bytes at byte AT of F's values into DST: pread from a regular file
 * (EINTR retried), memcpy from a stream read at open.  A file shorter than
 * its header said (cut after it was opened) is PC_EINPUT, a failed read
 * PC_EIO, each naming the file. */
static pc_status file_bytes(const pc_npy_file *f, uint64_t at, size_t len, void *dst, pc_err *err)
{
    if (f->mem) {
        memcpy(dst, f->mem + f->off + at, len);
        return PC_OK;
    }
    unsigned char *p = dst;
    uint64_t pos = (uint64_t)f->off + at;
    while (len > 0) {
        ssize_t got = pread(f->fd, p, len, (off_t)pos);
        if (got < 0 && errno == EINTR)
            continue;
        if (got < 0)
            return pc_seterr(err, PC_EIO, "%s: read error at byte %llu: %s", f->path,
                             (unsigned long long)pos, strerror(errno));
        if (got == 0)
            return pc_seterr(err, PC_EINPUT, "%s: the file ends at byte %llu, before the values "
                             "its header announced: it changed after it was opened", f->path,
                             (unsigned long long)pos);
        p += got;
        pos += (uint64_t)got;
        len -= (size_t)got;
    }
    return PC_OK;
}

pc_status pc_npy_file_open(const char *path, pc_npy_file *f, pc_err *err)
{
    pc_err e;
    struct stat sb;
    FILE *in;

    memset(f, 0, sizeof *f);
    f->fd = -1;
    if (!path)
        return pc_seterr(err, PC_EINTERNAL, "pc_npy_file_open: NULL path");
    pc_status st = open_input(path, &in, &sb, err);
    if (st != PC_OK)
        return st;
    f->path = strdup(path);
    if (!f->path) {
        fclose(in);
        return pc_seterr(err, PC_ENOMEM, "%s: out of memory", path);
    }
    unsigned char *head = NULL;
    size_t len, avail;
    if (S_ISREG(sb.st_mode) && (uintmax_t)sb.st_size < SIZE_MAX) {
        /* a regular file: its header now, its values when they are asked for */
        f->in = in;
        f->fd = fileno(in);
        len = (size_t)sb.st_size;
        avail = len < NPY_HEAD_MAX ? len : NPY_HEAD_MAX;
        head = malloc(avail ? avail : 1);
        if (!head)
            st = pc_seterr(err, PC_ENOMEM, "%s: out of memory for %zu bytes", path, avail);
        if (st == PC_OK && len == 0)
            st = pc_seterr(err, PC_EINPUT, "%s: empty file (0 bytes), not a .npy file", path);
        if (st == PC_OK)
            st = file_bytes(f, 0, avail, head, err);
    } else {
        /* a pipe or a device: read whole now (its bytes come once) */
        st = read_stream(in, path, &sb, &f->mem, &len, err);
        head = f->mem;
        avail = len;
        f->mem_len = len;
    }
    npy_desc d;
    if (st == PC_OK && ((st = npy_describe(head, avail, len, &d, &e)) != PC_OK
                        || (st = int_refused(&d, 0, &e)) != PC_OK))
        pc_seterr(err, st, "%s: %s", path, e.msg);
    if (head != f->mem)
        free(head);
    if (st != PC_OK) {
        pc_npy_file_close(f);
        return st;
    }
    describe_into(&d, &f->rank, f->shape, &f->count, f->dtype);
    f->itemsize = d.hd.itemsize;
    f->off = d.off;
    return PC_OK;
}

/* Values per piece converted through a buffer on the stack (2 x 16 KiB). */
#define NPY_PIECE 2048

pc_status pc_npy_file_f64(const pc_npy_file *f, size_t v0, size_t n, double *out, pc_err *err)
{
    unsigned char raw[NPY_PIECE * 8];
    if (v0 > f->count || n > f->count - v0)
        return pc_seterr(err, PC_EINTERNAL, "pc_npy_file_f64: values %zu..+%zu of %zu", v0, n,
                         f->count);
    for (size_t k = 0; k < n; k += NPY_PIECE) {
        size_t m = n - k < NPY_PIECE ? n - k : NPY_PIECE;
        pc_status st = file_bytes(f, (uint64_t)(v0 + k) * f->itemsize, m * f->itemsize, raw, err);
        if (st != PC_OK)
            return st;
        size_t big = values_of(raw, f->dtype, f->itemsize, m, out + k);
        if (big < m)
            return pc_seterr(err, PC_EINPUT, "value %zu of the <i8 array is beyond 2^53 in "
                             "magnitude", v0 + k + big);
    }
    return PC_OK;
}

/* A binary32 NaN made quiet, as its conversion to binary64 and back does
 * (the quiet bit set, the payload kept): what pc_npy_parse gives.  In
 * runs of NPY_LANES values without a branch (a constant trip count: the
 * compiler vectorises the loop at -O2), then one by one. */
#define NPY_LANES 64

static inline uint32_t quiet_bits(uint32_t u)
{
    return u | ((u & 0x7fffffffu) > 0x7f800000u ? 0x00400000u : 0u);
}

static void quiet_nans(float *v, size_t n)
{
    unsigned char *b = (unsigned char *)v;
    size_t k = 0;
    for (; k + NPY_LANES <= n; k += NPY_LANES)
        for (size_t i = 0; i < NPY_LANES; i++) {
            uint32_t u;
            memcpy(&u, b + 4 * (k + i), sizeof u);
            u = quiet_bits(u);
            memcpy(b + 4 * (k + i), &u, sizeof u);
        }
    for (; k < n; k++) {
        uint32_t u;
        memcpy(&u, b + 4 * k, sizeof u);
        u = quiet_bits(u);
        memcpy(b + 4 * k, &u, sizeof u);
    }
}

pc_status pc_npy_file_f32(const pc_npy_file *f, size_t v0, size_t n, float *out, pc_err *err)
{
    if (v0 > f->count || n > f->count - v0)
        return pc_seterr(err, PC_EINTERNAL, "pc_npy_file_f32: values %zu..+%zu of %zu", v0, n,
                         f->count);
    if (f->itemsize == 4 && f->dtype[1] == 'f') { /* <f4: the bytes are the values */
        pc_status st = file_bytes(f, (uint64_t)v0 * 4, n * 4, out, err);
        if (st == PC_OK)
            quiet_nans(out, n);
        return st;
    }
    double v[NPY_PIECE];
    for (size_t k = 0; k < n; k += NPY_PIECE) {
        size_t m = n - k < NPY_PIECE ? n - k : NPY_PIECE;
        pc_status st = pc_npy_file_f64(f, v0 + k, m, v, err);
        if (st != PC_OK)
            return st;
        for (size_t i = 0; i < m; i++)
            out[k + i] = (float)v[i];
    }
    return PC_OK;
}

void pc_npy_file_close(pc_npy_file *f)
{
    if (!f)
        return;
    if (f->in)
        fclose(f->in);
    free(f->mem);
    free(f->path);
    memset(f, 0, sizeof *f);
    f->fd = -1;
}

void pc_npy_free(pc_npy *a)
{
    if (!a)
        return;
    free(a->data);
    memset(a, 0, sizeof *a);
}

/* ------------------------------------------------------------------ */
/* Writing                                                              */
/* ------------------------------------------------------------------ */

/* The header np.save writes, padded with spaces and ended by '\n' so
 * that the data starts at a multiple of 64 bytes.  Returns the byte count
 * of magic + version + length + header, written to HDR. */
static size_t build_header(unsigned char *hdr, size_t hdrsz, const char *descr, int rank,
                           const size_t *shape)
{
    char dims[96];
    char dict[256];
    size_t o = 0;

    for (int i = 0; i < rank; i++) {
        int n = snprintf(dims + o, sizeof dims - o, "%s%zu", i ? ", " : "", shape[i]);
        o += (size_t)n;
    }
    if (rank == 1)
        snprintf(dims + o, sizeof dims - o, ",");
    int dn = snprintf(dict, sizeof dict, "{'descr': '%s', 'fortran_order': False, 'shape': (%s), }",
                      descr, dims);
    size_t dlen = (size_t)dn;

    /* numpy >= 1.23 leaves room for the first dimension to grow to 21
     * digits (GROWTH_AXIS_MAX_DIGITS, for appending in place); copying that
     * makes our files byte-identical to np.save's. */
    int d0 = snprintf(dims, sizeof dims, "%zu", shape[0]);
    size_t body = dlen + (d0 < 21 ? (size_t)(21 - d0) : 0) + 1;

    /* Version 1.0 unless the header length exceeds 2 bytes (it cannot for
     * rank <= 3, but the rule is numpy's). */
    size_t prefix = 10;
    size_t hlen = body + (64 - (prefix + body) % 64) % 64;
    if (hlen > 0xffff) {
        prefix = 12;
        hlen = body + (64 - (prefix + body) % 64) % 64;
    }
    if (prefix + hlen > hdrsz)
        return 0;
    memcpy(hdr, npy_magic, sizeof npy_magic);
    hdr[6] = prefix == 10 ? 1 : 2;
    hdr[7] = 0;
    for (size_t i = 0; i < prefix - 8; i++)
        hdr[8 + i] = (unsigned char)(hlen >> (8 * i));
    memcpy(hdr + prefix, dict, dlen);
    memset(hdr + prefix + dlen, ' ', hlen - dlen - 1);
    hdr[prefix + hlen - 1] = '\n';
    return prefix + hlen;
}

/* Checks RANK and SHAPE, writes the header of DESCR (ITEMSIZE bytes a
 * value) to the temporary of PATH; COUNT: the values that must follow. */
pc_status pc_npy_out_open(pc_npy_out *w, const char *path, const char *descr, int rank,
                          const size_t *shape, pc_err *err)
{
    unsigned char hdr[512];
    memset(w, 0, sizeof *w);
    if (!path || !descr || !shape)
        return pc_seterr(err, PC_EINTERNAL, "pc_npy_out_open: NULL argument");
    size_t itemsize = descr[2] == '8' ? 8 : descr[2] == '4' ? 4 : 2;
    if (rank < 1 || rank > PC_NPY_MAX_RANK)
        return pc_seterr(err, PC_EINPUT, "%s: cannot write rank %d (expected 1, 2 or 3)",
                         path, rank);
    size_t count = 1;
    for (int i = 0; i < rank; i++) {
        if (shape[i] == 0)
            return pc_seterr(err, PC_EINPUT, "%s: cannot write a zero dimension (dim %d)",
                             path, i);
        if (count > SIZE_MAX / shape[i] / itemsize)
            return pc_seterr(err, PC_EINPUT, "%s: shape too large (size_t overflow)", path);
        count *= shape[i];
    }
    size_t hn = build_header(hdr, sizeof hdr, descr, rank, shape);
    if (hn == 0)
        return pc_seterr(err, PC_EINTERNAL, "%s: .npy header does not fit", path);
    pc_status st = pc_out_open(&w->out, path, err);
    if (st != PC_OK)
        return st;
    w->left = count * itemsize;
    w->data_off = hn;
    errno = 0;
    w->ok = fwrite(hdr, 1, hn, w->out.f) == hn && fflush(w->out.f) == 0;
    if (!w->ok) w->eno = errno ? errno : EIO;
    w->seekable = w->out.tmp != NULL; /* a temporary: a regular file */
    return PC_OK;
}

pc_status pc_npy_out_write(pc_npy_out *w, const void *bytes, size_t len)
{
    if (len > w->left) {
        w->over = 1; /* more than the header announced: never committed */
        return PC_EINTERNAL;
    }
    w->left -= len;
    errno = 0;
    if (w->ok && len && !(w->ok = fwrite(bytes, 1, len, w->out.f) == len))
        w->eno = errno ? errno : EIO;
    return w->ok ? PC_OK : PC_EWRITE;
}

pc_status pc_npy_out_pwrite(pc_npy_out *w, const void *bytes, size_t len, uint64_t off, int *eno)
{
    const unsigned char *p = bytes;
    int fd = fileno(w->out.f);
    size_t n0 = len;
    *eno = 0;
    while (len > 0) {
        ssize_t k = pwrite(fd, p, len, (off_t)(w->data_off + off));
        if (k < 0 && errno == EINTR) continue;
        if (k <= 0) { *eno = k < 0 ? errno : EIO; return PC_EWRITE; }
        p += k;
        len -= (size_t)k;
        off += (uint64_t)k;
    }
#ifdef SYNC_FILE_RANGE_WRITE
    /* start these bytes' writeback now (Linux): the fsync before the
     * rename (output.c) then waits for the last blocks only, not the whole
     * table; a failure here is the fsync's to report */
    sync_file_range(fd, (off_t)(w->data_off + off - n0), (off_t)n0, SYNC_FILE_RANGE_WRITE);
#endif
    return PC_OK;
}

void pc_npy_out_wrote(pc_npy_out *w, size_t len)
{
    if (len > w->left) w->over = 1;
    else w->left -= len;
}

pc_status pc_npy_out_close(pc_npy_out *w, int commit, pc_err *err)
{
    pc_status st = PC_OK;
    if (commit && !w->ok)
        st = pc_seterr(err, PC_EWRITE, "%s: write failed: %s", w->out.path ? w->out.path : "npy",
                       strerror(w->eno));
    else if (commit && (w->left != 0 || w->over))
        st = pc_seterr(err, PC_EINTERNAL, "%s: the table's size is not what its header says",
                       w->out.path ? w->out.path : "npy");
    if (st != PC_OK) {
        pc_out_close(&w->out, 0, NULL); /* the temporary removed */
        return st;
    }
    /* pc_out_close flushes, syncs and renames: a late failure is PC_EWRITE */
    return pc_out_close(&w->out, commit, err);
}

static pc_status npy_write(const char *path, const void *data, size_t itemsize, int rank,
                           const size_t *shape, pc_err *err)
{
    unsigned char chunk[8192];
    if (!path || !data || !shape)
        return pc_seterr(err, PC_EINTERNAL, "pc_npy_write: NULL argument");
    pc_npy_out w;
    pc_status st = pc_npy_out_open(&w, path, itemsize == 4 ? "<f4" : "<f8", rank, shape, err);
    if (st != PC_OK)
        return st;
    size_t count = w.left / itemsize;
    const unsigned char *src = data;
    size_t per = sizeof chunk / itemsize;
    for (size_t i = 0; st == PC_OK && i < count; i += per) {
        size_t k = count - i < per ? count - i : per;
        for (size_t j = 0; j < k; j++) {
            uint64_t u = 0;
            if (itemsize == 4) {
                uint32_t u32;
                memcpy(&u32, src + (i + j) * 4, 4);
                u = u32;
            } else
                memcpy(&u, src + (i + j) * 8, 8);
            for (size_t b = 0; b < itemsize; b++)
                chunk[j * itemsize + b] = (unsigned char)(u >> (8 * b));
        }
        st = pc_npy_out_write(&w, chunk, k * itemsize);
    }
    return pc_npy_out_close(&w, 1, err);
}

pc_status pc_npy_write_f32(const char *path, const float *data, int rank, const size_t *shape,
                           pc_err *err)
{
    return npy_write(path, data, 4, rank, shape, err);
}

pc_status pc_npy_write_f64(const char *path, const double *data, int rank, const size_t *shape,
                           pc_err *err)
{
    return npy_write(path, data, 8, rank, shape, err);
}

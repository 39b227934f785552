/* npy_test.c: TAP tests of the .npy reader and writer (harness/io/npy.c).
 *
 *   npy_test                    the built-in tests: round trips, hand-made
 *                               headers, binary16 conversion, every defect
 *   npy_test --write-dir DIR    write ours_f{32,64}_r{1,2,3}.npy into DIR for
 *                               numpy to check (tests/npy_numpy_check.sh)
 *   npy_test --numpy-dir DIR    check the files numpy wrote into DIR against
 *                               DIR/manifest.txt (tests/npy_numpy_check.sh
 *                               makes them; see numpy_dir for the format)
 *
 * Output is TAP: "1..N", then one "ok N - ..." or "not ok N - ..." line a
 * test, with "# ..." lines saying why a test failed.  Exit status 0 when
 * every test passed, 1 otherwise. */
#define _POSIX_C_SOURCE 200809L /* mkdtemp, getpid, rmdir, unlink */

#include <math.h>
#include <stdarg.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/types.h>
#include <sys/wait.h>
#include <unistd.h>

#include "harness/io/npy.h"

/* ------------------------------------------------------------------ */
/* TAP                                                                  */
/* ------------------------------------------------------------------ */

static int tap_n;
static int tap_failed;

/* Why the current test failed (empty while it passes). */
static char why[1024];

static void fail(const char *fmt, ...) __attribute__((format(printf, 1, 2)));
static void fail(const char *fmt, ...)
{
    if (why[0])
        return;                 /* keep the first reason */
    va_list ap;
    va_start(ap, fmt);
    vsnprintf(why, sizeof why, fmt, ap);
    va_end(ap);
}

static void report(const char *name)
{
    tap_n++;
    if (why[0]) {
        tap_failed++;
        printf("not ok %d - %s\n# %s\n", tap_n, name, why);
    } else
        printf("ok %d - %s\n", tap_n, name);
    fflush(stdout);
    why[0] = '\0';
}

static char tmpdir[] = "/tmp/npy_test.XXXXXX";

static void tmp_path(char *dst, size_t n, const char *name)
{
    snprintf(dst, n, "%s/%s", tmpdir, name);
}

static int file_exists(const char *path)
{
    struct stat sb;
    return stat(path, &sb) == 0;
}

static int same_bits(double a, double b)
{
    return memcmp(&a, &b, sizeof a) == 0;
}

/* ------------------------------------------------------------------ */
/* Building .npy bytes by hand                                          */
/* ------------------------------------------------------------------ */

/* Magic, version MAJOR.MINOR, header length (HLEN, or the real length if
 * HLEN < 0), HEADER padded with spaces and '\n' to a multiple of 64 when PAD,
 * then DLEN data bytes from DATA (zeros if DATA is NULL).  *LEN gets the
 * size; the caller frees the result. */
static unsigned char *build(int major, int minor, const char *header, int pad, long hlen,
                            const void *data, size_t dlen, size_t *len)
{
    size_t pre = major == 1 ? 10 : 12;
    size_t hn = strlen(header);
    size_t padded = hn;
    if (pad) {
        padded = hn + 1;
        padded += (64 - (pre + padded) % 64) % 64;
    }
    unsigned char *b = calloc(1, pre + padded + dlen + 1);
    if (!b) {
        fprintf(stderr, "npy_test: out of memory\n");
        exit(2);
    }
    memcpy(b, "\x93NUMPY", 6);
    b[6] = (unsigned char)major;
    b[7] = (unsigned char)minor;
    unsigned long hl = hlen < 0 ? (unsigned long)padded : (unsigned long)hlen;
    for (size_t i = 0; i < pre - 8; i++)
        b[8 + i] = (unsigned char)(hl >> (8 * i));
    memcpy(b + pre, header, hn);
    if (pad) {
        memset(b + pre + hn, ' ', padded - hn - 1);
        b[pre + padded - 1] = '\n';
    }
    if (data)
        memcpy(b + pre + padded, data, dlen);
    *len = pre + padded + dlen;
    return b;
}

static void put_f32(unsigned char *p, float f)
{
    uint32_t u;
    memcpy(&u, &f, 4);
    for (int i = 0; i < 4; i++)
        p[i] = (unsigned char)(u >> (8 * i));
}

static void put_f64(unsigned char *p, double d)
{
    uint64_t u;
    memcpy(&u, &d, 8);
    for (int i = 0; i < 8; i++)
        p[i] = (unsigned char)(u >> (8 * i));
}

/* Parse BUF expecting success with DTYPE, RANK and shape D0, D1, D2. */
static int parse_ok(const unsigned char *buf, size_t len, pc_npy *a, const char *dtype, int rank,
                    size_t d0, size_t d1, size_t d2)
{
    pc_err e;
    pc_status st = pc_npy_parse(buf, len, a, &e);
    if (st != PC_OK) {
        fail("pc_npy_parse returned %d: %s", (int)st, e.msg);
        return 0;
    }
    if (strcmp(a->dtype, dtype) != 0 || a->rank != rank || a->shape[0] != d0
        || a->shape[1] != d1 || a->shape[2] != d2 || a->count != d0 * d1 * d2) {
        fail("got %s rank %d shape (%zu, %zu, %zu) count %zu, want %s rank %d (%zu, %zu, %zu)",
             a->dtype, a->rank, a->shape[0], a->shape[1], a->shape[2], a->count, dtype, rank,
             d0, d1, d2);
        return 0;
    }
    return 1;
}

/* ------------------------------------------------------------------ */
/* Round trips                                                          */
/* ------------------------------------------------------------------ */

/* Values worth a round trip: signed zeros, subnormals, extremes, inf, NaN. */
static float f32_value(size_t i)
{
    static const uint32_t special[] = { 0x00000000u, 0x80000000u, 0x00000001u, 0x807fffffu,
                                        0x7f7fffffu, 0x7f800000u, 0xff800000u, 0x7fc00000u,
                                        0x3f800000u, 0xbf9d70a4u };
    size_t ns = sizeof special / sizeof special[0];
    uint32_t u = i < ns ? special[i] : (uint32_t)(0x3c000000u + (uint32_t)i * 2654435761u % 0x8000000u);
    float f;
    memcpy(&f, &u, 4);
    return f;
}

static double f64_value(size_t i)
{
    static const uint64_t special[] = { 0, 0x8000000000000000u, 1, 0x800fffffffffffffu,
                                        0x7fefffffffffffffu, 0x7ff0000000000000u,
                                        0xfff0000000000000u, 0x7ff8000000000001u,
                                        0x3ff0000000000000u, 0x3fb999999999999au };
    size_t ns = sizeof special / sizeof special[0];
    uint64_t u = i < ns ? special[i]
                        : 0x3f00000000000000u + (uint64_t)i * 0x9e3779b97f4a7c15u % 0x10000000000000u;
    double d;
    memcpy(&d, &u, 8);
    return d;
}

static void roundtrip(int is64, int rank, const size_t *shape)
{
    char path[256];
    size_t count = 1;
    for (int i = 0; i < rank; i++)
        count *= shape[i];
    tmp_path(path, sizeof path, is64 ? "rt64.npy" : "rt32.npy");

    float *f = malloc(count * sizeof *f);
    double *d = malloc(count * sizeof *d);
    if (!f || !d) {
        fail("out of memory");
        free(f);
        free(d);
        return;
    }
    for (size_t i = 0; i < count; i++) {
        f[i] = f32_value(i);
        d[i] = f64_value(i);
    }
    pc_err e;
    pc_status st = is64 ? pc_npy_write_f64(path, d, rank, shape, &e)
                        : pc_npy_write_f32(path, f, rank, shape, &e);
    if (st != PC_OK)
        fail("write returned %d: %s", (int)st, e.msg);
    pc_npy a;
    st = pc_npy_read(path, &a, &e);
    if (st != PC_OK)
        fail("read returned %d: %s", (int)st, e.msg);
    else {
        if (a.rank != rank || strcmp(a.dtype, is64 ? "<f8" : "<f4") != 0 || a.count != count)
            fail("read back %s rank %d count %zu", a.dtype, a.rank, a.count);
        for (int i = 0; i < 3; i++)
            if (a.shape[i] != (i < rank ? shape[i] : 1))
                fail("shape[%d] = %zu", i, a.shape[i]);
        for (size_t i = 0; i < count && i < a.count; i++) {
            double want = is64 ? d[i] : (double)f[i];
            if (!same_bits(a.data[i], want) && !(isnan(want) && isnan(a.data[i])))
                fail("value %zu: read %a, wrote %a", i, a.data[i], want);
        }
        pc_npy_free(&a);
    }
    unlink(path);
    free(f);
    free(d);
}

static void t_rt_f32_r1(void) { size_t s[] = { 1000 }; roundtrip(0, 1, s); }
static void t_rt_f32_r2(void) { size_t s[] = { 37, 64 }; roundtrip(0, 2, s); }
static void t_rt_f32_r3(void) { size_t s[] = { 50, 16, 2 }; roundtrip(0, 3, s); }
static void t_rt_f64_r1(void) { size_t s[] = { 1 }; roundtrip(1, 1, s); }
static void t_rt_f64_r2(void) { size_t s[] = { 5000, 3 }; roundtrip(1, 2, s); }
static void t_rt_f64_r3(void) { size_t s[] = { 7, 3, 2 }; roundtrip(1, 3, s); }

/* The bytes written are what numpy writes. */
static void t_write_layout(void)
{
    char path[256];
    size_t shape[] = { 2, 3 };
    float v[6] = { 0, 1, 2, 3, 4, 5 };
    pc_err e;
    tmp_path(path, sizeof path, "layout.npy");
    if (pc_npy_write_f32(path, v, 2, shape, &e) != PC_OK) {
        fail("write: %s", e.msg);
        return;
    }
    unsigned char buf[256];
    FILE *fp = fopen(path, "rb");
    size_t n = fp ? fread(buf, 1, sizeof buf, fp) : 0;
    if (fp)
        fclose(fp);
    unlink(path);
    static const char dict[] = "{'descr': '<f4', 'fortran_order': False, 'shape': (2, 3), }";
    /* numpy 1.24's np.save: header length 118 (the dict, 20 spaces of room
     * for shape[0] to grow to 21 digits, padding to 128 bytes, '\n'). */
    if (n != 128 + 24)
        fail("file is %zu bytes, want 152", n);
    else if (memcmp(buf, "\x93NUMPY\x01\x00", 8) != 0 || buf[8] != 118 || buf[9] != 0)
        fail("bad magic, version or header length");
    else if (memcmp(buf + 10, dict, sizeof dict - 1) != 0 || buf[127] != '\n')
        fail("header text differs from numpy's");
    else if (buf[128 + 4] != 0x00 || buf[128 + 7] != 0x3f)   /* 1.0f = 0x3f800000 LE */
        fail("data is not little-endian float32");
}

/* Bad rank or zero dims: PC_EINPUT and no file. */
static void t_write_rejects(void)
{
    char path[256];
    double v[4] = { 0 };
    size_t s4[] = { 1, 1, 1, 4 }, s0[] = { 2, 0 };
    pc_err e;
    tmp_path(path, sizeof path, "rej.npy");
    if (pc_npy_write_f64(path, v, 0, s4, &e) != PC_EINPUT)
        fail("rank 0 accepted");
    if (pc_npy_write_f64(path, v, 4, s4, &e) != PC_EINPUT)
        fail("rank 4 accepted");
    if (pc_npy_write_f64(path, v, 2, s0, &e) != PC_EINPUT || !strstr(e.msg, "zero dimension"))
        fail("zero dimension accepted (%s)", e.msg);
    if (file_exists(path))
        fail("a rejected write left %s", path);
}

/* A write that fails leaves neither PATH nor PATH.tmp.<pid>. */
static void t_write_fails_cleanly(void)
{
    char path[256], tmp[300];
    float v[3] = { 1, 2, 3 };
    size_t s[] = { 3 };
    pc_err e;

    tmp_path(path, sizeof path, "no/such/dir/x.npy");
    if (pc_npy_write_f32(path, v, 1, s, &e) != PC_EIO)
        fail("write into a missing directory did not give PC_EIO");
    else if (!strstr(e.msg, path))
        fail("message lacks the path: %s", e.msg);

    /* rename() onto a non-empty directory fails after the data is written */
    tmp_path(path, sizeof path, "adir");
    tmp_path(tmp, sizeof tmp, "adir/inside");
    FILE *fp = mkdir(path, 0700) == 0 ? fopen(tmp, "w") : NULL;
    if (!fp)
        fail("cannot set up %s", path);
    else
        fclose(fp);
    if (pc_npy_write_f32(path, v, 1, s, &e) != PC_EIO)
        fail("write over a directory did not give PC_EIO");
    snprintf(tmp, sizeof tmp, "%s.tmp.%ld", path, (long)getpid());
    if (file_exists(tmp))
        fail("failed write left %s", tmp);
    tmp_path(tmp, sizeof tmp, "adir/inside");
    unlink(tmp);
    rmdir(path);
}

/* Writing over an existing file replaces it. */
static void t_write_replaces(void)
{
    char path[256];
    double a[2] = { 1, 2 }, b[3] = { 3, 4, 5 };
    size_t sa[] = { 2 }, sb[] = { 3 };
    pc_err e;
    pc_npy r;
    tmp_path(path, sizeof path, "replace.npy");
    if (pc_npy_write_f64(path, a, 1, sa, &e) != PC_OK || pc_npy_write_f64(path, b, 1, sb, &e) != PC_OK)
        fail("write: %s", e.msg);
    else if (pc_npy_read(path, &r, &e) != PC_OK)
        fail("read: %s", e.msg);
    else {
        if (r.count != 3 || r.data[2] != 5.0)
            fail("old contents read back");
        pc_npy_free(&r);
    }
    unlink(path);
}

/* ------------------------------------------------------------------ */
/* Hand-made headers                                                    */
/* ------------------------------------------------------------------ */

static void t_parse_v1_f4(void)
{
    unsigned char d[12];
    put_f32(d, 1.5f);
    put_f32(d + 4, -0.0f);
    put_f32(d + 8, 0x1p-149f);
    size_t len;
    unsigned char *b = build(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), }",
                             1, -1, d, sizeof d, &len);
    pc_npy a;
    if (parse_ok(b, len, &a, "<f4", 1, 3, 1, 1)) {
        if (a.data[0] != 1.5 || !same_bits(a.data[1], -0.0) || a.data[2] != 0x1p-149)
            fail("values %a %a %a", a.data[0], a.data[1], a.data[2]);
        pc_npy_free(&a);
    }
    free(b);
}

/* Integers: pc_npy_parse_numbers takes <i2, <i4 and <i8 (sign-extended,
 * exact), refuses one beyond 2^53; pc_npy_parse refuses <i2 and <i4 (it
 * takes <i8 only: position ids, t_int64). */
static void t_parse_ints(void)
{
    unsigned char d[24];
    const int64_t v[3] = { -1, 31, -((int64_t)1 << 53) };
    for (int i = 0; i < 3; i++)
        for (int k = 0; k < 8; k++) d[8 * i + k] = (unsigned char)((uint64_t)v[i] >> (8 * k));
    size_t len;
    unsigned char *b = build(1, 0, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }",
                             1, -1, d, sizeof d, &len);
    pc_npy a;
    pc_err e;
    if (pc_npy_parse_numbers(b, len, &a, &e) != PC_OK) fail("<i8: %s", e.msg);
    else {
        if (strcmp(a.dtype, "<i8") || a.data[0] != -1.0 || a.data[1] != 31.0
            || a.data[2] != -0x1p53)
            fail("<i8 values %s %a %a %a", a.dtype, a.data[0], a.data[1], a.data[2]);
        pc_npy_free(&a);
    }
    free(b);
    unsigned char d2[4] = { 0xff, 0xff, 0x05, 0x00 }; /* -1, 5 as <i2 */
    b = build(1, 0, "{'descr': '<i2', 'fortran_order': False, 'shape': (2,), }", 1, -1, d2,
              sizeof d2, &len);
    if (pc_npy_parse_numbers(b, len, &a, &e) != PC_OK) fail("<i2: %s", e.msg);
    else {
        if (a.data[0] != -1.0 || a.data[1] != 5.0) fail("<i2 values %a %a", a.data[0], a.data[1]);
        pc_npy_free(&a);
    }
    pc_status ps = pc_npy_parse(b, len, &a, &e);
    if (ps != PC_EINPUT || !strstr(e.msg, "'<i2'")) fail("pc_npy_parse took <i2");
    if (ps == PC_OK) pc_npy_free(&a);
    free(b);
    for (int k = 0; k < 8; k++) d[k] = (unsigned char)((((uint64_t)1 << 53) + 1) >> (8 * k));
    b = build(1, 0, "{'descr': '<i8', 'fortran_order': False, 'shape': (3,), }", 1, -1, d,
              sizeof d, &len);
    if (pc_npy_parse_numbers(b, len, &a, &e) != PC_EINPUT || !strstr(e.msg, "beyond 2^53"))
        fail("2^53 + 1 accepted or not named: %s", e.msg);
    free(b);
}

static void t_parse_v2_f8(void)
{
    unsigned char d[48];
    for (int i = 0; i < 6; i++)
        put_f64(d + 8 * i, 0.1 * i);
    size_t len;
    unsigned char *b = build(2, 0, "{'descr': '<f8', 'fortran_order': False, 'shape': (2, 3), }",
                             1, -1, d, sizeof d, &len);
    pc_npy a;
    if (parse_ok(b, len, &a, "<f8", 2, 2, 3, 1)) {
        for (int i = 0; i < 6; i++)
            if (!same_bits(a.data[i], 0.1 * i))
                fail("value %d is %a", i, a.data[i]);
        pc_npy_free(&a);
    }
    free(b);
}

static void t_parse_v3_f2(void)
{
    unsigned char d[8] = { 0x00, 0x3c, 0x00, 0xc0, 0x00, 0x7c, 0x01, 0x00 };
    size_t len;
    unsigned char *b = build(3, 0, "{\"descr\": \"<f2\", \"fortran_order\": False, \"shape\": (2, 2, 1), }",
                             1, -1, d, sizeof d, &len);
    pc_npy a;
    if (parse_ok(b, len, &a, "<f2", 3, 2, 2, 1)) {
        if (a.data[0] != 1.0 || a.data[1] != -2.0 || !isinf(a.data[2]) || a.data[3] != 0x1p-24)
            fail("values %a %a %a %a", a.data[0], a.data[1], a.data[2], a.data[3]);
        pc_npy_free(&a);
    }
    free(b);
}

/* Headers numpy would not write but that are the same dict. */
static void t_parse_header_variants(void)
{
    static const char *const hdrs[] = {
        "{'shape': (3,), 'fortran_order': False, 'descr': '<f4'}",
        "{'fortran_order': False, 'descr': '<f4', 'shape': (3, ), }",
        "  {  'descr' :\t'<f4' ,\n 'fortran_order':False,'shape':(  3  ,  )  ,  }  \n\n",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (3L,)}",
        "{'descr': '=f4', 'fortran_order': False, 'shape': (3,)}",
        "{'descr': '<f4', 'fortran_order': False, 'shape': (1, 3,), }",
    };
    unsigned char d[12] = { 0 };
    for (size_t i = 0; i < sizeof hdrs / sizeof hdrs[0]; i++) {
        for (int pad = 0; pad < 2; pad++) {
            size_t len;
            unsigned char *b = build(1, 0, hdrs[i], pad, -1, d, sizeof d, &len);
            pc_npy a;
            pc_err e;
            if (pc_npy_parse(b, len, &a, &e) != PC_OK)
                fail("header %zu (pad %d) rejected: %s", i, pad, e.msg);
            else {
                if (a.count != 3 || strcmp(a.dtype, "<f4") != 0)
                    fail("header %zu: count %zu dtype %s", i, a.count, a.dtype);
                pc_npy_free(&a);
            }
            free(b);
        }
    }
}

/* (5000,) with a v1 header: the common PE table shape of rank 1. */
static void t_parse_5000(void)
{
    unsigned char *d = malloc(5000 * 4);
    if (!d) {
        fail("out of memory");
        return;
    }
    for (int i = 0; i < 5000; i++)
        put_f32(d + 4 * i, (float)i);
    size_t len;
    unsigned char *b = build(1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (5000,), }",
                             1, -1, d, 5000 * 4, &len);
    pc_npy a;
    if (parse_ok(b, len, &a, "<f4", 1, 5000, 1, 1)) {
        if (a.data[4999] != 4999.0)
            fail("last value %a", a.data[4999]);
        pc_npy_free(&a);
    }
    free(b);
    free(d);
}

/* (3,) saved with fortran_order True (numpy writes it for a rank-1 array
 * that is only Fortran-contiguous, e.g. a column of a Fortran-order
 * matrix): the same bytes as C order, read. */
static void t_parse_fortran_rank1(void)
{
    unsigned char d[12];
    for (int i = 0; i < 3; i++)
        put_f32(d + 4 * i, (float)(i + 1));
    size_t len;
    unsigned char *b = build(1, 0, "{'descr': '<f4', 'fortran_order': True, 'shape': (3,), }",
                             1, -1, d, 12, &len);
    pc_npy a;
    if (parse_ok(b, len, &a, "<f4", 1, 3, 1, 1)) {
        if (a.data[2] != 3.0)
            fail("last value %a", a.data[2]);
        pc_npy_free(&a);
    }
    free(b);
}

/* ------------------------------------------------------------------ */
/* binary16                                                             */
/* ------------------------------------------------------------------ */

static double half1(unsigned h)
{
    unsigned char d[2] = { (unsigned char)h, (unsigned char)(h >> 8) };
    size_t len;
    unsigned char *b = build(1, 0, "{'descr': '<f2', 'fortran_order': False, 'shape': (1,), }",
                             1, -1, d, 2, &len);
    pc_npy a;
    pc_err e;
    double v = -12345.0;
    if (pc_npy_parse(b, len, &a, &e) != PC_OK)
        fail("parse: %s", e.msg);
    else {
        v = a.data[0];
        pc_npy_free(&a);
    }
    free(b);
    return v;
}

static const struct half_case {
    unsigned bits;
    double want;   /* compared bit for bit; NaN cases compare isnan */
    const char *name;
} half_cases[] = {
    { 0x3C00, 1.0, "0x3C00 -> 1.0" },
    { 0xC000, -2.0, "0xC000 -> -2.0" },
    { 0x3555, 0x1.554p-2, "0x3555 -> 0x1.554p-2 (nearest to 1/3)" },
    { 0x0001, 0x1p-24, "0x0001 -> 2^-24 (smallest subnormal)" },
    { 0x8001, -0x1p-24, "0x8001 -> -2^-24" },
    { 0x03FF, 0x1.ff8p-15, "0x03FF -> 1023 * 2^-24 (largest subnormal)" },
    { 0x0200, 0x1p-15, "0x0200 -> 2^-15 (subnormal)" },
    { 0x0400, 0x1p-14, "0x0400 -> 2^-14 (smallest normal)" },
    { 0x7BFF, 65504.0, "0x7BFF -> 65504 (largest finite)" },
    { 0x0000, 0.0, "0x0000 -> +0" },
    { 0x8000, -0.0, "0x8000 -> -0" },
    { 0x7C00, (double)INFINITY, "0x7C00 -> +inf" },
    { 0xFC00, -(double)INFINITY, "0xFC00 -> -inf" },
    { 0x7E00, (double)NAN, "0x7E00 -> NaN" },
    { 0xFC01, (double)NAN, "0xFC01 -> NaN (signalling, negative)" },
};

static const struct half_case *half_current;

static void t_half(void)
{
    double v = half1(half_current->bits);
    double w = half_current->want;
    if (isnan(w) ? !isnan(v) : !same_bits(v, w))
        fail("got %a, want %a", v, w);
}

/* 2^E by repeated doubling or halving: exact, independent of the code under
 * test. */
static double pow2(int e)
{
    double p = 1.0;
    for (; e > 0; e--)
        p *= 2.0;
    for (; e < 0; e++)
        p *= 0.5;
    return p;
}

/* All 65536 patterns against an arithmetic reference; NaNs keep sign and
 * payload (half significand M lands at bits 42..51). */
static void t_half_exhaustive(void)
{
    unsigned char *d = malloc(2 * 65536);
    if (!d) {
        fail("out of memory");
        return;
    }
    for (unsigned h = 0; h < 65536; h++) {
        d[2 * h] = (unsigned char)h;
        d[2 * h + 1] = (unsigned char)(h >> 8);
    }
    size_t len;
    unsigned char *b = build(1, 0, "{'descr': '<f2', 'fortran_order': False, 'shape': (256, 256), }",
                             1, -1, d, 2 * 65536, &len);
    pc_npy a;
    if (parse_ok(b, len, &a, "<f2", 2, 256, 256, 1)) {
        for (unsigned h = 0; h < 65536; h++) {
            unsigned e = (h >> 10) & 31, m = h & 1023;
            double v = a.data[h];
            if (e == 31 && m != 0) {
                uint64_t want = ((uint64_t)(h >> 15) << 63) | ((uint64_t)0x7ff << 52)
                                | ((uint64_t)m << 42), got;
                memcpy(&got, &v, 8);
                if (got != want) {
                    fail("0x%04X: NaN bits %016llx, want %016llx", h,
                         (unsigned long long)got, (unsigned long long)want);
                    break;
                }
                continue;
            }
            double r = e == 31 ? (double)INFINITY
                     : e == 0  ? (double)m * pow2(-24)
                               : (double)(1024 + m) * pow2((int)e - 25);
            if (h >> 15)
                r = -r;
            if (!same_bits(v, r)) {
                fail("0x%04X: got %a, want %a", h, v, r);
                break;
            }
        }
        pc_npy_free(&a);
    }
    free(b);
    free(d);
}

/* ------------------------------------------------------------------ */
/* Defects                                                              */
/* ------------------------------------------------------------------ */

#define HDR(descr, fo, shape) \
    "{'descr': " descr ", 'fortran_order': " fo ", 'shape': " shape ", }"
#define F4_3 HDR("'<f4'", "False", "(3,)")

static const struct defect {
    const char *name;
    int major, minor;
    const char *header;
    size_t dlen;           /* data bytes after the header */
    long hlen;             /* header length field; -1: the true one */
    size_t cut;            /* keep only this many bytes (0: all) */
    int poke;              /* 1 + offset of a byte to set to 'X' (0: none) */
    const char *word;      /* the message must contain this */
} defects[] = {
    { "bad magic", 1, 0, F4_3, 12, -1, 0, 1 + 5, "bad magic" },
    { "not a .npy file at all", 1, 0, F4_3, 12, -1, 0, 1 + 0, "bad magic" },
    { "unsupported version 4.0", 4, 0, F4_3, 12, -1, 0, 0, "unsupported version 4.0" },
    { "unsupported version 1.1", 1, 1, F4_3, 12, -1, 0, 0, "unsupported version 1.1" },
    { "unsupported version 0.0", 0, 0, F4_3, 12, -1, 0, 0, "unsupported version" },
    { "truncated in the magic", 1, 0, F4_3, 12, -1, 4, 0, "truncated header" },
    { "truncated in the v1 length field", 1, 0, F4_3, 12, -1, 9, 0, "truncated header" },
    { "truncated in the v2 length field", 2, 0, F4_3, 12, -1, 11, 0, "truncated header" },
    { "truncated in the header", 1, 0, F4_3, 12, -1, 40, 0, "truncated header" },
    { "header length over the file size", 1, 0, F4_3, 12, 60000, 0, 0, "header too long" },
    { "header length over 65535*16", 2, 0, F4_3, 12, 65535L * 16 + 1, 0, 0, "header too long" },
    { "truncated data", 1, 0, F4_3, 11, -1, 0, 0, "truncated data" },
    { "truncated data: expected vs actual", 1, 0, F4_3, 11, -1, 0, 0, "needs 12 bytes, the file has 11" },
    { "no data at all", 1, 0, F4_3, 0, -1, 0, 0, "truncated data" },
    { "trailing data", 1, 0, F4_3, 13, -1, 0, 0, "trailing data" },
    { "trailing data: expected vs actual", 1, 0, F4_3, 13, -1, 0, 0, "needs 12 bytes, the file has 13" },
    { "Fortran order", 1, 0, HDR("'<f4'", "True", "(1, 3)"), 12, -1, 0, 0, "Fortran" },
    { "Fortran order: the fix", 1, 0, HDR("'<f4'", "True", "(1, 3)"), 12, -1, 0, 0,
      "numpy.ascontiguousarray" },
    { "fortran_order not a bool", 1, 0, HDR("'<f4'", "0", "(3,)"), 12, -1, 0, 0, "True or False" },
    { "big-endian >f4", 1, 0, HDR("'>f4'", "False", "(3,)"), 12, -1, 0, 0, "big-endian" },
    { "big-endian >f8", 1, 0, HDR("'>f8'", "False", "(3,)"), 24, -1, 0, 0, "big-endian" },
    { "'|f4' byte order", 1, 0, HDR("'|f4'", "False", "(3,)"), 12, -1, 0, 0, "'|' is not valid" },
    { "non-float <i4", 1, 0, HDR("'<i4'", "False", "(3,)"), 12, -1, 0, 0,
      "unsupported dtype '<i4' (expected <f2, <f4 or <f8)" },
    { "non-float |b1", 1, 0, HDR("'|b1'", "False", "(3,)"), 3, -1, 0, 0, "unsupported dtype '|b1'" },
    { "object |O", 1, 0, HDR("'|O'", "False", "(3,)"), 24, -1, 0, 0, "unsupported dtype '|O'" },
    { "long double <f16", 1, 0, HDR("'<f16'", "False", "(3,)"), 48, -1, 0, 0, "unsupported dtype" },
    { "complex <c8", 1, 0, HDR("'<c8'", "False", "(3,)"), 24, -1, 0, 0, "unsupported dtype" },
    { "structured dtype", 1, 0, HDR("[('a', '<f4')]", "False", "(3,)"), 12, -1, 0, 0, "structured" },
    { "rank 0", 1, 0, HDR("'<f4'", "False", "()"), 4, -1, 0, 0, "rank 0" },
    { "rank 4", 1, 0, HDR("'<f4'", "False", "(1, 1, 1, 3)"), 12, -1, 0, 0, "rank 4" },
    { "0-row table", 1, 0, HDR("'<f4'", "False", "(0, 64)"), 0, -1, 0, 0, "table has 0 rows" },
    { "0-row rank 1", 1, 0, HDR("'<f4'", "False", "(0,)"), 0, -1, 0, 0, "table has 0 rows" },
    { "zero columns", 1, 0, HDR("'<f4'", "False", "(3, 0)"), 0, -1, 0, 0, "zero dimension" },
    { "dimension overflows size_t", 1, 0, HDR("'<f4'", "False", "(18446744073709551616,)"), 12, -1,
      0, 0, "overflow" },
    { "element count overflows size_t", 1, 0, HDR("'<f4'", "False", "(4294967296, 4294967296)"),
      12, -1, 0, 0, "overflow" },
    { "byte count overflows size_t", 1, 0, HDR("'<f8'", "False", "(2305843009213693952,)"), 12, -1,
      0, 0, "overflow" },
    { "shape (3) is not a tuple", 1, 0, HDR("'<f4'", "False", "(3)"), 12, -1, 0, 0, "not a tuple" },
    { "shape as a list", 1, 0, HDR("'<f4'", "False", "[3]"), 12, -1, 0, 0, "malformed header" },
    { "negative dimension", 1, 0, HDR("'<f4'", "False", "(-3,)"), 12, -1, 0, 0, "negative" },
    { "missing key", 1, 0, "{'descr': '<f4', 'fortran_order': False}", 12, -1, 0, 0,
      "lacks key 'shape'" },
    { "duplicate key", 1, 0, "{'descr': '<f4', 'descr': '<f4', 'fortran_order': False, 'shape': (3,)}",
      12, -1, 0, 0, "duplicate key 'descr'" },
    { "unexpected key", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,), 'x': 1}",
      12, -1, 0, 0, "unexpected key 'x'" },
    { "garbage after the dict", 1, 0, F4_3 " x", 12, -1, 0, 0, "malformed header" },
    { "unterminated string", 1, 0, "{'descr: '<f4'}", 12, -1, 0, 0, "malformed header" },
    { "empty header", 1, 0, "", 12, 0, 0, 0, "malformed header" },
    { "unquoted key", 1, 0, "{descr: '<f4', 'fortran_order': False, 'shape': (3,)}", 12, -1, 0, 0,
      "a quoted key" },
    { "no closing brace", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (3,)", 12, -1,
      0, 0, "after a value" },
    { "no closing parenthesis", 1, 0, "{'descr': '<f4', 'fortran_order': False, 'shape': (3", 12,
      -1, 0, 0, "')' closing 'shape'" },
    { "junk in shape", 1, 0, HDR("'<f4'", "False", "(3, x)"), 12, -1, 0, 0, "a dimension" },
    { "two dims without a comma", 1, 0, HDR("'<f4'", "False", "(3 4)"), 12, -1, 0, 0,
      "',' or ')'" },
    { "unterminated dtype string", 1, 0, "{'fortran_order': False, 'shape': (3,), 'descr': '<f4",
      12, -1, 0, 0, "closing quote" },
    { "escape in a string", 1, 0, HDR("'<f\\x34'", "False", "(3,)"), 12, -1, 0, 0,
      "without escapes" },
    { "missing descr", 1, 0, "{'fortran_order': False, 'shape': (3,)}", 12, -1, 0, 0,
      "lacks key 'descr'" },
    { "missing fortran_order", 1, 0, "{'descr': '<f4', 'shape': (3,)}", 12, -1, 0, 0,
      "lacks key 'fortran_order'" },
    { "rank 9: all dims counted", 1, 0, HDR("'<f4'", "False", "(1, 1, 1, 1, 1, 1, 1, 1, 3)"), 12, -1,
      0, 0, "rank 9 (shape (1, 1, 1, 1, 1, 1, 1, 1, ... 9 dims))" },
    { "long dtype string is cut", 1, 0,
      HDR("'<ffffffffffffffffffffffffffffffffffffffffffffffff'", "False", "(3,)"), 12, -1, 0, 0,
      "unsupported dtype '<fffffffff" },
    { "non-ASCII dtype shown escaped", 1, 0, HDR("'<f\xc3\xa9'", "False", "(3,)"), 12, -1, 0, 0,
      "unsupported dtype '<f\\xc3\\xa9'" },
};

static const struct defect *defect_current;

/* The bytes of defect C (*LEN of them, malloc'd). */
static unsigned char *defect_bytes(const struct defect *c, size_t *len)
{
    unsigned char *b = build(c->major, c->minor, c->header, 1, c->hlen, NULL, c->dlen, len);
    if (c->cut)
        *len = c->cut;
    if (c->poke)
        b[c->poke - 1] = 'X';
    return b;
}

static void t_defect(void)
{
    const struct defect *c = defect_current;
    size_t len;
    unsigned char *b = defect_bytes(c, &len);
    pc_npy a;
    pc_err e;
    memset(&a, 0x55, sizeof a);
    pc_status st = pc_npy_parse(b, len, &a, &e);
    if (st != PC_EINPUT)
        fail("status %d, want PC_EINPUT (%s)", (int)st, st == PC_OK ? "accepted" : e.msg);
    else if (!strstr(e.msg, c->word))
        fail("message lacks \"%s\": %s", c->word, e.msg);
    else if (strchr(e.msg, '\n'))
        fail("message is not one line: %s", e.msg);
    else if (a.data != NULL || a.count != 0)
        fail("output not left empty");
    if (st == PC_OK)
        pc_npy_free(&a);
    free(b);
}

static void t_null_arguments(void)
{
    unsigned char b[16] = { 0 };
    pc_npy a;
    pc_err e;
    if (pc_npy_parse(b, sizeof b, NULL, &e) != PC_EINTERNAL)
        fail("NULL output accepted");
    if (pc_npy_parse(NULL, 10, &a, &e) != PC_EINTERNAL)
        fail("NULL buffer of length 10 accepted");
    if (pc_npy_parse(b, sizeof b, &a, NULL) != PC_EINPUT)    /* ERR may be NULL */
        fail("NULL error buffer");
    if (pc_npy_read(NULL, &a, &e) != PC_EINTERNAL)
        fail("NULL path accepted");
    pc_npy_free(NULL);
    pc_npy_free(&a);
}

static void t_empty_buffer(void)
{
    pc_npy a;
    pc_err e;
    if (pc_npy_parse(NULL, 0, &a, &e) != PC_EINPUT || !strstr(e.msg, "empty"))
        fail("empty buffer: %s", e.msg);
}

/* ------------------------------------------------------------------ */
/* Files                                                                */
/* ------------------------------------------------------------------ */

static void t_read_directory(void)
{
    pc_npy a;
    pc_err e;
    if (pc_npy_read(tmpdir, &a, &e) != PC_EIO || !strstr(e.msg, "directory"))
        fail("directory: %s", e.msg);
}

static void t_read_missing(void)
{
    char path[256];
    pc_npy a;
    pc_err e;
    tmp_path(path, sizeof path, "does-not-exist.npy");
    if (pc_npy_read(path, &a, &e) != PC_EIO || !strstr(e.msg, path)
        || !strstr(e.msg, "cannot open"))
        fail("missing file: %s", e.msg);
}

static void t_read_empty(void)
{
    char path[256];
    pc_npy a;
    pc_err e;
    tmp_path(path, sizeof path, "empty.npy");
    FILE *f = fopen(path, "wb");
    if (f)
        fclose(f);
    if (pc_npy_read(path, &a, &e) != PC_EINPUT || !strstr(e.msg, "empty file"))
        fail("empty file: %s", e.msg);
    unlink(path);
}

static int write_bytes(const char *path, const unsigned char *b, size_t len)
{
    FILE *f = fopen(path, "wb");
    int ok = f && fwrite(b, 1, len, f) == len;
    if (f && fclose(f) != 0)
        ok = 0;
    return ok;
}

/* The FIFO NAME (its path into PATH) fed by a child process with a
 * (256, 256) table of <f8 (F64) or <f4 values 0, 0.25, 0.5, ...: the
 * child's pid (-1: it did not start), the bytes in *B (freed by the
 * caller); 0 and the reason in `why` when the FIFO cannot be made. */
static pid_t fifo_table(const char *name, int f64, char *path, size_t plen, unsigned char **b)
{
    size_t n = 65536, w = f64 ? 8 : 4, len;
    tmp_path(path, plen, name);
    unsigned char *d = malloc(n * w);
    *b = NULL;
    if (!d || mkfifo(path, 0600) != 0) {
        fail("mkfifo %s failed", path);
        free(d);
        return 0;
    }
    for (size_t i = 0; i < n; i++) {
        if (f64) put_f64(d + 8 * i, (double)i * 0.25);
        else put_f32(d + 4 * i, (float)i * 0.25f);
    }
    *b = build(1, 0, f64 ? HDR("'<f8'", "False", "(256, 256)") : HDR("'<f4'", "False", "(256, 256)"),
               1, -1, d, n * w, &len);
    free(d);
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0)
        _exit(write_bytes(path, *b, len) ? 0 : 1);
    if (pid < 0)
        fail("fork failed");
    return pid;
}

static void fifo_done(pid_t pid, const char *path, unsigned char *b)
{
    int status;
    if (pid > 0)
        waitpid(pid, &status, 0);
    if (pid != 0)
        unlink(path);
    free(b);
}

/* A pipe (unknown size, read in growing chunks): a 512 KiB table through
 * a FIFO fed by a child process. */
static void t_read_fifo(void)
{
    char path[256];
    unsigned char *b;
    pid_t pid = fifo_table("fifo.npy", 1, path, sizeof path, &b);
    pc_npy a;
    pc_err e;
    if (pid > 0 && pc_npy_read(path, &a, &e) != PC_OK)
        fail("read: %s", e.msg);
    else if (pid > 0) {
        if (a.count != 65536 || a.data[65535] != 65535 * 0.25)
            fail("count %zu, last %a", a.count, a.data[a.count - 1]);
        pc_npy_free(&a);
    }
    fifo_done(pid, path, b);
}

/* int64 (RoPE position ids): values within 2^53 read exactly, one beyond
 * refused naming it. */
static void t_int64(void)
{
    int64_t v[3] = { 5, -7, (int64_t)1 << 53 };
    unsigned char data[24];
    for (int k = 0; k < 3; k++)
        for (int j = 0; j < 8; j++) data[8 * k + j] = (unsigned char)((uint64_t)v[k] >> (8 * j));
    size_t len;
    unsigned char *b = build(1, 0, HDR("'<i8'", "False", "(3,)"), 1, -1, data, 24, &len);
    pc_npy a;
    pc_err e;
    if (!b || pc_npy_parse(b, len, &a, &e) != PC_OK || strcmp(a.dtype, "<i8") || a.count != 3
        || a.data[0] != 5.0 || a.data[1] != -7.0 || a.data[2] != 0x1p53)
        fail("<i8 within 2^53 not read exactly");
    else
        pc_npy_free(&a);
    free(b);
    data[16] = 1; /* 2^53 + 1 */
    b = build(1, 0, HDR("'<i8'", "False", "(3,)"), 1, -1, data, 24, &len);
    if (!b || pc_npy_parse(b, len, &a, &e) != PC_EINPUT || !strstr(e.msg, "value 2 of the <i8"))
        fail("<i8 beyond 2^53 accepted or not named: %s", e.msg);
    free(b);
}

/* The message of pc_npy_read is "PATH: <what pc_npy_parse says>". */
static void t_read_prefixes_path(void)
{
    char path[256], want[400];
    size_t len;
    unsigned char *b = build(1, 0, HDR("'<i4'", "False", "(3,)"), 1, -1, NULL, 0, &len);
    unsigned char z[12] = { 0 };
    tmp_path(path, sizeof path, "PE.npy");
    FILE *f = fopen(path, "wb");
    if (!f || fwrite(b, 1, len, f) != len || fwrite(z, 1, sizeof z, f) != sizeof z) {
        fail("cannot write %s", path);
        if (f)
            fclose(f);
        free(b);
        return;
    }
    fclose(f);
    free(b);
    pc_npy a;
    pc_err e;
    snprintf(want, sizeof want, "%s: unsupported dtype '<i4' (expected <f2, <f4 or <f8)", path);
    if (pc_npy_read(path, &a, &e) != PC_EINPUT || strcmp(e.msg, want) != 0)
        fail("got \"%s\", want \"%s\"", e.msg, want);
    unlink(path);
}

/* ------------------------------------------------------------------ */
/* Reading in pieces (pc_npy_file)                                      */
/* ------------------------------------------------------------------ */

/* Every defect of the table above, written to a file: pc_npy_file_open
 * refuses it with pc_npy_read's status and message, word for word. */
static void t_file_defects(void)
{
    char path[256];
    tmp_path(path, sizeof path, "defect.npy");
    size_t nd = sizeof defects / sizeof defects[0];
    for (size_t i = 0; i < nd && !why[0]; i++) {
        const struct defect *c = &defects[i];
        size_t len;
        unsigned char *b = defect_bytes(c, &len);
        if (!write_bytes(path, b, len)) {
            fail("cannot write %s", path);
            free(b);
            break;
        }
        free(b);
        pc_npy a;
        pc_npy_file f;
        pc_err e1 = { "" }, e2 = { "" };
        pc_status s1 = pc_npy_read(path, &a, &e1), s2 = pc_npy_file_open(path, &f, &e2);
        if (s1 != s2 || strcmp(e1.msg, e2.msg) != 0)
            fail("%s: pc_npy_read %d \"%s\", pc_npy_file_open %d \"%s\"", c->name, (int)s1,
                 e1.msg, (int)s2, e2.msg);
        if (s1 == PC_OK)
            pc_npy_free(&a);
        if (s2 == PC_OK)
            pc_npy_file_close(&f);
    }
    unlink(path);
}

/* A (300, 7) table of every dtype read in pieces of every length from
 * every start: the values pc_npy_read gives (binary32: those rounded),
 * a <f4 signalling NaN quiet as through binary64. */
static void t_file_pieces(void)
{
    static const char *dtypes[] = { "<f2", "<f4", "<f8", "<u2" };
    static const size_t sizes[] = { 2, 4, 8, 2 };
    char path[256];
    tmp_path(path, sizeof path, "pieces.npy");
    size_t n = 300 * 7;
    for (size_t t = 0; t < 4 && !why[0]; t++) {
        size_t isz = sizes[t], len;
        unsigned char *d = malloc(n * isz);
        for (size_t k = 0; d && k < n * isz; k++)
            d[k] = (unsigned char)(k * 2654435761u >> 13);
        if (d && isz == 4) { /* a signalling NaN at value 5 */
            uint32_t snan = 0x7f800001u;
            memcpy(d + 20, &snan, 4);
        }
        char hdr[128];
        snprintf(hdr, sizeof hdr, "{'descr': '%s', 'fortran_order': False, 'shape': (300, 7), }",
                 dtypes[t]);
        unsigned char *b = d ? build(1, 0, hdr, 1, -1, d, n * isz, &len) : NULL;
        free(d);
        pc_npy a;
        pc_npy_file f;
        pc_err e;
        if (!b || !write_bytes(path, b, len) || pc_npy_read(path, &a, &e) != PC_OK) {
            fail("%s: cannot write or read %s", dtypes[t], path);
            free(b);
            break;
        }
        free(b);
        if (pc_npy_file_open(path, &f, &e) != PC_OK) {
            fail("%s: %s", dtypes[t], e.msg);
            pc_npy_free(&a);
            break;
        }
        if (f.count != n || f.shape[0] != 300 || f.shape[1] != 7 || strcmp(f.dtype, a.dtype))
            fail("%s: shape (%zu, %zu), dtype %s", dtypes[t], f.shape[0], f.shape[1], f.dtype);
        double v64[64];
        float v32[64];
        for (size_t v0 = 0; v0 < n && !why[0]; v0 += 37)
            for (size_t m = 1; m <= 64 && v0 + m <= n && !why[0]; m += 21) {
                if (pc_npy_file_f64(&f, v0, m, v64, &e) != PC_OK ||
                    pc_npy_file_f32(&f, v0, m, v32, &e) != PC_OK) {
                    fail("%s: values %zu..+%zu: %s", dtypes[t], v0, m, e.msg);
                    break;
                }
                for (size_t k = 0; k < m; k++) {
                    float want = (float)a.data[v0 + k];
                    if (!same_bits(v64[k], a.data[v0 + k]) || memcmp(&v32[k], &want, 4) != 0)
                        fail("%s: value %zu: %a, %a; pc_npy_read %a", dtypes[t], v0 + k,
                             v64[k], (double)v32[k], a.data[v0 + k]);
                }
            }
        if (pc_npy_file_f32(&f, n - 3, 4, v32, &e) != PC_EINTERNAL)
            fail("%s: values past the end accepted", dtypes[t]);
        pc_npy_file_close(&f);
        pc_npy_file_close(&f); /* twice: safe */
        pc_npy_free(&a);
    }
    unlink(path);
}

/* A file cut after it was opened: the read says so, naming the file. */
static void t_file_cut(void)
{
    char path[256];
    tmp_path(path, sizeof path, "cut.npy");
    size_t n = 1000, len;
    unsigned char d[4000];
    for (size_t i = 0; i < n; i++)
        put_f32(d + 4 * i, (float)i);
    unsigned char *b = build(1, 0, HDR("'<f4'", "False", "(1000,)"), 1, -1, d, sizeof d, &len);
    pc_npy_file f;
    pc_err e;
    float v[10];
    if (!b || !write_bytes(path, b, len) || pc_npy_file_open(path, &f, &e) != PC_OK) {
        fail("cannot write or open %s", path);
        free(b);
        return;
    }
    if (truncate(path, (off_t)(len - 100)) != 0)
        fail("truncate failed");
    else if (pc_npy_file_f32(&f, 0, 10, v, &e) != PC_OK || v[9] != 9.0f)
        fail("the start of the file: %s", e.msg);
    else if (pc_npy_file_f32(&f, 990, 10, v, &e) != PC_EINPUT || !strstr(e.msg, path) ||
             !strstr(e.msg, "changed after it was opened"))
        fail("the cut end: \"%s\"", e.msg);
    pc_npy_file_close(&f);
    free(b);
    unlink(path);
}

/* A pipe's bytes come once: read whole at open, then in pieces. */
static void t_file_fifo(void)
{
    char path[256];
    unsigned char *b;
    pid_t pid = fifo_table("fifo2.npy", 0, path, sizeof path, &b);
    pc_npy_file f;
    pc_err e;
    float v[3];
    if (pid > 0 && pc_npy_file_open(path, &f, &e) != PC_OK)
        fail("open: %s", e.msg);
    else if (pid > 0) {
        if (pc_npy_file_f32(&f, 65533, 3, v, &e) != PC_OK || v[2] != 65535 * 0.25f)
            fail("last values: %s", e.msg);
        pc_npy_file_close(&f);
    }
    fifo_done(pid, path, b);
}

/* ------------------------------------------------------------------ */
/* Files written by numpy (tests/npy_numpy_check.sh)                    */
/* ------------------------------------------------------------------ */

/* DIR/manifest.txt has one line a file:
 *   NAME.npy DTYPE RANK D0 D1 D2 VALUES.txt   file numpy wrote; VALUES.txt
 *                                             holds float.hex() of each value
 *   NAME.npy ! WORD...                        a file the reader must reject
 *                                             with WORD... in the message
 *   @ok DESCRIPTION | @fail DESCRIPTION       a check numpy made itself (on
 *                                             the files of --write-dir) */
static int numpy_dir(const char *dir)
{
    char path[1024], line[1024];
    snprintf(path, sizeof path, "%s/manifest.txt", dir);
    FILE *mf = fopen(path, "r");
    if (!mf) {
        printf("1..0 # SKIP no %s\n", path);
        return 1;
    }
    int n = 0;
    while (fgets(line, sizeof line, mf))
        n++;
    rewind(mf);
    printf("1..%d\n", n);
    while (fgets(line, sizeof line, mf)) {
        char name[256], dtype[16], vals[256], test[600];
        int rank;
        size_t d[3];
        line[strcspn(line, "\n")] = '\0';
        if (sscanf(line, "%255s", name) != 1) {
            fail("bad manifest line '%s'", line);
            report("manifest");
            continue;
        }
        if (strncmp(line, "@ok ", 4) == 0 || strncmp(line, "@fail ", 6) == 0) {
            const char *desc = strchr(line, ' ') + 1;
            if (line[1] == 'f')
                fail("numpy says: %s", desc);
            report(desc);
            continue;
        }
        snprintf(path, sizeof path, "%s/%s", dir, name);
        pc_npy a;
        pc_err e;
        pc_status st = pc_npy_read(path, &a, &e);
        const char *bang = strstr(line, " ! ");
        if (bang) {
            snprintf(test, sizeof test, "numpy %s rejected (%s)", name, bang + 3);
            if (st != PC_EINPUT)
                fail("status %d, want PC_EINPUT", (int)st);
            else if (!strstr(e.msg, bang + 3))
                fail("message lacks \"%s\": %s", bang + 3, e.msg);
            if (st == PC_OK)
                pc_npy_free(&a);
            report(test);
            continue;
        }
        snprintf(test, sizeof test, "numpy %s read back exactly", name);
        if (sscanf(line, "%*s %15s %d %zu %zu %zu %255s", dtype, &rank, &d[0], &d[1], &d[2],
                   vals) != 6) {
            fail("bad manifest line '%s'", line);
            if (st == PC_OK)
                pc_npy_free(&a);
            report(test);
            continue;
        }
        if (st != PC_OK) {
            fail("%s", e.msg);
            report(test);
            continue;
        }
        if (strcmp(a.dtype, dtype) != 0 || a.rank != rank || a.shape[0] != d[0]
            || a.shape[1] != d[1] || a.shape[2] != d[2])
            fail("got %s rank %d (%zu, %zu, %zu)", a.dtype, a.rank, a.shape[0], a.shape[1],
                 a.shape[2]);
        snprintf(path, sizeof path, "%s/%s", dir, vals);
        FILE *vf = fopen(path, "r");
        size_t i = 0;
        char tok[64];
        while (vf && fscanf(vf, "%63s", tok) == 1) {
            double w = strtod(tok, NULL);
            if (i >= a.count) {
                fail("more values in %s than in the file", vals);
                break;
            }
            if (isnan(w) ? !isnan(a.data[i]) : !same_bits(a.data[i], w)) {
                fail("value %zu: got %a, want %a (%s)", i, a.data[i], w, tok);
                break;
            }
            i++;
        }
        if (!vf)
            fail("cannot open %s", path);
        else {
            if (i != a.count && !why[0])
                fail("%zu values in %s, %zu in the file", i, vals, a.count);
            fclose(vf);
        }
        pc_npy_free(&a);
        report(test);
    }
    fclose(mf);
    return tap_failed == 0;
}

/* Files for numpy to read: the round-trip tables (same shapes, same
 * values as t_rt_*). */
static int write_dir(const char *dir)
{
    static const size_t shapes[3][3] = { { 1000, 1, 1 }, { 37, 64, 1 }, { 50, 16, 2 } };
    int ok = 1;
    for (int is64 = 0; is64 < 2; is64++) {
        for (int r = 1; r <= 3; r++) {
            char path[1024];
            size_t count = shapes[r - 1][0] * shapes[r - 1][1] * shapes[r - 1][2];
            float *f = malloc(count * sizeof *f);
            double *d = malloc(count * sizeof *d);
            pc_err e;
            pc_status st = PC_ENOMEM;
            snprintf(path, sizeof path, "%s/ours_f%d_r%d.npy", dir, is64 ? 64 : 32, r);
            if (f && d) {
                for (size_t i = 0; i < count; i++) {
                    f[i] = f32_value(i);
                    d[i] = f64_value(i);
                }
                st = is64 ? pc_npy_write_f64(path, d, r, shapes[r - 1], &e)
                          : pc_npy_write_f32(path, f, r, shapes[r - 1], &e);
            } else
                snprintf(e.msg, sizeof e.msg, "out of memory");
            if (st != PC_OK) {
                fprintf(stderr, "npy_test: %s\n", e.msg);
                ok = 0;
            }
            free(f);
            free(d);
        }
    }
    return ok;
}

/* ------------------------------------------------------------------ */

static const struct {
    const char *name;
    void (*fn)(void);
} tests[] = {
    { "round trip f32 rank 1 (1000,)", t_rt_f32_r1 },
    { "round trip f32 rank 2 (37, 64)", t_rt_f32_r2 },
    { "round trip f32 rank 3 (50, 16, 2)", t_rt_f32_r3 },
    { "round trip f64 rank 1 (1,)", t_rt_f64_r1 },
    { "round trip f64 rank 2 (5000, 3)", t_rt_f64_r2 },
    { "round trip f64 rank 3 (7, 3, 2)", t_rt_f64_r3 },
    { "writer emits numpy's v1.0 layout", t_write_layout },
    { "writer rejects rank 0, rank 4 and zero dims", t_write_rejects },
    { "failed write leaves no file behind", t_write_fails_cleanly },
    { "write replaces an existing file", t_write_replaces },
    { "v1.0 <f4 rank 1", t_parse_v1_f4 },
    { "v2.0 <f8 rank 2", t_parse_v2_f8 },
    { "<i2, <i4 through pc_npy_parse_numbers only, <i8 through both, exact to 2^53", t_parse_ints },
    { "v3.0 <f2 rank 3, double-quoted keys", t_parse_v3_f2 },
    { "header variants: key order, spaces, trailing commas, 3L, '=f4', no padding",
      t_parse_header_variants },
    { "shape (5000,)", t_parse_5000 },
    { "rank 1 with fortran_order True: the same bytes, read", t_parse_fortran_rank1 },
    { "all 65536 binary16 values exact", t_half_exhaustive },
    { "empty buffer rejected", t_empty_buffer },
    { "NULL arguments: PC_EINTERNAL, NULL err allowed", t_null_arguments },
    { "read through a pipe (unknown size)", t_read_fifo },
    { "directory rejected (PC_EIO)", t_read_directory },
    { "nonexistent path rejected (PC_EIO)", t_read_missing },
    { "empty file rejected (PC_EINPUT)", t_read_empty },
    { "pc_npy_read prefixes the path", t_read_prefixes_path },
    { "int64: exact within 2^53, beyond refused", t_int64 },
    { "pc_npy_file_open refuses every defect with pc_npy_read's message", t_file_defects },
    { "pc_npy_file: pieces of <f2, <f4, <f8, <u2 equal pc_npy_read's values", t_file_pieces },
    { "pc_npy_file: a file cut after it was opened is named", t_file_cut },
    { "pc_npy_file: a pipe read whole at open", t_file_fifo },
};

int main(int argc, char **argv)
{
    if (argc == 3 && strcmp(argv[1], "--numpy-dir") == 0)
        return numpy_dir(argv[2]) ? 0 : 1;
    if (argc == 3 && strcmp(argv[1], "--write-dir") == 0)
        return write_dir(argv[2]) ? 0 : 1;
    if (argc != 1) {
        fprintf(stderr, "usage: npy_test [--numpy-dir DIR | --write-dir DIR]\n");
        return 2;
    }
    if (!mkdtemp(tmpdir)) {
        perror("npy_test: mkdtemp");
        return 2;
    }
    size_t nt = sizeof tests / sizeof tests[0];
    size_t nh = sizeof half_cases / sizeof half_cases[0];
    size_t nd = sizeof defects / sizeof defects[0];
    printf("1..%zu\n", nt + nh + nd);

    char name[300];
    for (size_t i = 0; i < nt; i++) {
        tests[i].fn();
        report(tests[i].name);
    }
    for (size_t i = 0; i < nh; i++) {
        half_current = &half_cases[i];
        t_half();
        snprintf(name, sizeof name, "binary16 %s", half_cases[i].name);
        report(name);
    }
    for (size_t i = 0; i < nd; i++) {
        defect_current = &defects[i];
        t_defect();
        snprintf(name, sizeof name, "defect: %s -> \"%s\"", defects[i].name, defects[i].word);
        report(name);
    }
    rmdir(tmpdir);
    return tap_failed ? 1 : 0;
}

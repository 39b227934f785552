/* table.c: .npy positional-encoding tables as implementations under test. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"
#include "harness/io/npy.h"
#include "table.h"
#include "families/family.h"
#include "reference/reference.h"
#include "ACSL/pecheck.acsl" /* ACSL predicates: comments only */

#define TABLE_MAGIC 0x7AB1Eu

typedef struct table {
    pc_impl impl;         /* first: what is handed out */
    unsigned magic;
    pc_table_info info;
    char *name, *path, *sin_path;
    char description[256];
    size_t rows, cols;    /* of each file */
    float *a;             /* sinusoidal: the table; rope: cos */
    float *s;             /* rope: sin */
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

/* The row lookup and the serving of rows (row_of, rows_in, copy_floats,
 * serve_rows, sin_hook) carry ACSL contracts proved by Frama-C WP (make
 * prove, docs/proofs.md): a position outside the table's rows is rejected
 * before anything is written, and every row read lies inside the table.
 * copy_floats is memcpy, whose byte-level copy is outside WP's typed
 * memory model: its contract is assumed, its arguments are proved valid. */

/*@ // A table as pc_table_open leaves it: ROWS x COLS binary32 values at A,
    // row r holding position pos_lo + r, positions in [0, 2^53].
    predicate table_ok(table *t) =
      \valid_read(t) &&
      1 <= t->rows && 1 <= t->cols && t->rows * t->cols <= SIZE_MAX &&
      0 <= t->info.pos_lo && t->info.pos_hi == t->info.pos_lo + t->rows - 1 &&
      t->info.pos_hi <= PC_ACSL_POS_MAX &&
      \valid_read(t->a + (0 .. t->rows * t->cols - 1));

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

/* DST[0 .. N) = SRC[0 .. N), bit for bit. */
/*@ requires valid_dst: \valid(dst + (0 .. n - 1));
    requires valid_src: \valid_read(src + (0 .. n - 1));
    requires separated: \separated(dst + (0 .. n - 1), src + (0 .. n - 1));
    assigns dst[0 .. n - 1] \from src[0 .. n - 1];
*/
static void copy_floats(float *dst, const float *src, size_t n)
{
    memcpy(dst, src, n * sizeof *dst);
}

/* OUT row r (W floats) = the table row of POS[r], for r < N.  Every
 * position has a row (rows_in said so). */
/*@ requires table: table_ok(t);
    requires width: 1 <= w <= t->cols;
    requires valid_pos: pc_valid_positions(pos, n);
    requires all_in: table_has_all(t, pos, n);
    requires size: pc_size_ok(n, w);
    requires valid_out: \valid(out + (0 .. n * w - 1));
    requires separated: \separated(out + (0 .. n * w - 1), t->a + (0 .. t->rows * t->cols - 1),
                                    pos + (0 .. n - 1), t);
    assigns out[0 .. n * w - 1];
*/
static void serve_rows(const table *t, const int64_t *pos, size_t n, size_t w, float *out)
{
    /*@ loop invariant rows: 0 <= r <= n;
        loop assigns r, out[0 .. n * w - 1];
        loop variant n - r; */
    for (size_t r = 0; r < n; r++) {
        size_t row = (size_t)row_of(t, pos[r]);
        //@ assert row_in: row * t->cols + t->cols <= t->rows * t->cols;
        //@ assert out_in: r * w + w <= n * w;
        copy_floats(out + r * w, t->a + row * t->cols, w);
    }
}

/* ---- hooks ------------------------------------------------------------- */

/*@ requires table: table_ok(t);
    requires sinusoidal: t->info.d == t->cols;
    requires valid_pos: pc_valid_positions(pos, n);
    requires size: pc_size_ok(n, d);
    requires valid_out: \valid(out + (0 .. n * d - 1));
    requires separated: \separated(out + (0 .. n * d - 1), t->a + (0 .. t->rows * t->cols - 1),
                                    pos + (0 .. n - 1), t);
    behavior wrong_shape:
      assumes other: d != t->info.d || layout != t->info.layout;
      assigns \nothing;
      ensures declined: \result == 1 || \result == 2;
    behavior in_range:
      assumes same: d == t->info.d && layout == t->info.layout;
      assumes all_in: table_has_all(t, pos, n);
      assigns out[0 .. n * d - 1];
      ensures ok: \result == 0;
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
    serve_rows(t, pos, n, (size_t)d, out);
    return 0;
}

static int sin_hook(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                    float *out)
{
    (void)base; /* a table has its base baked in; the gate's --base is what it is held to */
    return sin_serve(ctx, pos, n, d, layout, out);
}

static int rope_hook(void *ctx, const int64_t *pos, size_t n, int d, double base, int layout,
                     const float *x, float *out)
{
    (void)base;
    table *t = ctx;
    if (d != t->info.d) return 2;
    if (t->info.layout >= 0 && layout != t->info.layout) return 1;
    if (layout != PECHECK_LAYOUT_INTERLEAVED && layout != PECHECK_LAYOUT_HALF) return 1;
    for (size_t r = 0; r < n; r++)
        if (row_of(t, pos[r]) < 0) return 3;
    int h = d / 2;
    for (size_t r = 0; r < n; r++) {
        size_t row = (size_t)row_of(t, pos[r]) * t->cols;
        const float *xr = x + r * (size_t)d;
        float *o = out + r * (size_t)d;
        for (int i = 0; i < h; i++) {
            size_t a = layout == PECHECK_LAYOUT_INTERLEAVED ? (size_t)(2 * i) : (size_t)i;
            size_t b = layout == PECHECK_LAYOUT_INTERLEAVED ? (size_t)(2 * i + 1) : (size_t)(i + h);
            /* (n, d): each output column has its own cached value; (n, d/2): one per pair */
            size_t ca = t->info.full_width ? a : (size_t)i, cb = t->info.full_width ? b : (size_t)i;
            float cos_a = t->a[row + ca], sin_a = t->s[row + ca];
            float cos_b = t->a[row + cb], sin_b = t->s[row + cb];
            /* x * cos + rotate_half(x) * sin, each product rounded (binary32) */
            float pa = xr[a] * cos_a, qa = xr[b] * sin_a;
            float pb = xr[b] * cos_b, qb = xr[a] * sin_b;
            o[a] = pa - qa;
            o[b] = pb + qb;
        }
    }
    return 0;
}

/* A lookup table (learned): row r of OUT (N x D) = the row of POS[r];
 * 2 for another width, 3 (OUT untouched) when a position has no row. */
static int lookup_hook(void *ctx, const int64_t *pos, size_t n, int d, float *out)
{
    const table *t = ctx;
    if (d != t->info.d) return 2;
    if (!rows_in(t, pos, n)) return 3;
    serve_rows(t, pos, n, (size_t)d, out);
    return 0;
}

static int64_t lookup_max_len(void *ctx)
{
    const table *t = ctx;
    return (int64_t)t->rows;
}

/* ---- loading ------------------------------------------------------------ */

static pc_status load(const char *path, const char *what, pc_npy *a, pc_err *err)
{
    pc_status st = pc_npy_read(path, a, err);
    if (st == PC_EIO) st = PC_EINPUT; /* a missing or unreadable table is bad input (exit 2) */
    if (st != PC_OK) return st;
    if (a->dtype[1] == 'i')
        return pc_seterr(err, PC_EINPUT, "%s: %s holds values, not integers (<i8: position ids "
                         "are given with --position-ids)", path, what);
    if (a->rank != 2)
        return pc_seterr(err, PC_EINPUT, "%s: %s must have shape (n, d), got rank %d",
                         path, what, a->rank);
    return PC_OK;
}

/* bfloat16 bits -> binary32 (exact: bfloat16 is binary32's top half) */
static float bf16_value(double bits)
{
    uint32_t u = (uint32_t)bits << 16;
    float f;
    memcpy(&f, &u, sizeof f);
    return f;
}

/* <u2 bfloat16 bit patterns -> their values, in place (exact) */
static void decode_bf16(pc_npy *a)
{
    if (a->dtype[1] != 'u') return;
    for (size_t k = 0; k < a->count; k++) a->data[k] = (double)bf16_value(a->data[k]);
}

static float *to_f32(const pc_npy *a)
{
    float *f = malloc(a->count * sizeof *f);
    if (!f) return NULL;
    /* exact for <f2, <f4 and decoded <u2; <f8 rounds to nearest binary32:
     * the table is gated as a binary32 implementation */
    for (size_t k = 0; k < a->count; k++) f[k] = (float)a->data[k];
    return f;
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
    if (t->base_fitted) cfg->base = t->base;
    /* a half-precision cache: values computed in binary32, stored once */
    cfg->storage = t->dtype == PC_DT_BF16 || t->dtype == PC_DT_F16;
}

static void scan_nonfinite(table *t, const pc_npy *a, const char *file)
{
    for (size_t k = 0; k < a->count; k++)
        if (!isfinite(a->data[k])) {
            if (t->info.nonfinite++ == 0 || (int64_t)(k / t->cols) + t->info.pos_lo < t->info.nf_pos) {
                t->info.nf_pos = t->info.pos_lo + (int64_t)(k / t->cols);
                t->info.nf_col = (int)(k % t->cols);
                t->info.nf_val = a->data[k];
                t->info.nf_file = file;
            }
        }
}

/* Sinusoidal layout from the first pair: columns (0, 1) (interleaved) or
 * (0, d/2) (half) hold sin and cos of the same angle pos*omega_0 = pos, so
 * sin^2 + cos^2 - 1 is about 0 for the right layout and not the other. */
static int detect_sin_layout(const table *t, char *note, size_t len)
{
    size_t h = t->cols / 2;
    if (h == 1) {
        snprintf(note, len, "d = 2: both layouts are the same table (interleaved used)");
        return 0;
    }
    double e[2] = { 0, 0 };
    size_t used = 0;
    for (size_t r = 0; r < t->rows; r++) {
        double s = (double)t->a[r * t->cols], c0 = (double)t->a[r * t->cols + 1];
        double c1 = (double)t->a[r * t->cols + h];
        if (!isfinite(s) || !isfinite(c0) || !isfinite(c1)) continue;
        e[0] += fabs(s * s + c0 * c0 - 1.0);
        e[1] += fabs(s * s + c1 * c1 - 1.0);
        used++;
    }
    int layout = e[1] < e[0] ? 1 : 0;
    if (used) { e[0] /= (double)used; e[1] /= (double)used; }
    snprintf(note, len, "layout %s detected: mean |sin^2+cos^2-1| of columns (0, 1) is %.3g, "
             "of columns (0, d/2) %.3g", layout ? "half" : "interleaved", e[0], e[1]);
    return layout;
}

/* ulp of the storage type DT at |x| (binary32's spacing for f32; the
 * 8- and 11-bit significands of bfloat16 and float16, float16's
 * subnormal spacing 2^-24 below 2^-14). */
static double storage_ulp(int dt, float x)
{
    int e;
    frexpf(fabsf(x), &e); /* |x| in [2^(e-1), 2^e) */
    int bits = dt == PC_DT_BF16 ? 8 : dt == PC_DT_F16 ? 11 : 24;
    int emin = dt == PC_DT_F16 ? -13 : -125;
    if (x == 0.0f || e < emin) e = emin;
    return ldexp(1.0, e - bits);
}

/* Repeated columns X and Y agree: bit for bit, or within 2 ulps of the
 * storage (a vectorised cos or sin may round the same angle differently
 * at different positions of a SIMD vector: each result is within an ulp
 * of the exact value, so two of them are within 2 ulps).  *LOOSE is set
 * when they agree only within the ulps. */
static int dup_equal(int dt, float x, float y, int *loose)
{
    if (memcmp(&x, &y, sizeof x) == 0) return 1;
    double tol = 2.0 * storage_ulp(dt, fabsf(x) > fabsf(y) ? x : y);
    if (isfinite(x) && isfinite(y) && fabs((double)x - (double)y) <= tol) { *loose = 1; return 1; }
    return 0;
}

/* RoPE (n, d) caches: count the pairs of columns that should hold the same
 * value under LAYOUT (half: j and j+d/2; interleaved: 2i and 2i+1) but do
 * not (bit patterns, or within 2 ulps of the storage: dup_equal). */
static size_t dup_mismatches(const table *t, int layout, char *first, size_t len, int *loose)
{
    size_t h = t->cols / 2, bad = 0;
    for (int m = 0; m < 2; m++) {
        const float *v = m ? t->s : t->a;
        for (size_t r = 0; r < t->rows; r++)
            for (size_t i = 0; i < h; i++) {
                size_t ca = layout ? i : 2 * i, cb = layout ? i + h : 2 * i + 1;
                float x = v[r * t->cols + ca], y = v[r * t->cols + cb];
                if (!dup_equal(t->info.dtype, x, y, loose)) {
                    if (bad++ == 0 && first)
                        snprintf(first, len, "%s row %zu (pos %" PRId64 "): column %zu = %a (%.9g) "
                                 "but column %zu = %a (%.9g)", m ? "sin" : "cos", r,
                                 t->info.pos_lo + (int64_t)r, ca, (double)x, (double)x, cb,
                                 (double)y, (double)y);
                }
            }
    }
    return bad;
}

static pc_status setup_rope(table *t, const pc_table_args *o, pc_err *err)
{
    pc_table_info *in = &t->info;
    size_t c = t->cols;
    char first[2][200] = { "", "" };
    size_t bad[2] = { (size_t)-1, (size_t)-1 };
    int loose[2] = { 0, 0 };
    if (c % 2 == 0) {
        bad[0] = dup_mismatches(t, 0, first[0], sizeof first[0], &loose[0]);
        bad[1] = dup_mismatches(t, 1, first[1], sizeof first[1], &loose[1]);
    }
    int full;
    if (o->d_set) {
        if ((size_t)o->d == c) full = 1;
        else if ((size_t)o->d == 2 * c) full = 0;
        else
            return pc_seterr(err, PC_EINPUT, "--d %d contradicts %s's shape (%zu, %zu): a RoPE "
                             "cache has d/2 or d columns", o->d, t->path, t->rows, c);
    } else {
        /* (n, d) when some layout's repeated columns are (nearly) all
         * equal: a real (n, d/2) cache has distinct frequencies in those
         * columns, equal only where cos/sin round alike (near position 0),
         * so under 10% of its column pairs match; a (n, d) cache with a
         * few corrupted entries still matches in over 90% (and its
         * mismatches are then reported) */
        size_t pairs = 2 * t->rows * (c / 2);
        size_t best = bad[0] < bad[1] ? bad[0] : bad[1];
        full = c % 2 == 0 && best <= pairs / 10;
    }
    in->full_width = full;
    in->d = full ? (int)c : (int)(2 * c);
    if (in->d < 2 || in->d > PC_D_MAX || in->d % 2)
        return pc_seterr(err, PC_EINPUT, "%s: %zu columns give d = %d; RoPE needs an even d in "
                         "[2, %d]", t->path, c, in->d, PC_D_MAX);
    if (!full) {
        in->layout = o->layout; /* -1: either layout */
        snprintf(in->layout_note, sizeof in->layout_note, "(n, d/2) cache: one column per pair, "
                 "usable with either layout%s", o->d_set ? "" : " (no repeated columns found)");
        return PC_OK;
    }
    int layout;
    if (o->layout >= 0)
        layout = o->layout;
    else if (bad[0] == 0 && bad[1] == 0)
        layout = 1;
    else
        layout = bad[1] <= bad[0] ? 1 : 0;
    in->layout = layout;
    if (bad[layout] == 0)
        snprintf(in->layout_note, sizeof in->layout_note, "(n, d) cache, layout %s %s: %s",
                 layout ? "half" : "interleaved", o->layout >= 0 ? "(--layout)" : "detected",
                 layout ? "columns j and j+d/2 are equal (cat(freqs, freqs))"
                        : "columns 2i and 2i+1 are equal (repeat_interleave)");
    else
        snprintf(in->layout_note, sizeof in->layout_note, "(n, d) cache, layout %s %s, but "
                 "%zu repeated column pairs differ", layout ? "half" : "interleaved",
                 o->layout >= 0 ? "(--layout)" : "(closest)", bad[layout]);
    if (bad[0] == 0 && bad[1] == 0 && o->layout < 0)
        snprintf(in->layout_note + strlen(in->layout_note),
                 sizeof in->layout_note - strlen(in->layout_note),
                 " (both layouts fit these rows; pass --layout)");
    in->dup_within = loose[layout];
    if (loose[layout])
        snprintf(in->layout_note + strlen(in->layout_note),
                 sizeof in->layout_note - strlen(in->layout_note),
                 " (some repeated values differ within 2 ulps of the storage)");
    in->dup_mismatch = (int)(bad[layout] > INT32_MAX ? INT32_MAX : bad[layout]);
    if (bad[layout])
        snprintf(in->dup_note, sizeof in->dup_note, "%s", first[layout]);
    return PC_OK;
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
 * fit, families/rope/fit.h).  No base given (no --base, no --hf-config or
 * --rope-scaling): the fitted one, rounded to 3 significant digits, is what
 * the table is checked against; a given --base that the table contradicts
 * is reported. */
static void fit_base(table *t, const pc_family *fam, const pc_table_args *o)
{
    pc_table_info *in = &t->info;
    double r, b;
    if (o->scheduled || !fam->diagnosis || !fam->diagnosis->table_base)
        return; /* a schedule's own base (--hf-config ...) */
    if (!fam->diagnosis->table_base(&t->impl, in->d, in->layout < 0 ? 1 : in->layout, in->pos_lo,
                                    in->pos_hi, pc_model_u(in->dtype), &r, &b))
        return; /* not a clean geometric table */
    if (!o->base_set) {
        in->base = r;
        in->base_fitted = 1;
        snprintf(in->base_note, sizeof in->base_note, "base %.17g fitted from the table (%.9g; "
                 "no --base given): the table is checked against it", r, b);
    } else if (fabs(r / o->base - 1.0) > 1e-3) {
        snprintf(in->base_note, sizeof in->base_note, "warning: --base %.17g, but the table's "
                 "frequencies fit base %.9g", o->base, b);
    }
}

/* A table of encodings (sinusoidal) or a lookup table (learned): even
 * d columns in [2, PC_D_MAX], as --d says; a lookup table's rows are
 * positions 0..n-1 (E[pos], pos < max_len). */
static pc_status check_width(const pc_table_args *o, const char *path, const pc_npy *a, int lookup,
                             pc_err *err)
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

pc_status pc_table_open(const pc_table_args *o, const char *path, const char *sin_path,
                        const char *family, pc_impl **out, pc_err *err)
{
    *out = NULL;
    const pc_family *fam;
    pc_status kst = table_family(family, sin_path, &fam, err);
    if (kst != PC_OK) return kst;
    int rope = fam->rows && fam->rows->input; /* a (cos, sin) cache pair */
    int lookup = !fam->rows;                   /* a learned table */
    pc_npy a = { 0 }, s = { 0 };
    pc_status st = load(path, rope ? "a RoPE cos cache" : lookup ? "a learned table"
                        : "a sinusoidal table", &a, err);
    if (st == PC_OK && rope) st = load(sin_path, "a RoPE sin cache", &s, err);
    if (st == PC_OK && rope && (a.shape[0] != s.shape[0] || a.shape[1] != s.shape[1]))
        st = pc_seterr(err, PC_EINPUT, "%s has shape (%zu, %zu) but %s has shape (%zu, %zu): the "
                       "cos and sin caches must match", path, a.shape[0], a.shape[1], sin_path,
                       s.shape[0], s.shape[1]);
    /* rows pos_start .. pos_start + rows - 1, the last at most 2^53 */
    if (st == PC_OK && a.shape[0] - 1 > (size_t)(PC_POS_MAX - o->pos_start))
        st = pc_seterr(err, PC_EINPUT, "%s: %zu rows from --pos-start %" PRId64 " pass position 2^53",
                       path, a.shape[0], o->pos_start);
    if (st == PC_OK && !rope) st = check_width(o, path, &a, lookup, err);
    pc_table_info probe;
    memset(&probe, 0, sizeof probe);
    if (st == PC_OK) st = storage_of(o, path, a.dtype, &probe, err);
    if (st == PC_OK && rope && strcmp(a.dtype, s.dtype) != 0)
        st = pc_seterr(err, PC_EINPUT, "%s is %s but %s is %s: the cos and sin caches must have "
                       "one dtype", path, a.dtype, sin_path, s.dtype);
    if (st == PC_OK) { decode_bf16(&a); decode_bf16(&s); }
    table *t = NULL;
    if (st == PC_OK) {
        t = calloc(1, sizeof *t);
        if (!t) st = pc_seterr(err, PC_ENOMEM, "out of memory");
    }
    if (st == PC_OK) {
        t->magic = TABLE_MAGIC;
        t->impl.ctx = t;
        t->rows = a.shape[0];
        t->cols = a.shape[1];
        t->path = strdup(path);
        t->sin_path = rope ? strdup(sin_path) : NULL;
        t->a = to_f32(&a);
        t->s = rope ? to_f32(&s) : NULL;
        t->name = strdup(path); /* the name is the (cos) table's path */
        if (!t->path || !t->a || !t->name || (rope && (!t->sin_path || !t->s)))
            st = pc_seterr(err, PC_ENOMEM, "out of memory for %s", path);
    }
    if (st == PC_OK) {
        pc_table_info *in = &t->info;
        in->family = fam->name;
        in->path = t->path;
        in->sin_path = t->sin_path;
        in->pos_lo = o->pos_start;
        in->pos_hi = o->pos_start + (int64_t)t->rows - 1;
        in->dtype = probe.dtype;
        memcpy(in->dtype_note, probe.dtype_note, sizeof in->dtype_note);
        scan_nonfinite(t, &a, t->path);
        if (rope) scan_nonfinite(t, &s, t->sin_path);
        if (rope)
            st = setup_rope(t, o, err);
        else if (lookup) {
            in->d = (int)t->cols;
            in->layout = -1; /* rows are looked up whole: no pairs */
            snprintf(in->layout_note, sizeof in->layout_note, "a lookup table (no pair layout)");
        } else {
            in->d = (int)t->cols;
            if (o->layout >= 0) {
                in->layout = o->layout;
                snprintf(in->layout_note, sizeof in->layout_note, "layout %s (--layout)",
                         pc_layout_name(o->layout));
            } else
                in->layout = detect_sin_layout(t, in->layout_note, sizeof in->layout_note);
        }
    }
    pc_npy_free(&a);
    pc_npy_free(&s);
    if (st != PC_OK) {
        if (t) pc_table_close(&t->impl);
        return st;
    }
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
    if (rope) fit_base(t, fam, o);
    *out = im;
    return PC_OK;
}

void pc_table_close(pc_impl *impl)
{
    table *t = table_of(impl);
    if (!t) return;
    free(t->a); free(t->s); free(t->path); free(t->sin_path); free(t->name);
    free(t);
}

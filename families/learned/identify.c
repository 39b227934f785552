/* identify.c: what a learned position table is (pc_learned_diagnosis):
 * `pecheck identify --family learned`.
 *
 * A learned table holds trained values: row r is the encoding of position
 * r, and no formula is there to be found (nor told from the values: any
 * table of rows is one; without --family a table of rows is read as
 * sinusoidal, whose identify then names this one).  What identify says of
 * it is what check --family learned holds it to that the values decide:
 * its rows (max_len) and width, every value finite (the lookup gate) and
 * no two rows equal (unique: a learned row's error radius is 0, so two
 * rows at distance 0 collide).  FOUND when both hold; then check's line,
 * `--family learned --table E.npy`, passes on a table (its lookups are
 * the table's own: deterministic, out-of-range positions refused).
 * Rows are hashed (FNV-1a of the values with -0 as +0, so that equal
 * values hash equal) and rows of equal hashes compared. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "families/family.h"
#include "harness/io/json.h"
#include "harness/sandbox/call.h"
#include "harness/sandbox/hook.h"
#include "harness/sources/table.h"

#define ID_BLOCK 256                       /* rows per lookup */
#define ID_ROWS_MAX ((int64_t)1 << 21)     /* rows read at most: unique's sweep range
                                            * (families/sinusoidal/unique.c SWEEP_MAX) */

typedef struct learned_found {
    const pc_impl *impl;
    int d;
    int64_t max_len, rows;               /* the table's rows, those read */
    int64_t nonfinite, nonfinite_pos;    /* values not finite, the first one's row */
    int nonfinite_col;
    int64_t dup_a, dup_b;                /* two equal rows (-1: none) */
    int64_t bad_out;                     /* a built-in's or plugin's: an out-of-range
                                          * position answered or OUT written (-1: none) */
    int64_t unsteady;                    /* its row that a second lookup changed (-1: none) */
    int found;
} learned_found;

typedef struct row_hash {
    uint64_t h;
    int64_t pos;
} row_hash;

static int by_hash(const void *x, const void *y)
{
    const row_hash *a = x, *b = y;
    return a->h < b->h ? -1 : a->h > b->h ? 1 : a->pos < b->pos ? -1 : a->pos > b->pos;
}

/* FNV-1a over the row's values, -0 as +0 (equal values, equal hash). */
static uint64_t hash_values(const float *v, int d)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a's 64-bit offset basis */
    for (int j = 0; j < d; j++) {
        float x = v[j] == 0.0f ? 0.0f : v[j];
        uint32_t u;
        memcpy(&u, &x, sizeof u);
        h = (h ^ u) * 0x100000001b3u; /* FNV's 64-bit prime */
    }
    return h;
}

/* Rows LO..LO+N-1 into OUT; 0 on success. */
static int lookup(const learned_found *f, int64_t lo, size_t n, float *out, int64_t *pos)
{
    pc_fault fault = { 0, "" };
    for (size_t k = 0; k < n; k++) pos[k] = lo + (int64_t)k;
    int rc = pc_call_learned(f->impl, &fault, pos, n, f->d, out);
    return fault.faulted ? -1 : rc;
}

/* 1 when rows A and B hold equal values. */
static int rows_equal(const learned_found *f, int64_t a, int64_t b, float *buf, int64_t *pos)
{
    size_t w = (size_t)f->d;
    if (lookup(f, a, 1, buf, pos) != 0 || lookup(f, b, 1, buf + w, pos) != 0) return 0;
    for (size_t j = 0; j < w; j++)
        if (buf[j] != buf[w + j]) return 0;
    return 1;
}

static pc_status scan(learned_found *f, pc_err *err)
{
    size_t w = (size_t)f->d;
    float *buf = malloc(ID_BLOCK * w * sizeof *buf);
    int64_t *pos = malloc(ID_BLOCK * sizeof *pos);
    row_hash *hs = malloc((size_t)f->rows * sizeof *hs);
    pc_status st = PC_OK;
    if (!buf || !pos || !hs) st = pc_seterr(err, PC_ENOMEM, "out of memory");
    for (int64_t lo = 0; st == PC_OK && lo < f->rows; lo += ID_BLOCK) {
        size_t n = (size_t)(f->rows - lo < ID_BLOCK ? f->rows - lo : ID_BLOCK);
        if (lookup(f, lo, n, buf, pos) != 0) {
            st = pc_seterr(err, PC_EINPUT, "%s: its lookup of rows %" PRId64 "..%" PRId64
                           " failed: nothing to identify (check --family learned says why)",
                           f->impl->name, lo, lo + (int64_t)n - 1);
            break;
        }
        for (size_t r = 0; r < n; r++) {
            for (size_t j = 0; j < w; j++)
                if (!isfinite(buf[r * w + j]) && f->nonfinite++ == 0) {
                    f->nonfinite_pos = lo + (int64_t)r;
                    f->nonfinite_col = (int)j;
                }
            hs[lo + (int64_t)r].h = hash_values(buf + r * w, f->d);
            hs[lo + (int64_t)r].pos = lo + (int64_t)r;
        }
    }
    if (st == PC_OK) {
        qsort(hs, (size_t)f->rows, sizeof *hs, by_hash);
        for (int64_t k = 1; k < f->rows && f->dup_a < 0; k++)
            if (hs[k].h == hs[k - 1].h && rows_equal(f, hs[k - 1].pos, hs[k].pos, buf, pos)) {
                f->dup_a = hs[k - 1].pos < hs[k].pos ? hs[k - 1].pos : hs[k].pos;
                f->dup_b = hs[k - 1].pos < hs[k].pos ? hs[k].pos : hs[k - 1].pos;
            }
    }
    free(buf);
    free(pos);
    free(hs);
    return st;
}

/* A built-in's or plugin's lookups (a table's are the table's own): the
 * positions max_len and -1 refused without writing OUT, and the first
 * block the same on a second lookup (the lookup gate's and out-of-range's
 * own cases: check holds it to more, families/learned/gate.c). */
#define SENTINEL 0x7FC0DEADu /* a NaN payload no lookup produces (gate.c's) */
static void probe(learned_found *f)
{
    size_t w = (size_t)f->d, n = (size_t)(f->rows < ID_BLOCK ? f->rows : ID_BLOCK);
    float *a = malloc(2 * n * w * sizeof *a);
    int64_t *pos = malloc(n * sizeof *pos), out[2] = { f->max_len, -1 };
    pc_fault fault = { 0, "" };
    if (!a || !pos) { free(a); free(pos); return; }
    const uint32_t sentinel = SENTINEL;
    for (int k = 0; k < 2 && f->bad_out < 0; k++) {
        uint32_t bits;
        for (size_t j = 0; j < w; j++) memcpy(&a[j], &sentinel, sizeof sentinel);
        int rc = pc_call_learned(f->impl, &fault, &out[k], 1, f->d, a);
        for (size_t j = 0; j < w && rc != 0; j++) {
            memcpy(&bits, &a[j], sizeof bits);
            if (bits != SENTINEL) rc = 0;
        }
        if (rc == 0 || fault.faulted) f->bad_out = out[k];
    }
    if (lookup(f, 0, n, a, pos) == 0 && lookup(f, 0, n, a + n * w, pos) == 0)
        for (size_t k = 0; k < n * w && f->unsteady < 0; k++)
            if (memcmp(&a[k], &a[n * w + k], sizeof *a) != 0) f->unsteady = (int64_t)(k / w);
    free(a);
    free(pos);
}

static pc_status run(const pc_impl *impl, const pc_spec *spec, int64_t lo, int64_t hi,
                     void **found, pc_err *err)
{
    (void)lo; (void)hi; /* a learned table's rows are positions 0..max_len - 1 */
    learned_found *f = calloc(1, sizeof *f);
    *found = f;
    if (!f) return pc_seterr(err, PC_ENOMEM, "out of memory");
    const pc_table_info *t = pc_table_info_of(impl);
    pc_fault fault = { 0, "" };
    f->impl = impl;
    f->d = t ? t->d : spec->d;
    f->dup_a = f->dup_b = f->bad_out = f->unsteady = -1;
    if (!impl->learned || !impl->learned_max_len)
        return pc_seterr(err, PC_EINPUT, "%s: --family learned takes a learned table (--table "
                         "E.npy, row r = position r) or a source with the learned lookup hook",
                         impl->name);
    f->max_len = pc_call_learned_max_len(impl, &fault);
    if (fault.faulted || f->max_len <= 0)
        return pc_seterr(err, PC_EINPUT, "%s: learned_max_len %s: no rows to identify",
                         impl->name, fault.faulted ? "faulted" : "returned no rows");
    f->rows = f->max_len < ID_ROWS_MAX ? f->max_len : ID_ROWS_MAX;
    pc_status st = scan(f, err);
    if (st == PC_OK && !t) probe(f);
    f->found = st == PC_OK && f->nonfinite == 0 && f->dup_a < 0 && f->bad_out < 0
               && f->unsteady < 0;
    return st;
}

static int explained(const void *found)
{
    return ((const learned_found *)found)->found;
}

static void print_text(FILE *out, const void *found)
{
    const learned_found *f = found;
    fprintf(out, "%s  %s: a learned position table, positions 0..%" PRId64 " (max_len %" PRId64
            "), d %d\n", f->found ? "FOUND" : "UNKNOWN", f->impl->name, f->max_len - 1,
            f->max_len, f->d);
    fprintf(out, "  values: trained (row r is position r's encoding): no formula to identify; "
            "--family learned was given (the values cannot tell a learned table from another "
            "table of rows)\n");
    if (f->rows < f->max_len)
        fprintf(out, "  rows read: the first %" PRId64 " (unique's sweep range)\n", f->rows);
    if (f->nonfinite)
        fprintf(out, "  finite: no: %" PRId64 " values are not (the first at row %" PRId64
                ", column %d): the lookup gate fails\n", f->nonfinite, f->nonfinite_pos,
                f->nonfinite_col);
    else
        fprintf(out, "  finite: every value of the %" PRId64 " rows read\n", f->rows);
    if (f->dup_a >= 0)
        fprintf(out, "  unique: no: rows %" PRId64 " and %" PRId64 " are equal (a duplicated row "
                "or a clamped index): unique fails\n", f->dup_a, f->dup_b);
    else
        fprintf(out, "  unique: no two rows equal\n");
    if (f->bad_out >= 0)
        fprintf(out, "  out of range: no: the lookup of position %" PRId64 " returned 0 or wrote "
                "OUT (a clamped or wrapped index): out-of-range fails\n", f->bad_out);
    if (f->unsteady >= 0)
        fprintf(out, "  deterministic: no: row %" PRId64 " changed on a second lookup: the lookup "
                "gate fails\n", f->unsteady);
    fprintf(out, "  check --family learned: holds it to the lookup contract, out-of-range lookups "
            "and unique rows\n");
}

static void write_json(pc_json *j, const void *found)
{
    const learned_found *f = found;
    pc_json_str(j, "source", f->impl->name);
    pc_json_bool(j, "found", f->found);
    pc_json_str(j, "kind", "learned table (trained values: no formula)");
    pc_json_int(j, "d", f->d);
    pc_json_int(j, "max_len", (long long)f->max_len);
    pc_json_int(j, "rows_read", (long long)f->rows);
    pc_json_int(j, "nonfinite_values", (long long)f->nonfinite);
    pc_json_bool(j, "rows_distinct", f->dup_a < 0);
    pc_json_bool(j, "out_of_range_refused", f->bad_out < 0);
    pc_json_bool(j, "deterministic", f->unsteady < 0);
    if (f->dup_a >= 0) {
        pc_json_arr(j, "equal_rows");
        pc_json_int(j, NULL, (long long)f->dup_a);
        pc_json_int(j, NULL, (long long)f->dup_b);
        pc_json_end(j);
    }
}

/* Nothing beyond --family and the source: a table's rows are its own. */
static void check_args(const void *found, pc_args *out)
{
    (void)found;
    (void)out;
}

static void found_free(void *found)
{
    free(found);
}

static const pc_identify_kind identify = {
    .run = run, .explained = explained, .text = print_text, .json = write_json,
    .check_args = check_args, .free = found_free
};

const pc_diagnosis pc_learned_diagnosis = { .identify = &identify };

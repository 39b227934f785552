/* table.c: T5 bucket tables saved as .npy, as implementations (t5.h): a
 * (nq, nk) array of the buckets HF's T5Attention.compute_bias makes from
 * relative_position = memory_position - context_position (keys j from 0,
 * queries from --pos-start: 0, or the position of a decode step's query,
 * HF's cache_position), saved from the LongTensor (<i8) or as int32, int16 or
 * floats that hold integers.  The gate (gate.c) checks every entry; the
 * properties, which call the bucket function at distances and parameters a
 * table does not hold, skip it. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "t5.h"
#include "harness/io/npy.h"
#include "harness/sources/table.h"

#define T5_TABLE_MAGIC 0x75B0Cu

typedef struct t5_table {
    pc_family_table head;     /* first: the implementation handed out, the array read */
    pc_t5_table t;
    char description[200];
} t5_table;

static t5_table *t5_table_from(const pc_impl *impl)
{
    return (t5_table *)pc_family_table_of(impl, T5_TABLE_MAGIC);
}

const pc_t5_table *pc_t5_table_of(const pc_impl *impl)
{
    t5_table *t = t5_table_from(impl);
    return t ? &t->t : NULL;
}

static int is_table(const pc_impl *impl) { return t5_table_from(impl) != NULL; }

int pc_t5_table_bucket(const pc_t5_table *t, int64_t rel, double *got)
{
    /* the first entry of the diagonal j - (q0 + i) = REL: i = max(0, -(q0 + REL)) */
    int64_t i = t->q0 + rel < 0 ? -(t->q0 + rel) : 0, j = t->q0 + i + rel;
    if (i >= (int64_t)t->nq || j >= (int64_t)t->nk) return 1;
    *got = t->v[(size_t)i * t->nk + (size_t)j];
    return 0;
}

static void table_close(pc_impl *impl)
{
    t5_table *t = t5_table_from(impl);
    if (t) pc_family_table_free(&t->head);
}

static pc_status table_open(const pc_spec *spec, const pc_table_args *o, const char *path,
                            pc_impl **out, pc_err *err)
{
    (void)spec;
    *out = NULL;
    pc_status st;
    t5_table *t = pc_family_table_new(sizeof *t, T5_TABLE_MAGIC, "t5", path,
                                      pc_npy_read_numbers, &st, err);
    if (!t) return st;
    const pc_npy *a = &t->head.a;
    if (a->rank != 2)
        st = pc_seterr(err, PC_EINPUT, "%s: a T5 bucket table has shape (queries, keys), got "
                       "rank %d", path, a->rank);
    if (st == PC_OK && !strcmp(a->dtype, "<u2"))
        st = pc_seterr(err, PC_EINPUT, "%s: <u2 is not a bucket dtype (save the LongTensor: "
                       "<i8)", path);
    if (st != PC_OK) { table_close(&t->head.impl); return st; }
    t->t.path = t->head.path;
    t->t.nq = a->shape[0];
    t->t.nk = a->shape[1];
    t->t.q0 = o->pos_start;
    if (t->t.q0 > PC_POS_MAX - (int64_t)t->t.nq + 1) {
        st = pc_seterr(err, PC_EINPUT, "--pos-start %lld: the %zu queries of %s would pass "
                       "position 2^53", (long long)t->t.q0, t->t.nq, path);
        table_close(&t->head.impl);
        return st;
    }
    t->t.v = a->data;
    memcpy(t->t.dtype, a->dtype, sizeof t->t.dtype);
    snprintf(t->description, sizeof t->description, "T5 bucket table (%zu queries from "
             "position %lld, %zu keys, %s)", t->t.nq, (long long)t->t.q0, t->t.nk, t->t.dtype);
    pc_impl *im = &t->head.impl;
    im->description = t->description;
    *out = im;
    return PC_OK;
}

/* Integers of rank 2 or 3 (buckets; rank 3 to be refused by the reader,
 * naming the shape): a table of rows holds values, never integers. */
static int holds(int rank, const char *dtype)
{
    return (rank == 2 || rank == 3) && (dtype[1] == 'i' || dtype[1] == 'u') && strcmp(dtype, "<u2");
}

const pc_table_reader pc_t5_table_reader = {
    .open = table_open, .close = table_close, .is_table = is_table, .holds = holds
};

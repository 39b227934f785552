/* table.c: ALiBi tables saved as .npy, as implementations (alibi.h):
 *
 *   (H,)        the slopes m_h (torch: get_slopes, gen_slopes, or the
 *               slopes of build_alibi_tensor);
 *   (H, nq, nk) biases -m_h |j - i| of queries i and keys j from 0 (the
 *               paper's, MPT's build_alibi_bias(full=True));
 *   (H, 1, n)   the key position's line m_h (j - j0): BLOOM's
 *               build_alibi_tensor (j0 = 0, one row for every query: a
 *               causal softmax drops the row's constant m_h i) and MPT's
 *               build_alibi_bias (j0 = n - 1); a row that falls from 0
 *               (-m_h j) is the full form of query 0.
 *
 * H from the shape, checked against --heads or the config's when given.
 * The values are kept exactly as the file holds them (float16, bfloat16
 * bits with --dtype bf16, float32, float64).  The slopes hook serves H
 * only (the table's slopes, or the bias one key from j0 or query 0 of a
 * binary32 or wider table, exact: m * 1 rounds to m); the gate (gate.c)
 * checks every element. */
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "alibi.h"
#include "harness/base/dtype.h"
#include "harness/base/half.h"
#include "harness/io/npy.h"
#include "harness/sources/table.h"

#define ALIBI_TABLE_MAGIC 0xA11B1u

typedef struct alibi_table {
    pc_family_table head;     /* first: the implementation handed out, the array read */
    pc_alibi_table t;
    char description[300];
} alibi_table;

static alibi_table *alibi_table_from(const pc_impl *impl)
{
    return (alibi_table *)pc_family_table_of(impl, ALIBI_TABLE_MAGIC);
}

const pc_alibi_table *pc_alibi_table_of(const pc_impl *impl)
{
    alibi_table *t = alibi_table_from(impl);
    return t ? &t->t : NULL;
}

static int is_table(const pc_impl *impl) { return alibi_table_from(impl) != NULL; }

int64_t pc_alibi_table_k(const pc_alibi_table *t, size_t i, size_t j)
{
    if (t->form == PC_ALIBI_SLOPES) return 1;
    if (t->form == PC_ALIBI_KEYS) return (int64_t)j - t->key0;
    return -(int64_t)(i > j ? i - j : j - i);
}

double pc_alibi_table_slope(const pc_alibi_table *t, int h)
{
    size_t plane = t->nq * t->nk;
    if (t->form == PC_ALIBI_SLOPES) return t->v[h];
    if (t->form == PC_ALIBI_KEYS) { /* m (j - j0) at j0 + 1, or -m at j0 - 1 */
        size_t row = (size_t)h * plane + (t->causal ? (t->nq - 1) * t->nk : 0); /* unmasked */
        if ((size_t)t->key0 + 1 < t->nk) return t->v[row + (size_t)t->key0 + 1];
        return t->key0 >= 1 ? -t->v[row + (size_t)t->key0 - 1] : (double)NAN;
    }
    if (t->causal) /* query 1, key 0: -m (key 1 of query 0 is masked) */
        return t->nq >= 2 ? -t->v[(size_t)h * plane + t->nk] : (double)NAN;
    return t->nk >= 2 ? -t->v[(size_t)h * plane + 1] : (double)NAN; /* query 0, key 1 */
}

static int slopes_hook(void *ctx, int heads, float *out)
{
    alibi_table *t = ctx;
    if (heads != t->t.heads) return 2; /* a table holds one head count */
    for (int h = 0; h < heads; h++) out[h] = (float)pc_alibi_table_slope(&t->t, h);
    return 0;
}

/* ---- loading -------------------------------------------------------------- */

/* The storage type of dtype NPY with the run's options (half-precision
 * values are decoded to their values). */
static pc_status storage(const pc_table_args *o, const char *path, pc_npy *a, pc_alibi_table *t,
                         pc_err *err)
{
    if (!strcmp(a->dtype, "<u2")) {
        if (o->dtype != PC_DT_BF16)
            return pc_seterr(err, PC_EINPUT, "%s: <u2 holds 16-bit patterns: pass --dtype bf16 "
                             "for bfloat16 values saved as their bits", path);
        for (size_t k = 0; k < a->count; k++)
            a->data[k] = (double)pc_bf16_value((uint16_t)a->data[k]);
        t->dtype = PC_DT_BF16;
    } else if (!strcmp(a->dtype, "<f2")) {
        t->dtype = PC_DT_F16;
    } else {
        t->dtype = !strcmp(a->dtype, "<f8") ? PC_DT_F64 : PC_DT_F32;
        if (o->dtype_set && o->dtype != t->dtype && o->dtype != PC_DT_F32)
            return pc_seterr(err, PC_EINPUT, "%s: a %s table is not --dtype %s", path, a->dtype,
                             pc_dtype_name(o->dtype));
    }
    snprintf(t->dtype_note, sizeof t->dtype_note, "%s storage (%s)", pc_dtype_name(t->dtype),
             a->dtype);
    return PC_OK;
}

/* The key where head 0's line R (N entries, growing) is 0: where it is
 * (BLOOM's j0 = 0, MPT's n - 1), or an integer outside the row that its
 * first two entries point to (keys numbered from 1: j0 = -1); else the
 * entry nearest 0. */
static int64_t line_zero(const double *r, size_t n)
{
    size_t z = 0;
    for (size_t j = 1; j < n; j++)
        if (fabs(r[j]) < fabs(r[z])) z = j;
    double m = r[1] - r[0], j0 = m > 0 ? -r[0] / m : 0.0, k = nearbyint(j0);
    /* 2^-10 of a key: far below a binary16 slope's step, far above the
     * rounding of a binary32 m * k */
    if (r[z] != 0 && m > 0 && fabs(j0 - k) < 0x1p-10 && fabs(k) <= (double)n) return (int64_t)k;
    return (int64_t)z;
}

/* A (H, n, n) table whose entries above the diagonal are -inf (head 0's
 * first row past its first key, and every such entry checked by the
 * gate): a causal mask folded into the biases.  Its last rows then tell
 * the rest: one line for every query, the key line m (j - j0) (Baichuan);
 * else the distances -m (i - j). */
static int causal_masked(const pc_alibi_table *t)
{
    return t->nq >= 2 && t->nq == t->nk && t->v[1] == -(double)INFINITY && isfinite(t->v[t->nk]);
}

/* A (H, 1, n) row that grows with j (both heads' signs alike) is the key
 * position's line, j0 where it is 0; one that falls from 0 is query 0's. */
static void find_form(pc_alibi_table *t)
{
    if (causal_masked(t)) {
        t->causal = 1;
        const double *last = t->v + (t->nq - 1) * t->nk; /* head 0's last query: no mask */
        /* the same line on every row (key 0 the same bias for the last two
         * queries): the key position's; a row that moves with the query: -m (i - j) */
        if (last[t->nk - 1] > last[0] && last[-(ptrdiff_t)t->nk] == last[0]) {
            t->form = PC_ALIBI_KEYS;
            t->key0 = line_zero(last, t->nk);
            snprintf(t->form_note, sizeof t->form_note, "a causal mask (-inf above the diagonal) "
                     "over the key position's line m (j - %lld)%s", (long long)t->key0,
                     t->key0 == 0 ? ": Baichuan's _gen_alibi_mask" : "");
        } else
            snprintf(t->form_note, sizeof t->form_note, "a causal mask (-inf above the diagonal) "
                     "over the biases -m (i - j) of queries i and keys j");
        return;
    }
    if (t->nq != 1 || t->nk < 2) {
        snprintf(t->form_note, sizeof t->form_note, "%s", t->form == PC_ALIBI_SLOPES ? "slopes"
                 : "biases -m|j - i| of queries i and keys j");
        return;
    }
    const double *r = t->v; /* head 0's row */
    int grows = r[t->nk - 1] > r[0];
    if (!grows) {
        snprintf(t->form_note, sizeof t->form_note, "one query row falling from key 0: "
                 "-m|j - 0| (the full form of query 0)");
        return;
    }
    t->form = PC_ALIBI_KEYS;
    int64_t z = t->key0 = line_zero(r, t->nk);
    if (z < 0) { /* the row's constant per head is m (0 - j0), dropped by the softmax */
        snprintf(t->form_note, sizeof t->form_note, "the line m (j + %lld): keys from %lld "
                 "(build_alibi_tensor without its - 1), a constant per head that softmax drops",
                 (long long)-z, (long long)-z);
        return;
    }
    snprintf(t->form_note, sizeof t->form_note, "the key position's line m (j - %lld): %s",
             (long long)z, z == 0 ? "BLOOM's build_alibi_tensor (j0 = 0)"
             : z + 1 == (int64_t)t->nk ? "MPT's build_alibi_bias (j0 = n - 1)"
             : "a zero at another key");
}

/* The shape of A as a table of HEADS (from --heads or a config, 0: any). */
static pc_status shape_of(const pc_npy *a, const char *path, int heads, pc_alibi_table *t,
                          pc_err *err)
{
    if (a->rank != 1 && a->rank != 3)
        return pc_seterr(err, PC_EINPUT, "%s: an ALiBi table has shape (H,) (slopes), (H, n, n) "
                         "or (H, 1, n) (biases); got rank %d", path, a->rank);
    if (a->shape[0] > PC_ALIBI_HEADS_MAX)
        return pc_seterr(err, PC_EINPUT, "%s: %zu heads; ALiBi takes 1..%d", path, a->shape[0],
                         PC_ALIBI_HEADS_MAX);
    t->heads = (int)a->shape[0];
    if (heads && heads != t->heads)
        return pc_seterr(err, PC_EINPUT, "%s has %d heads, but the run says %d (--heads or the "
                         "config)", path, t->heads, heads);
    t->form = a->rank == 1 ? PC_ALIBI_SLOPES : PC_ALIBI_FULL;
    t->nq = a->rank == 1 ? 1 : a->shape[1];
    t->nk = a->rank == 1 ? 1 : a->shape[2];
    if ((int64_t)t->nq > PC_POS_MAX || (int64_t)t->nk > PC_POS_MAX)
        return pc_seterr(err, PC_EINPUT, "%s: more than 2^53 positions", path);
    t->v = a->data;
    t->count = a->count;
    find_form(t);
    return PC_OK;
}

static void table_close(pc_impl *impl)
{
    alibi_table *t = alibi_table_from(impl);
    if (t) pc_family_table_free(&t->head);
}

static pc_status table_open(const pc_spec *spec, const pc_table_args *o, const char *path,
                            pc_impl **out, pc_err *err)
{
    *out = NULL;
    if (o->pos_start != 0)
        return pc_seterr(err, PC_EINPUT, "--pos-start: an ALiBi table's queries and keys start "
                         "at 0");
    pc_status st;
    alibi_table *t = pc_family_table_new(sizeof *t, ALIBI_TABLE_MAGIC, "alibi", path,
                                         pc_npy_read, &st, err);
    if (!t) return st;
    st = storage(o, path, &t->head.a, &t->t, err);
    if (st == PC_OK) st = shape_of(&t->head.a, path, pc_alibi_spec_of(spec)->heads, &t->t, err);
    if (st != PC_OK) { table_close(&t->head.impl); return st; }
    t->t.path = t->head.path;
    snprintf(t->description, sizeof t->description, "ALiBi table, %d heads: %.200s", t->t.heads,
             t->t.form_note);
    pc_impl *im = &t->head.impl;
    im->description = t->description;
    int derived = t->t.form != PC_ALIBI_SLOPES;
    if (!derived || (t->t.dtype != PC_DT_F16 && t->t.dtype != PC_DT_BF16))
        im->alibi_slopes = slopes_hook; /* a half-precision bias is not its slope */
    *out = im;
    return PC_OK;
}

/* Floats of rank 1 (H slopes) or 3 (biases): no table of rows has those
 * ranks (a sinusoidal or RoPE table is (n, d)). */
static int holds(int rank, const char *dtype)
{
    return (rank == 1 || rank == 3) && (dtype[1] == 'f' || !strcmp(dtype, "<u2"));
}

const pc_table_reader pc_alibi_table_reader = {
    .open = table_open, .close = table_close, .is_table = is_table, .holds = holds
};

/* gate.c: the T5 family's gate in `pecheck check`: every entry of a bucket
 * table against the exact bucket of its relative position (t5_ref.c: the
 * floor of the log term certified with MPFR and GMP) under the spec's
 * parameters.  Buckets are integers: no tolerance.  Other sources have no
 * gate: their properties check them. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "t5.h"
#include "harness/engine/gate.h"
#include "harness/base/progress.h"
#include "harness/io/json.h"

typedef struct mismatch {
    size_t count, bad;
    size_t i, j;              /* the first bad entry, in row order (its query's position) */
    double got;
    int32_t exact;
} mismatch;

/* Exact buckets of REL = -(q0 + nq - 1) .. nk - 1 - q0 into EX
 * (EX[rel + q0 + nq - 1]). */
static pc_status exact_buckets(const pc_t5_table *t, int bidir, int nb, int md, int32_t *ex)
{
    int64_t lo = -(t->q0 + (int64_t)t->nq - 1), hi = (int64_t)t->nk - 1 - t->q0;
    for (int64_t rel = lo; rel <= hi; rel++) {
        pc_status st = pc_ref_t5_bucket(rel, bidir, nb, md, &ex[rel - lo]);
        if (st != PC_OK) return st;
    }
    return PC_OK;
}

static void compare(const pc_t5_table *t, const int32_t *ex, mismatch *m)
{
    memset(m, 0, sizeof *m);
    for (size_t i = 0; i < t->nq; i++)
        for (size_t j = 0; j < t->nk; j++) {
            double got = t->v[i * t->nk + j];
            int32_t e = ex[j + t->nq - 1 - i];
            m->count++;
            if (got == (double)e) continue; /* a NaN or a fraction never equals */
            if (m->bad++ == 0) { m->i = (size_t)t->q0 + i; m->j = j; m->got = got; m->exact = e; }
        }
}

/* What a table's verdict data says (pc_json_object_text's context). */
typedef struct t5_data {
    const pc_t5_table *t;
    const pc_t5_spec *s;
    int bidir;
    const mismatch *m;
} t5_data;

static void data_json(pc_json *j, const void *ctx)
{
    const t5_data *x = ctx;
    const mismatch *m = x->m;
    pc_json_int(j, "queries", (long long)x->t->nq);
    pc_json_int(j, "keys", (long long)x->t->nk);
    pc_json_int(j, "first_query", (long long)x->t->q0);
    pc_json_bool(j, "bidirectional", x->bidir);
    pc_json_int(j, "num_buckets", x->s->num_buckets);
    pc_json_int(j, "max_distance", x->s->max_distance);
    pc_json_int(j, "entries", (long long)m->count);
    pc_json_int(j, "differ", (long long)m->bad);
    if (!m->bad) return;
    pc_json_obj(j, "first");
    pc_json_int(j, "query", (long long)m->i);
    pc_json_int(j, "key", (long long)m->j);
    pc_json_int(j, "relative", (long long)m->j - (long long)m->i);
    pc_json_num(j, "got", m->got);
    pc_json_int(j, "exact", m->exact);
    pc_json_end(j);
}

static void write_json(pc_verdict *v, const pc_t5_table *t, const pc_t5_spec *s, int bidir,
                       const mismatch *m)
{
    t5_data x = { t, s, bidir, m };
    v->json = pc_json_object_text(data_json, &x);
}

static void fill(pc_verdict *v, const pc_t5_table *t, const pc_t5_spec *s, int bidir,
                 const mismatch *m)
{
    char what[160], cause[900] = "", from[48] = "";
    if (t->q0) snprintf(from, sizeof from, ", queries from position %lld", (long long)t->q0);
    snprintf(what, sizeof what, "%s, num_buckets %d, max_distance %d",
             bidir ? "bidirectional" : "causal", s->num_buckets, s->max_distance);
    v->status = m->bad ? PC_FAIL : PC_OK;
    v->measured = (double)m->bad;
    v->bound = 0;
    snprintf(v->measured_what, sizeof v->measured_what, "entries that differ from the exact");
    if (!m->bad) {
        snprintf(v->summary, sizeof v->summary, "%zu entries (%zu queries x %zu keys%s) equal "
                 "the exact buckets (%s)", m->count, t->nq, t->nk, from, what);
    } else {
        pc_t5_table_cause(t, s, cause, sizeof cause);
        int u = snprintf(v->summary, sizeof v->summary, "%zu of %zu entries differ from the "
                         "exact buckets (%s); the first: query %zu, key %zu (relative %lld): "
                         "%.17g, exact %d", m->bad, m->count, what, m->i, m->j,
                         (long long)m->j - (long long)m->i, m->got, m->exact);
        if (cause[0] && u > 0) pc_verdict_add_cause(v, cause);
        char *d = NULL;
        if (asprintf(&d, "  parameters: %s (%s)\n  first: query %zu, key %zu, relative %lld: "
                     "got %.17g, exact %d\n%s%s%s", what, s->source[0] ? s->source : "HF's "
                     "defaults", m->i, m->j, (long long)m->j - (long long)m->i, m->got, m->exact,
                     cause[0] ? "  likely cause: " : "", cause, cause[0] ? "\n" : "") >= 0)
            v->details = d;
    }
    write_json(v, t, s, bidir, m);
}

pc_status pc_t5_gate(pc_gate *g, const pc_impl *impl, const pc_family *fam)
{
    const pc_t5_table *t = pc_t5_table_of(impl);
    if (!t) return PC_OK; /* plugins and built-ins: the properties */
    double t0 = pc_now();
    const pc_t5_spec *s = pc_t5_spec_of(g->spec);
    int bidir = s->mode != 1; /* a table is checked bidirectional unless --causal */
    int32_t *ex = malloc((t->nq + t->nk - 1) * sizeof *ex); /* nq + nk - 1 diagonals */
    if (!ex) return pc_gate_oom(g);
    pc_status st = exact_buckets(t, bidir, s->num_buckets, s->max_distance, ex);
    if (st != PC_OK) {
        free(ex);
        return pc_seterr(g->err, PC_EINPUT, "T5 buckets: num_buckets %d, max_distance %d are "
                         "not valid %s parameters", s->num_buckets, s->max_distance,
                         bidir ? "bidirectional" : "causal");
    }
    mismatch m;
    compare(t, ex, &m);
    free(ex);
    pc_verdict *v = pc_gate_verdict(g, impl, fam->name, "t5-table", NULL);
    if (!v) return pc_gate_oom(g);
    fill(v, t, s, bidir, &m);
    v->seconds = pc_now() - t0;
    return PC_OK;
}

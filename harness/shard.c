/* shard.c: read accuracy results from JSON and merge shards (shard.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "opts.h"
#include "shard.h"

/* ---- reading ----------------------------------------------------------- */

typedef struct rd {
    const char *file;
    pc_err *err;
    pc_status st;
} rd;

static void bad(rd *r, const char *key, const char *why)
{
    if (r->st == PC_OK)
        r->st = pc_seterr(r->err, PC_EINPUT, "%s: field \"%s\" %s (not a pecheck accuracy result?)",
                          r->file, key, why);
}

static const char *get_str(rd *r, const pc_jnode *o, const char *key)
{
    const pc_jnode *v = pc_jget(o, key);
    if (!v || v->type != PC_J_STR) { bad(r, key, "is missing or not a string"); return ""; }
    return v->text;
}

static int64_t get_int(rd *r, const pc_jnode *o, const char *key)
{
    const pc_jnode *v = pc_jget(o, key);
    char *end;
    if (!v || v->type != PC_J_NUM) { bad(r, key, "is missing or not a number"); return 0; }
    long long x = strtoll(v->text, &end, 10);
    if (*end) { bad(r, key, "is not an integer"); return 0; }
    return x;
}

/* A number written with %.17g (reads back to the same binary64); null is a
 * non-finite value, NULLV. */
static double get_num(rd *r, const pc_jnode *o, const char *key, double nullv)
{
    const pc_jnode *v = pc_jget(o, key);
    if (v && v->type == PC_J_NULL) return nullv;
    if (!v || v->type != PC_J_NUM) { bad(r, key, "is missing or not a number"); return 0; }
    return strtod(v->text, NULL);
}

/* {"hex": "%a", "dec": ...}: the hex text is exact */
static double get_hex(rd *r, const pc_jnode *o, const char *key)
{
    const pc_jnode *v = pc_jget(o, key);
    const pc_jnode *h = pc_jget(v, "hex");
    char *end;
    if (!h || h->type != PC_J_STR) { bad(r, key, "has no \"hex\" string"); return 0; }
    double x = strtod(h->text, &end);
    if (*end || end == h->text) { bad(r, key, "has a malformed \"hex\""); return 0; }
    return x;
}

static void get_witness(rd *r, const pc_jnode *o, const char *key, pc_witness *w)
{
    memset(w, 0, sizeof *w);
    const pc_jnode *v = pc_jget(o, key);
    if (!v) { bad(r, key, "is missing"); return; }
    if (v->type == PC_J_NULL) return;
    if (v->type != PC_J_OBJ) { bad(r, key, "is not an object"); return; }
    w->valid = 1;
    w->pos = get_int(r, v, "pos");
    w->dim = (int)get_int(r, v, "dim");
    w->got = (float)get_hex(r, v, "got");        /* exact: written from a float */
    w->ref = get_hex(r, v, "ref");
    w->ref32 = (float)get_hex(r, v, "ref_f32");  /* exact */
    w->err = get_num(r, v, "abs_err", HUGE_VAL);
    w->ulp = get_num(r, v, "ulp_err", HUGE_VAL);
    w->bound = get_num(r, v, "bound", HUGE_VAL);
    w->theta = get_num(r, v, "theta", (double)NAN);
    const pc_jnode *sp = pc_jget(v, "split");
    if (sp && sp->type == PC_J_OBJ) {
        w->has_split = 1;
        w->angle_err = get_num(r, sp, "angle_err_rad", (double)NAN);
        w->norm_err = get_num(r, sp, "norm_err_rel", (double)NAN);
        if (pc_jget(sp, "impl_angle")) {
            w->has_split = 2;
            w->theta_impl = (float)get_hex(r, sp, "impl_angle");
            w->angle_part = get_num(r, sp, "from_angle", (double)NAN);
            w->eval_part = get_num(r, sp, "from_evaluation", (double)NAN);
        }
    }
}

/* an exact expansion ["%a", ...] into an accumulator; null: not finite */
static void get_xsum(rd *r, const pc_jnode *o, const char *key, pc_xsum *x)
{
    pc_xsum_init(x);
    const pc_jnode *v = pc_jget(o, key);
    if (v && v->type == PC_J_NULL) { pc_xsum_add(x, HUGE_VAL); return; }
    if (!v || v->type != PC_J_ARR) { bad(r, key, "is missing or not an array"); return; }
    for (size_t k = 0; k < v->n; k++) {
        char *end;
        const pc_jnode *t = &v->kids[k];
        double d = t->type == PC_J_STR ? strtod(t->text, &end) : 0.0;
        if (t->type != PC_J_STR || *end || end == t->text || !isfinite(d)) {
            bad(r, key, "has a term that is not a finite hex number");
            return;
        }
        pc_xsum_add(x, d);
    }
}

static int name_index(const char *s, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(s, names[k])) return k;
    return -1;
}

pc_status pc_shard_read(const pc_jnode *o, const char *file, pc_shard_item *it, pc_err *err)
{
    memset(it, 0, sizeof *it);
    rd r = { file, err, PC_OK };
    if (!o || o->type != PC_J_OBJ)
        return pc_seterr(err, PC_EINPUT, "%s: expected a JSON object with an accuracy result", file);
    snprintf(it->name, sizeof it->name, "%s", get_str(&r, o, "implementation"));
    snprintf(it->family, sizeof it->family, "%s", get_str(&r, o, "family"));
    pc_acc_cfg *c = &it->cfg;
    c->family = it->family;
    if (r.st == PC_OK && strcmp(it->family, "sinusoidal") && strcmp(it->family, "rope"))
        bad(&r, "family", "is not sinusoidal or rope");
    const pc_jnode *pa = pc_jget(o, "params");
    const pc_jnode *ps = pc_jget(pa, "positions");
    if (!ps) bad(&r, "params.positions", "is missing");
    c->d = (int)get_int(&r, pa, "d");
    c->base = get_num(&r, pa, "base", (double)NAN);
    static const char *const layouts[] = { "interleaved", "half" };
    static const char *const dtypes[] = { "f32", "bf16", "f16", "f64" };
    c->layout = name_index(get_str(&r, pa, "layout"), layouts, 2);
    c->dtype = name_index(get_str(&r, pa, "dtype"), dtypes, 4);
    if (c->layout < 0) bad(&r, "params.layout", "is not interleaved or half");
    if (c->dtype < 0) bad(&r, "params.dtype", "is not a known dtype");
    c->pos_lo = get_int(&r, ps, "start");
    c->pos_hi = get_int(&r, ps, "end");
    c->seed = (uint64_t)get_int(&r, o, "seed"); /* written as a signed 64-bit integer */
    c->shard_k = c->shard_n = 1;
    const pc_jnode *sh = pc_jget(o, "shard");
    if (sh) {
        c->shard_k = (int)get_int(&r, sh, "k");
        c->shard_n = (int)get_int(&r, sh, "n");
        if (r.st == PC_OK && (c->shard_n < 1 || c->shard_k < 1 || c->shard_k > c->shard_n))
            bad(&r, "shard", "is not K/N with 1 <= K <= N");
    }
    const pc_jnode *bd = pc_jget(o, "bound");
    pc_acc_result *res = &it->res;
    if (!strcmp(get_str(&r, bd, "model"), "absolute")) {
        c->tol_abs = get_num(&r, bd, "tol_abs", (double)NAN);
    } else {
        c->tol_abs = -1.0;
        res->C = get_num(&r, bd, "C", (double)NAN);
        res->u = get_num(&r, bd, "u", (double)NAN);
    }
    const char *status = get_str(&r, o, "status");
    static const char *const statuses[] = { "pass", "fail", "skip" };
    static const pc_status codes[] = { PC_OK, PC_FAIL, PC_SKIP };
    int sk = name_index(status, statuses, 3);
    if (sk < 0) bad(&r, "status", "is not pass, fail or skip");
    else res->status = codes[sk];
    const pc_jnode *note = pc_jget(o, "note");
    if (note && note->type == PC_J_STR) snprintf(res->note, sizeof res->note, "%s", note->text);
    pc_metrics *m = &res->m;
    pc_metrics_init(m);
    m->count = (uint64_t)get_int(&r, o, "values");
    m->n_over = (uint64_t)get_int(&r, o, "values_over_bound");
    m->n_nonfinite = (uint64_t)get_int(&r, o, "values_nonfinite");
    m->n_exact = (uint64_t)get_int(&r, o, "values_correctly_rounded");
    m->max_abs = get_num(&r, o, "max_abs_err", HUGE_VAL);
    m->max_ulp = get_num(&r, o, "max_ulp_err", HUGE_VAL);
    m->max_ratio = get_num(&r, o, "max_err_over_bound", HUGE_VAL);
    get_xsum(&r, o, "sum_sq_err_exact", &m->xsq_err);
    get_xsum(&r, o, "sum_sq_ref_exact", &m->xsq_ref);
    get_witness(&r, o, "worst", &m->worst);
    get_witness(&r, o, "max_abs_at", &m->worst_abs);
    get_witness(&r, o, "first_over_bound", &m->first_over);
    pc_metrics_finish(m);
    const pc_jnode *ie = pc_jget(o, "impl_error");
    if (ie) {
        res->impl_rc = (int)get_int(&r, ie, "rc");
        res->impl_rc_lo = get_int(&r, ie, "start");
        res->impl_rc_hi = get_int(&r, ie, "end");
    }
    res->seconds = get_num(&r, o, "seconds", 0.0);
    return r.st;
}

/* ---- merging ----------------------------------------------------------- */

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Do A and B describe the same check (everything but the shard)? */
static const char *differs(const pc_shard_item *a, const pc_shard_item *b)
{
    if (strcmp(a->name, b->name)) return "implementation";
    if (strcmp(a->family, b->family)) return "family";
    if (a->cfg.d != b->cfg.d) return "d";
    if (!same_bits(a->cfg.base, b->cfg.base)) return "base";
    if (a->cfg.layout != b->cfg.layout) return "layout";
    if (a->cfg.dtype != b->cfg.dtype) return "dtype";
    if (a->cfg.pos_lo != b->cfg.pos_lo || a->cfg.pos_hi != b->cfg.pos_hi) return "positions";
    if (a->cfg.seed != b->cfg.seed) return "seed";
    if (!same_bits(a->cfg.tol_abs, b->cfg.tol_abs) || !same_bits(a->res.C, b->res.C)
        || !same_bits(a->res.u, b->res.u)) return "bound";
    if (a->cfg.shard_n != b->cfg.shard_n) return "shard count";
    return NULL;
}

pc_status pc_shard_merge(const pc_shard_item *items, int n, pc_shard_item *out, pc_err *err)
{
    if (n < 1) return pc_seterr(err, PC_EINPUT, "merge: no results");
    int N = items[0].cfg.shard_n;
    if (N != n)
        return pc_seterr(err, PC_EINPUT, "merge: %s is shard %d/%d but %d shard results were given",
                         items[0].name, items[0].cfg.shard_k, N, n);
    const pc_shard_item **by_k = calloc((size_t)n, sizeof *by_k);
    if (!by_k) return pc_seterr(err, PC_ENOMEM, "out of memory");
    pc_status st = PC_OK;
    for (int k = 0; k < n && st == PC_OK; k++) {
        const char *what = differs(&items[0], &items[k]);
        if (what)
            st = pc_seterr(err, PC_EINPUT, "merge: shard results of different runs (%s differs: "
                           "%s %d/%d vs %s %d/%d)", what, items[0].name, items[0].cfg.shard_k, N,
                           items[k].name, items[k].cfg.shard_k, items[k].cfg.shard_n);
        else if (by_k[items[k].cfg.shard_k - 1])
            st = pc_seterr(err, PC_EINPUT, "merge: shard %d/%d of %s given twice",
                           items[k].cfg.shard_k, N, items[k].name);
        else
            by_k[items[k].cfg.shard_k - 1] = &items[k];
    }
    if (st != PC_OK) { free(by_k); return st; }

    /* Replay the engine's loop over the shards in position order. */
    *out = *by_k[0];
    out->cfg.family = out->family;
    out->cfg.shard_k = out->cfg.shard_n = 1;
    pc_acc_result *res = &out->res;
    pc_metrics_init(&res->m);
    res->status = PC_OK;
    res->note[0] = '\0';
    res->impl_rc = 0;
    res->seconds = 0.0;
    int ended = 0;
    for (int k = 0; k < n; k++) {
        const pc_acc_result *s = &by_k[k]->res;
        res->seconds += s->seconds; /* timing: total work, not wall time */
        if (ended) continue;
        if (s->status == PC_SKIP && !s->impl_rc) {
            /* the family is not implemented: every shard says so */
            res->status = PC_SKIP;
            snprintf(res->note, sizeof res->note, "%s", s->note);
            ended = 1;
            continue;
        }
        pc_metrics_merge(&res->m, &s->m);
        if (s->impl_rc) {
            /* The shard stopped at the implementation's error.  Its note is
             * the engine's own unless something replaced it (a fault). */
            char mine[sizeof res->note];
            int64_t b0, b1;
            pc_acc_shard_blocks(pc_acc_nblocks(out->cfg.pos_lo, out->cfg.pos_hi), k + 1, n, &b0, &b1);
            int shard_first = s->impl_rc_lo == out->cfg.pos_lo + b0 * PC_ACC_BLOCK;
            pc_acc_impl_note(mine, sizeof mine, out->name, s->impl_rc, shard_first,
                             out->cfg.layout, s->impl_rc_lo, s->impl_rc_hi);
            res->impl_rc = s->impl_rc;
            res->impl_rc_lo = s->impl_rc_lo;
            res->impl_rc_hi = s->impl_rc_hi;
            if (!strcmp(mine, s->note)) {
                int first = s->impl_rc_lo == out->cfg.pos_lo;
                res->status = first ? PC_SKIP : PC_FAIL;
                pc_acc_impl_note(res->note, sizeof res->note, out->name, s->impl_rc, first,
                                 out->cfg.layout, s->impl_rc_lo, s->impl_rc_hi);
            } else {
                res->status = s->status;
                snprintf(res->note, sizeof res->note, "%s", s->note);
            }
            ended = 1;
        } else if (s->note[0] && !res->note[0]) {
            /* a fault recorded after the shard's loop (e.g. while splitting a
             * witness): the run went on, the first such note stands */
            res->status = s->status;
            snprintf(res->note, sizeof res->note, "%s", s->note);
        }
    }
    if (res->status == PC_OK)
        res->status = res->m.n_over ? PC_FAIL : PC_OK;
    free(by_k);
    return PC_OK;
}

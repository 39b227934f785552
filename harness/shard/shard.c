/* shard.c: read accuracy results from JSON and merge shards (shard.h). */
#include <errno.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "harness/base/dtype.h"
#include "shard.h"
#include "harness/engine/model.h"
#include "families/family.h"
#include "reference/reference.h"

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

/* An integer in [LO, HI]: written with %lld, so anything else (a
 * fraction, an exponent, 2^70) is not a pecheck value. */
static int64_t get_int_in(rd *r, const pc_jnode *o, const char *key, int64_t lo, int64_t hi)
{
    const pc_jnode *v = pc_jget(o, key);
    char *end;
    if (!v || v->type != PC_J_NUM) { bad(r, key, "is missing or not a number"); return 0; }
    errno = 0;
    long long x = strtoll(v->text, &end, 10);
    if (*end) { bad(r, key, "is not an integer"); return 0; }
    if (errno == ERANGE || x < lo || x > hi) {
        char why[96];
        snprintf(why, sizeof why, "is %s, outside [%lld, %lld]", v->text, (long long)lo, (long long)hi);
        bad(r, key, why);
        return lo;
    }
    return x;
}

static int64_t get_int(rd *r, const pc_jnode *o, const char *key)
{
    return get_int_in(r, o, key, INT64_MIN, INT64_MAX);
}

/* a count of values: 0 .. 2^62 (far beyond 2^53 positions times 8192) */
static uint64_t get_count(rd *r, const pc_jnode *o, const char *key)
{
    return (uint64_t)get_int_in(r, o, key, 0, (int64_t)1 << 62);
}

/* A number written with %.17g (reads back to the same binary64) and finite:
 * the writer writes a non-finite value as null, read as NULLV.  A value
 * that overflows binary64 (1e999) or is negative is refused. */
static double get_num(rd *r, const pc_jnode *o, const char *key, double nullv)
{
    const pc_jnode *v = pc_jget(o, key);
    if (v && v->type == PC_J_NULL) return nullv;
    if (!v || v->type != PC_J_NUM) { bad(r, key, "is missing or not a number"); return 0; }
    double x = strtod(v->text, NULL);
    if (!isfinite(x)) { bad(r, key, "is not a finite binary64 number"); return 0; }
    return x;
}

static double get_nonneg(rd *r, const pc_jnode *o, const char *key, double nullv)
{
    double x = get_num(r, o, key, nullv);
    if (x < 0) { bad(r, key, "is negative"); return 0; }
    return x;
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
    w->pos = get_int_in(r, v, "pos", 0, PC_POS_MAX);
    w->dim = (int)get_int_in(r, v, "dim", 0, PC_D_MAX - 1);
    w->got = (float)get_hex(r, v, "got");        /* exact: written from a float */
    w->ref = get_hex(r, v, "ref");
    w->ref32 = (float)get_hex(r, v, "ref_f32");  /* exact */
    w->err = get_nonneg(r, v, "abs_err", HUGE_VAL);
    w->ulp = get_nonneg(r, v, "ulp_err", HUGE_VAL);
    w->bound = get_nonneg(r, v, "bound", HUGE_VAL);
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
    const pc_jnode *al = pc_jget(v, "asked_alone");
    w->alone = al && al->type == PC_J_TRUE;
    if (pc_jget(v, "batched_err_over_bound")) {
        w->batched = 1;
        w->batched_ratio = get_num(r, v, "batched_err_over_bound", (double)NAN);
        w->batched_n = (int)get_int_in(r, v, "batched_positions", 2, PC_ACC_BLOCK);
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

/* The positions shard K/N of the run covers: [*P0, *P1], *NPOS of them
 * (0 when the shard got no block: more shards than blocks). */
static void shard_positions(const pc_acc_cfg *c, int64_t *p0, int64_t *p1, int64_t *npos)
{
    int64_t b0, b1;
    pc_acc_shard_blocks(pc_acc_nblocks(c->pos_lo, c->pos_hi), c->shard_k, c->shard_n, &b0, &b1);
    *p0 = c->pos_lo + b0 * (int64_t)PC_ACC_BLOCK;
    *p1 = c->pos_lo + b1 * (int64_t)PC_ACC_BLOCK - 1;
    if (*p1 > c->pos_hi) *p1 = c->pos_hi;
    *npos = b1 > b0 ? *p1 - *p0 + 1 : 0;
}

/* A witness names an element the shard checked. */
static void check_witness(rd *r, const char *key, const pc_witness *w, const pc_acc_cfg *c,
                          int64_t p0, int64_t p1)
{
    if (!w->valid || r->st != PC_OK) return;
    if (w->pos < p0 || w->pos > p1) bad(r, key, "names a position outside the shard's range");
    else if (w->dim < 0 || w->dim >= c->d) bad(r, key, "names a dimension outside [0, d)");
}

/* The long-context note (null: none, as under --tol-abs); a position that
 * is null is past 2^53.  Every shard of a run writes the same. */
static int64_t get_pos_or_max(rd *r, const pc_jnode *o, const char *key)
{
    const pc_jnode *v = pc_jget(o, key);
    if (v && v->type == PC_J_NULL) return INT64_MAX;
    return get_int_in(r, o, key, 0, PC_POS_MAX);
}

static void get_reach(rd *r, const pc_jnode *o, const pc_acc_cfg *c, pc_acc_reach *z)
{
    const pc_jnode *lc = pc_jget(o, "long_context");
    memset(z, 0, sizeof *z);
    if (!lc || lc->type == PC_J_NULL) return;
    if (lc->type != PC_J_OBJ) { bad(r, "long_context", "is not an object or null"); return; }
    int half = c->d / 2 > 0 ? c->d / 2 : 1;
    z->vac_pos = get_pos_or_max(r, lc, "bound_vacuous_from_pos");
    z->vac_pair = z->vac_pos == INT64_MAX ? -1 : (int)get_int_in(r, lc, "bound_vacuous_pair", 0, half - 1);
    z->vac_pairs = (int)get_int_in(r, lc, "pairs_unconstrained_at_end", 0, half);
    z->rep_pos = get_pos_or_max(r, lc, "f32_angle_unrepresentable_from_pos");
    z->rep_pair = z->rep_pos == INT64_MAX ? -1
                : (int)get_int_in(r, lc, "f32_angle_unrepresentable_pair", 0, half - 1);
    z->known = 1;
}

/* A witness's numbers are those of its own element: a positive finite
 * bound, and abs_err and ulp_err as the engine computes them from got, ref
 * and ref_f32 (pc_check_element: bit for bit, since the hex texts are exact
 * and %.17g round-trips a binary64).  Its err/bound, as the engine computes
 * it, to *RATIO.  0 when refused. */
static int witness_numbers(rd *r, const char *key, const pc_witness *w, double *ratio)
{
    pc_witness x = *w;
    *ratio = pc_check_element(&x);
    if (!(w->bound > 0) || isinf(w->bound))
        bad(r, key, "has a bound that is not positive and finite");
    else if (!(x.err == w->err))
        bad(r, key, "has an abs_err that is not |got - ref|");
    else if (!(x.ulp == w->ulp))
        bad(r, key, "has an ulp_err that is not abs_err in ulps of ref_f32");
    return r->st == PC_OK;
}

/* The witnesses against the maxima and the status they stand for: "worst"
 * is the element of largest err/bound, so its ratio is max_err_over_bound
 * (which the status was checked against); "max_abs_at" is the element of
 * largest abs_err, max_abs_err; no witness exceeds a maximum; the first
 * element over the bound is over it, and a shard with nothing over the
 * bound has its worst element within it. */
static void check_witnesses(rd *r, const pc_metrics *m)
{
    const pc_witness *ws[3] = { &m->worst, &m->worst_abs, &m->first_over };
    static const char *const keys[3] = { "worst", "max_abs_at", "first_over_bound" };
    double ratio[3] = { 0, 0, 0 };
    for (int k = 0; k < 3; k++) {
        if (!ws[k]->valid) continue;
        if (!witness_numbers(r, keys[k], ws[k], &ratio[k])) return;
        if (ratio[k] > m->max_ratio)
            bad(r, keys[k], "has an err/bound above max_err_over_bound");
        else if (ws[k]->err > m->max_abs)
            bad(r, keys[k], "has an abs_err above max_abs_err");
        else if (ws[k]->ulp > m->max_ulp)
            bad(r, keys[k], "has an ulp_err above max_ulp_err");
        if (r->st != PC_OK) return;
    }
    if (m->worst.valid && !(ratio[0] == m->max_ratio))
        bad(r, "worst", "has an err/bound that is not max_err_over_bound");
    else if (m->worst.valid && !m->n_over && !(m->worst.err <= m->worst.bound))
        bad(r, "worst", "is over its bound although no value is over the bound");
    else if (m->worst_abs.valid && !(m->worst_abs.err == m->max_abs))
        bad(r, "max_abs_at", "has an abs_err that is not max_abs_err");
    else if (m->first_over.valid && m->first_over.err <= m->first_over.bound)
        bad(r, "first_over_bound", "is not over its bound");
}

/* A result of no values is the engine's empty metrics (pc_metrics_init):
 * the writer writes every maximum and sum as 0 and every witness as null.
 * The field of *M that is not, to *KEY, and why, or NULL.  A forged figure
 * here would reach the merge (the maxima and sums are merged whatever the
 * count) under a "values" of 0. */
static const char *empty_figure(const pc_metrics *m, const char **key)
{
    if (m->max_ratio != 0) *key = "max_err_over_bound";
    else if (m->max_abs != 0) *key = "max_abs_err";
    else if (m->max_ulp != 0) *key = "max_ulp_err";
    else if (m->sum_sq_err != 0) *key = "sum_sq_err_exact";
    else if (m->sum_sq_ref != 0) *key = "sum_sq_ref_exact";
    else if (m->worst.valid) *key = "worst";
    else if (m->worst_abs.valid) *key = "max_abs_at";
    else if (m->first_over.valid) *key = "first_over_bound";
    else return NULL;
    return m->worst.valid || m->worst_abs.valid || m->first_over.valid
        ? "names an element although \"values\" is 0"
        : "is not 0 although \"values\" is 0 (nothing was checked)";
}

/* The counts, witnesses and status of one result agree with each other and
 * with what the engine does for its parameters (harness/engine/accuracy.c):
 *   - a finished shard checked every element of its positions: values = npos * d;
 *     a shard stopped by the implementation's error at block LO checked the
 *     blocks before it: values = (LO - first position) * d;
 *   - values_nonfinite <= values_over_bound <= values (a NaN/Inf is over the
 *     bound), values_correctly_rounded <= values;
 *   - no values: every maximum and sum 0, every witness null (empty_figure);
 *   - max_err_over_bound <= 1 when nothing is over the bound, >= 1 otherwise
 *     (over means !(err <= bound));
 *   - "pass": nothing over the bound and no error; "fail": something over the
 *     bound, or an error or fault note; "skip": no value checked and a note;
 *   - the witnesses agree with their elements and the maxima (check_witnesses). */
static void check_consistent(rd *r, pc_shard_item *it, int has_ie)
{
    const pc_acc_cfg *c = &it->cfg;
    const pc_acc_result *res = &it->res;
    const pc_metrics *m = &res->m;
    int64_t p0, p1, npos;
    const char *key = NULL, *empty = NULL;
    shard_positions(c, &p0, &p1, &npos);
    uint64_t want = (uint64_t)npos * (uint64_t)c->d;
    if (res->faulted) { /* stopped before the block whose call faulted */
        if (npos == 0 || res->fault_lo < p0 || res->fault_lo > p1
            || (res->fault_lo - c->pos_lo) % PC_ACC_BLOCK || has_ie)
            bad(r, "fault", "does not name a block of the shard");
        else if (res->status != PC_FAIL || !res->note[0])
            bad(r, "fault", "is set but the status is not \"fail\" with the fault's cause");
        want = (uint64_t)(res->fault_lo - p0) * (uint64_t)c->d;
    }
    if (has_ie) {
        int64_t hi = res->impl_rc_lo + (int64_t)PC_ACC_BLOCK - 1;
        if (hi > c->pos_hi) hi = c->pos_hi;
        if (npos == 0 || res->impl_rc == 0 || res->impl_rc_lo < p0 || res->impl_rc_lo > p1
            || (res->impl_rc_lo - c->pos_lo) % PC_ACC_BLOCK || res->impl_rc_hi != hi)
            bad(r, "impl_error", "does not name a block of the shard");
        want = (uint64_t)(res->impl_rc_lo - p0) * (uint64_t)c->d;
    }
    if (res->status == PC_SKIP && !has_ie) want = 0;
    if (r->st != PC_OK) return;
    if (m->count != want) {
        char why[128];
        snprintf(why, sizeof why, "is %llu, but the shard checks %llu values (%lld positions x d=%d)",
                 (unsigned long long)m->count, (unsigned long long)want,
                 (long long)(want / (uint64_t)c->d), c->d);
        bad(r, "values", why);
    } else if (m->n_over > m->count) {
        bad(r, "values_over_bound", "is larger than \"values\"");
    } else if (m->n_nonfinite > m->n_over) {
        bad(r, "values_nonfinite", "is larger than \"values_over_bound\" (a NaN/Inf is over the bound)");
    } else if (m->n_exact > m->count) {
        bad(r, "values_correctly_rounded", "is larger than \"values\"");
    } else if (!m->count && (empty = empty_figure(m, &key)) != NULL) {
        bad(r, key, empty);
    } else if (m->count && (m->n_over ? !(m->max_ratio >= 1) : !(m->max_ratio <= 1))) {
        bad(r, "max_err_over_bound", m->n_over ? "is below 1 although values are over the bound"
                                               : "is above 1 although no value is over the bound");
    } else if (m->count && !m->worst.valid) {
        bad(r, "worst", "is null although values were checked");
    } else if (!m->n_over != !m->first_over.valid) {
        bad(r, "first_over_bound", m->n_over ? "is null although values are over the bound"
                                             : "is set although no value is over the bound");
    } else if (res->status == PC_OK && (m->n_over || has_ie)) {
        bad(r, "status", "is \"pass\" but the shard has values over the bound or an error");
    } else if (res->status == PC_FAIL && !m->n_over && !has_ie && !res->note[0]) {
        bad(r, "status", "is \"fail\" but no value is over the bound and no error is recorded");
    } else if (res->status == PC_SKIP && !res->note[0]) {
        bad(r, "status", "is \"skip\" without a note saying why");
    }
    check_witness(r, "worst", &m->worst, c, p0, p1);
    check_witness(r, "max_abs_at", &m->worst_abs, c, p0, p1);
    check_witness(r, "first_over_bound", &m->first_over, c, p0, p1);
    if (r->st == PC_OK) check_witnesses(r, m);
}

/* "fault": {"start": P}, the first position of the block whose call
 * faulted (check_consistent checks that it is one of the shard's). */
static void get_fault(rd *r, const pc_jnode *o, pc_acc_result *res)
{
    const pc_jnode *fl = pc_jget(o, "fault");
    if (!fl) return;
    res->faulted = 1;
    rd q = { r->file, r->err, PC_OK };
    res->fault_lo = fl->type == PC_J_OBJ ? get_int_in(&q, fl, "start", 0, PC_POS_MAX) : 0;
    if (fl->type != PC_J_OBJ || q.st != PC_OK)
        bad(r, "fault.start", "is missing or not a position in [0, 2^53]");
}

/* NODE[k], a number of an array of N (the writer's %.17g), into X. */
static double arr_num(rd *r, const pc_jnode *a, size_t k, const char *key)
{
    const pc_jnode *v = &a->kids[k];
    double x = v->type == PC_J_NUM ? strtod(v->text, NULL) : (double)NAN;
    if (!isfinite(x) || x < 0) bad(r, key, "holds a value that is not a finite number >= 0");
    return x;
}

/* An array of N members at KEY of O (NULL, and the field named, when not). */
static const pc_jnode *get_arr(rd *r, const pc_jnode *o, const char *key, size_t n)
{
    const pc_jnode *a = pc_jget(o, key);
    if (a && a->type == PC_J_ARR && a->n == n) return a;
    bad(r, key, "is not an array of one member per pair");
    return NULL;
}

/* "bound.formulation.omega" of an hf class into IT->form_cand: each pair's
 * frequencies are binary32 values, ascending. */
static void get_cands(rd *r, const pc_jnode *f, pc_shard_item *it, size_t h)
{
    const pc_jnode *om = get_arr(r, f, "omega", h);
    for (size_t i = 0; r->st == PC_OK && i < h; i++) {
        const pc_jnode *p = &om->kids[i];
        if (p->type != PC_J_ARR || p->n < 1 || p->n > PC_ACC_FORM_CANDS) {
            bad(r, "bound.formulation.omega", "is not 1 to 4 frequencies a pair");
            break;
        }
        float *cd = it->form_cand + PC_ACC_FORM_CANDS * i;
        for (size_t j = 0; j < PC_ACC_FORM_CANDS; j++) {
            double w = arr_num(r, p, j < p->n ? j : p->n - 1, "bound.formulation.omega");
            cd[j] = (float)w;
            if ((double)(float)w != w) bad(r, "bound.formulation.omega", "holds a non-binary32 value");
            if (j > 0 && j < p->n && !(cd[j] > cd[j - 1]))
                bad(r, "bound.formulation.omega", "is not ascending");
        }
    }
}

/* "bound.formulation" (acc_output.c form_json), the family's strict class,
 * into IT->form: present exactly under hf and ggml, the frequencies
 * (omega) exactly under hf. */
static void get_form(rd *r, const pc_jnode *bd, pc_shard_item *it)
{
    const pc_jnode *f = pc_jget(bd, "formulation");
    pc_acc_cfg *c = &it->cfg;
    int computed = c->strict == PC_CLASS_HF || c->strict == PC_CLASS_GGML;
    if (!f && !computed) return;
    if (!f || f->type != PC_J_OBJ || !computed) {
        bad(r, "bound.formulation", "is missing under the hf or ggml class, or given under another");
        return;
    }
    size_t h = (size_t)c->d / 2;
    snprintf(it->form_what, sizeof it->form_what, "%s", get_str(r, f, "what"));
    const pc_jnode *ka = get_arr(r, f, "kappa", h), *kk = get_arr(r, f, "k", h);
    for (size_t i = 0; r->st == PC_OK && i < h; i++) {
        it->form_kappa[i] = arr_num(r, ka, i, "bound.formulation.kappa");
        it->form_k[i] = arr_num(r, kk, i, "bound.formulation.k");
    }
    int cands = c->strict == PC_CLASS_HF;
    if (cands) get_cands(r, f, it, h);
    else if (pc_jget(f, "omega")) bad(r, "bound.formulation.omega", "is given under the ggml class");
    it->form = (pc_acc_form){ it->form_what, it->form_kappa, it->form_k, cands ? it->form_cand : NULL };
    c->form = &it->form;
}

/* The result's "bound" (the accuracy JSON's bound_json) into C and RES. */
static void get_bound(rd *r, const pc_jnode *bd, pc_acc_cfg *c, pc_acc_result *res)
{
    if (!strcmp(get_str(r, bd, "model"), "absolute")) {
        c->tol_abs = get_num(r, bd, "tol_abs", 0.0);
        if (!(c->tol_abs > 0)) bad(r, "bound.tol_abs", "is not a positive finite number");
        return;
    }
    c->tol_abs = -1.0;
    res->C = get_num(r, bd, "C", 0.0);
    res->u = get_num(r, bd, "u", 0.0);
    res->R = get_num(r, bd, "R", 0.0);
    /* C is 0 where the only pair is exact (d = 2) */
    if (!(res->C >= 0) || !(res->u > 0) || !(res->R > 0))
        bad(r, "bound", "has a C, u or R that is negative, zero (u, R) or not finite");
    const pc_jnode *cl = pc_jget(bd, "class");
    c->strict = cl && cl->type == PC_J_STR && pc_model_class_of(cl->text) > 0 ? pc_model_class_of(cl->text) : 0;
    const pc_jnode *cf = pc_jget(bd, "C_formula");
    c->kappa_sched = cf && cf->type == PC_J_STR && !strcmp(cf->text, PC_ACC_C_SCHED);
    const pc_jnode *ma = pc_jget(bd, "max_abs_err");
    c->max_abs_err = ma ? get_num(r, bd, "max_abs_err", 0.0) : 0.0;
}

/* params.base_from and params.schedule, both optional: what the verdict
 * says the base came from, and the family's schedule (the text's line) */
static void get_notes(rd *r, const pc_jnode *pa, pc_shard_item *it)
{
    const pc_jnode *bf = pc_jget(pa, "base_from");
    if (bf && bf->type == PC_J_STR) snprintf(it->base_from, sizeof it->base_from, "%s", bf->text);
    else if (bf && bf->type != PC_J_NULL) bad(r, "params.base_from", "is not a string");
    it->cfg.base_from = it->base_from[0] ? it->base_from : NULL;
    const pc_jnode *sn = pc_jget(pa, "schedule");
    if (sn && sn->type == PC_J_STR) snprintf(it->schedule, sizeof it->schedule, "%s", sn->text);
    else if (sn && sn->type != PC_J_NULL) bad(r, "params.schedule", "is not a string");
    it->cfg.sched_note = it->schedule[0] ? it->schedule : NULL;
}

pc_status pc_shard_read(const pc_jnode *o, const char *file, pc_shard_item *it, pc_err *err)
{
    memset(it, 0, sizeof *it);
    it->file = file;
    rd r = { file, err, PC_OK };
    if (!o || o->type != PC_J_OBJ)
        return pc_seterr(err, PC_EINPUT, "%s: expected a JSON object with an accuracy result", file);
    snprintf(it->name, sizeof it->name, "%s", get_str(&r, o, "implementation"));
    snprintf(it->family, sizeof it->family, "%s", get_str(&r, o, "family"));
    pc_acc_cfg *c = &it->cfg;
    c->family = it->family;
    const pc_family *fam = pc_family_find(it->family);
    if (r.st == PC_OK && (!fam || !fam->rows)) {
        char why[200] = "is not ";
        pc_family_names(why + 7, sizeof why - 7, 0, 1, NULL);
        bad(&r, "family", why);
    }
    const pc_jnode *pa = pc_jget(o, "params");
    const pc_jnode *ps = pc_jget(pa, "positions");
    if (!ps) bad(&r, "params.positions", "is missing");
    c->d = (int)get_int_in(&r, pa, "d", 2, PC_D_MAX);
    c->base = get_num(&r, pa, "base", (double)NAN);
    get_notes(&r, pa, it);
    if (r.st == PC_OK && pc_ref_check_params(c->d, c->base, err) != PC_OK)
        bad(&r, "params", "has a d or base pecheck does not accept");
    static const char *const layouts[] = { "interleaved", "half" };
    static const char *const dtypes[] = { "f32", "bf16", "f16", "f64" };
    c->layout = name_index(get_str(&r, pa, "layout"), layouts, 2);
    c->dtype = name_index(get_str(&r, pa, "dtype"), dtypes, 4);
    if (c->layout < 0) bad(&r, "params.layout", "is not interleaved or half");
    if (c->dtype < 0) bad(&r, "params.dtype", "is not a known dtype");
    c->pos_lo = get_int_in(&r, ps, "start", 0, PC_POS_MAX);
    c->pos_hi = get_int_in(&r, ps, "end", c->pos_lo, PC_POS_MAX);
    c->seed = (uint64_t)get_int(&r, o, "seed"); /* written as a signed 64-bit integer */
    c->shard_k = c->shard_n = 1;
    const pc_jnode *sh = pc_jget(o, "shard");
    if (sh) {
        /* the limits of --shard K/N (harness/cli/opts.c) */
        c->shard_n = (int)get_int_in(&r, sh, "n", 1, PC_SHARD_MAX);
        c->shard_k = (int)get_int_in(&r, sh, "k", 1, c->shard_n);
    }
    pc_acc_result *res = &it->res;
    get_bound(&r, pc_jget(o, "bound"), c, res);
    if (r.st == PC_OK && c->tol_abs < 0) get_form(&r, pc_jget(o, "bound"), it);
    get_reach(&r, o, c, &res->reach);
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
    m->count = get_count(&r, o, "values");
    m->n_over = get_count(&r, o, "values_over_bound");
    m->n_nonfinite = get_count(&r, o, "values_nonfinite");
    m->n_exact = get_count(&r, o, "values_correctly_rounded");
    m->max_abs = get_nonneg(&r, o, "max_abs_err", HUGE_VAL);
    m->max_ulp = get_nonneg(&r, o, "max_ulp_err", HUGE_VAL);
    m->max_ratio = get_nonneg(&r, o, "max_err_over_bound", HUGE_VAL);
    get_xsum(&r, o, "sum_sq_err_exact", &m->xsq_err);
    get_xsum(&r, o, "sum_sq_ref_exact", &m->xsq_ref);
    get_witness(&r, o, "worst", &m->worst);
    get_witness(&r, o, "max_abs_at", &m->worst_abs);
    get_witness(&r, o, "first_over_bound", &m->first_over);
    pc_metrics_finish(m);
    get_fault(&r, o, res);
    const pc_jnode *ie = pc_jget(o, "impl_error");
    if (ie) {
        res->impl_rc = (int)get_int_in(&r, ie, "rc", INT32_MIN, INT32_MAX);
        res->impl_rc_lo = get_int_in(&r, ie, "start", 0, PC_POS_MAX);
        res->impl_rc_hi = get_int_in(&r, ie, "end", 0, PC_POS_MAX);
    }
    res->seconds = get_nonneg(&r, o, "seconds", 0.0);
    if (r.st == PC_OK) check_consistent(&r, it, ie != NULL);
    return r.st;
}

/* ---- merging ----------------------------------------------------------- */

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The same strict class computed by the family (both none, or the same
 * pairs bit for bit). */
static int same_form(const pc_shard_item *a, const pc_shard_item *b)
{
    if (!a->cfg.form || !b->cfg.form) return !a->cfg.form && !b->cfg.form;
    size_t h = (size_t)a->cfg.d / 2;
    return !strcmp(a->form_what, b->form_what)
        && !memcmp(a->form_kappa, b->form_kappa, h * sizeof(double))
        && !memcmp(a->form_k, b->form_k, h * sizeof(double))
        && !a->form.cand == !b->form.cand
        && (!a->form.cand
            || !memcmp(a->form_cand, b->form_cand, PC_ACC_FORM_CANDS * h * sizeof(float)));
}

/* Whether IT is a shard that got no block (more shards than blocks): it
 * called the implementation nowhere, so without --layout it could not see
 * a RoPE implementation decline the interleaved layout and keeps the
 * first tried (harness/cli/cmd_accuracy.c, run_one): its layout is no
 * claim about the check.  It carries no value (check_consistent). */
static int got_no_block(const pc_shard_item *it)
{
    int64_t p0, p1, npos;
    shard_positions(&it->cfg, &p0, &p1, &npos);
    return npos == 0;
}

/* Do A and B describe the same check (everything but the shard)? */
static const char *differs(const pc_shard_item *a, const pc_shard_item *b)
{
    if (strcmp(a->name, b->name)) return "implementation";
    if (strcmp(a->family, b->family)) return "family";
    if (a->cfg.d != b->cfg.d) return "d";
    if (!same_bits(a->cfg.base, b->cfg.base)) return "base";
    if (strcmp(a->schedule, b->schedule)) return "schedule";
    if (a->cfg.layout != b->cfg.layout && !got_no_block(a) && !got_no_block(b)) return "layout";
    if (a->cfg.dtype != b->cfg.dtype) return "dtype";
    if (a->cfg.pos_lo != b->cfg.pos_lo || a->cfg.pos_hi != b->cfg.pos_hi) return "positions";
    if (a->cfg.seed != b->cfg.seed) return "seed";
    if (!same_bits(a->cfg.tol_abs, b->cfg.tol_abs) || !same_bits(a->res.C, b->res.C)
        || !same_bits(a->res.u, b->res.u) || !same_bits(a->res.R, b->res.R)
        || a->cfg.strict != b->cfg.strict || !same_form(a, b)
        || !same_bits(a->cfg.max_abs_err, b->cfg.max_abs_err)) return "bound";
    if (a->cfg.shard_n != b->cfg.shard_n) return "shard count";
    return NULL;
}

/* "3, 5 and 7" (at most a few, then "..."): the shards of 1..N not in BY_K. */
static void list_missing(const pc_shard_item **by_k, int N, char *buf, size_t len, int *count)
{
    size_t used = 0;
    *count = 0;
    buf[0] = '\0';
    for (int k = 0; k < N; k++) {
        if (by_k[k]) continue;
        if (++*count <= 4 && used < len)
            used += (size_t)snprintf(buf + used, len - used, "%s%d/%d", *count > 1 ? ", " : "", k + 1, N);
    }
    if (*count > 4 && used < len) snprintf(buf + used, len - used, ", ... (%d in all)", *count);
}

/* NAME for a one-line message: control bytes (a plugin path may hold a
 * newline) shown as '?'. */
static const char *shown(const char *name, char *buf, size_t len)
{
    size_t k = 0;
    for (; name[k] && k + 1 < len; k++)
        buf[k] = (unsigned char)name[k] < 0x20 || name[k] == 0x7f ? '?' : name[k];
    buf[k] = '\0';
    return buf;
}

/* Sort ITEMS by shard number into BY_K[0..N): every item of one run, none
 * twice, none missing. */
static pc_status group_shards(const pc_shard_item *items, int n, const pc_shard_item **by_k,
                              int N, pc_err *err)
{
    char a[96], b[96];
    const pc_shard_item *ref = &items[0]; /* a shard with blocks: its layout is the run's */
    for (int k = 0; k < n; k++)
        if (!got_no_block(&items[k])) { ref = &items[k]; break; }
    for (int k = 0; k < n; k++) {
        const char *what = differs(ref, &items[k]);
        if (what)
            return pc_seterr(err, PC_EINPUT, "merge: %s and %s are not shards of one run (%s "
                             "differs: %s %d/%d vs %s %d/%d)", ref->file, items[k].file, what,
                             shown(ref->name, a, sizeof a), ref->cfg.shard_k, N,
                             shown(items[k].name, b, sizeof b),
                             items[k].cfg.shard_k, items[k].cfg.shard_n);
        const pc_shard_item **slot = &by_k[items[k].cfg.shard_k - 1];
        if (*slot)
            return pc_seterr(err, PC_EINPUT, "merge: shard %d/%d of %s given twice (%s and %s)",
                             items[k].cfg.shard_k, N, shown(items[k].name, a, sizeof a),
                             (*slot)->file, items[k].file);
        *slot = &items[k];
    }
    char miss[128];
    int nmiss;
    list_missing(by_k, N, miss, sizeof miss, &nmiss);
    if (nmiss)
        return pc_seterr(err, PC_EINPUT, "merge: %s: shard %s missing (%d of %d shard files given)",
                         shown(items[0].name, a, sizeof a), miss, n, N);
    return PC_OK;
}

/* A "skip" with no implementation's error is the engine's "does not
 * implement the family", decided before any position is checked
 * (pc_accuracy_run_layouts): every shard of the run says it, with the same
 * note.  One shard's skip among shards that checked values would make the
 * merged run a skip. */
static pc_status same_skip(const pc_shard_item *const *by_k, int N, pc_err *err)
{
    const pc_shard_item *skip = NULL, *other = NULL;
    for (int k = 0; k < N; k++) {
        const pc_acc_result *s = &by_k[k]->res;
        if (s->status == PC_SKIP && !s->impl_rc) {
            if (!skip) skip = by_k[k];
            else if (strcmp(s->note, skip->res.note)) other = by_k[k];
        } else if (!other) {
            other = by_k[k];
        }
    }
    if (!skip || !other) return PC_OK;
    char a[96];
    return pc_seterr(err, PC_EINPUT, "merge: %s: field \"status\" is \"skip\" (%s) but shard %d/%d "
                     "of the same run (%s) is \"%s\" with %llu values: a family's skip is every "
                     "shard's", skip->file, shown(skip->res.note, a, sizeof a), other->cfg.shard_k, N,
                     other->file, other->res.status == PC_OK ? "pass"
                     : other->res.status == PC_FAIL ? "fail" : "skip",
                     (unsigned long long)other->res.m.count);
}

/* The engine splits the witnesses' error only when its run completed
 * (harness/engine/accuracy.c, finish): a shard that completed has the split, the
 * merged run stopped by an error or a fault has none. */
static void no_split(pc_witness *w)
{
    w->has_split = 0;
    w->angle_err = w->norm_err = w->angle_part = w->eval_part = 0.0;
    w->theta_impl = 0.0f;
    w->alone = w->batched = w->batched_n = 0;
    w->batched_ratio = 0.0;
}

pc_status pc_shard_merge(const pc_shard_item *items, int n, pc_shard_item *out, pc_err *err)
{
    if (n < 1) return pc_seterr(err, PC_EINPUT, "merge: no results");
    int N = items[0].cfg.shard_n;
    const pc_shard_item **by_k = calloc((size_t)N, sizeof *by_k);
    if (!by_k) return pc_seterr(err, PC_ENOMEM, "out of memory");
    pc_status st = group_shards(items, n, by_k, N, err);
    if (st == PC_OK) st = same_skip(by_k, N, err);
    if (st != PC_OK) { free(by_k); return st; }

    /* Replay the engine's loop over the shards in position order. */
    *out = *by_k[0];
    out->cfg.family = out->family;
    if (out->cfg.form) { /* its own copy's arrays */
        out->form = (pc_acc_form){ out->form_what, out->form_kappa, out->form_k,
                                   out->form.cand ? out->form_cand : NULL };
        out->cfg.form = &out->form;
    }
    out->cfg.base_from = out->base_from[0] ? out->base_from : NULL;
    out->cfg.sched_note = out->schedule[0] ? out->schedule : NULL;
    out->cfg.shard_k = out->cfg.shard_n = 1;
    pc_acc_result *res = &out->res;
    pc_metrics_init(&res->m);
    res->status = PC_OK;
    res->note[0] = '\0';
    res->impl_rc = 0;
    res->faulted = 0;
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
        if (s->faulted) {
            /* the engine stops at the block whose call faulted */
            res->status = PC_FAIL;
            res->faulted = 1;
            res->fault_lo = s->fault_lo;
            snprintf(res->note, sizeof res->note, "%s", s->note);
            ended = 1;
        } else if (s->impl_rc) {
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
    if (res->faulted || res->impl_rc) { /* stopped: the engine splits no witness */
        no_split(&res->m.worst);
        no_split(&res->m.worst_abs);
        no_split(&res->m.first_over);
    }
    free(by_k);
    return PC_OK;
}

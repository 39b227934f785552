/* check_shard_fit.c: the fitted model in a check shard (check_shard.h,
 * mode FITTED): each shard writes the fit's constants and the exact sums of
 * its own blocks (fitsums.h); merge checks them, joins them in shard order
 * and judges the whole range as check does (docs/fitted-model.md, "How the
 * sums are made"; docs/sharding.md). */
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "check_shard_fit.h"
#include "harness/engine/fitmodel.h"
#include "harness/engine/fitsums.h"
#include "harness/io/json.h"
#include "families/family.h"

/* ---- the record ------------------------------------------------------- */

pc_status pc_shard_rec_fit(pc_shard_rec *rec, int index, const pc_fitm *m, const pc_fitp *sums,
                           const char *note, double seconds)
{
    pc_slot *s = pc_shard_rec_slot(rec, index);
    if (!s) return PC_ENOMEM;
    s->mode = PC_SLOT_FITTED;
    s->fit_seconds = seconds;
    snprintf(s->fit_note, sizeof s->fit_note, "%s", sums ? "" : note);
    if (!sums) return PC_OK;
    s->fitm = *m;
    s->fitm.p = malloc((size_t)m->h * sizeof *m->p);
    s->fit = pc_fitp_new(m->h);
    if (!s->fitm.p || !s->fit || pc_fitp_join(s->fit, sums) != 0) {
        pc_slot_fit_free(s);
        return PC_ENOMEM;
    }
    memcpy(s->fitm.p, m->p, (size_t)m->h * sizeof *m->p);
    return PC_OK;
}

void pc_slot_fit_free(pc_slot *s)
{
    pc_fitm_free(&s->fitm);
    pc_fitp_free(s->fit);
    s->fit = NULL;
}

/* ---- writing ---------------------------------------------------------- */

static void put_hex(pc_json *j, const char *key, double x)
{
    char b[40];
    snprintf(b, sizeof b, "%a", x);
    pc_json_str(j, key, b);
}

/* an exact sum: its expansion (hex terms, largest first), or the string
 * "nan" or "inf" when it is not finite */
static void put_xsum(pc_json *j, const char *key, const pc_xsum *x)
{
    double terms[64]; /* an expansion of a binary64-range sum has at most 40 terms */
    int n = pc_xsum_expansion(x, terms, 64);
    if (n < 0) { put_hex(j, key, pc_xsum_value(x)); return; }
    pc_json_arr(j, key);
    for (int k = 0; k < n; k++) put_hex(j, NULL, terms[k]);
    pc_json_end(j);
}

/* an exact integer, in decimal */
static void put_i128(pc_json *j, const char *key, pc_i128 v)
{
    char b[48], *p = b + sizeof b - 1;
    unsigned __int128 a = v < 0 ? -(unsigned __int128)v : (unsigned __int128)v;
    *p = '\0';
    do { *--p = (char)('0' + (int)(a % 10)); a /= 10; } while (a);
    if (v < 0) *--p = '-';
    pc_json_str(j, key, p);
}

static void put_sums(pc_json *j, const pc_fitp *f)
{
    pc_json_obj(j, "sums");
    pc_json_int(j, "start", f->start);
    pc_json_int(j, "count", f->n);
    pc_json_arr(j, "pairs");
    for (int i = 0; i < f->h; i++) {
        const pc_fitp_pair *q = &f->p[i];
        pc_json_obj(j, NULL);
        const pc_xsum *xs[7] = { &q->sd, &q->sxd, &q->samp, &q->zr, &q->zi, &q->er, &q->ei };
        static const char *const names[7] = { "sd", "sxd", "samp", "zr", "zi", "er", "ei" };
        for (int k = 0; k < 7; k++) put_xsum(j, names[k], xs[k]);
        put_i128(j, "sm", q->sm);
        put_i128(j, "sqm", q->sqm);
        put_hex(j, "first", q->first);
        put_hex(j, "last", q->last);
        pc_json_int(j, "mlast", q->mlast);
        pc_json_end(j);
    }
    pc_json_end(j);
    pc_json_end(j);
}

void pc_check_shard_write_fit(pc_json *j, const pc_slot *s)
{
    pc_json_obj(j, "fit");
    pc_json_num(j, "seconds", s->fit_seconds);
    pc_json_str(j, "note", s->fit ? NULL : s->fit_note);
    if (s->fit) {
        const pc_fitm *m = &s->fitm;
        pc_json_int(j, "start", m->lo);
        pc_json_int(j, "end", m->hi);
        pc_json_int(j, "pairs", m->h);
        put_hex(j, "attention", m->att);
        put_hex(j, "u", m->u);
        put_hex(j, "u_s", m->u_s);
        pc_json_arr(j, "omega");
        for (int i = 0; i < m->h; i++) put_hex(j, NULL, m->p[i].omega);
        pc_json_end(j);
        pc_json_arr(j, "kappa");
        for (int i = 0; i < m->h; i++) put_hex(j, NULL, m->p[i].kappa);
        pc_json_end(j);
        put_sums(j, s->fit);
    }
    pc_json_end(j);
}

/* ---- reading ---------------------------------------------------------- */

typedef struct rd {
    const char *file;
    int slot;
    pc_err *err;
    pc_status st;
} rd;

static void bad(rd *r, const char *key, const char *why)
{
    if (r->st != PC_OK) return;
    r->st = pc_seterr(r->err, PC_EINPUT, "%s: slot %d: field \"%s%s\" %s (not a pecheck check "
                      "shard?)", r->file, r->slot + 1, strcmp(key, "fit") ? "fit." : "", key, why);
}

static const pc_jnode *get_kind(rd *r, const pc_jnode *o, const char *key, pc_jtype t,
                                const char *what)
{
    const pc_jnode *v = o ? pc_jget(o, key) : NULL;
    if (!v || v->type != t) { bad(r, key, what); return NULL; }
    return v;
}

static int64_t get_i64(rd *r, const pc_jnode *o, const char *key, int64_t lo, int64_t hi)
{
    const pc_jnode *v = get_kind(r, o, key, PC_J_NUM, "is missing or not a number");
    if (!v) return lo;
    char *end;
    errno = 0;
    long long x = strtoll(v->text, &end, 10);
    if (*end || errno == ERANGE || x < lo || x > hi) {
        char why[96];
        snprintf(why, sizeof why, "is not an integer in [%" PRId64 ", %" PRId64 "]", lo, hi);
        bad(r, key, why);
        return lo;
    }
    return x;
}

/* a binary64 written with %a (nan and inf included): exactly the text
 * the writer makes of its value (no blanks, decimals, "NaN", "Infinity") */
static double hex_of(rd *r, const pc_jnode *v, const char *key)
{
    double x = 0.0;
    if (!v || v->type != PC_J_STR || pc_check_shard_hex(v->text, &x) != 0)
        bad(r, key, "is not a number written with %a");
    return x;
}

static double get_hex(rd *r, const pc_jnode *o, const char *key)
{
    return hex_of(r, o ? pc_jget(o, key) : NULL, key);
}

/* an exact sum as put_xsum writes it */
static void get_xsum(rd *r, const pc_jnode *o, const char *key, pc_xsum *x)
{
    pc_xsum_init(x);
    const pc_jnode *v = o ? pc_jget(o, key) : NULL;
    if (v && v->type == PC_J_STR) {
        double d = hex_of(r, v, key);
        if (r->st == PC_OK && !isnan(d) && d != HUGE_VAL) bad(r, key, "is a string but not nan or inf");
        pc_xsum_add(x, d);
        return;
    }
    if (!v || v->type != PC_J_ARR) { bad(r, key, "is missing or not an array"); return; }
    double t[64]; /* as put_xsum */
    for (size_t k = 0; k < v->n && r->st == PC_OK; k++) {
        double d = hex_of(r, &v->kids[k], key);
        if (r->st == PC_OK && !isfinite(d)) bad(r, key, "has a term that is not finite");
        pc_xsum_add(x, d);
    }
    /* the writer's expansion of the sum, term for term (none longer, no
     * zero or overlapping terms, not empty unless the sum is 0) */
    int n = r->st == PC_OK ? pc_xsum_expansion(x, t, 64) : 0;
    int same = n >= 0 && (size_t)n == v->n;
    for (int k = 0; same && k < n; k++) {
        double d = 0.0;
        same = pc_check_shard_hex(v->kids[k].text, &d) == 0 && memcmp(&d, &t[k], sizeof d) == 0;
    }
    if (r->st == PC_OK && !same) bad(r, key, "is not the expansion the writer makes of its sum");
}

/* an exact integer as put_i128 writes it, |value| <= MAX */
static pc_i128 get_i128(rd *r, const pc_jnode *o, const char *key, pc_i128 max)
{
    const pc_jnode *v = get_kind(r, o, key, PC_J_STR, "is missing or not a string");
    if (!v) return 0;
    const char *p = v->text + (v->text[0] == '-');
    pc_i128 a = 0;
    int ok = *p != '\0';
    for (; *p && ok; p++) {
        ok = *p >= '0' && *p <= '9' && a <= (max - (*p - '0')) / 10;
        if (ok) a = a * 10 + (*p - '0');
    }
    if (!ok) bad(r, key, "is not a decimal integer within the sums' range");
    return v->text[0] == '-' ? -a : a;
}

/* Pair I's sums of a run of N positions, checked against what n positions
 * allow (fitsums.h: |m| < n, |sum m| < n^2, |sum q m| < n^3; raw values,
 * atan2's, in [-pi, pi] or NaN). */
static void get_pair(rd *r, const pc_jnode *o, int64_t n, pc_fitp_pair *q)
{
    pc_xsum *xs[7] = { &q->sd, &q->sxd, &q->samp, &q->zr, &q->zi, &q->er, &q->ei };
    static const char *const names[7] = { "sd", "sxd", "samp", "zr", "zi", "er", "ei" };
    for (int k = 0; k < 7; k++) get_xsum(r, o, names[k], xs[k]);
    pc_i128 n2 = (pc_i128)n * n;
    q->sm = get_i128(r, o, "sm", n2);
    q->sqm = get_i128(r, o, "sqm", n2 * n);
    q->first = get_hex(r, o, "first");
    q->last = get_hex(r, o, "last");
    if (r->st == PC_OK && (fabs(q->first) > M_PI || fabs(q->last) > M_PI))
        bad(r, "first", "or \"last\" is not a residual in [-pi, pi]");
    q->mlast = get_i64(r, o, "mlast", n > 0 ? 1 - n : 0, n > 0 ? n - 1 : 0);
}

/* The sums of shard K of N over the fit's range LO..HI: exactly the
 * shard's blocks (pc_acc_shard_blocks). */
static void get_sums(rd *r, const pc_jnode *fit, const pc_fitm *m, int k, int n, pc_fitp *f)
{
    const pc_jnode *o = get_kind(r, fit, "sums", PC_J_OBJ, "is missing or not an object");
    int64_t b0, b1, nb = pc_acc_nblocks(m->lo, m->hi);
    pc_acc_shard_blocks(nb, k, n, &b0, &b1);
    int64_t start = m->lo + b0 * PC_ACC_BLOCK, end = m->lo + b1 * PC_ACC_BLOCK;
    int64_t count = b1 > b0 ? (end - 1 < m->hi ? end : m->hi + 1) - start : 0;
    f->start = get_i64(r, o, "start", 0, PC_POS_MAX);
    f->n = get_i64(r, o, "count", 0, PC_FIT_MAX_N);
    if (r->st == PC_OK && f->n != count) bad(r, "sums.count", "is not the shard's positions");
    if (r->st == PC_OK && count && f->start != start) bad(r, "sums.start", "is not the shard's first position");
    const pc_jnode *p = get_kind(r, o, "pairs", PC_J_ARR, "is missing or not an array");
    if (r->st == PC_OK && p->n != (size_t)f->h) bad(r, "sums.pairs", "does not hold one entry a pair");
    for (int i = 0; i < f->h && r->st == PC_OK; i++) get_pair(r, &p->kids[i], f->n, &f->p[i]);
}

/* The fit's constants of one shard into M (M->p allocated): the range, the
 * pairs, A, u, u_s, omega_i and kappa_i, each as the gate sets them up. */
static void get_consts(rd *r, const pc_jnode *fit, pc_fitm *m)
{
    memset(m, 0, sizeof *m);
    m->lo = get_i64(r, fit, "start", 0, PC_POS_MAX);
    m->hi = get_i64(r, fit, "end", 0, PC_POS_MAX);
    if (r->st == PC_OK && (m->hi - m->lo < 15 || m->hi - m->lo >= PC_FIT_MAX_N))
        bad(r, "end", "does not make a range of 16 to 2^40 positions");
    m->h = (int)get_i64(r, fit, "pairs", 1, PC_D_MAX / 2);
    m->att = get_hex(r, fit, "attention");
    m->u = get_hex(r, fit, "u");
    m->u_s = get_hex(r, fit, "u_s");
    if (r->st == PC_OK && !(m->att > 0 && m->att < HUGE_VAL && m->u > 0 && m->u < 1
                            && m->u_s >= 0 && m->u_s < 1))
        bad(r, "attention", "\"u\" or \"u_s\" is out of range");
    const pc_jnode *w = get_kind(r, fit, "omega", PC_J_ARR, "is missing or not an array");
    const pc_jnode *k = get_kind(r, fit, "kappa", PC_J_ARR, "is missing or not an array");
    if (r->st != PC_OK) return;
    if (w->n != (size_t)m->h || k->n != (size_t)m->h) { bad(r, "omega", "or \"kappa\" is not one a pair"); return; }
    if (!(m->p = calloc((size_t)m->h, sizeof *m->p))) { r->st = PC_ENOMEM; return; }
    for (int i = 0; i < m->h && r->st == PC_OK; i++) {
        m->p[i].omega = hex_of(r, &w->kids[i], "omega");
        m->p[i].kappa = hex_of(r, &k->kids[i], "kappa");
        if (r->st == PC_OK && !(m->p[i].omega > 0 && m->p[i].omega < HUGE_VAL
                                && m->p[i].kappa >= 0 && m->p[i].kappa < HUGE_VAL))
            bad(r, "omega", "or \"kappa\" holds a value out of range");
    }
}

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* The first constant of A that B (the merged run's own) does not have, or
 * NULL; omega, kappa and A only where B's are known (FULL: no schedule in
 * force, which the shard does not record). */
static const char *differing_const(const pc_fitm *a, const pc_fitm *b, int full)
{
    if (a->lo != b->lo || a->hi != b->hi) return "start\" or \"end";
    if (a->h != b->h) return "pairs";
    if (!same_bits(a->u, b->u)) return "u";
    if (!same_bits(a->u_s, b->u_s)) return "u_s";
    if (!full) return NULL;
    if (!same_bits(a->att, b->att)) return "attention";
    for (int i = 0; i < a->h; i++) {
        if (!same_bits(a->p[i].omega, b->p[i].omega)) return "omega";
        if (!same_bits(a->p[i].kappa, b->p[i].kappa)) return "kappa";
    }
    return NULL;
}

static int same_consts(const pc_fitm *a, const pc_fitm *b)
{
    return !differing_const(a, b, 1);
}

/* ---- merging ---------------------------------------------------------- */

typedef struct fit_merge {
    const pc_jnode *const *slots;
    const char *const *files;
    int n, s;
    const pc_fit_ctx *ctx;
    pc_err *err;
    pc_fitm want;       /* the constants the merged run sets up (pc_fitm_setup) */
    char why[200];      /* or why it makes no fit (the setup's note) */
    int full;           /* omega, kappa and A of WANT are the run's (no schedule) */
    pc_fitm m;          /* shard 1's constants, judged */
    pc_fitp *sums;      /* the joined sums */
    const char *note;   /* the first shard's note, in shard order */
    double seconds;
} fit_merge;

/* "the implementation faulted|declined the call at positions P..Q" (as
 * accuracy.c, merge_fit, writes it) where P..Q is a block of shard J + 1
 * at which its accuracy result records that fault or declined call (the
 * fit stops at the lane's first failure).  A family whose rows take an
 * input makes the fit's rows by a call of their own (accuracy.c,
 * fit_call), which may fail alone: there P may also be any block before
 * the result's first failure, which the file cannot disprove
 * (docs/sharding.md). */
static int fault_note_ok(const fit_merge *g, int j, const char *note)
{
    const pc_acc_cfg *c = g->ctx->cfg;
    const pc_acc_result *res = g->ctx->res[j];
    static const char *const kinds[2] = { "faulted", "declined the call" };
    for (int f = 0; f < 2; f++) {
        long long p, q;
        char tail[8], want[200];
        int len = 0;
        char fmt[96];
        snprintf(fmt, sizeof fmt, "the implementation %s at positions %%lld..%%lld%%n", kinds[f]);
        if (sscanf(note, fmt, &p, &q, &len) != 2 || note[len] || sscanf(note + len, "%1s", tail) == 1)
            continue;
        snprintf(want, sizeof want, "the implementation %s at positions %lld..%lld", kinds[f], p, q);
        int64_t b0, b1, nb = pc_acc_nblocks(c->pos_lo, c->pos_hi);
        pc_acc_shard_blocks(nb, j + 1, g->n, &b0, &b1);
        int64_t blk = (p - c->pos_lo) / PC_ACC_BLOCK, end = p + PC_ACC_BLOCK - 1;
        if (strcmp(want, note) || p < c->pos_lo || (p - c->pos_lo) % PC_ACC_BLOCK || blk < b0
            || blk >= b1 || q != (end < c->pos_hi ? end : c->pos_hi))
            return 0;
        int64_t at = res->faulted ? res->fault_lo : res->impl_rc ? res->impl_rc_lo : INT64_MAX;
        int kind = res->faulted ? 0 : 1;
        const pc_family *fam = pc_family_find(c->family);
        int alone = fam && fam->rows && fam->rows->input;
        return (alone && p < at) || (p == at && kind == f);
    }
    return 0;
}

/* Shard J's note: the setup's, in every shard alike, or a fault's. */
static void check_note(rd *r, fit_merge *g, int j, const char *note)
{
    /* merge's setup holds no schedule (want_setup): a schedule's rows of
     * several axes make the setup's note in every shard, the first's read
     * as the run's, the others held to it */
    if (j == 0 && !g->why[0] && g->ctx->cfg->sched && !strcmp(note, PC_FITM_AXES_NOTE))
        snprintf(g->why, sizeof g->why, "%s", PC_FITM_AXES_NOTE);
    if (g->why[0] ? strcmp(note, g->why) : !fault_note_ok(g, j, note)) {
        char why[512], shown[160];
        snprintf(why, sizeof why, "is \"%s\", not a note the run makes (%s)",
                 pc_check_shard_shown(note, shown, sizeof shown),
                 g->why[0] ? g->why : "the setup makes a fit; a fault's note names one of the "
                 "shard's blocks where its accuracy result has not failed earlier");
        bad(r, "note", why);
    }
}

/* Shard J's part: its note, or its constants (the run's) and sums joined
 * after the earlier shards'. */
static pc_status merge_one(fit_merge *g, int j)
{
    rd r = { g->files[j], g->s, g->err, PC_OK };
    const pc_jnode *fit = get_kind(&r, &g->slots[j]->kids[g->s], "fit", PC_J_OBJ,
                                   "is missing or not an object");
    const pc_jnode *sec = fit ? pc_jget(fit, "seconds") : NULL;
    double t = sec && sec->type == PC_J_NUM ? strtod(sec->text, NULL) : -1.0;
    if (r.st == PC_OK && !(t >= 0 && t < HUGE_VAL)) bad(&r, "seconds", "is not a finite number >= 0");
    g->seconds += t;
    const pc_jnode *note = fit ? pc_jget(fit, "note") : NULL;
    if (r.st == PC_OK && (!note || (note->type != PC_J_NULL && note->type != PC_J_STR)))
        bad(&r, "note", "is missing or not a string or null");
    if (r.st == PC_OK && note->type == PC_J_STR) check_note(&r, g, j, note->text);
    if (r.st == PC_OK && note->type == PC_J_NULL && g->why[0])
        bad(&r, "note", "is null, but the run makes no fit (its note is missing)");
    if (r.st != PC_OK) return r.st;
    if (note->type == PC_J_STR) { if (!g->note) g->note = note->text; return PC_OK; }
    pc_fitm m;
    get_consts(&r, fit, &m);
    const char *d = r.st == PC_OK ? differing_const(&m, &g->want, g->full) : NULL;
    if (d) {
        char why[160];
        snprintf(why, sizeof why, "is not the run's (%s)", g->full ? "pc_fitm_setup of the "
                 "recorded options" : "pc_fitm_setup of the recorded options; a schedule was in force");
        bad(&r, d, why);
    }
    if (r.st == PC_OK && !g->m.p) { g->m = m; m.p = NULL; }
    else if (r.st == PC_OK && !same_consts(&g->m, &m))
        r.st = pc_seterr(g->err, PC_EINPUT, "merge: %s and %s are not shards of one run (slot %d: "
                         "the fitted model's constants differ)", g->files[0], g->files[j], g->s + 1);
    pc_fitm_free(&m);
    pc_fitp *f = r.st == PC_OK ? pc_fitp_new(g->m.h) : NULL;
    if (r.st == PC_OK && (!f || (!g->sums && !(g->sums = pc_fitp_new(g->m.h))))) r.st = PC_ENOMEM;
    if (r.st == PC_OK) get_sums(&r, fit, &g->m, j + 1, g->n, f);
    if (r.st == PC_OK && !g->note && f->n && pc_fitp_join(g->sums, f) != 0)
        bad(&r, "sums.start", "does not follow the earlier shards' positions");
    pc_fitp_free(f);
    if (r.st == PC_ENOMEM) return pc_seterr(g->err, PC_ENOMEM, "out of memory");
    return r.st;
}

/* The constants (or the note) the merged run sets up, as the gate does
 * (gate.c, fit_setup). */
static pc_status want_setup(fit_merge *g)
{
    pc_acc_cfg c = *g->ctx->cfg;
    c.sched = NULL; /* the schedule is not recorded: its omega, kappa and A are not checked */
    pc_status st = pc_fitm_setup(&c, &g->want, g->why, sizeof g->why);
    if (st == PC_ENOMEM) return pc_seterr(g->err, PC_ENOMEM, "out of memory");
    if (st == PC_OK) g->why[0] = '\0';
    else if (!g->why[0]) snprintf(g->why, sizeof g->why, "no fit");
    g->full = !g->ctx->cfg->sched;
    return PC_OK;
}

pc_status pc_check_shard_merge_fit(const pc_jnode *const *slots, const char *const *files, int n,
                                   int s, const pc_fit_ctx *ctx, pc_verdict *out, pc_err *err)
{
    fit_merge g;
    memset(&g, 0, sizeof g);
    g.slots = slots; g.files = files; g.n = n; g.s = s; g.ctx = ctx; g.err = err;
    pc_status st = want_setup(&g);
    for (int j = 0; j < n && st == PC_OK; j++) st = merge_one(&g, j);
    if (st == PC_OK && !g.note && pc_fitm_judge(&g.m, g.sums) != 0)
        st = pc_seterr(err, PC_EINPUT, "%s: slot %d: the shards' fitted-model sums do not cover "
                       "positions %" PRId64 "..%" PRId64, files[0], s + 1, g.m.lo, g.m.hi);
    if (st == PC_OK) {
        pc_fitm_verdict(g.note ? NULL : &g.m, g.note, out);
        out->seconds = g.seconds;
    }
    pc_fitm_free(&g.m);
    pc_fitm_free(&g.want);
    pc_fitp_free(g.sums);
    return st;
}

/* check_shard.c: the shard file of `check --shard K/N`, written and merged
 * (check_shard.h). */
#ifndef _GNU_SOURCE
#define _GNU_SOURCE /* open_memstream */
#endif
#include <errno.h>
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "check_shard.h"
#include "check_shard_fit.h"
#include "harness/engine/acc_verdict.h"
#include "harness/engine/gate.h"
#include "harness/sandbox/impl.h"
#include "harness/io/json.h"
#include "shard.h"
#include "harness/base/version.h"
#include "families/family.h"

/* ---- the record ---------------------------------------------------------- */

void pc_shard_rec_free(pc_shard_rec *rec)
{
    for (int k = 0; k < rec->cap; k++) {
        pc_slot_fit_free(&rec->slots[k]);
        free(rec->slots[k].form_buf);
    }
    free(rec->slots);
    rec->slots = NULL;
    rec->cap = 0;
}

void pc_shard_rec_split(void *ctx, int slot, const pc_case_split *sp)
{
    pc_slot *s = pc_shard_rec_slot(ctx, slot);
    if (!s) return; /* out of memory: the slot stays SAME, and merge refuses the shards */
    s->mode = sp->mode == PC_SPLIT_CASES ? PC_SLOT_CASES
            : sp->mode == PC_SPLIT_OWNER ? PC_SLOT_OWNER : PC_SLOT_SAME;
    s->split = *sp;
}

/* ---- the gates' record (pc_gate_shard, harness/engine/gate.h) ---------- */

/* CFG's strict class into S (S->form over S->form_buf, which it owns): the
 * run's memory is released before the shard is written; -1 out of memory. */
static int copy_form(pc_slot *s, const pc_acc_cfg *cfg)
{
    size_t h = (size_t)cfg->d / 2, nw = strlen(cfg->form->what) + 1;
    char *b = malloc(h * (2 * sizeof(double) + PC_ACC_FORM_CANDS * sizeof(float)) + nw);
    if (!b) return -1;
    double *kappa = (double *)(void *)b, *k = kappa + h;
    float *cand = (float *)(void *)(k + h);
    char *what = (char *)(cand + PC_ACC_FORM_CANDS * h);
    memcpy(kappa, cfg->form->kappa, h * sizeof *kappa);
    memcpy(k, cfg->form->k, h * sizeof *k);
    if (cfg->form->cand) memcpy(cand, cfg->form->cand, PC_ACC_FORM_CANDS * h * sizeof *cand);
    memcpy(what, cfg->form->what, nw);
    s->form = (pc_acc_form){ what, kappa, k, cfg->form->cand ? cand : NULL };
    s->form_buf = b;
    return 0;
}

/* Slot INDEX holds the accuracy gate's result: what merge needs to make the
 * verdict of the merged result. */
static pc_status rec_accuracy(void *ctx, int index, const pc_acc_cfg *cfg, const pc_acc_result *res,
                              const char *table, const char *likely, int likely_set, const char *own)
{
    pc_slot *s = pc_shard_rec_slot(ctx, index);
    if (!s) return PC_ENOMEM;
    s->mode = PC_SLOT_ACCURACY;
    s->cfg = *cfg;
    s->sched = cfg->sched != NULL;
    s->storage = cfg->storage;
    snprintf(s->sched_note, sizeof s->sched_note, "%s", cfg->sched_note ? cfg->sched_note : "");
    s->cfg.sched = NULL;
    s->cfg.sched_note = NULL;
    s->cfg.coord_at = NULL;
    s->cfg.positions = NULL;
    s->cfg.observe = NULL;
    s->cfg.observe_ctx = NULL;
    s->cfg.fit = NULL;
    s->cfg.digest = NULL;
    s->cfg.form = NULL;
    free(s->form_buf);
    s->form_buf = NULL;
    if (cfg->form && copy_form(s, cfg) != 0) return PC_ENOMEM;
    s->res = *res;
    snprintf(s->context, sizeof s->context, "%s", table);
    s->likely_set = likely_set;
    snprintf(s->likely, sizeof s->likely, "%s", likely);
    snprintf(s->own, sizeof s->own, "%s", own);
    pc_acc_coord_text(cfg, &res->m.worst, s->coord, sizeof s->coord);
    return PC_OK;
}

static pc_status rec_fitted(void *ctx, int index, const pc_fitm *m, const struct pc_fitp *sums,
                            const char *note, double seconds)
{
    return pc_shard_rec_fit(ctx, index, m, sums, note, seconds);
}

static pc_status rec_owned(void *ctx, int index, int owner)
{
    pc_case_split sp = { .mode = PC_SPLIT_OWNER, .owner = owner, .failed_at = -1 };
    if (!pc_shard_rec_slot(ctx, index)) return PC_ENOMEM;
    pc_shard_rec_split(ctx, index, &sp);
    return PC_OK;
}

pc_gate_shard pc_shard_rec_gate(pc_shard_rec *rec)
{
    return (pc_gate_shard){ rec->k, rec->n, rec, rec_accuracy, rec_fitted, rec_owned };
}

/* ---- writing ----------------------------------------------------------------- */

static const char *const mode_names[] = { "same", "cases", "owner", "accuracy", "fitted" };

/* The encoding options of SPECS (each family's, as it reads them: the
 * same canonical text for the same values), each NAME=VALUE once. */
static void identity_specs(FILE *f, const pc_specs *specs)
{
    char seen[4096] = ";";
    for (int k = 0; k < specs->n; k++) {
        char args[2048] = "";
        pc_spec_args(&specs->spec[k], args, sizeof args);
        for (char *p = strstr(args, " --"); p;) {
            char *next = strstr(p + 3, " --");
            char item[600];
            int len = next ? (int)(next - p - 3) : (int)strlen(p + 3);
            snprintf(item, sizeof item, "%.*s;", len, p + 3);
            char *sp = strchr(item, ' ');
            if (sp) *sp = '=';
            if (!strstr(seen, item) && strlen(seen) + strlen(item) < sizeof seen) {
                strcat(seen, item);
                fputs(item, f);
            }
            p = next;
        }
    }
}

/* The options that change a run's verdicts (not its output, threads or
 * shard), as one line: shards of one run have the same. */
static void identity(FILE *f, const pc_opts *o, const pc_specs *specs)
{
    for (int k = 0; k < o->n_impls; k++) fprintf(f, "impl=%s;", o->impls[k]);
    for (int k = 0; k < o->n_plugins; k++) fprintf(f, "plugin=%s;", o->plugins[k]);
    for (int k = 0; k < o->n_tables; k++) fprintf(f, "table=%s;", o->tables[k]);
    for (int k = 0; k < o->n_properties; k++) fprintf(f, "property=%s;", o->properties[k]);
    fprintf(f, "table-sin=%s;family=%s;", o->table_sin ? o->table_sin : "",
            o->family ? o->family : "");
    identity_specs(f, specs);
    fprintf(f, "positions=%" PRId64 ":%" PRId64 "/%d;pos-start=%" PRId64 ";dtype=%d/%d;",
            o->pos_lo, o->pos_hi, o->pos_set, o->pos_start, o->dtype, o->dtype_set);
    fprintf(f, "strict=%d;formulation=%d;max-abs-err=%a;", o->strict, o->formulation, o->max_abs_err);
    fprintf(f, "tol-abs=%a;seed=%" PRIu64 ";cases=%ld;replay=%d/%" PRIu64 ";",
            o->tol_abs, o->seed, o->cases, o->replay_set, o->replay);
    fprintf(f, "timeout-ms=%ld;plugin-mem-mb=%ld;plugin-cpu-s=%ld;", o->timeout_ms,
            o->plugin_mem_mb, o->plugin_cpu_s);
    /* how many hosts call a plugin: nothing to a built-in */
    if (o->n_plugins) fprintf(f, "plugin-hosts=%d", o->plugin_hosts);
}

/* The first option (NAME=value; field) in which identities A and B differ,
 * into BUF. */
static const char *first_diff(const char *a, const char *b, char *buf, size_t len)
{
    size_t k = 0, start = 0;
    while (a[k] && a[k] == b[k]) {
        if (a[k] == ';') start = k + 1;
        k++;
    }
    size_t e = start;
    while (a[e] && a[e] != '=' && a[e] != ';') e++;
    snprintf(buf, len, "%.*s", (int)(e - start), a + start);
    return buf;
}

static void write_hex(pc_json *j, const char *key, double x)
{
    char b[40];
    snprintf(b, sizeof b, "%a", x);
    pc_json_str(j, key, b);
}

static void write_u64(pc_json *j, const char *key, uint64_t x)
{
    char b[24];
    snprintf(b, sizeof b, "%" PRIu64, x);
    pc_json_str(j, key, b);
}

/* A verdict whole: every field, numbers exact, the data object as its text. */
static void write_verdict(pc_json *j, const pc_verdict *v)
{
    pc_json_obj(j, "verdict");
    static const char *const st[] = { "pass", "fail", "skip" };
    pc_json_str(j, "status", v->status >= 0 && v->status <= 2 ? st[v->status] : "error");
    write_hex(j, "measured", v->measured);
    write_hex(j, "bound", v->bound);
    pc_json_str(j, "measured_what", v->measured_what);
    write_u64(j, "seed", v->seed);
    pc_json_num(j, "seconds", v->seconds);
    pc_json_str(j, "summary", v->summary);
    pc_json_str(j, "details", v->details);
    pc_json_str(j, "data", v->json);
    pc_json_end(j);
}

static void write_split(pc_json *j, const pc_case_split *sp)
{
    pc_json_obj(j, "split");
    pc_json_int(j, "owner", sp->owner);
    pc_json_int(j, "total", sp->total);
    pc_json_int(j, "start", sp->start);
    pc_json_int(j, "end", sp->end);
    pc_json_int(j, "failed_at", sp->failed_at);
    write_hex(j, "worst_score", sp->worst_score);
    pc_json_int(j, "sweep", sp->sweep);
    if (sp->save) { /* the failing case merge saves if this verdict is the merged one */
        pc_json_obj(j, "save");
        pc_json_str(j, "impl", sp->save_impl);
        write_u64(j, "seed", sp->save_seed);
        pc_json_str(j, "options", sp->save_options);
        pc_json_int(j, "d", sp->save_d);
        pc_json_int(j, "start", sp->save_lo);
        pc_json_int(j, "end", sp->save_hi);
        pc_json_end(j);
    } else {
        pc_json_str(j, "save", NULL);
    }
    pc_json_end(j);
}

static void write_accuracy(pc_json *j, const pc_verdict *v, const pc_slot *s)
{
    pc_impl impl;
    memset(&impl, 0, sizeof impl);
    impl.name = v->impl;
    pc_json_obj(j, "accuracy");
    pc_json_bool(j, "schedule", s->sched);
    pc_json_bool(j, "storage", s->storage);
    pc_json_str(j, "schedule_note", s->sched_note);
    pc_json_str(j, "table", s->context);
    pc_json_bool(j, "faulted", s->res.faulted);
    pc_json_str(j, "likely_cause", s->likely_set ? s->likely : NULL);
    pc_json_str(j, "own_values", s->own[0] ? s->own : NULL);
    pc_json_str(j, "coordinate", s->coord[0] ? s->coord : NULL);
    pc_json_obj(j, "result");
    pc_acc_cfg c = s->cfg;
    if (s->form_buf) c.form = &s->form;
    pc_accuracy_json_fields(j, &impl, &c, &s->res);
    pc_json_end(j);
    pc_json_end(j);
}

static void write_slot(pc_json *j, const pc_verdict *v, const pc_slot *s, int shard_k)
{
    static const pc_slot same = { .mode = PC_SLOT_SAME };
    if (!s) s = &same;
    pc_json_obj(j, NULL);
    pc_json_str(j, "mode", mode_names[s->mode]);
    pc_json_str(j, "check", v->check);
    pc_json_str(j, "family", v->family);
    pc_json_str(j, "implementation", v->impl);
    pc_json_str(j, "layout", v->layout);
    pc_json_str(j, "against", v->against);
    if (s->mode == PC_SLOT_ACCURACY) write_accuracy(j, v, s);
    else if (s->mode == PC_SLOT_FITTED) pc_check_shard_write_fit(j, s);
    else if (s->mode == PC_SLOT_OWNER && s->split.owner != shard_k) pc_json_str(j, "verdict", NULL);
    else write_verdict(j, v);
    if (s->mode == PC_SLOT_CASES || s->mode == PC_SLOT_OWNER) write_split(j, &s->split);
    pc_json_end(j);
}

void pc_check_shard_write(FILE *f, const pc_opts *o, const pc_specs *specs, const pc_verdicts *vs,
                          const pc_shard_rec *rec)
{
    pc_json j;
    pc_json_init(&j, f);
    pc_json_obj(&j, NULL);
    pc_json_str(&j, "tool", PC_TOOL);
    pc_json_str(&j, "version", PC_VERSION);
    pc_json_str(&j, "kind", PC_CHECK_SHARD_KIND);
    pc_json_int(&j, "format", PC_CHECK_SHARD_FORMAT);
    pc_json_obj(&j, "shard");
    pc_json_int(&j, "k", rec->k);
    pc_json_int(&j, "n", rec->n);
    pc_json_end(&j);
    pc_json_obj(&j, "run");
    char *id = NULL;
    size_t idl = 0;
    FILE *mf = open_memstream(&id, &idl);
    if (mf) { identity(mf, o, specs); fclose(mf); }
    pc_json_str(&j, "identity", id ? id : "");
    free(id);
    write_u64(&j, "seed", o->seed);
    pc_json_str(&j, "family", o->family);
    pc_json_int(&j, "layout", pc_specs_of(specs, NULL)->layout);
    pc_json_arr(&j, "properties");
    for (int k = 0; k < o->n_properties; k++) pc_json_str(&j, NULL, o->properties[k]);
    pc_json_end(&j);
    pc_json_str(&j, "regressions", pc_regress_path(o)); /* where merge saves failing cases */
    pc_json_end(&j);
    pc_json_arr(&j, "slots");
    for (int k = 0; k < vs->n; k++)
        write_slot(&j, &vs->v[k], k < rec->cap ? &rec->slots[k] : NULL, rec->k);
    pc_json_end(&j);
    pc_json_end(&j);
    fputc('\n', f);
}

/* ---- reading ------------------------------------------------------------------ */

typedef struct rd {
    const char *file;
    int slot;      /* -1: the file's head */
    pc_err *err;
    pc_status st;
} rd;

static void bad(rd *r, const char *key, const char *why)
{
    if (r->st != PC_OK) return;
    if (r->slot < 0)
        r->st = pc_seterr(r->err, PC_EINPUT, "%s: field \"%s\" %s (not a pecheck check shard?)",
                          r->file, key, why);
    else
        r->st = pc_seterr(r->err, PC_EINPUT, "%s: slot %d: field \"%s\" %s (not a pecheck check "
                          "shard?)", r->file, r->slot + 1, key, why);
}

static const pc_jnode *get_node(rd *r, const pc_jnode *o, const char *key, pc_jtype type)
{
    const pc_jnode *v = pc_jget(o, key);
    if (!v || v->type != type) {
        static const char *const names[] = { "null", "false", "true", "a number", "a string",
                                             "an array", "an object" };
        char why[64];
        snprintf(why, sizeof why, "is missing or not %s", names[type]);
        bad(r, key, why);
        return NULL;
    }
    return v;
}

/* a string, or NULL for null (NULLABLE) */
static const char *get_str(rd *r, const pc_jnode *o, const char *key, int nullable)
{
    const pc_jnode *v = pc_jget(o, key);
    if (nullable && v && v->type == PC_J_NULL) return NULL;
    v = get_node(r, o, key, PC_J_STR);
    return v ? v->text : "";
}

static long long get_int(rd *r, const pc_jnode *o, const char *key, long long lo, long long hi)
{
    const pc_jnode *v = get_node(r, o, key, PC_J_NUM);
    if (!v) return lo;
    char *end;
    errno = 0;
    long long x = strtoll(v->text, &end, 10);
    if (*end || errno == ERANGE || x < lo || x > hi) {
        char why[96];
        snprintf(why, sizeof why, "is %.24s, not an integer in [%lld, %lld]", v->text, lo, hi);
        bad(r, key, why);
        return lo;
    }
    return x;
}

static int get_bool(rd *r, const pc_jnode *o, const char *key)
{
    const pc_jnode *v = pc_jget(o, key);
    if (!v || (v->type != PC_J_TRUE && v->type != PC_J_FALSE)) {
        bad(r, key, "is missing or not true/false");
        return 0;
    }
    return v->type == PC_J_TRUE;
}

/* a binary64 written with %a (nan and inf included) */
static double get_hex(rd *r, const pc_jnode *o, const char *key)
{
    const char *s = get_str(r, o, key, 0);
    double x;
    if (pc_check_shard_hex(s, &x) != 0 && r->st == PC_OK) bad(r, key, "is not a number written with %a");
    return x;
}

static uint64_t get_u64(rd *r, const pc_jnode *o, const char *key)
{
    const char *s = get_str(r, o, key, 0);
    char *end;
    errno = 0;
    unsigned long long x = strtoull(s, &end, 10);
    if (r->st == PC_OK && (*s < '0' || *s > '9' || *end || errno == ERANGE))
        bad(r, key, "is not an unsigned 64-bit integer");
    return x;
}

static char *dup_or_null(const char *s)
{
    return s ? strdup(s) : NULL;
}

static int name_index(const char *s, const char *const *names, int n)
{
    for (int k = 0; k < n; k++)
        if (!strcmp(s, names[k])) return k;
    return -1;
}

/* The identity of slot SL (check, family, implementation, layout) into V. */
static void read_identity(rd *r, const pc_jnode *sl, pc_verdict *v)
{
    snprintf(v->check, sizeof v->check, "%s", get_str(r, sl, "check", 0));
    snprintf(v->family, sizeof v->family, "%s", get_str(r, sl, "family", 0));
    snprintf(v->impl, sizeof v->impl, "%s", get_str(r, sl, "implementation", 0));
    snprintf(v->layout, sizeof v->layout, "%s", get_str(r, sl, "layout", 0));
}

/* The whole verdict of slot SL into V (details and json malloc'd); 0 when
 * the slot holds none (another shard's). */
static int read_verdict(rd *r, const pc_jnode *sl, pc_verdict *v)
{
    memset(v, 0, sizeof *v);
    read_identity(r, sl, v);
    const pc_jnode *ag = pc_jget(sl, "against");
    if (ag && ag->type == PC_J_STR) snprintf(v->against, sizeof v->against, "%s", ag->text);
    const pc_jnode *o = pc_jget(sl, "verdict");
    if (o && o->type == PC_J_NULL) return 0;
    o = get_node(r, sl, "verdict", PC_J_OBJ);
    if (!o) return 0;
    static const char *const st[] = { "pass", "fail", "skip" };
    static const pc_status codes[] = { PC_OK, PC_FAIL, PC_SKIP };
    int s = name_index(get_str(r, o, "status", 0), st, 3);
    if (s < 0) bad(r, "status", "is not pass, fail or skip");
    v->status = s < 0 ? PC_SKIP : codes[s];
    v->measured = get_hex(r, o, "measured");
    v->bound = get_hex(r, o, "bound");
    snprintf(v->measured_what, sizeof v->measured_what, "%s", get_str(r, o, "measured_what", 0));
    v->seed = get_u64(r, o, "seed");
    const pc_jnode *sec = pc_jget(o, "seconds");
    v->seconds = sec && sec->type == PC_J_NUM ? strtod(sec->text, NULL) : 0.0;
    if (!(v->seconds >= 0 && v->seconds < HUGE_VAL)) bad(r, "seconds", "is not a finite number >= 0");
    snprintf(v->summary, sizeof v->summary, "%s", get_str(r, o, "summary", 0));
    v->details = dup_or_null(get_str(r, o, "details", 1));
    v->json = dup_or_null(get_str(r, o, "data", 1));
    return 1;
}

/* "save": null, or the case merge saves: {"impl", "seed", "d", "start",
 * "end"} (the implementation's name, an unsigned 64-bit seed, an even d in
 * [2, PC_D_MAX], positions 0 <= start <= end <= 2^53, as the run's options
 * allow) */
static void read_save(rd *r, const pc_jnode *o, pc_case_split *sp)
{
    const pc_jnode *sv = pc_jget(o, "save");
    if (sv && sv->type == PC_J_NULL) return;
    if (!sv || sv->type != PC_J_OBJ) { bad(r, "split.save", "is missing or not null or an object"); return; }
    rd q = { r->file, r->slot, r->err, PC_OK };
    sp->save = 1;
    sp->save_impl = get_str(&q, sv, "impl", 0);
    sp->save_seed = get_u64(&q, sv, "seed");
    sp->save_d = (int)get_int(&q, sv, "d", 2, PC_D_MAX);
    sp->save_lo = get_int(&q, sv, "start", 0, PC_POS_MAX);
    sp->save_hi = get_int(&q, sv, "end", sp->save_lo, PC_POS_MAX);
    const pc_jnode *so = pc_jget(sv, "options"); /* informative; absent in older shards */
    if (so && so->type == PC_J_STR) snprintf(sp->save_options, sizeof sp->save_options, "%s", so->text);
    if (q.st != PC_OK || sp->save_d % 2)
        bad(r, "split.save", "is not {\"impl\": a string, \"seed\": an unsigned 64-bit integer, "
            "\"d\": even in [2, 8192], \"start\" <= \"end\" in [0, 2^53]}");
}

static void read_split(rd *r, const pc_jnode *sl, pc_case_split *sp, int n)
{
    memset(sp, 0, sizeof *sp);
    const pc_jnode *o = get_node(r, sl, "split", PC_J_OBJ);
    if (!o) return;
    /* case counts: regression cases (PC_REGRESS_MAX) plus --cases, far below 2^62 */
    const long long big = (long long)1 << 62;
    sp->owner = (int)get_int(r, o, "owner", 1, n);
    sp->total = (long)get_int(r, o, "total", 0, big);
    sp->start = (long)get_int(r, o, "start", 0, big);
    sp->end = (long)get_int(r, o, "end", 0, big);
    sp->failed_at = (long)get_int(r, o, "failed_at", -1, big);
    sp->worst_score = get_hex(r, o, "worst_score");
    sp->sweep = (int)get_int(r, o, "sweep", 0, 2);
    read_save(r, o, sp);
}

/* ---- merging ------------------------------------------------------------------ */

/* The accuracy slot merged last: what its fitted-model slot is checked
 * against (pc_fit_ctx). */
typedef struct acc_keep {
    pc_shard_item *items;         /* the shards' results, then the merged one */
    const pc_acc_result **res;    /* the shards' results, by shard number - 1 */
    pc_acc_cfg cfg;               /* the merged configuration, storage and schedule set */
} acc_keep;

typedef struct mg {
    acc_keep *acc;                /* the last accuracy slot's; NULL items before the first */
    const pc_jnode *const *slots; /* slot arrays, by shard number - 1 */
    const char *const *files;     /* by shard number - 1 */
    int n;                        /* shards */
    pc_err *err;
    pc_check_run *run;            /* the run's fields; the cases to save, added */
} mg;

static int same_bits(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

static int same_str(const char *a, const char *b)
{
    return (!a && !b) || (a && b && !strcmp(a, b));
}

/* Everything but the timing */
static int same_verdict(const pc_verdict *a, const pc_verdict *b)
{
    return a->status == b->status && same_bits(a->measured, b->measured)
        && same_bits(a->bound, b->bound) && !strcmp(a->measured_what, b->measured_what)
        && a->seed == b->seed && !strcmp(a->summary, b->summary)
        && same_str(a->details, b->details) && same_str(a->json, b->json);
}

static void verdict_clear(pc_verdict *v)
{
    free(v->details);
    free(v->json);
    v->details = v->json = NULL;
}

static pc_status differs(const mg *m, int s, int j, const char *what)
{
    return pc_seterr(m->err, PC_EINPUT, "merge: %s and %s are not shards of one run (slot %d: %s "
                     "differs)", m->files[0], m->files[j], s + 1, what);
}

/* SAME: shard 1's verdict, which every shard must have made alike. */
static pc_status merge_same(const mg *m, int s, pc_verdict *out)
{
    rd r = { m->files[0], s, m->err, PC_OK };
    if (!read_verdict(&r, &m->slots[0]->kids[s], out)) bad(&r, "verdict", "is null in a slot every shard makes");
    for (int j = 1; j < m->n && r.st == PC_OK; j++) {
        pc_verdict v;
        rd q = { m->files[j], s, m->err, PC_OK };
        int has = read_verdict(&q, &m->slots[j]->kids[s], &v);
        r.st = q.st;
        if (r.st == PC_OK && (!has || !same_verdict(out, &v))) r.st = differs(m, s, j, "the verdict");
        verdict_clear(&v);
    }
    return r.st;
}

/* The split of slot S in every shard, checked against what the engine
 * does (check_shard.h); SP[j] for shard j + 1. */
static pc_status read_splits(const mg *m, int s, pc_case_split *sp, int cases)
{
    for (int j = 0; j < m->n; j++) {
        rd r = { m->files[j], s, m->err, PC_OK };
        read_split(&r, &m->slots[j]->kids[s], &sp[j], m->n);
        if (r.st != PC_OK) return r.st;
        if (sp[j].owner != s % m->n + 1)
            bad(&r, "split.owner", "is not the shard that owns the slot (slot number mod N, plus 1)");
        else if (sp[j].save && (cases ? sp[j].failed_at < 0 : j + 1 != sp[j].owner))
            bad(&r, "split.save", cases ? "is set in a shard whose cases did not fail"
                                        : "is set in a shard that does not own the slot");
        else if (sp[j].save && !m->run->regressions)
            bad(&r, "split.save", "is set but the run has no regression file (\"run.regressions\")");
        if (!cases) { if (r.st != PC_OK) return r.st; continue; }
        int64_t a, b;
        pc_acc_shard_blocks(sp[j].total, j + 1, m->n, &a, &b);
        if (sp[j].total != sp[0].total)
            r.st = differs(m, s, j, "the number of cases (regression files?)");
        else if (sp[j].start != a || sp[j].end != b)
            bad(&r, "split.start", "and \"end\" are not the shard's part of the cases");
        else if (sp[j].failed_at >= 0 && (sp[j].failed_at < a || sp[j].failed_at >= b))
            bad(&r, "split.failed_at", "names a case outside the shard's part");
        else if (sp[j].sweep && (j + 1 != sp[j].owner || sp[j].failed_at >= 0))
            bad(&r, "split.sweep", "is set in a shard that does not run the sweep");
        if (r.st != PC_OK) return r.st;
    }
    return PC_OK;
}

/* The case SP would save is the failing case of its shard's verdict V. */
static void check_save(rd *r, const pc_case_split *sp, const pc_verdict *v)
{
    char name[sizeof v->impl];
    snprintf(name, sizeof name, "%s", sp->save ? sp->save_impl : "");
    if (!sp->save || r->st != PC_OK) return;
    if (v->status != PC_FAIL || v->seed != sp->save_seed)
        bad(r, "split.save.seed", "is not the seed of the shard's failing case");
    else if (strcmp(name, v->impl))
        bad(r, "split.save.impl", "is not the slot's implementation");
}

/* CASES: the engine's rule over the shards' candidates; *SAVE: the picked
 * shard's split, whose case merge saves. */
static pc_status merge_cases(const mg *m, int s, pc_verdict *out, pc_case_split *save)
{
    pc_case_split *sp = calloc((size_t)m->n, sizeof *sp);
    if (!sp) return pc_seterr(m->err, PC_ENOMEM, "out of memory");
    pc_status st = read_splits(m, s, sp, 1);
    int pick = -1, best = 0;
    for (int j = 0; j < m->n && pick < 0; j++) /* the first failing case */
        if (sp[j].failed_at >= 0) pick = j;
    for (int j = 0; j < m->n && pick < 0; j++) /* else the sweep's failure */
        if (sp[j].sweep == 2) pick = j;
    for (int j = 1; j < m->n; j++) /* else the first of the largest scores */
        if (sp[j].worst_score > sp[best].worst_score) best = j;
    if (pick < 0) pick = best;
    int failing = sp[pick].failed_at >= 0 || sp[pick].sweep == 2;
    *save = sp[pick];
    free(sp);
    if (st != PC_OK) return st;
    rd r = { m->files[pick], s, m->err, PC_OK };
    int has = read_verdict(&r, &m->slots[pick]->kids[s], out);
    if (r.st == PC_OK && !has) bad(&r, "verdict", "is null in a split property");
    if (r.st == PC_OK && failing && out->status != PC_FAIL)
        bad(&r, "verdict.status", "is not \"fail\" although the shard's cases failed");
    check_save(&r, save, out);
    return r.st;
}

/* OWNER: the owner's verdict; *SAVE: the owner's split. */
static pc_status merge_owner(const mg *m, int s, pc_verdict *out, pc_case_split *save)
{
    pc_case_split *sp = calloc((size_t)m->n, sizeof *sp);
    if (!sp) return pc_seterr(m->err, PC_ENOMEM, "out of memory");
    pc_status st = read_splits(m, s, sp, 0);
    int owner = sp[0].owner;
    if (st == PC_OK) *save = sp[owner - 1]; /* read_splits checked 1 <= owner <= N */
    free(sp);
    if (st != PC_OK) return st;
    rd r = { m->files[owner - 1], s, m->err, PC_OK };
    int has = read_verdict(&r, &m->slots[owner - 1]->kids[s], out);
    if (r.st == PC_OK && !has) bad(&r, "verdict", "is null in the shard that owns the slot");
    check_save(&r, save, out);
    return r.st;
}

/* The text a shard's accuracy slot carries for the verdict. */
typedef struct acc_text {
    int sched, storage, faulted;
    const char *sched_note, *table, *likely;
    const char *own;          /* the source's own values at this shard's worst witness (NULL: none) */
    const char *coord;        /* its coordinate text (NULL: none) */
} acc_text;

static const pc_jnode *read_acc_text(rd *r, const pc_jnode *sl, acc_text *t)
{
    const pc_jnode *a = get_node(r, sl, "accuracy", PC_J_OBJ);
    if (!a) return NULL;
    t->sched = get_bool(r, a, "schedule");
    t->storage = get_bool(r, a, "storage");
    t->faulted = get_bool(r, a, "faulted");
    t->sched_note = get_str(r, a, "schedule_note", 0);
    t->table = get_str(r, a, "table", 0);
    t->likely = get_str(r, a, "likely_cause", 1);
    const pc_jnode *ov = pc_jget(a, "own_values"); /* optional: absent in older shards */
    t->own = ov && ov->type == PC_J_STR ? ov->text : NULL;
    const pc_jnode *co = pc_jget(a, "coordinate"); /* optional: absent in older shards */
    t->coord = co && co->type == PC_J_STR ? co->text : NULL;
    return get_node(r, a, "result", PC_J_OBJ);
}

/* The shards' accuracy results, read (ITEMS[j]) and checked against their
 * files' shard numbers; T[j] their text. */
static pc_status read_acc(const mg *m, int s, pc_shard_item *items, acc_text *t)
{
    for (int j = 0; j < m->n; j++) {
        rd r = { m->files[j], s, m->err, PC_OK };
        const pc_jnode *res = read_acc_text(&r, &m->slots[j]->kids[s], &t[j]);
        if (r.st != PC_OK) return r.st;
        pc_status st = pc_shard_read(res, m->files[j], &items[j], m->err);
        if (st != PC_OK) return st;
        if (items[j].cfg.shard_k != j + 1 || items[j].cfg.shard_n != m->n)
            return pc_seterr(m->err, PC_EINPUT, "%s: slot %d: the accuracy result is shard %d/%d, "
                             "the file is shard %d/%d", m->files[j], s + 1, items[j].cfg.shard_k,
                             items[j].cfg.shard_n, j + 1, m->n);
        if (t[j].sched != t[0].sched || t[j].storage != t[0].storage
            || strcmp(t[j].sched_note, t[0].sched_note) || strcmp(t[j].table, t[0].table))
            return differs(m, s, j, "the accuracy gate's schedule or table");
        if (t[j].faulted != items[j].res.faulted)
            bad(&r, "accuracy.faulted", "disagrees with the result's \"fault\"");
        if (t[j].likely && !t[j].faulted && items[j].res.status != PC_FAIL && !items[j].res.impl_rc)
            bad(&r, "accuracy.likely_cause", "is set in a shard that did not fail");
        if (r.st != PC_OK) return r.st;
    }
    return PC_OK;
}

/* A schedule was in force: the text and JSON say only that (acc_verdict.c) */
static const pc_schedule some_schedule;

static void acc_render(const mg *m, const pc_shard_item *items, const acc_text *t,
                       pc_verdict *out)
{
    const pc_shard_item *merged = &items[m->n]; /* the shards' results, then the merged one */
    pc_acc_cfg cfg = merged->cfg;
    cfg.sched = t[0].sched ? &some_schedule : NULL;
    cfg.storage = t[0].storage;
    cfg.sched_note = t[0].sched_note[0] ? t[0].sched_note : NULL;
    const char *fault = merged->res.faulted ? merged->res.note : NULL, *likely = "";
    for (int j = 0; j < m->n && !likely[0]; j++)
        if (t[j].likely) likely = t[j].likely;
    if (merged->res.status != PC_FAIL || fault || !pc_gate_acc_rotates(cfg.family)) likely = "";
    pc_impl impl;
    memset(&impl, 0, sizeof impl);
    const pc_impl *b = pc_builtin_find(merged->name);
    impl.name = merged->name;
    impl.flaw = b ? b->flaw : NULL;
    out->measured = (double)NAN;
    out->bound = (double)NAN;
    out->seed = cfg.seed;
    const char *own = "";
    for (int j = 0; j < m->n && !own[0]; j++) /* the shard whose witness is the merged one's */
        if (t[j].own && merged->res.m.worst.valid
            && items[j].res.m.worst.pos == merged->res.m.worst.pos
            && items[j].res.m.worst.dim == merged->res.m.worst.dim)
            own = t[j].own;
    for (int j = 0; j < m->n && !cfg.coord_at; j++) /* likewise its coordinate */
        if (t[j].coord && merged->res.m.worst.valid
            && items[j].res.m.worst.pos == merged->res.m.worst.pos
            && items[j].res.m.worst.dim == merged->res.m.worst.dim)
            cfg.coord_at = t[j].coord;
    pc_gate_acc_render(&impl, &cfg, &merged->res, fault, t[0].table, likely, own, out);
}

static void acc_keep_free(acc_keep *k)
{
    free(k->items);
    free(k->res);
    k->items = NULL;
    k->res = NULL;
}

/* The shards' results ITEMS (N + 1, the merged last; taken over) and
 * texts T kept for the fitted-model slot after them. */
static pc_status keep_acc(const mg *m, pc_shard_item *items, const acc_text *t)
{
    acc_keep *k = m->acc;
    acc_keep_free(k);
    k->items = items;
    k->res = calloc((size_t)m->n, sizeof *k->res);
    if (!k->res) { acc_keep_free(k); return pc_seterr(m->err, PC_ENOMEM, "out of memory"); }
    for (int j = 0; j < m->n; j++) k->res[j] = &items[j].res;
    k->cfg = items[m->n].cfg;
    k->cfg.family = items[m->n].family;
    k->cfg.sched = t[0].sched ? &some_schedule : NULL;
    k->cfg.storage = t[0].storage;
    k->cfg.shard_k = k->cfg.shard_n = 1;
    return PC_OK;
}

/* ACCURACY: the shards' results merged as `accuracy` shards are; *ENDED:
 * the merged gate faulted or skipped, so check makes no fitted-model
 * verdict after it (gate.c, fit_verdict). */
static pc_status merge_accuracy(const mg *m, int s, uint64_t seed, pc_verdict *out, int *ended)
{
    pc_shard_item *items = calloc((size_t)m->n + 1, sizeof *items);
    acc_text *t = calloc((size_t)m->n, sizeof *t);
    pc_status st = items && t ? PC_OK : pc_seterr(m->err, PC_ENOMEM, "out of memory");
    if (st == PC_OK) st = read_acc(m, s, items, t);
    pc_shard_item *merged = items ? &items[m->n] : NULL;
    if (st == PC_OK) st = pc_shard_merge(items, m->n, merged, m->err);
    rd r = { m->files[0], s, m->err, st };
    memset(out, 0, sizeof *out);
    if (st == PC_OK) read_identity(&r, &m->slots[0]->kids[s], out);
    if (r.st == PC_OK && (strcmp(out->impl, merged->name) || strcmp(out->family, merged->family)
                          || strcmp(out->layout, pc_layout_name(merged->cfg.layout))))
        bad(&r, "accuracy.result", "is not the slot's implementation, family and layout");
    if (r.st == PC_OK && merged->cfg.seed != seed) bad(&r, "accuracy.result.seed", "is not the run's");
    if (r.st == PC_OK) acc_render(m, items, t, out);
    *ended = r.st == PC_OK && (merged->res.faulted || merged->res.status == PC_SKIP);
    if (r.st == PC_OK) r.st = keep_acc(m, items, t);
    else free(items);
    free(t);
    return r.st;
}

/* FITTED: the shards' sums joined and judged (check_shard_fit.c). */
static pc_status merge_fitted(const mg *m, int s, uint64_t seed, pc_verdict *out)
{
    rd r = { m->files[0], s, m->err, PC_OK };
    memset(out, 0, sizeof *out);
    read_identity(&r, &m->slots[0]->kids[s], out);
    out->measured = (double)NAN;
    out->bound = (double)NAN;
    out->seed = seed;
    if (r.st != PC_OK) return r.st;
    if (!m->acc->items)
        return pc_seterr(m->err, PC_EINPUT, "%s: slot %d: a fitted-model slot that follows no "
                         "accuracy slot (not a pecheck check shard?)", m->files[0], s + 1);
    pc_fit_ctx ctx = { &m->acc->cfg, m->acc->res };
    return pc_check_shard_merge_fit(m->slots, m->files, m->n, s, &ctx, out, m->err);
}

/* ---- the files --------------------------------------------------------------- */

int pc_check_shard_is(const pc_jnode *top)
{
    const pc_jnode *k = pc_jget(top, "kind");
    return k && k->type == PC_J_STR && !strcmp(k->text, PC_CHECK_SHARD_KIND);
}

typedef struct head {
    int k, n;
    const char *identity;
    const pc_jnode *run, *slots;
} head;

static pc_status read_head(const pc_jnode *top, const char *file, head *h, pc_err *err)
{
    rd r = { file, -1, err, PC_OK };
    const char *dup = pc_jdup_key(top);
    char key[64];
    if (dup) bad(&r, pc_check_shard_shown(dup, key, sizeof key),
                 "appears twice in one object (the writer writes each member once)");
    if (!pc_check_shard_is(top)) bad(&r, "kind", "is not \"" PC_CHECK_SHARD_KIND "\"");
    if (get_int(&r, top, "format", 0, INT32_MAX) != PC_CHECK_SHARD_FORMAT && r.st == PC_OK)
        r.st = pc_seterr(err, PC_EINPUT, "%s: a check shard of format %s (this pecheck reads "
                         "format %d)", file, pc_jget(top, "format")->text, PC_CHECK_SHARD_FORMAT);
    const pc_jnode *sh = get_node(&r, top, "shard", PC_J_OBJ);
    h->n = (int)get_int(&r, sh, "n", 1, PC_SHARD_MAX);
    h->k = (int)get_int(&r, sh, "k", 1, h->n);
    h->run = get_node(&r, top, "run", PC_J_OBJ);
    h->identity = get_str(&r, h->run, "identity", 0);
    h->slots = get_node(&r, top, "slots", PC_J_ARR);
    for (size_t s = 0; h->slots && s < h->slots->n && r.st == PC_OK; s++) {
        r.slot = (int)s;
        const pc_jnode *sl = &h->slots->kids[s];
        if (sl->type != PC_J_OBJ) { bad(&r, "slots", "holds a slot that is not an object"); break; }
        if (name_index(get_str(&r, sl, "mode", 0), mode_names, 5) < 0)
            bad(&r, "mode", "is not same, cases, owner, accuracy or fitted");
    }
    return r.st;
}

/* The run's own fields: what check's verdict rules need. */
static pc_status read_run(const head *h, const char *file, pc_check_run *run, pc_err *err)
{
    rd r = { file, -1, err, PC_OK };
    memset(run, 0, sizeof *run);
    run->seed = get_u64(&r, h->run, "seed");
    run->family = get_str(&r, h->run, "family", 1);
    run->layout = (int)get_int(&r, h->run, "layout", -1, 1);
    run->regressions = get_str(&r, h->run, "regressions", 1);
    const pc_jnode *p = get_node(&r, h->run, "properties", PC_J_ARR);
    if (p && p->n > PC_MAX_SOURCES) bad(&r, "run.properties", "has more names than --property takes");
    for (size_t k = 0; r.st == PC_OK && p && k < p->n; k++) {
        if (p->kids[k].type != PC_J_STR) { bad(&r, "run.properties", "holds a non-string"); break; }
        run->properties[run->n_properties++] = p->kids[k].text;
    }
    return r.st;
}

/* The files in shard order (BY_K), all N of one run, none twice. */
static pc_status group(const head *h, const char *const *files, int n, int *by_k, pc_err *err)
{
    int N = h[0].n;
    for (int k = 0; k < N; k++) by_k[k] = -1;
    for (int f = 0; f < n; f++) {
        if (h[f].n != N)
            return pc_seterr(err, PC_EINPUT, "merge: %s and %s are not shards of one run (shard "
                             "count differs: %d/%d vs %d/%d)", files[0], files[f], h[0].k, N,
                             h[f].k, h[f].n);
        char opt[64];
        if (strcmp(h[f].identity, h[0].identity))
            return pc_seterr(err, PC_EINPUT, "merge: %s and %s are not shards of one run (the "
                             "options differ: %s)", files[0], files[f],
                             first_diff(h[0].identity, h[f].identity, opt, sizeof opt));
        if (h[f].slots->n != h[0].slots->n)
            return pc_seterr(err, PC_EINPUT, "merge: %s and %s are not shards of one run (%zu "
                             "verdicts vs %zu)", files[0], files[f], h[0].slots->n, h[f].slots->n);
        if (by_k[h[f].k - 1] >= 0)
            return pc_seterr(err, PC_EINPUT, "merge: shard %d/%d given twice (%s and %s)", h[f].k,
                             N, files[by_k[h[f].k - 1]], files[f]);
        by_k[h[f].k - 1] = f;
    }
    for (int k = 0; k < N; k++)
        if (by_k[k] < 0)
            return pc_seterr(err, PC_EINPUT, "merge: check shard %d/%d missing (%d of %d shard "
                             "files given)", k + 1, N, n, N);
    return PC_OK;
}

/* Slot S agrees in every shard: mode and identity. */
/* What slot S of shard J was checked against ("" when the file does not
 * say: a shard written before verdicts said it). */
static const char *slot_against(const mg *m, int j, int s)
{
    const pc_jnode *x = pc_jget(&m->slots[j]->kids[s], "against");
    return x && x->type == PC_J_STR ? x->text : "";
}

static pc_status same_slot(const mg *m, int s)
{
    const pc_jnode *a = &m->slots[0]->kids[s];
    static const char *const keys[] = { "mode", "check", "family", "implementation", "layout" };
    for (int j = 1; j < m->n; j++) {
        for (int k = 0; k < 5; k++) {
            const pc_jnode *x = pc_jget(a, keys[k]), *y = pc_jget(&m->slots[j]->kids[s], keys[k]);
            if (!x || !y || x->type != PC_J_STR || y->type != PC_J_STR || strcmp(x->text, y->text))
                return differs(m, s, j, keys[k]);
        }
        /* an OWNER slot's verdict is its owner's alone (the others hold none) */
        if (strcmp(pc_jget(a, "mode")->text, mode_names[PC_SLOT_OWNER])
            && strcmp(slot_against(m, 0, s), slot_against(m, j, s)))
            return differs(m, s, j, "against");
    }
    return PC_OK;
}

/* Slot S (checked alike in every shard) is the fitted-model verdict of
 * the accuracy verdict ACC made just before it: a FITTED slot of the same
 * implementation, family and layout. */
static int fit_of(const mg *m, int s, const pc_verdict *acc)
{
    pc_verdict v;
    rd r = { m->files[0], s, m->err, PC_OK };
    read_identity(&r, &m->slots[0]->kids[s], &v);
    return !strcmp(pc_jget(&m->slots[0]->kids[s], "mode")->text, mode_names[PC_SLOT_FITTED])
        && !strcmp(v.check, "fitted-model") && !strcmp(v.impl, acc->impl)
        && !strcmp(v.family, acc->family) && !strcmp(v.layout, acc->layout);
}

/* A fitted-model slot after a gate that faulted or skipped in the merged
 * run: checked as every FITTED slot is, then left out, as check leaves the
 * verdict out. */
static pc_status drop_fit(const mg *m, int s)
{
    pc_verdict v;
    memset(&v, 0, sizeof v);
    pc_fit_ctx ctx = { &m->acc->cfg, m->acc->res };
    pc_status st = pc_check_shard_merge_fit(m->slots, m->files, m->n, s, &ctx, &v, m->err);
    verdict_clear(&v);
    return st;
}

/* Every shard made a fitted-model slot after the accuracy slot merged
 * last: not under --tol-abs, and not where each shard skipped without a
 * declined call (gate.c, fit_verdict). */
static int fit_made(const mg *m)
{
    const pc_shard_item *merged = &m->acc->items[m->n];
    return m->acc->cfg.tol_abs < 0.0 && !(merged->res.status == PC_SKIP && !merged->res.impl_rc);
}

static pc_status no_fit(const mg *m, int s)
{
    return pc_seterr(m->err, PC_EINPUT, "%s: slot %d: the fitted-model slot of accuracy slot %d "
                     "(mode \"fitted\", check \"fitted-model\") is missing; every shard writes it "
                     "right after (not a pecheck check shard?)", m->files[0], s + 2, s + 1);
}

/* Merge saves the case SP names (cmd_merge.c) for the merged verdict
 * number VI. */
static pc_status add_save(const mg *m, const pc_case_split *sp, int vi)
{
    if (!sp->save) return PC_OK;
    pc_check_run *run = m->run;
    pc_check_save *ns = realloc(run->saves, (size_t)(run->n_saves + 1) * sizeof *ns);
    if (!ns) return pc_seterr(m->err, PC_ENOMEM, "out of memory");
    run->saves = ns;
    ns[run->n_saves] = (pc_check_save){ vi, sp->save_impl, sp->save_seed, sp->save_d, sp->save_lo,
                                        sp->save_hi, "" };
    snprintf(ns[run->n_saves++].options, sizeof ns[0].options, "%s", sp->save_options);
    return PC_OK;
}

static pc_status merge_slots(const mg *m, uint64_t seed, pc_verdicts *out)
{
    pc_status st = PC_OK;
    int ended = 0; /* the accuracy slot just merged faulted or skipped */
    int want = -1; /* the accuracy slot whose fitted-model slot must come next */
    for (int s = 0; s < (int)m->slots[0]->n && st == PC_OK; s++) {
        st = same_slot(m, s);
        if (st == PC_OK && ended && fit_of(m, s, &out->v[out->n - 1])) {
            ended = 0;
            want = -1;
            st = drop_fit(m, s);
            continue;
        }
        if (st == PC_OK && want >= 0 && !fit_of(m, s, &out->v[out->n - 1])) st = no_fit(m, want);
        ended = 0;
        want = -1;
        pc_verdict *v = st == PC_OK ? pc_verdicts_add(out) : NULL;
        if (st == PC_OK && !v) st = pc_seterr(m->err, PC_ENOMEM, "out of memory");
        if (st != PC_OK) break;
        const char *mode = pc_jget(&m->slots[0]->kids[s], "mode")->text;
        int md = name_index(mode, mode_names, 5);
        pc_case_split save = { .save = 0 };
        st = md == PC_SLOT_SAME ? merge_same(m, s, v)
           : md == PC_SLOT_CASES ? merge_cases(m, s, v, &save)
           : md == PC_SLOT_OWNER ? merge_owner(m, s, v, &save)
           : md == PC_SLOT_FITTED ? merge_fitted(m, s, seed, v)
           : merge_accuracy(m, s, seed, v, &ended);
        if (st == PC_OK && !v->against[0]) /* read_verdict took the owner's */
            snprintf(v->against, sizeof v->against, "%s", slot_against(m, 0, s));
        if (st == PC_OK) st = add_save(m, &save, out->n - 1);
        if (st == PC_OK && md == PC_SLOT_ACCURACY && fit_made(m)) want = s;
    }
    return st == PC_OK && want >= 0 ? no_fit(m, want) : st;
}

/* Shard K + 1 (head B) saves to the file shard 1 (head A) does. */
static pc_status same_regressions(const head *a, const head *b, const char *const *names, int k,
                                  pc_err *err)
{
    const pc_jnode *x = pc_jget(a->run, "regressions"), *y = pc_jget(b->run, "regressions");
    int same = x && y && x->type == y->type
               && (x->type == PC_J_NULL || (x->type == PC_J_STR && !strcmp(x->text, y->text)));
    if (same) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "merge: %s and %s are not shards of one run (\"run.regressions\", "
                     "the regression file, differs)", names[0], names[k]);
}

void pc_check_run_free(pc_check_run *run)
{
    free(run->saves);
    run->saves = NULL;
    run->n_saves = 0;
}

pc_status pc_check_shard_merge(const pc_jnode *const *tops, const char *const *files, int n,
                               pc_verdicts *out, pc_check_run *run, pc_err *err)
{
    memset(run, 0, sizeof *run);
    head *h = calloc((size_t)n, sizeof *h);
    if (!h) return pc_seterr(err, PC_ENOMEM, "out of memory");
    pc_status st = PC_OK;
    for (int f = 0; f < n && st == PC_OK; f++) st = read_head(tops[f], files[f], &h[f], err);
    int N = st == PC_OK ? h[0].n : 0;
    int *by_k = st == PC_OK ? calloc((size_t)N, sizeof *by_k) : NULL;
    const pc_jnode **slots = st == PC_OK ? calloc((size_t)N, sizeof *slots) : NULL;
    const char **names = st == PC_OK ? calloc((size_t)N, sizeof *names) : NULL;
    if (st == PC_OK && (!by_k || !slots || !names)) st = pc_seterr(err, PC_ENOMEM, "out of memory");
    if (st == PC_OK) st = group(h, files, n, by_k, err);
    if (st == PC_OK) st = read_run(&h[by_k[0]], files[by_k[0]], run, err);
    for (int k = 0; st == PC_OK && k < N; k++) {
        slots[k] = h[by_k[k]].slots;
        names[k] = files[by_k[k]];
    }
    for (int k = 1; st == PC_OK && k < N; k++) st = same_regressions(&h[by_k[0]], &h[by_k[k]], names, k, err);
    acc_keep acc = { NULL, NULL, { 0 } };
    mg m = { &acc, slots, names, N, err, run };
    if (st == PC_OK) st = merge_slots(&m, run->seed, out);
    acc_keep_free(&acc);
    free(h);
    free(by_k);
    free(slots);
    free(names);
    return st;
}

/* run.c: the property engine's run of one property on one implementation
 * and family, and the selection of properties for `pecheck check`.
 *
 *   1. the cases saved in the regression file for (property, family,
 *      implementation) run first (Hypothesis's example database), then
 *      PARAMS->cases generated ones; case number I has the seed
 *      pc_hash3(run seed, hash(property), I), so `--replay SEED` reruns
 *      exactly that case;
 *   2. the first failing case is shrunk (shrink.c), keeping only candidates
 *      that fail the same way;
 *   3. the verdict (render.c) carries the measured value and its bound, the
 *      shrunk counterexample, the seed and the replay command, and a JSON
 *      object with the original and shrunk cases;
 *   4. a failing generated case is appended to the regression file
 *      (regressions.c); a shard records it for `pecheck merge` instead
 *      (harness/shard/check_shard.h).
 * `accuracy` is in the catalogue but runs only when selected with
 * --property (`pecheck check` runs the accuracy gate itself). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "engine.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"
#include "families/family.h"

/* ------------------------------------------------------------------ */
/* Seeds                                                              */

static uint64_t name_hash(const char *s)
{
    uint64_t h = 0xcbf29ce484222325u; /* FNV-1a 64 offset basis */
    for (; *s; s++) h = (h ^ (unsigned char)*s) * 0x100000001b3u;
    return h;
}

static uint64_t case_seed(uint64_t run_seed, const pc_property *p, long i)
{
    return pc_hash3(run_seed, name_hash(p->name), (uint64_t)i);
}

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* ------------------------------------------------------------------ */
/* Before the cases                                                   */

/* Probe the layout: --layout if given, else interleaved, else half.  A
 * layout the implementation declines (its first call returns an error) is
 * not checked: the property is skipped saying so, rather than failed. */
static pc_status pick_layout(const pc_property *p, pc_prun *r, pc_outcome *oc)
{
    int given = r->params->layout >= 0;
    int is_rope = pc_eng_rotates_input(r);
    if (!pc_eng_formula_family(r)) { r->layout = given ? r->params->layout : 0; return PC_OK; }
    if (r->params->spec && r->params->spec->rows_note) { /* rows that are not of positions */
        r->layout = given ? r->params->layout : 0;
        snprintf(oc->msg, sizeof oc->msg, "%.100s: %.150s", r->params->spec->rows_note,
                 p->rows_note_why ? p->rows_note_why
                                  : "the properties compare rows of consecutive positions");
        return PC_SKIP;
    }
    int d = r->params->d;
    float *x = calloc((size_t)d, sizeof *x), *out = calloc((size_t)d, sizeof *out);
    if (!x || !out) { free(x); free(out); return PC_ENOMEM; }
    int64_t pos = r->lo;
    int rc = 1;
    r->faulted = 0;
    /* a call that faults is not a declined layout: that layout is kept and
     * the property's own calls report the fault as a failure */
    int first = given ? r->params->layout : 0, last = given ? r->params->layout : 1;
    for (int layout = first; layout <= last && rc && !r->faulted; layout++) {
        r->layout = layout;
        rc = is_rope ? pc_p_rope(r, &pos, 1, d, x, out) : pc_p_sinusoidal(r, &pos, 1, d, out);
    }
    free(x);
    free(out);
    if (rc && !r->faulted) {
        pc_p_implerr(r, oc);
        if (given)
            snprintf(oc->msg, sizeof oc->msg, "the implementation declines --layout %s (%.150s): "
                     "not checked under it", pc_layout_name(r->layout), r->implmsg);
        else
            snprintf(oc->msg, sizeof oc->msg, "the implementation declines both layouts (%.200s)", r->implmsg);
        r->layout = first;
        return PC_SKIP;
    }
    return PC_OK;
}

static int hook_present(const pc_impl *impl, const char *family)
{
    const pc_family *f = pc_family_find(family);
    if (!f || (f->flags & PC_FAM_PROPS_PROBE)) return 1; /* the property's setup decides */
    return f->provides(impl);
}

static void prun_init(pc_prun *r, const pc_impl *impl, const char *family,
                      const pc_prop_params *par)
{
    memset(r, 0, sizeof *r);
    r->impl = impl;
    r->family = family;
    r->params = par;
    r->lo = par->pos_lo;
    r->hi = par->pos_hi;
    r->C = pc_model_C(par->base);
    r->u = pc_model_u(par->dtype);
    r->tol_abs = par->tol_abs;
}

/* The implementation's hook and position range: PC_OK to go on, PC_SKIP
 * with the reason in WHY. */
static pc_status applicable(pc_prun *r, char *why, size_t len)
{
    const pc_impl *impl = r->impl;
    if (!hook_present(impl, r->family)) {
        snprintf(why, len, "the implementation has no %s hook", r->family);
        r->no_hook = 1;
        return PC_SKIP;
    }
    if (impl->pos_bounded) {
        if (impl->pos_min > r->lo) r->lo = impl->pos_min;
        if (impl->pos_max < r->hi) r->hi = impl->pos_max;
        if (r->lo > r->hi) {
            snprintf(why, len, "the source serves positions %" PRId64 "..%" PRId64
                     " only, outside --positions", impl->pos_min, impl->pos_max);
            return PC_SKIP;
        }
    }
    /* a schedule that maps each row to its pairs' positions (position ids
     * of several axes): its rows are a table's; a source taking one
     * position a row cannot be given them */
    pc_freqs *f = pc_spec_scheduled(r->params->spec) ? pc_p_freqs(r, r->params->d, NULL) : NULL;
    if (f && pc_freqs_mapped(f) && !impl->pos_bounded) {
        snprintf(why, len, "the rows have position ids of several axes (a table's rows); this "
                 "source takes one position a row");
        return PC_SKIP;
    }
    return PC_OK;
}

/* The layout and the property's setup: PC_OK to run the cases, PC_SKIP
 * with the reason in OC->msg, or an error of pecheck itself. */
static pc_status prepare(const pc_property *p, pc_prun *r, pc_verdict *v, pc_outcome *oc,
                         pc_err *err)
{
    const pc_family *fam = pc_family_find(r->family);
    if (fam && fam->max_len) r->max_len = fam->max_len(r->impl);
    memset(oc, 0, sizeof *oc);
    pc_status st = pick_layout(p, r, oc);
    if (st == PC_ENOMEM) return pc_p_nomem(err);
    pc_eng_fill_head(v, p, r);
    if (st == PC_SKIP) return PC_SKIP;
    if (p->setup && p->setup(r, oc) == PC_SKIP) return PC_SKIP;
    return PC_OK;
}

/* ------------------------------------------------------------------ */
/* The cases                                                          */

typedef struct run_state {
    const pc_property *p;
    pc_prun *r;
    uint64_t rseeds[PC_REGRESS_MAX];
    int nreg;                /* saved cases (first in the order) */
    char reg_note[PC_ERR_LEN];
    pc_found fd;             /* the first failing case */
    pc_case worst;           /* the passing case nearest to failing */
    pc_outcome woc;
    long ran;
    int exists, shown;       /* existential property; a case showed it */
    /* a shard (`check --shard K/N`) runs cases [i0, i1) of TOTAL; FOUND_AT is
     * the number of the first failing case, -1 none */
    int split;
    long total, i0, i1, found_at;
} run_state;

/* The seed of case I: replayed, saved or generated. */
static uint64_t nth_seed(const run_state *s, long i, const char **origin, long *index)
{
    const pc_prop_params *par = s->r->params;
    if (par->replay_set) { *origin = "replay"; *index = -1; return par->replay; }
    if (i < s->nreg) { *origin = "regression"; *index = i; return s->rseeds[i]; }
    *origin = "generated";
    *index = i - s->nreg;
    return case_seed(par->seed, s->p, *index);
}

static void found(pc_found *fd, const pc_case *c, const pc_outcome *o1, uint64_t cs,
                  const char *origin, long index)
{
    fd->any = 1;
    fd->orig = fd->cur = *c;
    fd->oc0 = fd->oc = *o1;
    fd->has_seed = 1;
    fd->seed = cs;
    fd->origin = origin;
    fd->index = index;
}

/* Run case I; *STOP = 1 when the run of cases ends here. */
static pc_status one_case(run_state *s, long i, int *stop, pc_err *err)
{
    const char *origin;
    long index;
    uint64_t cs = nth_seed(s, i, &origin, &index);
    pc_rng g;
    pc_rng_seed(&g, cs);
    pc_case c;
    memset(&c, 0, sizeof c);
    c.d = s->r->params->d;
    c.vseed = pc_rng_u64(&g);
    c.vdtype = s->r->params->input_dtype;
    s->p->gen(s->r, &g, &c);
    pc_outcome o1;
    pc_status st = s->p->check(s->r, &c, &o1, err);
    if (st != PC_OK) return st;
    s->ran++;
    if (s->exists) {
        if (o1.kind == PC_O_PASS) { s->woc = o1; s->worst = c; s->shown = 1; *stop = 1; return PC_OK; }
        if (o1.kind == PC_O_FAIL && !s->fd.any) { found(&s->fd, &c, &o1, cs, origin, index); return PC_OK; }
    }
    if (o1.kind != PC_O_PASS) {
        found(&s->fd, &c, &o1, cs, origin, index);
        s->found_at = i;
        *stop = 1;
        return PC_OK;
    }
    if (o1.score > s->woc.score) { s->woc = o1; s->worst = c; }
    return PC_OK;
}

static pc_status run_cases(run_state *s, pc_err *err)
{
    const pc_prop_params *par = s->r->params;
    pc_regress_case key = { .prop = s->p->name, .family = s->r->family, .impl = s->r->impl->name };
    s->nreg = par->replay_set ? 0
            : pc_regress_load(par->regressions, &key, s->rseeds, s->reg_note, sizeof s->reg_note);
    long total = par->replay_set ? 1 : s->nreg + par->cases;
    s->total = total;
    s->i0 = 0;
    s->i1 = total;
    s->found_at = -1;
    if (s->split) { /* the accuracy engine's balanced contiguous split, over cases */
        int64_t a, b;
        pc_acc_shard_blocks(total, par->shard_k, par->shard_n, &a, &b);
        s->i0 = (long)a;
        s->i1 = (long)b;
    }
    s->woc.score = -(double)INFINITY;
    s->woc.pair = -1;
    s->exists = s->p->existential && s->p->existential(s->r);
    pc_status st = PC_OK;
    int stop = 0;
    for (long i = s->i0; i < s->i1 && st == PC_OK && !stop; i++)
        st = one_case(s, i, &stop, err);
    if (s->exists && s->shown) s->fd.any = 0; /* some case shows the property: it holds */
    return st;
}

/* The property's sweep over the whole range, when the cases found nothing. */
static pc_status run_sweep(run_state *s, pc_err *err)
{
    pc_case c;
    memset(&c, 0, sizeof c);
    c.d = s->r->params->d;
    c.vdtype = s->r->params->input_dtype;
    int hit = 0;
    pc_status st = s->p->sweep(s->r, &c, &hit, err);
    if (st != PC_OK || !hit) return st;
    pc_outcome o1;
    if (hit == PC_SWEEP_IMPLERR) pc_p_implerr(s->r, &o1); /* the failed call is the verdict */
    else st = s->p->check(s->r, &c, &o1, err);
    if (st == PC_OK && o1.kind != PC_O_PASS) {
        found(&s->fd, &c, &o1, 0, "sweep", -1);
        s->fd.has_seed = 0;
    }
    return st;
}

/* ------------------------------------------------------------------ */
/* The verdict                                                        */

/* Save the failing case FD to the regression file; the outcome in NOTE.
 * A shard (`check --shard`) leaves the case in SP for `pecheck merge`,
 * which saves it when this verdict is the merged one, and notes what the
 * unsharded run's saving notes (merge changes the note if saving fails). */
static void save_case(const run_state *s, const pc_found *fd, pc_case_split *sp, char *note,
                      size_t len)
{
    const pc_prop_params *par = s->r->params;
    char opts[1024];
    pc_eng_run_options(s->r, opts, sizeof opts); /* what shaped the run, as its replay line */
    pc_regress_case rc = { .prop = s->p->name, .family = s->r->family, .impl = s->r->impl->name,
                           .seed = fd->seed, .d = par->d, .pos_lo = par->pos_lo,
                           .pos_hi = par->pos_hi, .options = opts };
    pc_err e2 = { "" };
    if (par->shard_n > 0) {
        sp->save = 1;
        snprintf(sp->save_options, sizeof sp->save_options, "%s", opts);
        sp->save_impl = rc.impl;
        sp->save_seed = rc.seed;
        sp->save_d = rc.d;
        sp->save_lo = rc.pos_lo;
        sp->save_hi = rc.pos_hi;
        pc_regress_saved_note(note, len, par->regressions);
    } else if (pc_regress_save(par->regressions, &rc, &e2) != PC_OK) {
        pc_regress_failed_note(note, len, &e2);
    } else {
        pc_regress_saved_note(note, len, par->regressions);
    }
}

/* NOTE, with what the regression file's reading found before it */
static const char *with_reg_note(const run_state *s, const char *note, char *buf, size_t len)
{
    if (!s->reg_note[0]) return note;
    snprintf(buf, len, "%s%s%s", s->reg_note, note ? "; " : "", note ? note : "");
    return buf;
}

static pc_status finish_fail(run_state *s, pc_verdict *v, pc_case_split *sp, pc_err *err)
{
    const pc_prop_params *par = s->r->params;
    pc_found *fd = &s->fd;
    /* a sweep's failed call spans a block the case cannot hold: not shrunk */
    int whole = fd->oc.kind == PC_O_IMPLERR && !strcmp(fd->origin, "sweep");
    pc_status st = whole ? PC_OK : pc_eng_shrink(s->p, s->r, &fd->cur, &fd->oc, &fd->steps, err);
    if (st != PC_OK) return st;
    char note[PC_ERR_LEN + 64], all[2 * PC_ERR_LEN + 128];
    const char *save_note = NULL;
    if (fd->has_seed && !par->replay_set && strcmp(fd->origin, "regression") && par->regressions) {
        save_case(s, fd, sp, note, sizeof note);
        save_note = note;
    }
    save_note = with_reg_note(s, save_note, all, sizeof all);
    return pc_eng_write_fail(s->p, s->r, fd, v, save_note, err);
}

static pc_status finish_pass(run_state *s, pc_verdict *v, pc_err *err)
{
    const char *note = s->r->params->replay_set ? "the replayed case passes"
                     : s->exists ? "shown by this case (one suffices: an existential property)" : NULL;
    char all[2 * PC_ERR_LEN];
    note = with_reg_note(s, note, all, sizeof all);
    /* a shard's pass stands for the whole run's: every case passed */
    long ncases = s->split ? s->total : s->ran;
    return pc_eng_write_pass(s->p, s->r, ncases, s->nreg, &s->worst, &s->woc, v, note, err);
}

/* In a shard: how the property is split (SP), and whether this shard runs
 * it at all (0: another shard owns it; V says which). */
static int plan_split(const pc_property *p, pc_prun *r, pc_verdict *v, pc_case_split *sp)
{
    const pc_prop_params *par = r->params;
    sp->owner = par->slot % par->shard_n + 1; /* owners spread over the shards */
    if (!p->whole && !par->replay_set && !(p->existential && p->existential(r))) {
        sp->mode = PC_SPLIT_CASES;
        return 1;
    }
    /* an existential property stops at its first passing case, a whole
     * check and a replay are one unit: one shard runs them */
    sp->mode = PC_SPLIT_OWNER;
    if (par->shard_k == sp->owner) return 1;
    char why[96];
    snprintf(why, sizeof why, "run by shard %d/%d", sp->owner, par->shard_n);
    pc_eng_skip(v, why);
    return 0;
}

static pc_status run_prepared(const pc_property *p, pc_prun *r, pc_verdict *v, pc_case_split *sp,
                              pc_err *err)
{
    const pc_prop_params *par = r->params;
    if (par->shard_n > 0 && !plan_split(p, r, v, sp)) return PC_OK;
    if (p->whole) return p->whole(r, v, err);
    run_state *s = calloc(1, sizeof *s);
    if (!s) return pc_p_nomem(err);
    s->p = p;
    s->r = r;
    s->split = sp->mode == PC_SPLIT_CASES;
    pc_status st = run_cases(s, err);
    /* the sweep covers the whole range: in a shard, only its owner runs it */
    if (st == PC_OK && !s->fd.any && p->sweep && !par->replay_set
        && (!s->split || par->shard_k == sp->owner)) {
        st = run_sweep(s, err);
        sp->sweep = s->fd.any ? 2 : 1;
    }
    if (s->split) {
        sp->total = s->total;
        sp->start = s->i0;
        sp->end = s->i1;
        sp->failed_at = s->found_at;
        sp->worst_score = s->woc.score;
    }
    if (st == PC_OK) st = s->fd.any ? finish_fail(s, v, sp, err) : finish_pass(s, v, err);
    free(s);
    return st;
}

/* P, skipped for a hook the source lacks (NO_HOOK), gives no verdict: the
 * source's kind has no other hooks (PAR->fixed_hooks, a table) and
 * --property did not name P ("all" does not name it) */
static int dropped(const pc_property *p, const pc_prop_params *par, int no_hook)
{
    if (!no_hook || !par->fixed_hooks) return 0;
    for (int k = 0; k < par->n_properties; k++)
        if (!strcmp(par->properties[k], p->name)) return 0;
    return 1;
}

/* pc_property_run; *NO_HOOK set when it skipped for a hook IMPL lacks */
static pc_status property_run(const pc_property *p, const pc_impl *impl, const char *family,
                              const pc_prop_params *par, pc_verdict *v, int *no_hook, pc_err *err)
{
    double t0 = now();
    pc_prun r;
    prun_init(&r, impl, family, par);
    pc_eng_fill_head(v, p, &r);
    pc_case_split sp = { .mode = PC_SPLIT_SAME, .failed_at = -1, .worst_score = -(double)INFINITY };
    char why[160];
    pc_outcome oc;
    pc_status st = PC_OK;
    if (applicable(&r, why, sizeof why) == PC_SKIP) st = pc_eng_skip(v, why);
    else if ((st = prepare(p, &r, v, &oc, err)) == PC_SKIP) st = pc_eng_skip(v, oc.msg);
    else if (st == PC_OK) st = run_prepared(p, &r, v, &sp, err);
    v->seconds = now() - t0;
    *no_hook = st == PC_OK && v->status == PC_SKIP && r.no_hook;
    pc_p_release(&r);
    if (st == PC_OK && par->shard_n > 0 && par->split && !dropped(p, par, *no_hook))
        par->split(par->split_ctx, par->slot, &sp);
    return st;
}

pc_status pc_property_run(const pc_property *p, const pc_impl *impl, const char *family,
                          const pc_prop_params *par, pc_verdict *v, pc_err *err)
{
    int no_hook;
    return property_run(p, impl, family, par, v, &no_hook, err);
}

/* ------------------------------------------------------------------ */
/* The selection                                                      */

static int selected(const pc_property *p, const pc_prop_params *par)
{
    if (par->gate_outside && !strcmp(p->name, "accuracy")) return 0;
    if (par->n_properties == 0) return !p->default_off;
    for (int k = 0; k < par->n_properties; k++)
        if (!strcmp(par->properties[k], p->name) || !strcmp(par->properties[k], "all"))
            return 1;
    return 0;
}

int pc_properties_sweep_selected(const char *family, const pc_prop_params *par)
{
    const pc_family *fam = pc_family_find(family);
    for (size_t k = 0; fam && !par->replay_set && k < fam->n_properties; k++)
        if (fam->properties[k]->sweep && selected(fam->properties[k], par)) return 1;
    return 0;
}

/* P's verdict V on IMPL, or its skip saying WHY (non-empty); *NO_HOOK as
 * property_run's. */
static pc_status run_or_skip(const pc_property *p, const pc_impl *impl, const char *family,
                             const pc_prop_params *par, const char *why, pc_verdict *v,
                             int *no_hook, pc_err *err)
{
    *no_hook = 0;
    if (!why[0]) return property_run(p, impl, family, par, v, no_hook, err);
    pc_prun r;
    prun_init(&r, impl, family, par);
    pc_eng_fill_head(v, p, &r);
    return pc_eng_skip(v, why);
}

/* An implementation with FAM's ABI v2 entry point only: the family's
 * adapter (pc_family.props_v2) into *AD, its dtype into PAR; WHY (len
 * LEN) says why the properties skip when the kernel takes none of their
 * calls.  *AD stays NULL when IMPL has the version 1 entry point. */
static pc_status open_v2(const pc_family *fam, const pc_impl *impl, pc_prop_params *par,
                         pc_impl **ad, char *why, size_t len, pc_err *err)
{
    *ad = NULL;
    why[0] = '\0';
    if (!fam || !fam->props_v2 || !fam->hooks[1] || pc_hook_present(impl, fam->hooks[0])
        || !pc_hook_present(impl, fam->hooks[1]))
        return PC_OK;
    pc_status st = fam->props_v2->open(impl, par, ad, why, len, err);
    if (st == PC_SKIP) st = PC_OK; /* WHY says it */
    else why[0] = '\0';
    return st;
}

pc_status pc_properties_run_with(const pc_impl *impl, const char *family,
                                 const pc_prop_params *par, pc_verdicts *out, pc_err *err)
{
    for (int k = 0; k < par->n_properties; k++)
        if (strcmp(par->properties[k], "all") && !pc_property_find(par->properties[k])) {
            char hint[96];
            return pc_seterr(err, PC_EINPUT, "--property: unknown property '%s'%s (see `pecheck "
                             "explain`)", par->properties[k],
                             pc_property_hint(par->properties[k], hint, sizeof hint));
        }
    if (par->replay_set && par->n_properties != 1)
        return pc_seterr(err, PC_EINPUT, "--replay: name exactly one property with --property");
    const pc_family *fam = pc_family_find(family);
    pc_prop_params vp = *par;
    pc_impl *ad = NULL;
    char why[400] = "";
    int any = 0;
    for (size_t k = 0; fam && k < fam->n_properties; k++) any |= selected(fam->properties[k], par);
    pc_status st = any ? open_v2(fam, impl, &vp, &ad, why, sizeof why, err) : PC_OK;
    for (size_t k = 0; fam && k < fam->n_properties && st == PC_OK; k++) { /* the run order */
        const pc_property *p = fam->properties[k];
        if (!selected(p, par)) continue;
        pc_verdict *v = pc_verdicts_add(out);
        if (!v) { st = pc_p_nomem(err); break; }
        pc_prop_params q = vp;
        q.slot = out->n - 1; /* the verdict's place in the run (a shard's unit) */
        int no_hook;
        st = run_or_skip(p, ad ? ad : impl, family, &q, why, v, &no_hook, err);
        /* a hook the source's kind cannot have: nothing could have run */
        if (st != PC_OK || dropped(p, par, no_hook)) {
            free(v->details);
            free(v->json);
            out->n--;
        }
    }
    if (ad) fam->props_v2->close(ad);
    return st;
}

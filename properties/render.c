/* render.c: a property's verdict in words and in JSON.  A failure reads like
 * a compiler error: the expectation, the measured value and its bound, the
 * shrunk counterexample (floats as decimal and %a), the seed, the replay
 * command and a likely cause; the JSON object carries the original and the
 * shrunk cases.  A pass gives the number of cases and the worst one. */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "families/family.h"
#include "harness/io/json.h"
#include "harness/engine/model.h"

static const char *vmode_name(int m)
{
    return m == PC_V_DENSE ? "dense" : m == PC_V_PAIR ? "pair" : "unit";
}

static void positions_line(FILE *f, const pc_property *p, const pc_case *c)
{
    if (p->pos_names && !strcmp(p->pos_names, "batch")) {
        fprintf(f, ", positions = [");
        for (int j = 0; j < c->npos; j++) fprintf(f, "%s%" PRId64, j ? ", " : "", c->pos[j]);
        fputc(']', f);
    } else if (p->pos_names) {
        const char *s = p->pos_names;
        for (int j = 0; j < c->npos && *s; j++) {
            size_t l = strcspn(s, " ");
            fprintf(f, ", %.*s = %" PRId64, (int)l, s, c->pos[j]);
            s += l;
            while (*s == ' ') s++;
        }
    }
}

static void case_line(FILE *f, const pc_property *p, const pc_prun *r, const pc_case *c)
{
    fprintf(f, "d = %d", c->d);
    positions_line(f, p, c);
    if (p->k_name) fprintf(f, ", %s = %" PRId64, p->k_name, c->k);
    if (p->shrink & PC_SH_N) fprintf(f, ", n = %d", c->n);
    if (p->shrink & PC_SH_PERM) fprintf(f, ", permutation = %s", c->perm ? "swap rows 0 and 1" : "random");
    if ((p->shrink & PC_SH_VEC) && pc_eng_rotates_input(r)) {
        if (c->vmode == PC_V_DENSE) fprintf(f, ", vectors = dense normal");
        else fprintf(f, ", vectors = %s on pair %d", c->vmode == PC_V_UNIT ? "(1, 0)" : "normal", c->pair);
    }
}

static void case_json(pc_json *j, const char *key, const pc_property *p, const pc_prun *r,
                      const pc_case *c)
{
    pc_json_obj(j, key);
    pc_json_int(j, "d", c->d);
    pc_json_arr(j, "positions");
    for (int k = 0; k < c->npos; k++) pc_json_int(j, NULL, (long long)c->pos[k]);
    pc_json_end(j);
    if (p->k_name) pc_json_int(j, p->k_name, (long long)c->k);
    if (p->shrink & PC_SH_N) pc_json_int(j, "n", c->n);
    if (p->shrink & PC_SH_PERM) pc_json_str(j, "permutation", c->perm ? "swap01" : "random");
    if ((p->shrink & PC_SH_VEC) && pc_eng_rotates_input(r)) {
        pc_json_str(j, "vectors", vmode_name(c->vmode));
        pc_json_int(j, "pair", c->pair);
    }
    char s[32];
    snprintf(s, sizeof s, "0x%016" PRIx64, c->vseed);
    pc_json_str(j, "vseed", s);
    pc_json_end(j);
}

static const char *source_opt(const pc_impl *impl)
{
    size_t n = strlen(impl->name);
    if (pc_builtin_find(impl->name)) return "--impl";
    if (n > 4 && !strcmp(impl->name + n - 4, ".npy")) return "--table";
    return "--plugin";
}

/* the options beyond the source, d, base, layout, positions and property
 * that the run used */
static void replay_extra(char *extra, size_t len, const pc_prun *r)
{
    const pc_prop_params *o = r->params;
    size_t u = 0;
    extra[0] = '\0';
    int table = !strcmp(source_opt(r->impl), "--table");
    if (o->table_sin && table)
        u += (size_t)snprintf(extra + u, len - u, " --table-sin %s", o->table_sin);
    /* a table's rows are positions --pos-start..: --positions alone would
     * name other rows' positions */
    if (table && o->pos_lo > 0 && u < len)
        u += (size_t)snprintf(extra + u, len - u, " --pos-start %" PRId64, o->pos_lo);
    if (u >= len) u = len - 1;
    if (o->dtype_set && u < len)
        u += (size_t)snprintf(extra + u, len - u, " --dtype %s", pc_dtype_name(o->dtype));
    if (o->tol_abs >= 0 && u < len)
        u += (size_t)snprintf(extra + u, len - u, " --tol-abs %g", o->tol_abs);
    if (o->formulation && u < len)
        u += (size_t)snprintf(extra + u, len - u, " --formulation %s", pc_model_class_name(o->strict));
    else if (o->strict && u < len)
        u += (size_t)snprintf(extra + u, len - u, " --strict");
    /* the family's own options (--hf-config ..., --causal): the run's spec */
    const pc_spec_kind *sk = o->spec ? o->spec->family->spec : NULL;
    if (sk && sk->args && u < len) sk->args(o->spec, extra, len);
}

/* " --base B --layout L" of a family with a formula (else ""); no --base
 * where the family's own options (a config) gave the base: they carry it,
 * and the replayed verdict says where it came from as the run's did */
static void base_layout(char *buf, size_t len, const pc_prun *r)
{
    const pc_spec *sp = r->params->spec;
    buf[0] = '\0';
    if (!pc_eng_formula_family(r)) return;
    if (sp && sp->base_own && !sp->base_set)
        snprintf(buf, len, " --layout %s", pc_layout_name(r->layout));
    else
        snprintf(buf, len, " --base %.17g --layout %s", r->params->base, pc_layout_name(r->layout));
}

void pc_eng_run_options(const pc_prun *r, char *buf, size_t len)
{
    char extra[1024];
    replay_extra(extra, sizeof extra, r);
    base_layout(buf, len, r);
    size_t u = strlen(buf);
    if (u < len) snprintf(buf + u, len - u, "%s", extra);
}

static void replay_cmd(char *buf, size_t len, const pc_property *p, const pc_prun *r,
                       int has_seed, uint64_t seed)
{
    const pc_prop_params *o = r->params;
    char extra[1024], lay[96];
    replay_extra(extra, sizeof extra, r);
    base_layout(lay, sizeof lay, r);
    int n = snprintf(buf, len, "pecheck check %s %s --family %s --d %d%s "
                     "--positions %" PRId64 ":%" PRId64 "%s --property %s",
                     source_opt(r->impl), r->impl->name, r->family, o->d, lay,
                     o->pos_lo, o->pos_hi, extra, p->name);
    if (has_seed && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " --replay 0x%016" PRIx64, seed);
}

void pc_eng_fill_head(pc_verdict *v, const pc_property *p, const pc_prun *r)
{
    snprintf(v->check, sizeof v->check, "%s", p->name);
    snprintf(v->family, sizeof v->family, "%s", r->family);
    snprintf(v->impl, sizeof v->impl, "%s", r->impl->name);
    if (pc_eng_formula_family(r))
        snprintf(v->layout, sizeof v->layout, "%s", pc_layout_name(r->layout));
    snprintf(v->measured_what, sizeof v->measured_what, "%s", p->measured_what);
    v->seed = r->params->seed;
}

pc_status pc_eng_skip(pc_verdict *v, const char *why)
{
    v->status = PC_SKIP;
    v->measured = (double)NAN;
    v->bound = (double)NAN;
    snprintf(v->summary, sizeof v->summary, "skipped: %s", why);
    return PC_OK;
}

static void bound_line(FILE *f, const pc_prun *r)
{
    char m[200];
    if (r->tol_abs < 0 && r->sched) { /* pc_p_bound_i: the schedule's C_i and A */
        fprintf(f, "            model: |err| <= C_i*u*(1+|theta|)*A, C_i the schedule's per pair "
                "(docs/schedules.md), A its attention factor %.9g, u = %.3g (%s)\n",
                r->freqs ? pc_freqs_attention(r->freqs) : 1.0, r->u,
                pc_dtype_name(r->params->dtype));
    } else {
        pc_model_describe(m, sizeof m, r->C, r->u, r->params->dtype, r->tol_abs, 0);
        fprintf(f, "            model: %s\n", m);
    }
    if (r->params->via) fprintf(f, "            called: %s\n", r->params->via);
}

/* ---- two memory streams: the verdict's text and its JSON ---------------- */

typedef struct streams {
    char *text, *json;
    size_t tl, jl;
    FILE *f, *jf;
} streams;

static pc_status streams_open(streams *s, pc_err *err)
{
    memset(s, 0, sizeof *s);
    s->f = open_memstream(&s->text, &s->tl);
    s->jf = open_memstream(&s->json, &s->jl);
    if (s->f && s->jf) return PC_OK;
    if (s->f) fclose(s->f);
    if (s->jf) fclose(s->jf);
    free(s->text);
    free(s->json);
    return pc_p_nomem(err);
}

static void streams_abandon(streams *s)
{
    fclose(s->f);
    fclose(s->jf);
    free(s->text);
    free(s->json);
}

/* close both streams; the verdict owns the text and the JSON */
static void streams_give(streams *s, pc_verdict *v)
{
    fclose(s->f);
    fclose(s->jf);
    v->details = s->text;
    v->json = s->json;
}

/* ---- a failure ------------------------------------------------------------ */

/* the likely cause: the implementation's error, the property's diagnosis
 * or the implementation's documented flaw */
static const char *fail_cause(const pc_property *p, pc_prun *r, const pc_found *fd, char *buf,
                              size_t len)
{
    const pc_outcome *oc = &fd->oc;
    const char *why = NULL;
    if (oc->kind == PC_O_IMPLERR)
        why = oc->msg;
    else if (p->cause)
        why = p->cause(r, &fd->cur, oc, buf, len);
    if (!why && r->impl->flaw) why = r->impl->flaw;
    return why;
}

static void fail_measured(FILE *f, const pc_property *p, const pc_prun *r, const pc_verdict *v,
                          const pc_outcome *oc)
{
    fprintf(f, "error[%s]: %s (%s%s%s): %s\n", p->name, r->impl->name, r->family,
            v->layout[0] ? ", " : "", v->layout, p->title);
    fprintf(f, "  expected: %s\n", p->expect);
    if (oc->kind != PC_O_IMPLERR && pc_eng_formula_family(r)) bound_line(f, r);
    if (oc->kind == PC_O_IMPLERR) {
        fprintf(f, "  measured: the implementation reported an error: %s\n", oc->msg);
    } else {
        fprintf(f, "  measured: %s = ", p->measured_what);
        pc_p_float(f, oc->measured);
        fprintf(f, "\n            %s = ", oc->above ? "must exceed" : "bound      ");
        pc_p_float(f, oc->bound);
        fprintf(f, "\n            at %s\n", oc->where);
    }
}

/* the property's math at the smallest case: its two sides that differ, or
 * (a property that does not name them) what it measured against its bound */
static void fail_equation(FILE *f, const pc_property *p, const pc_outcome *oc)
{
    fprintf(f, "      the math at this case: ");
    if (oc->eq[0]) {
        fprintf(f, "%s\n", oc->eq);
        return;
    }
    fprintf(f, "%s = %.9g, %s %.9g (at %s)\n", p->measured_what, oc->measured,
            oc->above ? "but must exceed" : "but at most", oc->bound, oc->where);
}

static void fail_seed(FILE *f, const pc_prun *r, const pc_found *fd)
{
    uint64_t run = r->params->seed;
    if (!fd->has_seed)
        fprintf(f, "  seed: none (found by the %s over the whole range; run seed %" PRIu64 ")\n",
                fd->origin, run);
    else if (fd->index >= 0)
        fprintf(f, "  seed: 0x%016" PRIx64 " (%s case %ld, run seed %" PRIu64 ")\n", fd->seed,
                fd->origin, fd->index, run);
    else
        fprintf(f, "  seed: 0x%016" PRIx64 " (%s, run seed %" PRIu64 ")\n", fd->seed,
                fd->origin, run);
}

static pc_status fail_text(FILE *f, const pc_property *p, pc_prun *r, pc_found *fd,
                           const pc_verdict *v, const char *replay, const char *why,
                           const char *save_note, pc_err *err)
{
    pc_outcome *oc = &fd->oc;
    fail_measured(f, p, r, v, oc);
    fprintf(f, "  smallest counterexample (%d shrink step%s from ", fd->steps, fd->steps == 1 ? "" : "s");
    case_line(f, p, r, &fd->orig);
    fprintf(f, "):\n      ");
    case_line(f, p, r, &fd->cur);
    fputc('\n', f);
    if (p->show && oc->kind != PC_O_IMPLERR) p->show(r, &fd->cur, oc, f);
    if (oc->kind != PC_O_IMPLERR) fail_equation(f, p, oc);
    fail_seed(f, r, fd);
    fprintf(f, "  replay: %s\n", replay);
    if (why) fprintf(f, "  likely cause: %s\n", why);
    if (save_note) fprintf(f, "  note: %s\n", save_note);
    if (!p->report) return PC_OK;
    pc_outcome dummy = *oc;
    return p->report(r, &fd->cur, &dummy, f, err);
}

static void fail_json(FILE *jf, const pc_property *p, const pc_prun *r, const pc_found *fd,
                      const char *replay, const char *why)
{
    const pc_outcome *oc = &fd->oc;
    pc_json j;
    pc_json_init(&j, jf);
    pc_json_obj(&j, NULL);
    pc_json_str(&j, "property", p->name);
    pc_json_str(&j, "outcome", oc->kind == PC_O_IMPLERR ? "implementation-error" : "fail");
    char s[32];
    snprintf(s, sizeof s, "0x%016" PRIx64, fd->seed);
    pc_json_str(&j, "case_seed", fd->has_seed ? s : NULL);
    pc_json_int(&j, "run_seed", (long long)r->params->seed);
    pc_json_str(&j, "origin", fd->origin);
    pc_json_int(&j, "case_index", fd->index);
    pc_json_int(&j, "shrink_steps", fd->steps);
    pc_json_num(&j, "measured", oc->measured);
    pc_json_num(&j, "bound", oc->bound);
    pc_json_float(&j, "measured_exact", oc->measured);
    pc_json_str(&j, "where", oc->where);
    case_json(&j, "original", p, r, &fd->orig);
    pc_json_num(&j, "original_measured", fd->oc0.measured);
    pc_json_num(&j, "original_bound", fd->oc0.bound);
    case_json(&j, "shrunk", p, r, &fd->cur);
    pc_json_str(&j, "cause", why);
    pc_json_str(&j, "replay", replay);
    pc_json_end(&j);
}

static void fail_summary(pc_verdict *v, const pc_property *p, const pc_prun *r, const pc_found *fd)
{
    const pc_outcome *oc = &fd->oc;
    if (oc->kind == PC_O_IMPLERR) {
        snprintf(v->summary, sizeof v->summary, "implementation error: %s", oc->msg);
        return;
    }
    char cl[200];
    FILE *cf = fmemopen(cl, sizeof cl, "w");
    if (cf) { case_line(cf, p, r, &fd->cur); fputc('\0', cf); fclose(cf); } else cl[0] = '\0';
    cl[sizeof cl - 1] = '\0';
    snprintf(v->summary, sizeof v->summary, "%s = %.3g %s %.3g at %s; smallest case: %s",
             p->measured_what, oc->measured, oc->above ? "<= margin" : "> bound", oc->bound,
             oc->where, cl);
}

pc_status pc_eng_write_fail(const pc_property *p, pc_prun *r, pc_found *fd, pc_verdict *v,
                            const char *save_note, pc_err *err)
{
    streams s;
    pc_status st = streams_open(&s, err);
    if (st != PC_OK) return st;
    char replay[600], cause[300];
    replay_cmd(replay, sizeof replay, p, r, fd->has_seed, fd->seed);
    const char *why = fail_cause(p, r, fd, cause, sizeof cause);
    st = fail_text(s.f, p, r, fd, v, replay, why, save_note, err);
    if (st != PC_OK) { streams_abandon(&s); return st; }
    fail_json(s.jf, p, r, fd, replay, why);
    streams_give(&s, v);
    v->status = PC_FAIL;
    v->measured = fd->oc.measured;
    v->bound = fd->oc.bound;
    if (fd->has_seed) v->seed = fd->seed;
    fail_summary(v, p, r, fd);
    return PC_OK;
}

/* ---- a pass --------------------------------------------------------------- */

static void pass_text(FILE *f, const pc_property *p, const pc_prun *r, const pc_verdict *v,
                      long ncases, int nreg, const pc_case *worst, const pc_outcome *woc,
                      const char *note)
{
    fprintf(f, "ok[%s]: %s (%s%s%s): %s\n", p->name, r->impl->name, r->family,
            v->layout[0] ? ", " : "", v->layout, p->title);
    fprintf(f, "  expected: %s\n", p->expect);
    if (pc_eng_formula_family(r)) bound_line(f, r);
    fprintf(f, "  cases: %ld (%d from the regression file), positions %" PRId64 "..%" PRId64
            ", run seed %" PRIu64 "\n", ncases, nreg, r->lo, r->hi, r->params->seed);
    if (ncases > 0) {
        fprintf(f, "  worst case: %s = ", p->measured_what);
        pc_p_float(f, woc->measured);
        fprintf(f, " (%s %.6g) at %s\n      ", woc->above ? "must exceed" : "bound", woc->bound, woc->where);
        case_line(f, p, r, worst);
        fputc('\n', f);
    }
    if (note) fprintf(f, "  note: %s\n", note);
}

static void pass_json(FILE *jf, const pc_property *p, const pc_prun *r, long ncases, int nreg,
                      const pc_case *worst, const pc_outcome *o2)
{
    pc_json j;
    pc_json_init(&j, jf);
    pc_json_obj(&j, NULL);
    pc_json_str(&j, "property", p->name);
    pc_json_str(&j, "outcome", o2->kind == PC_O_PASS ? "pass"
                             : o2->kind == PC_O_IMPLERR ? "implementation-error" : "fail");
    pc_json_int(&j, "run_seed", (long long)r->params->seed);
    pc_json_int(&j, "cases", ncases);
    pc_json_int(&j, "regression_cases", nreg);
    pc_json_num(&j, "measured", o2->measured);
    pc_json_num(&j, "bound", o2->bound);
    pc_json_str(&j, "where", o2->where);
    if (ncases > 0) case_json(&j, "worst_case", p, r, worst);
    pc_json_end(&j);
}

static void pass_summary(pc_verdict *v, const pc_property *p, long ncases, const pc_outcome *o2,
                         const char *note)
{
    /* a pass whose worst case is inside its margin says why that passes */
    const char *why = o2->above && o2->measured <= o2->bound ? p->margin_note : NULL;
    if (o2->kind == PC_O_IMPLERR) /* a call of the property's report failed */
        snprintf(v->summary, sizeof v->summary, "implementation error: %s", o2->msg);
    else if (o2->kind == PC_O_PASS)
        snprintf(v->summary, sizeof v->summary, "%ld cases pass; worst %s = %.3g (%s %.3g%s%s)%s%s",
                 ncases, p->measured_what, o2->measured, o2->above ? "margin" : "bound", o2->bound,
                 why ? ", not required: " : "", why ? why : "", note ? "; " : "", note ? note : "");
    else
        snprintf(v->summary, sizeof v->summary, "%s = %.3g %s %.3g at %s",
                 p->measured_what, o2->measured, o2->above ? "<= margin" : "> bound", o2->bound,
                 o2->where);
}

pc_status pc_eng_write_pass(const pc_property *p, pc_prun *r, long ncases, int nreg,
                            const pc_case *worst, const pc_outcome *woc, pc_verdict *v,
                            const char *note, pc_err *err)
{
    streams s;
    pc_status st = streams_open(&s, err);
    if (st != PC_OK) return st;
    pass_text(s.f, p, r, v, ncases, nreg, worst, woc, note);
    pc_outcome o2 = *woc;
    if (p->report) {
        st = p->report(r, worst, &o2, s.f, err);
        if (st != PC_OK) { streams_abandon(&s); return st; }
    }
    pass_json(s.jf, p, r, ncases, nreg, worst, &o2);
    streams_give(&s, v);
    v->status = o2.kind == PC_O_PASS ? PC_OK : PC_FAIL;
    v->measured = o2.measured;
    v->bound = o2.bound;
    pass_summary(v, p, ncases, &o2, note);
    return PC_OK;
}

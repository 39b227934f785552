/* spec.c: the shared encoding options, the given options' lookup, and the
 * specs of the registry's families (spec.h). */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include "spec.h"
#include "family.h"
#include "spec_sched.h"
#include <stdarg.h>
#include <stdlib.h>
#include "harness/base/parse.h"
#include "harness/base/suggest.h"
#include "reference/reference.h"
#include "harness/engine/accuracy.h"
#include "harness/engine/model.h"

/* ---- the shared encoding options ---------------------------------------- */

static pc_status check_d(const char *v, pc_err *err)
{
    int64_t x;
    if (v[0] == '-' && strcmp(v, "-0") != 0)
        return pc_seterr(err, PC_EINPUT, "--d: must be a positive even integer, got '%s'", v);
    pc_status st = pc_parse_i64("--d", v, 0, INT32_MAX, &x, err);
    if (st != PC_OK) return st;
    if (x < 2 || x % 2 != 0 || x > PC_D_MAX)
        return pc_seterr(err, PC_EINPUT, "--d: must be an even integer in [2, %d], got %s",
                         PC_D_MAX, v);
    return PC_OK;
}

static pc_status check_base(const char *v, pc_err *err)
{
    double b;
    pc_status st = pc_parse_double("--base", v, &b, err);
    if (st != PC_OK) return st;
    if (!(b > 1.0)) return pc_seterr(err, PC_EINPUT, "--base: must be > 1, got %s", v);
    return PC_OK;
}

int pc_spec_layout_of(const char *v)
{
    return !strcmp(v, "interleaved") ? 0 : !strcmp(v, "half") ? 1 : -1;
}

static pc_status check_layout(const char *v, pc_err *err)
{
    if (pc_spec_layout_of(v) >= 0) return PC_OK;
    pc_suggest s;
    char hint[96];
    pc_suggest_init(&s, v);
    pc_suggest_add_list(&s, "interleaved half");
    return pc_seterr(err, PC_EINPUT, "--layout: expected interleaved or half, got '%s'%s", v,
                     pc_suggest_text(&s, "", hint, sizeof hint));
}

const pc_option pc_spec_options[] = {
    { "d", "N", "model (or head) dimension, even, 2..8192; default 128 (tables: their width)",
      check_d, 0 },
    { "base", "B", "frequency base, > 1; default 10000 (a RoPE table without it or a config: the "
      "base its rows fit, which the check named base fails unless --assume-fitted; rows that fit "
      "no one base, a scaled cache such as llama3's, are checked against 10000 and the likely "
      "cause names their schedule; identify: the base a built-in or plugin is called with)",
      check_base, 0 },
    { "layout", "L", "pair layout: interleaved (sin,cos pairs) or half (sin block, cos block); "
      "default: check gates both, accuracy interleaved (half for a RoPE that declines it)",
      check_layout, 0 },
    { "assume-fitted", "", "a table given without --base or a config: accept the base fitted from "
      "its own rows, as fitted when it is not a number of 3 significant digits (without it the "
      "check named base fails: a cache built with another model's base passes against its own)",
      NULL, 0 },
};
const size_t pc_spec_n_options = sizeof pc_spec_options / sizeof pc_spec_options[0];

void pc_spec_defaults(pc_spec *s)
{
    const struct pc_family *fam = s->family;
    memset(s, 0, sizeof *s);
    s->family = fam;
    s->d = 128;          /* a common head/model width; d_model 512 in the articles */
    s->base = 10000.0;   /* the paper's base */
    s->layout = -1;
    s->model_layout = -1;
    snprintf(s->base_from, sizeof s->base_from, "the default");
}

/* ---- the given options ---------------------------------------------------- */

const char *pc_given_value(const pc_given *g, const char *name)
{
    for (int k = g->n - 1; k >= 0; k--)
        if (!strcmp(g->opt[k]->name, name)) return g->value[k];
    return NULL;
}

static const pc_option *find_in(const pc_option *opts, size_t n, const char *name)
{
    for (size_t k = 0; k < n; k++)
        if (!strcmp(opts[k].name, name)) return &opts[k];
    return NULL;
}

const pc_option *pc_option_find(const char *name)
{
    const pc_option *o = find_in(pc_spec_options, pc_spec_n_options, name);
    for (size_t k = 0; !o && k < pc_family_count(); k++) {
        const pc_spec_kind *sk = pc_family_at(k)->spec;
        if (sk) o = find_in(sk->options, sk->n_options, name);
    }
    return o;
}

void pc_option_each(void (*f)(const pc_option *opt, void *ctx), void *ctx)
{
    for (size_t k = 0; k < pc_spec_n_options; k++) f(&pc_spec_options[k], ctx);
    for (size_t k = 0; k < pc_family_count(); k++) {
        const pc_spec_kind *sk = pc_family_at(k)->spec;
        for (size_t j = 0; sk && j < sk->n_options; j++)
            if (pc_option_find(sk->options[j].name) == &sk->options[j]) f(&sk->options[j], ctx);
    }
}

void pc_option_each_of(const char *name, void (*f)(const pc_option *opt, void *ctx), void *ctx)
{
    const pc_option *o = find_in(pc_spec_options, pc_spec_n_options, name);
    if (o) f(o, ctx);
    for (size_t k = 0; k < pc_family_count(); k++) {
        const pc_spec_kind *sk = pc_family_at(k)->spec;
        if (sk && (o = find_in(sk->options, sk->n_options, name))) f(o, ctx);
    }
}

/* ---- the specs ----------------------------------------------------------------- */

/* The shared part of SPEC from GIVEN (values already validated). */
static void resolve_shared(const pc_given *g, pc_spec *s)
{
    const char *v;
    pc_spec_defaults(s);
    if ((v = pc_given_value(g, "d"))) {
        s->d = (int)strtol(v, NULL, 10);
        s->d_set = s->d_known = 1;
    }
    if ((v = pc_given_value(g, "base"))) {
        s->base = strtod(v, NULL);
        s->base_set = 1;
        snprintf(s->base_from, sizeof s->base_from, "--base");
    }
    if ((v = pc_given_value(g, "layout"))) s->layout = pc_spec_layout_of(v);
    s->assume_fitted = pc_given_value(g, "assume-fitted") != NULL;
}

pc_status pc_specs_resolve(const pc_given *given, pc_specs *out, pc_err *err)
{
    memset(out, 0, sizeof *out);
    if (pc_family_count() > PC_SPEC_FAMILIES)
        return pc_seterr(err, PC_EINTERNAL, "more than %d families", PC_SPEC_FAMILIES);
    pc_status st = PC_OK;
    for (size_t k = 0; k < pc_family_count() && st == PC_OK; k++) {
        pc_spec *s = &out->spec[out->n++];
        s->family = pc_family_at(k);
        resolve_shared(given, s);
        if (s->family->spec && s->family->spec->resolve)
            st = s->family->spec->resolve(given, s, err);
        if (st == PC_EINPUT) { /* kept: raised where a source is this family's */
            s->unread = st;
            s->unread_err = *err;
            st = PC_OK;
        }
    }
    if (st != PC_OK) pc_specs_release(out);
    return st;
}

pc_status pc_spec_usable(const pc_spec *spec, pc_err *err)
{
    if (spec && spec->unread != PC_OK) *err = spec->unread_err;
    return spec ? spec->unread : PC_OK;
}

void pc_specs_release(pc_specs *s)
{
    for (int k = 0; k < s->n; k++) {
        const pc_spec_kind *sk = s->spec[k].family->spec;
        if (sk && sk->release) sk->release(&s->spec[k]);
        s->spec[k].own = NULL;
    }
    s->n = 0;
}

const pc_spec *pc_specs_of(const pc_specs *s, const struct pc_family *family)
{
    for (int k = 0; k < s->n; k++)
        if (!family || s->spec[k].family == family) return &s->spec[k];
    return NULL;
}

pc_status pc_spec_schedule(const pc_spec *spec, struct pc_acc_cfg *cfg, pc_spec_sched *hold,
                           pc_err *err)
{
    memset(hold, 0, sizeof *hold);
    const pc_spec_kind *sk = spec ? spec->family->spec : NULL;
    hold->kind = sk;
    pc_status st = sk && sk->schedule ? sk->schedule(spec, cfg, hold, err) : PC_OK;
    /* --formulation hf or ggml over several families (--impl all): a
     * family without that class runs its own strict class (cr), and its
     * verdict says so; a run where no source takes it was refused before
     * (pc_sources_options_apply) */
    if (st == PC_OK && spec && pc_model_class_computed(cfg->strict) && !cfg->form
        && !(spec->family->flags & PC_FAM_CLASS_COMPUTED)) {
        const char *k = pc_model_class_name(cfg->strict);
        cfg->strict = PC_CLASS_STRICT;
        snprintf(hold->class_note, sizeof hold->class_note, "--formulation %s is the %s class of "
                 "the families that have one; %s has no %s class and runs its own strict class",
                 k, k, spec->family->name, k);
        cfg->class_note = hold->class_note;
    }
    return st;
}

void pc_spec_sched_release(pc_spec_sched *hold)
{
    if (hold->set && hold->kind && hold->kind->sched_release) hold->kind->sched_release(hold);
    hold->set = 0;
    free(hold->form_own);
    hold->form_own = NULL;
}

void pc_spec_free_own(pc_spec *spec)
{
    free(spec->own);
    spec->own = NULL;
}

int pc_spec_scheduled(const pc_spec *spec)
{
    const pc_spec_kind *sk = spec ? spec->family->spec : NULL;
    return sk && sk->scheduled && sk->scheduled(spec);
}

void pc_spec_args(const pc_spec *s, char *buf, size_t len)
{
    size_t u = strlen(buf);
    if (s->d_set && u < len) u += (size_t)snprintf(buf + u, len - u, " --d %d", s->d);
    if (s->base_set && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --base %.17g", s->base);
    if (s->layout >= 0 && u < len)
        u += (size_t)snprintf(buf + u, len - u, " --layout %s", s->layout ? "half" : "interleaved");
    if (s->assume_fitted && u < len) snprintf(buf + u, len - u, " --assume-fitted");
    const pc_spec_kind *sk = s->family->spec;
    if (sk && sk->args) sk->args(s, buf, len);
}

/* ---- command-line arguments (family.h) ---------------------------------- */

void pc_args_add(pc_args *a, const char *fmt, ...)
{
    char *v = NULL;
    va_list ap;
    va_start(ap, fmt);
    int n = vasprintf(&v, fmt, ap);
    va_end(ap);
    if (n < 0 || a->n >= PC_ARGS_MAX) {
        if (n >= 0) free(v);
        a->lost = 1;
        return;
    }
    a->v[a->n++] = v;
}

void pc_args_free(pc_args *a)
{
    for (int k = 0; k < a->n; k++) free(a->v[k]);
    a->n = 0;
}

/* ---- tables a family reads itself (family.h) ------------------------------ */

pc_family_table *pc_family_table_of(const pc_impl *impl, unsigned magic)
{
    if (!impl || impl->ctx != (const void *)impl) return NULL;
    pc_family_table *t = impl->ctx;
    return t->magic == magic ? t : NULL;
}

void *pc_family_table_new(size_t size, unsigned magic, const char *family, const char *path,
                          pc_status (*read)(const char *, pc_npy *, pc_err *), pc_status *st,
                          pc_err *err)
{
    pc_family_table *t = calloc(1, size);
    if (!t) {
        *st = pc_seterr(err, PC_ENOMEM, "out of memory");
        return NULL;
    }
    t->magic = magic;
    t->impl.ctx = t;
    *st = read(path, &t->a, err);
    if (*st == PC_EIO) *st = PC_EINPUT; /* a missing table is bad input (exit 2) */
    t->path = strdup(path);
    if (*st == PC_OK && !t->path) *st = pc_seterr(err, PC_ENOMEM, "out of memory");
    if (*st != PC_OK) {
        pc_family_table_free(t);
        return NULL;
    }
    t->impl.name = t->path;
    t->impl.family_hint = family;
    t->impl.expect_pass = 1;
    return t;
}

void pc_family_table_free(pc_family_table *t)
{
    if (!t) return;
    pc_npy_free(&t->a);
    free(t->path);
    free(t);
}

/* engine.c: the property engine: cases from seeds, the regression file,
 * shrinking, and verdicts that read like compiler errors.
 *
 * For one property on one implementation and family:
 *   1. the cases saved in the regression file for (property, family,
 *      implementation) run first (Hypothesis's example database), then
 *      --cases generated ones; case number I has the seed
 *      pc_hash3(run seed, hash(property), I), so `--replay SEED` reruns
 *      exactly that case;
 *   2. the first failing case is shrunk by the generic shrinker (smaller d,
 *      positions toward their target, smaller offset, shorter sequence,
 *      vectors with fewer nonzero entries, a transposition instead of a
 *      random permutation), keeping only candidates that fail the same way;
 *   3. the verdict carries the measured value and its bound, the shrunk
 *      counterexample in text (floats as decimal and %a), the seed and the
 *      replay command, and a JSON object with the original and shrunk cases;
 *   4. a failing generated case is appended to the regression file.
 * `accuracy` is in the catalogue but runs only when selected with
 * --property (`pecheck check` runs the accuracy gate itself). */
#include <inttypes.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include "property.h"
#include "../harness/json.h"
#include "../harness/model.h"
#include "../harness/output.h"
#include "../harness/property.h"
#include "../families/family.h"

/* A family with certified rows (sinusoidal, RoPE): a layout, a base. */
static int formula_family(const pc_prun *r)
{
    const pc_family *f = pc_family_find(r->family);
    return f && f->rows;
}

/* Rows that rotate an input vector (RoPE): the case's vectors matter. */
static int rotates_input(const pc_prun *r)
{
    const pc_family *f = pc_family_find(r->family);
    return f && f->rows && f->rows->input;
}

/* ------------------------------------------------------------------ */
/* The catalogue: one line per property                               */

#define PC_PROPERTIES(X) \
    X(unique) X(linear_shift) X(dot_distance) X(pair_norm) \
    X(rope_relative) X(rope_norm) X(decay) \
    X(equivariance) X(learned_range) X(extrapolation) X(accuracy) \
    X(t5_reference) X(t5_exact) X(t5_monotone) X(t5_saturate) X(t5_symmetric) X(t5_bias_relative) X(alibi_slopes) X(alibi_linear) X(alibi_relative) X(alibi_decay) X(txl_relative) X(txl_segment) X(txl_reference)

#define DECLARE(n) extern const pc_property pc_prop_##n;
PC_PROPERTIES(DECLARE)
#define ENTRY(n) &pc_prop_##n,
static const pc_property *const catalogue[] = { PC_PROPERTIES(ENTRY) };

size_t pc_property_count(void) { return sizeof catalogue / sizeof catalogue[0]; }

const pc_property *pc_property_at(size_t k)
{
    return k < pc_property_count() ? catalogue[k] : NULL;
}

const pc_property *pc_property_find(const char *name)
{
    for (size_t k = 0; k < pc_property_count(); k++)
        if (!strcmp(catalogue[k]->name, name))
            return catalogue[k];
    return NULL;
}

int pc_property_applies(const pc_property *p, const char *family)
{
    size_t n = strlen(family);
    for (const char *s = p->families; (s = strstr(s, family)) != NULL; s += n)
        if ((s == p->families || s[-1] == ' ') && (s[n] == ' ' || s[n] == '\0'))
            return 1;
    return 0;
}

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

/* ------------------------------------------------------------------ */
/* The regression file                                                */

static const char *regress_path(const pc_opts *o)
{
    const char *p = o->regressions;
    if (!p) p = getenv("PECHECK_REGRESSIONS");
    if (!p || !*p) p = ".pecheck-regressions";
    return strcmp(p, "off") ? p : NULL;
}

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
        if (n + 1 >= cap) {
            char *nb = cap < ((size_t)64 << 20) ? realloc(buf, cap * 2) : NULL;
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    if (buf) buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A regression line: "property=P family=F seed=0xS d=D positions=A:B impl=NAME".
 * Fills SEED when the line names P, F and IMPL. */
static int regress_match(const char *line, size_t len, const char *prop, const char *family,
                         const char *impl, uint64_t *seed)
{
    char buf[1024];
    if (len == 0 || line[0] == '#' || len >= sizeof buf) return 0;
    memcpy(buf, line, len);
    buf[len] = '\0';
    const char *ip = strstr(buf, " impl=");
    if (!ip || strcmp(ip + 6, impl)) return 0;
    buf[ip - buf] = '\0';
    int ok_p = 0, ok_f = 0, ok_s = 0;
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (!strncmp(t, "property=", 9)) ok_p = !strcmp(t + 9, prop);
        else if (!strncmp(t, "family=", 7)) ok_f = !strcmp(t + 7, family);
        else if (!strncmp(t, "seed=", 5)) {
            char *end;
            *seed = strtoull(t + 5, &end, 0);
            ok_s = *end == '\0' && end != t + 5;
        }
    }
    return ok_p && ok_f && ok_s;
}

#define PC_REGRESS_MAX 64  /* saved cases tried per property: a bound on the file's cost */

static int regress_load(const char *path, const pc_property *p, const char *family,
                        const char *impl, uint64_t *seeds)
{
    if (!path) return 0;
    char *text = slurp(path);
    if (!text) return 0;
    int n = 0;
    for (char *l = text; *l && n < PC_REGRESS_MAX;) {
        char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        uint64_t s;
        if (regress_match(l, len, p->name, family, impl, &s)) {
            int dup = 0;
            for (int k = 0; k < n; k++) dup |= seeds[k] == s;
            if (!dup) seeds[n++] = s;
        }
        l += len + (e ? 1 : 0);
    }
    free(text);
    return n;
}

/* Append one line unless present; the file is rewritten atomically. */
static pc_status regress_save(const char *path, const pc_property *p, const pc_prun *r,
                              uint64_t seed, pc_err *err)
{
    uint64_t seeds[PC_REGRESS_MAX];
    int n = regress_load(path, p, r->family, r->impl->name, seeds);
    for (int k = 0; k < n; k++)
        if (seeds[k] == seed) return PC_OK;
    char *old = slurp(path);
    pc_out out;
    pc_status st = pc_out_open(&out, path, err);
    if (st != PC_OK) { free(old); return st; }
    if (old && *old) {
        fputs(old, out.f);
        if (old[strlen(old) - 1] != '\n') fputc('\n', out.f);
    } else {
        fputs("# pecheck regressions: failing cases, tried first by later runs of `pecheck check`\n"
              "# (one per line; the implementation's name is the rest of the line after impl=)\n",
              out.f);
    }
    fprintf(out.f, "property=%s family=%s seed=0x%016" PRIx64 " d=%d positions=%" PRId64 ":%" PRId64
            " impl=%s\n", p->name, r->family, seed, r->o->d, r->o->pos_lo, r->o->pos_hi,
            r->impl->name);
    free(old);
    return pc_out_close(&out, 1, err);
}

/* ------------------------------------------------------------------ */
/* Shrinking                                                          */

#define PC_SHRINK_MAX_CHECKS 3000 /* checks spent shrinking one failure */
#define PC_MAX_CANDS 1024
#define PC_SHRINK_LINEAR 16       /* values right below a field tried one by one */

/* Candidates for X toward T: T, then X - (X-T)/2^j, ..., X -+ 1. */
static int int_cands(int64_t x, int64_t t, int64_t *out, int max)
{
    int n = 0;
    if (x == t) return 0;
    out[n++] = t;
    int64_t diff = x - t;
    for (int64_t h = diff / 2; h != 0 && n < max - 1; h /= 2)
        out[n++] = x - h;
    /* then the values just before X, nearest to T first: the greedy halving
     * can step over the smallest failing value (bfloat16 collisions: 256
     * fails, 257 and 258 pass, 259 fails) */
    int64_t span = diff > 0 ? diff : -diff;
    int64_t lin = span < PC_SHRINK_LINEAR ? span : PC_SHRINK_LINEAR;
    for (int64_t j = lin; j >= 1 && n < max; j--)
        out[n++] = x - (diff > 0 ? j : -j);
    return n;
}

static int add_cand(pc_case *cands, int n, const pc_case *c)
{
    if (n < PC_MAX_CANDS) cands[n++] = *c;
    return n;
}

static int shrink_cands(const pc_property *p, const pc_prun *r, const pc_case *cur,
                        const pc_outcome *oc, pc_case *cands)
{
    int n = 0;
    int64_t v[96];
    pc_case c;
    if (p->shrink & PC_SH_DROP)
        for (int j = 0; j < cur->npos && cur->npos > 1; j++) {
            c = *cur;
            memmove(c.pos + j, c.pos + j + 1, (size_t)(c.npos - j - 1) * sizeof c.pos[0]);
            c.npos--;
            n = add_cand(cands, n, &c);
        }
    if (p->shrink & PC_SH_D) {
        int m = int_cands(cur->d / 2, 1, v, 96); /* in pairs: d/2 toward 1 */
        for (int k = 0; k < m; k++) {
            c = *cur;
            c.d = (int)(2 * v[k]);
            if (c.pair >= c.d / 2) c.pair = 0;
            n = add_cand(cands, n, &c);
        }
    }
    if (p->shrink & PC_SH_N) {
        int m = int_cands(cur->n, 2, v, 96);
        for (int k = 0; k < m; k++) { c = *cur; c.n = (int)v[k]; n = add_cand(cands, n, &c); }
    }
    if (p->shrink & PC_SH_PERM && cur->perm == 0) {
        c = *cur; c.perm = 1; n = add_cand(cands, n, &c);
    }
    if (p->shrink & PC_SH_K) {
        int m = int_cands(cur->k, p->k_min, v, 96);
        for (int k = 0; k < m; k++) { c = *cur; c.k = v[k]; n = add_cand(cands, n, &c); }
    }
    if (p->shrink & PC_SH_POS)
        for (int j = 0; j < cur->npos; j++) {
            int64_t t = p->pos_target ? p->pos_target(r, cur, j) : r->lo;
            int m = int_cands(cur->pos[j], t, v, 96);
            for (int k = 0; k < m; k++) { c = *cur; c.pos[j] = v[k]; n = add_cand(cands, n, &c); }
        }
    if ((p->shrink & PC_SH_VEC) && rotates_input(r)) {
        if (cur->vmode == PC_V_DENSE) {
            int half = cur->d / 2;
            if (oc->pair >= 0 && oc->pair < half) {
                c = *cur; c.vmode = PC_V_PAIR; c.pair = oc->pair; n = add_cand(cands, n, &c);
            }
            for (int i = 0; i < half && i < 8; i++) {
                c = *cur; c.vmode = PC_V_PAIR; c.pair = i; n = add_cand(cands, n, &c);
            }
        } else {
            if (cur->vmode == PC_V_PAIR) {
                c = *cur; c.vmode = PC_V_UNIT; n = add_cand(cands, n, &c);
            }
            int m = int_cands(cur->pair, 0, v, 96);
            for (int k = 0; k < m; k++) { c = *cur; c.pair = (int)v[k]; n = add_cand(cands, n, &c); }
        }
    }
    return n;
}

static pc_status shrink(const pc_property *p, pc_prun *r, pc_case *cur, pc_outcome *oc,
                        int *steps, pc_err *err)
{
    pc_case *cands = malloc(PC_MAX_CANDS * sizeof *cands);
    if (!cands) return pc_p_nomem(err);
    int checks = 0;
    *steps = 0;
    for (int progress = 1; progress && checks < PC_SHRINK_MAX_CHECKS;) {
        progress = 0;
        int n = shrink_cands(p, r, cur, oc, cands);
        for (int k = 0; k < n && checks < PC_SHRINK_MAX_CHECKS; k++) {
            if (p->valid && !p->valid(r, &cands[k])) continue;
            pc_outcome o2;
            checks++;
            pc_status st = p->check(r, &cands[k], &o2, err);
            if (st != PC_OK) { free(cands); return st; }
            if (o2.kind == oc->kind && o2.sub == oc->sub) {
                *cur = cands[k];
                *oc = o2;
                (*steps)++;
                progress = 1;
                break;
            }
        }
    }
    free(cands);
    return PC_OK;
}

/* ------------------------------------------------------------------ */
/* Printing                                                           */

static const char *vmode_name(int m)
{
    return m == PC_V_DENSE ? "dense" : m == PC_V_PAIR ? "pair" : "unit";
}

static void case_line(FILE *f, const pc_property *p, const pc_prun *r, const pc_case *c)
{
    fprintf(f, "d = %d", c->d);
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
    if (p->k_name) fprintf(f, ", %s = %" PRId64, p->k_name, c->k);
    if (p->shrink & PC_SH_N) fprintf(f, ", n = %d", c->n);
    if (p->shrink & PC_SH_PERM) fprintf(f, ", permutation = %s", c->perm ? "swap rows 0 and 1" : "random");
    if ((p->shrink & PC_SH_VEC) && rotates_input(r)) {
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
    if ((p->shrink & PC_SH_VEC) && rotates_input(r)) {
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

static void replay_cmd(char *buf, size_t len, const pc_property *p, const pc_prun *r,
                       int has_seed, uint64_t seed)
{
    const pc_opts *o = r->o;
    char extra[512] = "";
    size_t u = 0;
    if (o->table_sin && !strcmp(source_opt(r->impl), "--table"))
        u += (size_t)snprintf(extra + u, sizeof extra - u, " --table-sin %s", o->table_sin);
    if (u >= sizeof extra) u = sizeof extra - 1;
    if (o->dtype_set && u < sizeof extra)
        u += (size_t)snprintf(extra + u, sizeof extra - u, " --dtype %s", pc_dtype_name(o->dtype));
    if (o->tol_abs >= 0 && u < sizeof extra)
        u += (size_t)snprintf(extra + u, sizeof extra - u, " --tol-abs %g", o->tol_abs);
    if (o->causal && u < sizeof extra)
        snprintf(extra + u, sizeof extra - u, " --causal");
    char lay[48] = "";
    if (formula_family(r))
        snprintf(lay, sizeof lay, " --base %g --layout %s", o->base, pc_layout_name(r->layout));
    int n = snprintf(buf, len, "pecheck check %s %s --family %s --d %d%s "
                     "--positions %" PRId64 ":%" PRId64 "%s --property %s",
                     source_opt(r->impl), r->impl->name, r->family, o->d, lay,
                     o->pos_lo, o->pos_hi, extra, p->name);
    if (has_seed && n > 0 && (size_t)n < len)
        snprintf(buf + n, len - (size_t)n, " --replay 0x%016" PRIx64, seed);
}

/* ------------------------------------------------------------------ */
/* One property                                                       */

static double now(void)
{
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

/* Probe the layout: --layout if given, else interleaved, else half. */
static pc_status pick_layout(pc_prun *r, pc_outcome *oc)
{
    if (r->o->layout >= 0) { r->layout = r->o->layout; return PC_OK; }
    int is_rope = rotates_input(r);
    if (!formula_family(r)) { r->layout = 0; return PC_OK; }
    int d = r->o->d;
    float *x = calloc((size_t)d, sizeof *x), *out = calloc((size_t)d, sizeof *out);
    if (!x || !out) { free(x); free(out); return PC_ENOMEM; }
    int64_t pos = r->lo;
    int rc = 1;
    for (int layout = 0; layout <= 1 && rc; layout++) {
        r->layout = layout;
        rc = is_rope ? pc_p_rope(r, &pos, 1, d, x, out) : pc_p_sinusoidal(r, &pos, 1, d, out);
    }
    free(x);
    free(out);
    if (rc) {
        r->layout = 0;
        pc_p_implerr(r, oc);
        snprintf(oc->msg, sizeof oc->msg, "the implementation declines both layouts (%.200s)", r->implmsg);
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

static void fill_head(pc_verdict *v, const pc_property *p, const pc_prun *r)
{
    snprintf(v->check, sizeof v->check, "%s", p->name);
    snprintf(v->family, sizeof v->family, "%s", r->family);
    snprintf(v->impl, sizeof v->impl, "%s", r->impl->name);
    if (formula_family(r))
        snprintf(v->layout, sizeof v->layout, "%s", pc_layout_name(r->layout));
    snprintf(v->measured_what, sizeof v->measured_what, "%s", p->measured_what);
    v->seed = r->o->seed;
}


static void bound_line(FILE *f, const pc_prun *r)
{
    char m[200];
    pc_model_describe(m, sizeof m, r->C, r->u, r->o->dtype, r->tol_abs, 0);
    fprintf(f, "            model: %s\n", m);
}

typedef struct pc_found {
    int any;
    pc_case orig, cur;
    pc_outcome oc0, oc;
    int has_seed;
    uint64_t seed;
    const char *origin;  /* "regression", "generated", "replay", "sweep" */
    long index;
    int steps;
} pc_found;

static pc_status write_fail(const pc_property *p, pc_prun *r, pc_found *fd, pc_verdict *v,
                            const char *save_note, pc_err *err)
{
    char *text = NULL, *json = NULL;
    size_t tl = 0, jl = 0;
    FILE *f = open_memstream(&text, &tl);
    FILE *jf = open_memstream(&json, &jl);
    if (!f || !jf) {
        if (f) fclose(f);
        if (jf) fclose(jf);
        free(text); free(json);
        return pc_p_nomem(err);
    }
    pc_outcome *oc = &fd->oc;
    char replay[600], cause[300];
    replay_cmd(replay, sizeof replay, p, r, fd->has_seed, fd->seed);
    const char *why = NULL;
    if (oc->kind == PC_O_IMPLERR)
        why = oc->msg;
    else if (p->cause)
        why = p->cause(r, &fd->cur, oc, cause, sizeof cause);
    if (!why && r->impl->flaw) why = r->impl->flaw;

    fprintf(f, "error[%s]: %s (%s%s%s): %s\n", p->name, r->impl->name, r->family,
            v->layout[0] ? ", " : "", v->layout, p->title);
    fprintf(f, "  expected: %s\n", p->expect);
    if (oc->kind != PC_O_IMPLERR && formula_family(r)) bound_line(f, r);
    if (oc->kind == PC_O_IMPLERR) {
        fprintf(f, "  measured: the implementation reported an error: %s\n", oc->msg);
    } else {
        fprintf(f, "  measured: %s = ", p->measured_what);
        pc_p_float(f, oc->measured);
        fprintf(f, "\n            %s = ", oc->above ? "must exceed" : "bound      ");
        pc_p_float(f, oc->bound);
        fprintf(f, "\n            at %s\n", oc->where);
    }
    fprintf(f, "  smallest counterexample (%d shrink step%s from ", fd->steps, fd->steps == 1 ? "" : "s");
    case_line(f, p, r, &fd->orig);
    fprintf(f, "):\n      ");
    case_line(f, p, r, &fd->cur);
    fputc('\n', f);
    if (p->show && oc->kind != PC_O_IMPLERR) p->show(r, &fd->cur, oc, f);
    if (fd->has_seed)
    {
        if (fd->index >= 0)
            fprintf(f, "  seed: 0x%016" PRIx64 " (%s case %ld, run seed %" PRIu64 ")\n", fd->seed,
                    fd->origin, fd->index, r->o->seed);
        else
            fprintf(f, "  seed: 0x%016" PRIx64 " (%s, run seed %" PRIu64 ")\n", fd->seed,
                    fd->origin, r->o->seed);
    }
    else
        fprintf(f, "  seed: none (found by the %s over the whole range; run seed %" PRIu64 ")\n",
                fd->origin, r->o->seed);
    fprintf(f, "  replay: %s\n", replay);
    if (why) fprintf(f, "  likely cause: %s\n", why);
    if (save_note) fprintf(f, "  note: %s\n", save_note);
    if (p->report) {
        pc_outcome dummy = *oc;
        pc_status st = p->report(r, &fd->cur, &dummy, f, err);
        if (st != PC_OK) { fclose(f); fclose(jf); free(text); free(json); return st; }
    }

    pc_json j;
    pc_json_init(&j, jf);
    pc_json_obj(&j, NULL);
    pc_json_str(&j, "property", p->name);
    pc_json_str(&j, "outcome", oc->kind == PC_O_IMPLERR ? "implementation-error" : "fail");
    char s[32];
    snprintf(s, sizeof s, "0x%016" PRIx64, fd->seed);
    pc_json_str(&j, "case_seed", fd->has_seed ? s : NULL);
    pc_json_int(&j, "run_seed", (long long)r->o->seed);
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

    fclose(f);
    fclose(jf);
    v->status = PC_FAIL;
    v->measured = oc->measured;
    v->bound = oc->bound;
    if (fd->has_seed) v->seed = fd->seed;
    if (oc->kind == PC_O_IMPLERR) {
        snprintf(v->summary, sizeof v->summary, "implementation error: %s", oc->msg);
    } else {
        char cl[200];
        FILE *cf = fmemopen(cl, sizeof cl, "w");
        if (cf) { case_line(cf, p, r, &fd->cur); fputc('\0', cf); fclose(cf); } else cl[0] = '\0';
        cl[sizeof cl - 1] = '\0';
        snprintf(v->summary, sizeof v->summary, "%s = %.3g %s %.3g at %s; smallest case: %s",
                 p->measured_what, oc->measured, oc->above ? "<= margin" : "> bound", oc->bound,
                 oc->where, cl);
    }
    v->details = text;
    v->json = json;
    return PC_OK;
}

static pc_status write_pass(const pc_property *p, pc_prun *r, long ncases, int nreg,
                            const pc_case *worst, const pc_outcome *woc, pc_verdict *v,
                            pc_outcome *rep, const char *note, pc_err *err)
{
    char *text = NULL, *json = NULL;
    size_t tl = 0, jl = 0;
    FILE *f = open_memstream(&text, &tl);
    FILE *jf = open_memstream(&json, &jl);
    if (!f || !jf) {
        if (f) fclose(f);
        if (jf) fclose(jf);
        free(text); free(json);
        return pc_p_nomem(err);
    }
    fprintf(f, "ok[%s]: %s (%s%s%s): %s\n", p->name, r->impl->name, r->family,
            v->layout[0] ? ", " : "", v->layout, p->title);
    fprintf(f, "  expected: %s\n", p->expect);
    if (formula_family(r)) bound_line(f, r);
    fprintf(f, "  cases: %ld (%d from the regression file), positions %" PRId64 "..%" PRId64
            ", run seed %" PRIu64 "\n", ncases, nreg, r->lo, r->hi, r->o->seed);
    if (ncases > 0) {
        fprintf(f, "  worst case: %s = ", p->measured_what);
        pc_p_float(f, woc->measured);
        fprintf(f, " (%s %.6g) at %s\n      ", woc->above ? "must exceed" : "bound", woc->bound, woc->where);
        case_line(f, p, r, worst);
        fputc('\n', f);
    }
    if (note) fprintf(f, "  note: %s\n", note);
    pc_outcome o2 = *woc;
    if (p->report) {
        pc_status st = p->report(r, worst, &o2, f, err);
        if (st != PC_OK) { fclose(f); fclose(jf); free(text); free(json); return st; }
    }
    *rep = o2;
    pc_json j;
    pc_json_init(&j, jf);
    pc_json_obj(&j, NULL);
    pc_json_str(&j, "property", p->name);
    pc_json_str(&j, "outcome", o2.kind == PC_O_PASS ? "pass" : "fail");
    pc_json_int(&j, "run_seed", (long long)r->o->seed);
    pc_json_int(&j, "cases", ncases);
    pc_json_int(&j, "regression_cases", nreg);
    pc_json_num(&j, "measured", o2.measured);
    pc_json_num(&j, "bound", o2.bound);
    pc_json_str(&j, "where", o2.where);
    if (ncases > 0) case_json(&j, "worst_case", p, r, worst);
    pc_json_end(&j);
    fclose(f);
    fclose(jf);
    v->status = o2.kind == PC_O_PASS ? PC_OK : PC_FAIL;
    v->measured = o2.measured;
    v->bound = o2.bound;
    if (o2.kind == PC_O_PASS)
        snprintf(v->summary, sizeof v->summary, "%ld cases pass; worst %s = %.3g (%s %.3g)%s%s",
                 ncases, p->measured_what, o2.measured, o2.above ? "margin" : "bound", o2.bound,
                 note ? "; " : "", note ? note : "");
    else
        snprintf(v->summary, sizeof v->summary, "%s = %.3g %s %.3g at %s",
                 p->measured_what, o2.measured, o2.above ? "<= margin" : "> bound", o2.bound, o2.where);
    v->details = text;
    v->json = json;
    return PC_OK;
}

static pc_status skip_verdict(pc_verdict *v, const char *why)
{
    v->status = PC_SKIP;
    v->measured = (double)NAN;
    v->bound = (double)NAN;
    snprintf(v->summary, sizeof v->summary, "skipped: %s", why);
    return PC_OK;
}

pc_status pc_property_run_one(const pc_property *p, const pc_impl *impl, const char *family,
                              const pc_opts *o, pc_verdict *v, pc_err *err)
{
    double t0 = now();
    pc_prun r;
    memset(&r, 0, sizeof r);
    r.impl = impl;
    r.family = family;
    r.o = o;
    r.lo = o->pos_lo;
    r.hi = o->pos_hi;
    r.C = pc_model_C(o->base);
    r.u = pc_model_u(o->dtype);
    r.tol_abs = o->tol_abs;
    r.causal = o->causal;
    fill_head(v, p, &r);
    if (!hook_present(impl, family)) {
        char why[96];
        snprintf(why, sizeof why, "the implementation has no %s hook", family);
        return skip_verdict(v, why);
    }
    if (impl->pos_min != 0 || impl->pos_max != 0) {
        if (impl->pos_min > r.lo) r.lo = impl->pos_min;
        if (impl->pos_max < r.hi) r.hi = impl->pos_max;
        if (r.lo > r.hi) {
            char why[160];
            snprintf(why, sizeof why, "the source serves positions %" PRId64 "..%" PRId64
                     " only, outside --positions", impl->pos_min, impl->pos_max);
            return skip_verdict(v, why);
        }
    }
    const pc_family *fam = pc_family_find(family);
    if (fam && fam->max_len) r.max_len = fam->max_len(impl);
    pc_outcome oc;
    memset(&oc, 0, sizeof oc);
    pc_status st = pick_layout(&r, &oc);
    if (st == PC_ENOMEM) return pc_p_nomem(err);
    fill_head(v, p, &r);
    if (st == PC_SKIP) { v->seconds = now() - t0; return skip_verdict(v, oc.msg); }
    if (p->setup && p->setup(&r, &oc) == PC_SKIP) {
        v->seconds = now() - t0;
        pc_freqs_free(r.freqs);
        return skip_verdict(v, oc.msg);
    }
    if (p->whole) {
        st = p->whole(&r, v, err);
        v->seconds = now() - t0;
        pc_freqs_free(r.freqs);
        return st;
    }

    const char *rpath = regress_path(o);
    uint64_t rseeds[PC_REGRESS_MAX];
    int nreg = o->replay_set ? 0 : regress_load(rpath, p, family, impl->name, rseeds);
    long total = o->replay_set ? 1 : nreg + o->cases;
    pc_found fd;
    memset(&fd, 0, sizeof fd);
    pc_case worst;
    pc_outcome woc;
    memset(&worst, 0, sizeof worst);
    memset(&woc, 0, sizeof woc);
    woc.score = -(double)INFINITY;
    woc.pair = -1;
    long ran = 0;
    int exists = p->existential && p->existential(&r), shown = 0;
    for (long i = 0; i < total && st == PC_OK; i++) {
        uint64_t cs;
        const char *origin;
        long index;
        if (o->replay_set) { cs = o->replay; origin = "replay"; index = -1; }
        else if (i < nreg) { cs = rseeds[i]; origin = "regression"; index = i; }
        else { index = i - nreg; cs = case_seed(o->seed, p, index); origin = "generated"; }
        pc_rng g;
        pc_rng_seed(&g, cs);
        pc_case c;
        memset(&c, 0, sizeof c);
        c.d = o->d;
        c.vseed = pc_rng_u64(&g);
        p->gen(&r, &g, &c);
        pc_outcome o1;
        st = p->check(&r, &c, &o1, err);
        if (st != PC_OK) break;
        ran++;
        if (exists) {
            if (o1.kind == PC_O_PASS) { woc = o1; worst = c; shown = 1; break; }
            if (o1.kind == PC_O_FAIL && !fd.any) {
                fd.any = 1;
                fd.orig = fd.cur = c;
                fd.oc0 = fd.oc = o1;
                fd.has_seed = 1;
                fd.seed = cs;
                fd.origin = origin;
                fd.index = index;
                continue;
            }
        }
        if (o1.kind != PC_O_PASS) {
            fd.any = 1;
            fd.orig = fd.cur = c;
            fd.oc0 = fd.oc = o1;
            fd.has_seed = 1;
            fd.seed = cs;
            fd.origin = origin;
            fd.index = index;
            break;
        }
        if (o1.score > woc.score) { woc = o1; worst = c; }
    }
    if (exists && shown) fd.any = 0; /* some case shows the property: it holds */
    if (st == PC_OK && !fd.any && p->sweep && !o->replay_set) {
        pc_case c;
        memset(&c, 0, sizeof c);
        c.d = o->d;
        int found = 0;
        st = p->sweep(&r, &c, &found, err);
        if (st == PC_OK && found) {
            pc_outcome o1;
            st = p->check(&r, &c, &o1, err);
            if (st == PC_OK && o1.kind != PC_O_PASS) {
                fd.any = 1;
                fd.orig = fd.cur = c;
                fd.oc0 = fd.oc = o1;
                fd.origin = "sweep";
                fd.index = -1;
            }
        }
    }
    if (st == PC_OK && fd.any) {
        st = shrink(p, &r, &fd.cur, &fd.oc, &fd.steps, err);
        char note[PC_ERR_LEN + 64];
        const char *save_note = NULL;
        if (st == PC_OK && fd.has_seed && !o->replay_set && strcmp(fd.origin, "regression") && rpath) {
            pc_err e2 = { "" };
            if (regress_save(rpath, p, &r, fd.seed, &e2) != PC_OK) {
                snprintf(note, sizeof note, "could not save the case: %s", e2.msg);
                save_note = note;
            } else {
                snprintf(note, sizeof note, "case saved to %s (tried first by later runs)", rpath);
                save_note = note;
            }
        }
        if (st == PC_OK) st = write_fail(p, &r, &fd, v, save_note, err);
    } else if (st == PC_OK) {
        pc_outcome rep;
        const char *note = o->replay_set ? "the replayed case passes"
                         : exists ? "shown by this case (one suffices: an existential property)" : NULL;
        st = write_pass(p, &r, ran, nreg, &worst, &woc, v, &rep, note, err);
    }
    v->seconds = now() - t0;
    pc_freqs_free(r.freqs);
    return st;
}

/* ------------------------------------------------------------------ */
/* Entry point                                                        */

static int selected(const pc_property *p, const pc_opts *o)
{
    if (o->n_properties == 0) return !p->default_off;
    for (int k = 0; k < o->n_properties; k++)
        if (!strcmp(o->properties[k], p->name) || !strcmp(o->properties[k], "all"))
            return 1;
    return 0;
}

pc_status pc_properties_run(const pc_impl *impl, const char *family, const pc_opts *o,
                            pc_verdicts *out, pc_err *err)
{
    for (int k = 0; k < o->n_properties; k++)
        if (strcmp(o->properties[k], "all") && !pc_property_find(o->properties[k]))
            return pc_seterr(err, PC_EINPUT, "--property: unknown property '%s' (see `pecheck explain`)",
                             o->properties[k]);
    if (o->replay_set && o->n_properties != 1)
        return pc_seterr(err, PC_EINPUT, "--replay: name exactly one property with --property");
    for (size_t k = 0; k < pc_property_count(); k++) {
        const pc_property *p = catalogue[k];
        if (!selected(p, o) || !pc_property_applies(p, family)) continue;
        pc_verdict *v = pc_verdicts_add(out);
        if (!v) return pc_p_nomem(err);
        pc_status st = pc_property_run_one(p, impl, family, o, v, err);
        if (st != PC_OK) {
            free(v->details);
            free(v->json);
            out->n--;
            return st;
        }
    }
    return PC_OK;
}

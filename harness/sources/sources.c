/* sources.c: resolve the implementations named on the command line. */
#include <inttypes.h>
#include <stdio.h>
#include <string.h>
#include <sys/stat.h>
#include "plugin.h"
#include "sources.h"
#include "harness/sandbox/served.h"
#include "harness/base/suggest.h"
#include "harness/sandbox/host_fs.h"
#include "table.h"
#include "families/family.h"

static pc_status add(pc_sources *s, const pc_impl *impl, pc_err *err)
{
    if (s->n >= PC_MAX_IMPLS)
        return pc_seterr(err, PC_EINPUT, "too many implementations (at most %d)", PC_MAX_IMPLS);
    s->impl[s->n++] = impl;
    return PC_OK;
}

/* Keep IMPL (a plugin or table; READER: the family's table reader that
 * opened it) to free it, and test it. */
static pc_status add_owned(pc_sources *s, pc_impl *impl, const pc_table_reader *reader,
                           pc_err *err)
{
    s->reader[s->n_owned] = reader;
    s->owned[s->n_owned++] = impl;
    return add(s, impl, err);
}

/* What a table of family FAMILY is opened with: its spec's encoding
 * options and O's storage options. */
static pc_table_args table_args(const pc_opts *o, const pc_specs *specs, const char *family)
{
    const pc_spec *sp = pc_specs_of(specs, pc_family_find(family));
    if (!sp) sp = pc_specs_of(specs, NULL); /* not a table family: pc_table_open says so */
    return (pc_table_args){ sp->d, sp->d_set, sp->layout, sp->layout_from, sp->rows, sp->pair_swap,
                            sp->base, sp->base_set,
                            pc_spec_scheduled(sp), sp->assume_fitted, o->pos_start, o->dtype,
                            o->dtype_set, o->threads, sp->col_blocks, sp->n_col_blocks };
}

/* A table of family TFAM: its own reader's (ALiBi, T5), else a table of
 * rows (table.c). */
static pc_status open_table(const pc_opts *o, const pc_specs *specs, const char *tfam,
                            const char *path, pc_sources *s, pc_err *err)
{
    const pc_family *fam = pc_family_find(tfam);
    pc_table_args ta = table_args(o, specs, tfam);
    pc_impl *impl;
    pc_status st = pc_spec_usable(fam ? pc_specs_of(specs, fam) : NULL, err);
    if (st != PC_OK) return st;
    if (fam && fam->table) {
        if (o->table_sin)
            return pc_seterr(err, PC_EINPUT, "--table-sin is for a (cos, sin) cache pair, not "
                             "--family %s", fam->name);
        st = fam->table->open(pc_specs_of(specs, fam), &ta, path, &impl, err);
        return st == PC_OK ? add_owned(s, impl, fam->table, err) : st;
    }
    st = pc_table_open(&ta, path, o->table_sin, tfam, &impl, err);
    return st == PC_OK ? add_owned(s, impl, NULL, err) : st;
}

/* Whether FAM declares an option named NAME. */
static int family_has_option(const pc_family *fam, const char *name)
{
    const pc_spec_kind *k = fam ? fam->spec : NULL;
    for (size_t i = 0; k && i < k->n_options; i++)
        if (!strcmp(k->options[i].name, name)) return 1;
    return 0;
}

/* The family whose option NAME is (the first of the registry), NULL: none. */
static const pc_family *option_owner(const char *name)
{
    for (size_t k = 0; k < pc_family_count(); k++)
        if (family_has_option(pc_family_at(k), name)) return pc_family_at(k);
    return NULL;
}

/* The families that declare NAME, into BUF: "rope", or "rope, t5 CONJ
 * alibi" when several read it (--hf-config); *N: how many. */
static const char *owner_names(const char *name, const char *conj, size_t *n, char *buf,
                               size_t len)
{
    size_t u = 0;
    *n = 0;
    buf[0] = '\0';
    for (size_t k = 0; k < pc_family_count(); k++)
        *n += family_has_option(pc_family_at(k), name) ? 1u : 0u;
    for (size_t k = 0, i = 0; k < pc_family_count() && u < len; k++) {
        if (!family_has_option(pc_family_at(k), name)) continue;
        i++;
        u += (size_t)snprintf(buf + u, len - u, "%s%s", i == 1 ? "" : i == *n ? conj : ", ",
                              pc_family_at(k)->name);
    }
    return buf;
}

/* "the rope family", or "the rope, t5 and alibi families", into BUF. */
static const char *owners(const char *name, char *buf, size_t len)
{
    char names[120];
    size_t n;
    owner_names(name, " and ", &n, names, sizeof names);
    snprintf(buf, len, "the %s famil%s", names, n > 1 ? "ies" : "y");
    return buf;
}

/* Tables whose family was inferred (TF: no --family) while an option of
 * another family was given: that option would be left unused and the table
 * read as what it may not be (a cos cache without its sin half checked as
 * another family's table). */
static pc_status inferred_family_fits(const pc_opts *o, const pc_family *tf, pc_err *err)
{
    for (int i = 0; i < o->given.n; i++) {
        const char *name = o->given.opt[i]->name;
        const pc_family *owner = option_owner(name);
        char of[160], fams[160];
        size_t n;
        if (owner && !family_has_option(tf, name))
            return pc_seterr(err, PC_EINPUT, "--%s is an option of %s, but the table is read as "
                             "%s (no --family given%s): name the table's family with --family "
                             "%s%s", name, owners(name, of, sizeof of), tf ? tf->name :
                             "no family", o->table_sin ? "" : ", no --table-sin",
                             owner_names(name, " or ", &n, fams, sizeof fams), o->table_sin ? "" :
                             " (a table pair is --table COS.npy --table-sin SIN.npy)");
    }
    return PC_OK;
}

/* A float (1, n, d) is a batch of one table of rows (torch's), read as its
 * (n, d) rows as check reads it (table.c), not a one-head table of a
 * family's own kind (a one-head ALiBi table takes --family alibi). */
static int batch_of_rows(int rank, size_t shape0, const char *dtype)
{
    return rank == 3 && shape0 == 1 && (dtype[1] == 'f' || !strcmp(dtype, "<u2"));
}

const pc_family *pc_sources_table_family(const char *path, int has_sin)
{
    pc_npy_file f;
    struct stat sb;
    memset(&f, 0, sizeof f);
    const pc_family *fam = NULL;
    if (!has_sin && stat(path, &sb) == 0 && S_ISREG(sb.st_mode) && pc_npy_file_open(path, &f, NULL) == PC_OK
        && !batch_of_rows(f.rank, f.shape[0], f.dtype))
        for (size_t k = 0; !fam && k < pc_family_count(); k++) {
            const pc_family *c = pc_family_at(k);
            if (c->table && c->table->holds && c->table->holds(f.rank, f.dtype)) fam = c;
        }
    pc_npy_file_close(&f);
    /* <i2 and <i4 (a T5 bucket table saved as int32) are refused by the
     * streaming reader, whose tables are rows of floats: read whole, they
     * say their family's kind too */
    pc_npy small;
    if (!fam && !has_sin && stat(path, &sb) == 0 && S_ISREG(sb.st_mode)
        && pc_npy_read_numbers(path, &small, NULL) == PC_OK) {
        for (size_t k = 0; !fam && !batch_of_rows(small.rank, small.shape[0], small.dtype)
                           && k < pc_family_count(); k++) {
            const pc_family *c = pc_family_at(k);
            if (c->table && c->table->holds && c->table->holds(small.rank, small.dtype)) fam = c;
        }
        pc_npy_free(&small);
    }
    return fam ? fam : pc_family_for_table(has_sin);
}

/* --serve: one implementation per target, served over the caller's pipes;
 * with --max-pos or --positions it serves those positions only (a
 * rotation whose cos/sin cache ends at the model's length is called where
 * it is asked: extrapolation beyond them is skipped, saying so) */
static pc_status open_served(const pc_opts *o, pc_sources *s, pc_err *err)
{
    pc_served_args a = { o->serve_w, o->serve_r, o->serve_targets, o->serve_dtype,
                         o->serve_cos_sin };
    pc_impl *impls[8];
    int n = 0;
    pc_status st = pc_served_open(&a, impls, 8, &n, err);
    for (int k = 0; k < n; k++) {
        if (st == PC_OK && (s->n_owned >= PC_MAX_IMPLS || s->n >= PC_MAX_IMPLS))
            st = pc_seterr(err, PC_EINPUT, "too many implementations (at most %d)", PC_MAX_IMPLS);
        if (st == PC_OK && o->pos_set) { /* the function is called at the positions asked */
            impls[k]->pos_bounded = 1;
            impls[k]->pos_min = o->pos_lo;
            impls[k]->pos_max = o->pos_hi;
        }
        if (st == PC_OK) st = add_owned(s, impls[k], NULL, err);
        else pc_served_close(impls[k]);
    }
    return st;
}

pc_status pc_sources_open(const pc_opts *o, const pc_specs *specs, const char *family,
                          pc_sources *s, pc_err *err)
{
    memset(s, 0, sizeof *s);
    pc_status st = PC_OK;
    for (int k = 0; k < o->n_impls && st == PC_OK; k++) {
        if (!strcmp(o->impls[k], "all")) {
            for (size_t b = 0; b < pc_builtin_count() && st == PC_OK; b++) {
                const pc_impl *impl = pc_builtin_at(b);
                if (!family || !strcmp(family, "all") || !strcmp(impl->family_hint, family))
                    st = add(s, impl, err);
            }
            continue;
        }
        const pc_impl *impl = pc_builtin_find(o->impls[k]);
        if (!impl) {
            pc_suggest sg;
            char hint[96];
            pc_suggest_init(&sg, o->impls[k]);
            for (size_t b = 0; b < pc_builtin_count(); b++) pc_suggest_add(&sg, pc_builtin_at(b)->name);
            st = pc_seterr(err, PC_EINPUT, "unknown implementation '%s'%s (see `pecheck list`)",
                           o->impls[k], pc_suggest_text(&sg, "", hint, sizeof hint));
        }
        else
            st = add(s, impl, err);
    }
    for (int k = 0; k < o->n_plugins && st == PC_OK; k++) {
        if (s->n_owned >= PC_MAX_IMPLS || s->n >= PC_MAX_IMPLS) {
            st = pc_seterr(err, PC_EINPUT, "too many implementations (at most %d)", PC_MAX_IMPLS);
            break;
        }
        pc_impl *impl;
        pc_host_limits lim = { o->timeout_ms, o->plugin_mem_mb, o->plugin_cpu_s, o->plugin_hosts,
                               o->plugin_writable, o->n_plugin_writable, o->plugin_network };
        st = pc_plugin_open(o->plugins[k], &lim, &impl, err);
        if (st == PC_OK) st = add_owned(s, impl, NULL, err);
    }
    if (st == PC_OK && o->serve_set) st = open_served(o, s, err);
    if (st == PC_OK && o->table_sin && o->n_tables != 1)
        st = pc_seterr(err, PC_EINPUT, "--table-sin SIN.npy goes with exactly one --table COS.npy");
    const pc_family *tf = pc_family_for_table(o->table_sin != NULL);
    const char *tfam = tf ? tf->name : "none";
    if (family && strcmp(family, "all") != 0) tfam = family;
    else if (st == PC_OK && o->n_tables && !o->n_impls && !o->n_plugins)
        st = inferred_family_fits(o, tf, err); /* the options are for the tables alone */
    for (int k = 0; k < o->n_tables && st == PC_OK; k++) {
        if (s->n_owned >= PC_MAX_IMPLS || s->n >= PC_MAX_IMPLS) {
            st = pc_seterr(err, PC_EINPUT, "too many implementations (at most %d)", PC_MAX_IMPLS);
            break;
        }
        st = open_table(o, specs, tfam, o->tables[k], s, err);
    }
    if (st == PC_OK && !o->n_tables && o->table_sin)
        st = pc_seterr(err, PC_EINPUT, "--table-sin needs --table COS.npy");
    if (st == PC_OK && s->n == 0)
        st = pc_seterr(err, PC_EINPUT, "no implementation given (use --impl NAME, --plugin PATH.so "
                       "or --table PATH.npy; see `pecheck list`)");
    if (st != PC_OK)
        pc_sources_close(s);
    return st;
}

void pc_sources_seal_note(const pc_sources *s, int quiet, FILE *f)
{
    for (int k = 0; k < s->n_owned; k++) {
        char seal[400];
        pc_plugin_seal(s->owned[k], seal, sizeof seal);
        if (seal[0] && (!quiet || pc_fs_landlock_abi() == 0)) {
            fprintf(f, "pecheck: plugin hosts' file system: %s (docs/plugins.md)\n", seal);
            return;
        }
    }
}

void pc_sources_stop(pc_sources *s)
{
    for (int k = 0; k < s->n_owned; k++)
        if (pc_plugin_is(s->owned[k])) pc_plugin_stop(s->owned[k]);
}

void pc_sources_close(pc_sources *s)
{
    for (int k = 0; k < s->n_owned; k++) {
        if (s->reader[k]) s->reader[k]->close(s->owned[k]);
        else if (pc_plugin_is(s->owned[k])) pc_plugin_close(s->owned[k]);
        else if (pc_served_is(s->owned[k])) pc_served_close(s->owned[k]);
        else pc_table_close(s->owned[k]);
    }
    s->n = 0;
    s->n_owned = 0;
}

pc_status pc_sources_status(const pc_sources *s, pc_err *err)
{
    for (int k = 0; k < s->n_owned; k++) {
        pc_status st = pc_served_is(s->owned[k]) ? pc_served_status(s->owned[k], err)
                                                 : pc_table_status(s->owned[k], err);
        if (st != PC_OK) return st;
    }
    return PC_OK;
}

void pc_sources_adjust_cfg(const pc_impl *impl, pc_acc_cfg *cfg)
{
    const pc_table_info *t = pc_table_info_of(impl);
    if (!t) return;
    pc_table_adjust_cfg(t, cfg);
}

/* ---- options that apply to no source ------------------------------------------ */

/* A table of rows is checked on all its rows: --positions or --max-pos
 * naming other positions is refused with the table's. */
static pc_status positions_apply(const pc_opts *o, const pc_sources *s, pc_err *err)
{
    for (int k = 0; k < s->n && o->pos_set; k++) {
        const pc_table_info *t = pc_table_info_of(s->impl[k]);
        if (!t || (o->pos_lo == t->pos_lo && o->pos_hi == t->pos_hi)) continue;
        char given[64];
        if (!strcmp(o->pos_opt ? o->pos_opt : "", "max-pos"))
            snprintf(given, sizeof given, "--max-pos %" PRId64, o->pos_hi);
        else
            snprintf(given, sizeof given, "--positions %" PRId64 ":%" PRId64, o->pos_lo, o->pos_hi);
        int outside = o->pos_lo < t->pos_lo || o->pos_hi > t->pos_hi;
        return pc_seterr(err, PC_EINPUT, "%s %s --table %.200s: a table is checked on all its "
                         "rows, positions %" PRId64 "..%" PRId64 " (%" PRId64 " rows, the first at "
                         "--pos-start %" PRId64 "); drop %s, or save the rows to check as a table "
                         "of their own", given, outside ? "is outside" : "is not all of", t->path,
                         t->pos_lo, t->pos_hi, t->pos_hi - t->pos_lo + 1, t->pos_lo,
                         o->pos_opt && !strcmp(o->pos_opt, "max-pos") ? "--max-pos" : "--positions");
    }
    return PC_OK;
}

/* IMPL is a table (of rows or a family's own reader's) that S opened. */
static int is_table(const pc_sources *s, const pc_impl *impl)
{
    for (int k = 0; k < s->n_owned; k++)
        if (s->owned[k] == impl) return !pc_plugin_is(impl);
    return 0;
}

static pc_status pos_start_applies(const pc_opts *o, const pc_sources *s, pc_err *err)
{
    if (!o->pos_start_set) return PC_OK;
    for (int k = 0; k < s->n; k++)
        if (is_table(s, s->impl[k])) return PC_OK;
    return pc_seterr(err, PC_EINPUT, "--pos-start is the position of a --table's first row, and "
                     "no table is given (%.200s is called with the positions themselves): drop "
                     "--pos-start, or use --positions A:B", s->n ? s->impl[0]->name : "");
}

/* A family's own option applies when a source is checked as a family
 * that declares it. */
static int family_option_used(const char *name, const pc_family *want, const pc_sources *s)
{
    for (size_t f = 0; f < pc_family_count(); f++) {
        const pc_family *fam = pc_family_at(f);
        if ((want && fam != want) || !family_has_option(fam, name)) continue;
        for (int k = 0; k < s->n; k++)
            if (fam->provides(s->impl[k])) return 1;
    }
    return 0;
}

/* "--family F" (WANT), else "NAME: F, G" for the first source of S */
static void provided(const pc_sources *s, const pc_family *want, char *buf, size_t len)
{
    if (want || !s->n) {
        snprintf(buf, len, "--family %s", want ? want->name : "none");
        return;
    }
    size_t u = (size_t)snprintf(buf, len, "%.100s: ", s->impl[0]->name);
    const char *sep = "";
    for (size_t f = 0; f < pc_family_count() && u < len; f++)
        if (pc_family_at(f)->provides(s->impl[0])) {
            u += (size_t)snprintf(buf + u, len - u, "%s%s", sep, pc_family_at(f)->name);
            sep = ", ";
        }
    if (!*sep && u < len) snprintf(buf + u, len - u, "no family");
}

pc_status pc_sources_options_of(const pc_opts *o, const pc_family *fam, pc_err *err)
{
    for (int i = 0; i < o->given.n; i++) {
        const char *name = o->given.opt[i]->name;
        if (!option_owner(name) || family_has_option(fam, name)) continue;
        char of[160];
        owners(name, of, sizeof of);
        return pc_seterr(err, PC_EINPUT, "--%s is an option of %s, not of --family %s: drop --%s, "
                         "or export that family", name, of, fam->name, name);
    }
    return PC_OK;
}

static pc_status family_options_apply(const pc_opts *o, const pc_family *want,
                                      const pc_sources *s, pc_err *err)
{
    for (int i = 0; i < o->given.n; i++) {
        const char *name = o->given.opt[i]->name;
        const pc_family *owner = option_owner(name);
        if (!owner || family_option_used(name, want, s)) continue;
        char fams[160], of[160], names[160];
        size_t n;
        provided(s, want, fams, sizeof fams);
        owners(name, of, sizeof of);
        owner_names(name, " or ", &n, names, sizeof names);
        return pc_seterr(err, PC_EINPUT, "--%s is an option of %s, and no source here is checked "
                         "as %s (%s): drop --%s, or give a source of the %s family", name, of,
                         names, fams, name, names);
    }
    return PC_OK;
}

/* --formulation hf or ggml is the class of the families that compute one
 * (PC_FAM_CLASS_COMPUTED): with no source checked as one of them it shapes
 * nothing (exit 2); with one, the others run their own strict class
 * (pc_spec_schedule). */
static pc_status computed_class_applies(const pc_opts *o, const pc_family *want, const pc_sources *s,
                                  pc_err *err)
{
    if (!pc_model_class_computed(o->formulation)) return PC_OK;
    char with[160] = "", fams[160];
    size_t u = 0;
    for (size_t f = 0; f < pc_family_count(); f++) {
        const pc_family *fam = pc_family_at(f);
        if (!(fam->flags & PC_FAM_CLASS_COMPUTED)) continue;
        for (int k = 0; k < s->n && (!want || fam == want); k++)
            if (fam->provides(s->impl[k])) return PC_OK;
        if (u < sizeof with)
            u += (size_t)snprintf(with + u, sizeof with - u, "%s%s's (--family %s)", u ? ", " : "",
                                  fam->title, fam->name);
    }
    provided(s, want, fams, sizeof fams);
    return pc_seterr(err, PC_EINPUT, "--formulation %s: %s is %s, and no source here is checked "
                     "as one (%s): use --strict (each family's strict class) or --formulation cr",
                     pc_model_class_name(o->formulation), o->formulation == PC_CLASS_HF
                     ? "transformers' float32 frequency code" : "llama.cpp's rope", with, fams);
}

/* A family's spec that kept an input error (pc_spec_usable: a config of
 * another family's model) is an error where a source is checked as it. */
static pc_status specs_usable(const pc_specs *specs, const pc_family *want, const pc_sources *s,
                              pc_err *err)
{
    for (size_t f = 0; f < pc_family_count(); f++) {
        const pc_family *fam = pc_family_at(f);
        if (want && fam != want) continue;
        for (int k = 0; k < s->n; k++)
            if (fam->provides(s->impl[k])) {
                pc_status st = pc_spec_usable(pc_specs_of(specs, fam), err);
                if (st != PC_OK) return st;
                break;
            }
    }
    return PC_OK;
}

pc_status pc_sources_options_apply(const pc_opts *o, const pc_specs *specs, const pc_family *want,
                                   const pc_sources *s, pc_err *err)
{
    pc_status st = positions_apply(o, s, err);
    if (st == PC_OK) st = pos_start_applies(o, s, err);
    if (st == PC_OK) st = family_options_apply(o, want, s, err);
    if (st == PC_OK) st = computed_class_applies(o, want, s, err);
    if (st == PC_OK) st = specs_usable(specs, want, s, err);
    return st;
}

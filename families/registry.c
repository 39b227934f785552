/* registry.c: the composition root: the list of encoding families, in
 * `pecheck list` and `check` order, and the built-ins they hold.
 * Adding a family: a folder families/NAME/ with a family.c defining
 * pc_family_NAME, and one X(NAME) here (docs/architecture.md).
 * PC_FAMILIES_EXTRA adds families to a build without touching this list
 * (the test build's demonstration family, tests/family_demo/). */
#include <stdio.h>
#include <string.h>
#include "family.h"
#include "harness/base/suggest.h"

#ifndef PC_FAMILIES_EXTRA
#define PC_FAMILIES_EXTRA(X)
#endif
#define PC_FAMILIES(X) \
    X(sinusoidal) X(rope) X(learned) X(attention) X(t5) X(alibi) X(txl) PC_FAMILIES_EXTRA(X)

#define DECLARE(n) extern const pc_family pc_family_##n;
PC_FAMILIES(DECLARE)
#define ENTRY(n) &pc_family_##n,
static const pc_family *const families[] = { PC_FAMILIES(ENTRY) };

size_t pc_family_count(void) { return sizeof families / sizeof families[0]; }

const pc_family *pc_family_at(size_t k)
{
    return k < pc_family_count() ? families[k] : NULL;
}

const pc_family *pc_family_find(const char *name)
{
    for (size_t k = 0; name && k < pc_family_count(); k++)
        if (strcmp(families[k]->name, name) == 0)
            return families[k];
    return NULL;
}

const pc_family *pc_family_of_impl(const pc_impl *impl)
{
    for (size_t k = 0; k < pc_family_count(); k++)
        if (families[k]->provides(impl))
            return families[k];
    return NULL;
}

const pc_family *pc_family_for_table(int has_sin)
{
    for (size_t k = 0; k < pc_family_count(); k++) {
        const pc_family *f = families[k];
        if ((f->flags & PC_FAM_TABLES) && f->rows && f->rows->input == (has_sin != 0))
            return f;
    }
    return NULL;
}

static int wanted(const pc_family *f, unsigned need, int want_rows)
{
    return (f->flags & need) == need && (!want_rows || f->rows);
}

void pc_family_names(char *buf, size_t len, unsigned need, int want_rows, const char *tail)
{
    size_t n = 0, total = 0, u = 0;
    for (size_t k = 0; k < pc_family_count(); k++) total += (size_t)wanted(families[k], need, want_rows);
    if (len) buf[0] = '\0';
    for (size_t k = 0; k < pc_family_count(); k++) {
        if (!wanted(families[k], need, want_rows)) continue;
        const char *sep = n == 0 ? "" : (n + 1 == total && !tail) ? " or " : ", ";
        n++;
        if (u < len) u += (size_t)snprintf(buf + u, len - u, "%s%s", sep, families[k]->name);
    }
    if (tail && u < len) snprintf(buf + u, len - u, "%s", tail);
}

const char *pc_family_hint(const char *name, char *buf, size_t len)
{
    pc_suggest s;
    pc_suggest_init(&s, name ? name : "");
    for (size_t k = 0; k < pc_family_count(); k++) pc_suggest_add(&s, families[k]->name);
    return pc_suggest_text(&s, "", buf, len);
}

/* ------------------------------------------------------------------ */
/* The built-ins: every family's, in family order                     */

size_t pc_builtin_count(void)
{
    size_t n = 0;
    for (size_t k = 0; k < pc_family_count(); k++) n += families[k]->n_builtins;
    return n;
}

const pc_impl *pc_builtin_at(size_t i)
{
    for (size_t k = 0; k < pc_family_count(); k++) {
        if (i < families[k]->n_builtins) return families[k]->builtins[i];
        i -= families[k]->n_builtins;
    }
    return NULL;
}

const pc_impl *pc_builtin_find(const char *name)
{
    for (size_t i = 0; i < pc_builtin_count(); i++)
        if (strcmp(pc_builtin_at(i)->name, name) == 0)
            return pc_builtin_at(i);
    return NULL;
}

/* verdict.c: a growable list of verdicts. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "verdict.h"

pc_verdict *pc_verdicts_add(pc_verdicts *vs)
{
    if (vs->n == vs->cap) {
        int cap = vs->cap ? 2 * vs->cap : 16;
        pc_verdict *v = realloc(vs->v, (size_t)cap * sizeof *v);
        if (!v) return NULL;
        vs->v = v;
        vs->cap = cap;
    }
    pc_verdict *r = &vs->v[vs->n++];
    memset(r, 0, sizeof *r);
    return r;
}

void pc_verdicts_free(pc_verdicts *vs)
{
    for (int k = 0; k < vs->n; k++) {
        free(vs->v[k].details);
        free(vs->v[k].json);
    }
    free(vs->v);
    memset(vs, 0, sizeof *vs);
}

pc_status pc_verdicts_status(const pc_verdicts *vs)
{
    for (int k = 0; k < vs->n; k++)
        if (vs->v[k].status == PC_FAIL)
            return PC_FAIL;
    return PC_OK;
}

/* The checked verdict of V's implementation, family and check in the other
 * pair layout; NULL: none. */
static pc_verdict *sibling(pc_verdicts *vs, const pc_verdict *v)
{
    const char *other = !strcmp(v->layout, "interleaved") ? "half"
                      : !strcmp(v->layout, "half") ? "interleaved" : NULL;
    for (int k = 0; other && k < vs->n; k++) {
        pc_verdict *w = &vs->v[k];
        if ((w->status == PC_OK || w->status == PC_FAIL) && !strcmp(w->layout, other)
            && !strcmp(w->impl, v->impl) && !strcmp(w->family, v->family)
            && !strcmp(w->check, v->check))
            return w;
    }
    return NULL;
}

void pc_verdicts_fold_declined(pc_verdicts *vs)
{
    int k = 0;
    while (k < vs->n) {
        pc_verdict *v = &vs->v[k], *w = v->declined ? sibling(vs, v) : NULL;
        if (!w) { k++; continue; }
        size_t l = strlen(w->summary);
        snprintf(w->summary + l, sizeof w->summary - l, " (the source holds the %s layout only: "
                 "it declines %s)", w->layout, v->layout);
        free(v->details);
        free(v->json);
        memmove(v, v + 1, (size_t)(vs->n - k - 1) * sizeof *v);
        vs->n--;
    }
}

/* The length of TEXT's first LEN bytes cut back to the last space (LEN
 * when none). */
static size_t at_space(const char *text, size_t len)
{
    size_t k = len;
    while (k > 0 && text[k - 1] != ' ') k--;
    while (k > 0 && text[k - 1] == ' ') k--;
    return k > 0 ? k : len;
}

void pc_verdict_add_cause(pc_verdict *v, const char *cause)
{
    static const char lead[] = "; likely cause: ", cut[] = " [...]";
    size_t cap = sizeof v->summary - 1, n = strcspn(cause, "\n");
    if (n > cap / 2) n = at_space(cause, cap / 2 - (sizeof cut - 1));
    int cut_cause = n < strcspn(cause, "\n");
    size_t need = (sizeof lead - 1) + n + (cut_cause ? sizeof cut - 1 : 0);
    size_t have = strlen(v->summary);
    if (have + need > cap) { /* room for the whole cause: the summary gives way */
        have = at_space(v->summary, cap - need - (sizeof cut - 1));
        memcpy(v->summary + have, cut, sizeof cut); /* with its NUL */
        have += sizeof cut - 1;
    }
    snprintf(v->summary + have, sizeof v->summary - have, "%s%.*s%s", lead, (int)n, cause,
             cut_cause ? cut : "");
}

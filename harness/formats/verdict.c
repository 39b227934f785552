/* verdict.c: a growable list of verdicts. */
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

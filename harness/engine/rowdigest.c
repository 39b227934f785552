/* rowdigest.c: the row hashes the accuracy gate leaves for a sweep
 * (rowdigest.h). */
#include <stdio.h>
#include <stdlib.h>
#include "rowdigest.h"

pc_row_digest *pc_row_digest_new(const pc_impl *impl, const char *family, int d, double base,
                                 int layout, int64_t lo, int64_t hi)
{
    if (lo < 0 || hi < lo || hi - lo >= PC_DIGEST_MAX) return NULL;
    pc_row_digest *g = calloc(1, sizeof *g);
    if (!g) return NULL;
    g->hash = malloc((size_t)(hi - lo + 1) * sizeof *g->hash);
    if (!g->hash) { free(g); return NULL; }
    g->impl = impl;
    snprintf(g->family, sizeof g->family, "%s", family);
    g->d = d;
    g->base = base;
    g->layout = layout;
    g->lo = lo;
    g->hi = hi;
    return g;
}

void pc_row_digest_free(pc_row_digest *g)
{
    if (!g) return;
    free(g->hash);
    free(g);
}

const uint64_t *pc_row_digest_of(const pc_row_digest *g, const pc_impl *impl, const char *family,
                                 int d, double base, int layout, int64_t lo, int64_t hi)
{
    if (!g || !g->complete || g->impl != impl || strcmp(g->family, family) || g->d != d
        || g->base != base || g->layout != layout || g->lo != lo || g->hi != hi)
        return NULL;
    return g->hash;
}

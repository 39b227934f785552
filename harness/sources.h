/* sources.h: turn --impl / --plugin / --table options into pc_impl objects. */
#ifndef PECHECK_SOURCES_H
#define PECHECK_SOURCES_H

#include "impl.h"
#include "opts.h"
#include "status.h"

#define PC_MAX_IMPLS 64

typedef struct pc_sources {
    const pc_impl *impl[PC_MAX_IMPLS];
    int n;
    pc_impl *owned[PC_MAX_IMPLS]; /* plugins and tables, freed by pc_sources_close */
    int n_owned;
} pc_sources;

/* FAMILY filters `--impl all` (NULL: every built-in). */
pc_status pc_sources_open(const pc_opts *o, const char *family, pc_sources *s, pc_err *err);
void pc_sources_close(pc_sources *s);

#endif

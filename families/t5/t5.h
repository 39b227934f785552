/* t5.h: the T5 family's own parts shared by its files: its encoding spec
 * (options.c), its .npy bucket tables (table.c) and their gate (gate.c),
 * and identify (identify.c). */
#ifndef PECHECK_T5_H
#define PECHECK_T5_H

#include <stddef.h>
#include <stdint.h>
#include "families/family.h"
#include "reference/relative.h"

/* ---- the spec (options.c) -------------------------------------------- */

typedef struct pc_t5_spec {
    int num_buckets;        /* --num-buckets or relative_attention_num_buckets; 32 */
    int max_distance;       /* --max-distance or relative_attention_max_distance; 128 */
    int mode;               /* -1 both (properties), 0 bidirectional, 1 causal (--causal,
                             * is_decoder) */
    int buckets_set, distance_set, causal_set; /* given as options */
    int mode_config;        /* MODE is the config's is_decoder */
    const char *config;     /* --hf-config or --t5-config (NULL: none) */
    const char *config_opt; /* which of them: "hf-config" or "t5-config" */
    char source[240];       /* where the parameters came from, for people */
} pc_t5_spec;

extern const pc_spec_kind pc_t5_spec_kind;
/* SPEC's T5 part (HF's defaults when SPEC is NULL or not T5's). */
const pc_t5_spec *pc_t5_spec_of(const pc_spec *spec);

/* ---- tables (table.c) -------------------------------------------------- */

/* A (nq, nk) table of integer buckets: entry (i, j) is the bucket of the
 * relative position j - (q0 + i) (HF T5Attention.compute_bias:
 * memory_position - context_position, keys from 0, queries from q0: 0,
 * or a decode step's cache_position, --pos-start). */
typedef struct pc_t5_table {
    const char *path;
    size_t nq, nk;
    int64_t q0;             /* the position of the first query row */
    const double *v;        /* the values, exactly (integers, or floats that should be) */
    char dtype[4];
} pc_t5_table;

extern const pc_table_reader pc_t5_table_reader;
const pc_t5_table *pc_t5_table_of(const pc_impl *impl);
/* The bucket of REL in T as a table holds it: the first (i, q0 + i + REL)
 * entry; 0 with *GOT when the table has one. */
int pc_t5_table_bucket(const pc_t5_table *t, int64_t rel, double *got);

/* ---- the gate (gate.c) and identify (identify.c) ----------------------- */

pc_status pc_t5_gate(pc_gate *g, const pc_impl *impl, const pc_family *fam);
extern const pc_diagnosis pc_t5_diagnosis;
/* The likely cause of a failed table under SPEC's parameters ("" none). */
void pc_t5_table_cause(const pc_t5_table *t, const pc_t5_spec *s, char *buf, size_t len);

#endif

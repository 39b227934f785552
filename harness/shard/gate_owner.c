/* gate_owner.c: a gate made whole by one shard per verdict (gate_owner.h). */
#include <stdio.h>
#include "check_shard.h"
#include "gate_owner.h"

/* the shard that makes slot S of N shards, as properties/run.c's owners */
static int owner_of(int s, int n)
{
    return s % n + 1;
}

int pc_gate_owns(const pc_gate *g, int n)
{
    if (!g->rec) return 1;
    for (int s = g->vs->n; s < g->vs->n + n; s++)
        if (owner_of(s, g->rec->n) == g->rec->k) return 1;
    return 0;
}

pc_status pc_gate_elsewhere(pc_gate *g, const pc_impl *impl, const char *family,
                            const char *const *checks, int n, const char *layout)
{
    for (int k = 0; k < n; k++) {
        int s = g->vs->n;
        pc_verdict *v = pc_gate_verdict(g, impl, family, checks[k], layout);
        if (!v) return pc_gate_oom(g);
        v->status = PC_SKIP;
        snprintf(v->summary, sizeof v->summary, "run by shard %d/%d", owner_of(s, g->rec->n),
                 g->rec->n);
    }
    return PC_OK;
}

pc_status pc_gate_owned(pc_gate *g, int first, int n)
{
    if (!g->rec) return PC_OK;
    for (int s = first; s < first + n; s++) {
        pc_case_split sp = { .mode = PC_SPLIT_OWNER, .owner = owner_of(s, g->rec->n),
                             .failed_at = -1 };
        pc_slot *slot = pc_shard_rec_slot(g->rec, s);
        if (!slot) return pc_gate_oom(g);
        pc_shard_rec_split(g->rec, s, &sp);
    }
    return PC_OK;
}

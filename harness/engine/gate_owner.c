/* gate_owner.c: a gate made whole by one shard per verdict (gate_owner.h). */
#include <stdio.h>
#include "gate_owner.h"

/* the shard that makes slot S of N shards, as properties/run.c's owners */
static int owner_of(int s, int n)
{
    return s % n + 1;
}

int pc_gate_owns(const pc_gate *g, int n)
{
    if (!g->shard) return 1;
    for (int s = g->vs->n; s < g->vs->n + n; s++)
        if (owner_of(s, g->shard->n) == g->shard->k) return 1;
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
        snprintf(v->summary, sizeof v->summary, "run by shard %d/%d", owner_of(s, g->shard->n),
                 g->shard->n);
    }
    return PC_OK;
}

pc_status pc_gate_owned(pc_gate *g, int first, int n)
{
    if (!g->shard) return PC_OK;
    for (int s = first; s < first + n; s++)
        if (g->shard->owned(g->shard->ctx, s, owner_of(s, g->shard->n)) != PC_OK)
            return pc_gate_oom(g);
    return PC_OK;
}

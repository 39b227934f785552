/* fmt_text.c: the text format (format.h). */
#include <string.h>
#include "format.h"

/* Whether the text shows V's seed: the run's seed (printed once, at the
 * end) or a case seed its details give. */
static int seed_shown(const pc_result *r, const pc_verdict *v)
{
    if (r->has_seed && v->seed == r->seed) return 1;
    return v->details && strstr(v->details, "  seed: ") != NULL;
}

/* A failure: "FAIL  TITLE: error: SUMMARY", the details indented. */
static void one(FILE *f, const pc_result *r, const pc_verdict *v)
{
    char t[320], sum[sizeof v->summary];
    pc_format_title(t, sizeof t, v);
    snprintf(sum, sizeof sum, "%s", v->summary);
    pc_format_controls(sum); /* one line each, whatever the names hold */
    char against[sizeof v->against + 24] = "";
    if (v->against[0]) snprintf(against, sizeof against, "; checked against %s", v->against);
    pc_format_controls(against);
    if (v->status == PC_FAIL || v->status < 0) {
        fprintf(f, "%s %s: %s: %s%s\n", v->status == PC_FAIL ? "FAIL " : "ERROR", t,
                v->status == PC_FAIL ? "error" : "internal error", sum, against);
        if (r->brief) return;
        if (v->details && v->details[0]) pc_format_indented(f, v->details, "    ");
        if (!seed_shown(r, v)) fprintf(f, "    (seed %llu)\n", (unsigned long long)v->seed);
    } else if (v->status == PC_SKIP) {
        fprintf(f, "SKIP  %s: %s\n", t, sum);
    } else {
        fprintf(f, "PASS  %s: %s%s\n", t, sum, against);
    }
}

/* What failed, one line each, before the counts (pytest's short summary). */
static void short_summary(FILE *f, const pc_verdicts *vs, const pc_counts *c)
{
    if (c->fail + c->other == 0) return;
    fprintf(f, "failed (%d):\n", c->fail + c->other);
    for (int k = 0; k < vs->n; k++) {
        const pc_verdict *v = &vs->v[k];
        if (v->status != PC_FAIL && v->status >= 0) continue;
        char t[320];
        pc_format_title(t, sizeof t, v);
        fprintf(f, "  %s\n", t);
    }
}

static void write_text(FILE *f, const pc_result *r)
{
    const pc_verdicts *vs = r->vs;
    if (r->gate) { /* each implementation's report, as the gate wrote it */
        for (int k = 0; k < vs->n; k++)
            if (vs->v[k].details) fputs(vs->v[k].details, f);
        return;
    }
    for (int k = 0; k < vs->n; k++) one(f, r, &vs->v[k]);
    pc_counts c = pc_format_count(vs->v, vs->n);
    short_summary(f, vs, &c);
    fprintf(f, "%d check%s: %d passed, %d failed, %d skipped%s (%.2f s)", vs->n,
            vs->n == 1 ? "" : "s", c.pass, c.fail, c.skip, c.other ? ", errors" : "", c.seconds);
    if (r->has_seed) fprintf(f, "; seed %llu", (unsigned long long)r->seed);
    fputc('\n', f);
}

const pc_format pc_fmt_text = { "text", write_text };

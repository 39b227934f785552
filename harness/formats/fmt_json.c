/* fmt_json.c: the JSON format (format.h). */
#include <math.h>
#include <string.h>
#include "format.h"
#include "harness/io/json.h"
#include "harness/base/version.h"

static void jkey(FILE *f, int *first, const char *key)
{
    fputs(*first ? "\n      " : ",\n      ", f);
    *first = 0;
    pc_json_quote(f, key);
    fputs(": ", f);
}

static void jstr(FILE *f, int *first, const char *key, const char *v)
{
    jkey(f, first, key);
    if (v) pc_json_quote(f, v); else fputs("null", f);
}

static void jnum(FILE *f, int *first, const char *key, double v)
{
    jkey(f, first, key);
    if (isfinite(v)) fprintf(f, "%.17g", v); else fputs("null", f);
}

static void one(FILE *f, const pc_verdict *v)
{
    int first = 1;
    jstr(f, &first, "check", v->check);
    jstr(f, &first, "family", v->family);
    jstr(f, &first, "implementation", v->impl);
    jstr(f, &first, "layout", v->layout[0] ? v->layout : NULL);
    jstr(f, &first, "status", pc_format_status_word(v->status));
    jnum(f, &first, "measured", v->measured);
    jstr(f, &first, "measured_what", v->measured_what[0] ? v->measured_what : NULL);
    jnum(f, &first, "bound", v->bound);
    jkey(f, &first, "seed");
    fprintf(f, "%llu", (unsigned long long)v->seed);
    jnum(f, &first, "seconds", v->seconds);
    jstr(f, &first, "summary", v->summary);
    jstr(f, &first, "against", v->against[0] && v->status != PC_SKIP ? v->against : NULL);
    jstr(f, &first, "details", v->details);
    jkey(f, &first, "data");
    fputs(v->json && v->json[0] ? v->json : "null", f);
}

static void head(FILE *f)
{
    fputs("{\n  \"tool\": ", f);
    pc_json_quote(f, PC_TOOL);
    fputs(",\n  \"version\": ", f);
    pc_json_quote(f, PC_VERSION);
}

static void write_checks(FILE *f, const pc_verdicts *vs)
{
    pc_counts c = pc_format_count(vs->v, vs->n);
    head(f);
    fprintf(f, ",\n  \"status\": \"%s\",\n", c.fail ? "fail" : c.other ? "error" : "pass");
    fprintf(f, "  \"counts\": {\"pass\": %d, \"fail\": %d, \"skip\": %d},\n", c.pass, c.fail, c.skip);
    fputs("  \"results\": [", f);
    for (int k = 0; k < vs->n; k++) {
        fputs(k ? ",\n    {" : "\n    {", f);
        one(f, &vs->v[k]);
        fputs("\n    }", f);
    }
    fputs(vs->n ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* The members of OBJ, a JSON object as pc_json writes it at depth 0 ("{",
 * one member a line indented by 2, "}"), each line after INDENT more
 * spaces: the same bytes pc_json writes for those members one level deeper.
 * LEAD: a newline before the first line too. */
static void members(FILE *f, const char *obj, int indent, int lead)
{
    const char *s = obj ? strchr(obj, '\n') : NULL;
    const char *end = obj ? strrchr(obj, '}') : NULL;
    if (!s || !end || end <= s) return;
    end--; /* the newline before '}' */
    for (int k = 0; ++s < end; k++) {
        const char *nl = memchr(s, '\n', (size_t)(end - s));
        size_t n = nl ? (size_t)(nl - s) : (size_t)(end - s);
        fprintf(f, "%s%*s%.*s", k || lead ? "\n" : "", indent, "", (int)n, s);
        s += n;
    }
}

static void write_gate(FILE *f, const pc_result *r)
{
    const pc_verdicts *vs = r->vs;
    head(f);
    if (r->single && vs->n == 1) {
        fputs(",\n", f);
        members(f, vs->v[0].json, 0, 0);
        fputs("\n}\n", f);
        return;
    }
    pc_counts c = pc_format_count(vs->v, vs->n);
    fprintf(f, ",\n  \"status\": \"%s\",\n  \"results\": [", c.fail ? "fail" : "pass");
    for (int k = 0; k < vs->n; k++) {
        fputs(k ? ",\n    {" : "\n    {", f);
        members(f, vs->v[k].json, 4, 1);
        fputs("\n    }", f);
    }
    fputs(vs->n ? "\n  ]\n}\n" : "]\n}\n", f);
}

static void write_json(FILE *f, const pc_result *r)
{
    if (r->gate) write_gate(f, r);
    else write_checks(f, r->vs);
}

const pc_format pc_fmt_json = { "json", write_json };

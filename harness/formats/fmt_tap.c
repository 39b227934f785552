/* fmt_tap.c: the TAP format, version 13 or 14 (format.h). */
#include <math.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "harness/io/json.h"

/* A TAP description: '#' starts a directive and must be escaped; no newlines. */
static void tap_desc(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '#' || *s == '\\') fputc('\\', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
}

static void write_tap(FILE *f, const pc_result *r)
{
    const pc_verdicts *vs = r->vs;
    /* The lines below are TAP 13 and TAP 14 alike (a YAML block per
     * failure, '\#' escaped in descriptions, no subtests): only the version
     * line differs, PC_TAP_VERSION unless asked for (format.h). */
    int version = r->tap_version ? r->tap_version : PC_TAP_VERSION;
    fprintf(f, "TAP version %d\n1..%d\n", version, vs->n);
    for (int k = 0; k < vs->n; k++) {
        const pc_verdict *v = &vs->v[k];
        char t[320];
        pc_format_title(t, sizeof t, v);
        int ok = v->status == PC_OK || v->status == PC_SKIP;
        fprintf(f, "%s %d - ", ok ? "ok" : "not ok", k + 1);
        tap_desc(f, t);
        if (v->status == PC_SKIP) {
            fputs(" # SKIP ", f);
            tap_desc(f, v->summary);
        }
        fputc('\n', f);
        if (ok) continue;
        /* YAML diagnostic block; strings as JSON double-quoted scalars (valid YAML) */
        fputs("  ---\n  message: ", f);
        pc_json_quote(f, v->summary);
        fprintf(f, "\n  severity: %s\n  check: ", v->status == PC_FAIL ? "fail" : "error");
        pc_json_quote(f, v->check);
        fputs("\n  implementation: ", f);
        pc_json_quote(f, v->impl);
        fputs("\n  family: ", f);
        pc_json_quote(f, v->family);
        if (v->layout[0]) { fputs("\n  layout: ", f); pc_json_quote(f, v->layout); }
        fputs("\n  measured: ", f);
        if (isfinite(v->measured)) fprintf(f, "%.17g", v->measured); else fputs("null", f);
        if (v->measured_what[0]) { fputs("\n  measured_what: ", f); pc_json_quote(f, v->measured_what); }
        fputs("\n  bound: ", f);
        if (isfinite(v->bound)) fprintf(f, "%.17g", v->bound); else fputs("null", f);
        if (v->against[0]) { fputs("\n  against: ", f); pc_json_quote(f, v->against); }
        fprintf(f, "\n  seed: %llu\n", (unsigned long long)v->seed);
        if (v->details && v->details[0]) {
            fputs("  witness: |\n", f);
            pc_format_indented(f, v->details, "    ");
        }
        if (v->json && v->json[0]) {
            /* the JSON object as a YAML flow mapping on one line (JSON is
             * YAML 1.2; its strings' escapes are YAML's double-quoted ones,
             * and a newline between tokens is a space) */
            char *flat = strdup(v->json);
            if (flat) {
                for (char *p = flat; *p; p++) if (*p == '\n') *p = ' ';
                fprintf(f, "  data: %s\n", flat);
                free(flat);
            }
        }
        fputs("  ...\n", f);
    }
}

const pc_format pc_fmt_tap = { "tap", write_tap };

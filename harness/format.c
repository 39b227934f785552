/* format.c: text, JSON, TAP 14 and JUnit XML output of verdicts. */
#include <math.h>
#include <stdint.h>
#include <stdlib.h>
#include <string.h>
#include "format.h"
#include "json.h"
#include "opts.h"
#include "version.h"

static const char *status_word(pc_status s)
{
    return s == PC_OK ? "pass" : s == PC_FAIL ? "fail" : s == PC_SKIP ? "skip" : "error";
}

typedef struct counts { int pass, fail, skip, other; double seconds; } counts;

static counts count(const pc_verdict *v, int n)
{
    counts c = { 0, 0, 0, 0, 0.0 };
    for (int k = 0; k < n; k++) {
        if (v[k].status == PC_OK) c.pass++;
        else if (v[k].status == PC_FAIL) c.fail++;
        else if (v[k].status == PC_SKIP) c.skip++;
        else c.other++;
        if (isfinite(v[k].seconds) && v[k].seconds > 0) c.seconds += v[k].seconds;
    }
    return c;
}

/* "IMPL FAMILY CHECK [LAYOUT]" */
static void title(char *buf, size_t len, const pc_verdict *v)
{
    snprintf(buf, len, "%s %s %s%s%s%s", v->impl, v->family, v->check, v->layout[0] ? " [" : "",
             v->layout, v->layout[0] ? "]" : "");
}

/* ---- text ------------------------------------------------------------- */

static void write_indented(FILE *f, const char *text, const char *indent)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(f, "%s%.*s\n", indent, (int)n, p);
        p += n + (nl ? 1 : 0);
    }
}

static void write_text(FILE *f, const pc_verdicts *vs)
{
    for (int k = 0; k < vs->n; k++) {
        const pc_verdict *v = &vs->v[k];
        char t[320];
        title(t, sizeof t, v);
        if (v->status == PC_FAIL || v->status < 0) {
            fprintf(f, "%s: %s %s%s%s%s: %s: %s\n", v->impl, v->family, v->check,
                    v->layout[0] ? " [" : "", v->layout, v->layout[0] ? "]" : "",
                    v->status == PC_FAIL ? "error" : "internal error", v->summary);
            if (v->details && v->details[0]) write_indented(f, v->details, "    ");
            fprintf(f, "    (seed %llu)\n", (unsigned long long)v->seed);
        } else if (v->status == PC_SKIP) {
            fprintf(f, "SKIP  %s: %s\n", t, v->summary);
        } else {
            fprintf(f, "PASS  %s: %s\n", t, v->summary);
        }
    }
    counts c = count(vs->v, vs->n);
    fprintf(f, "%d check%s: %d passed, %d failed, %d skipped%s (%.2f s)\n", vs->n,
            vs->n == 1 ? "" : "s", c.pass, c.fail, c.skip, c.other ? ", errors" : "", c.seconds);
}

/* ---- JSON --------------------------------------------------------------- */

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

static void write_json(FILE *f, const pc_verdicts *vs)
{
    counts c = count(vs->v, vs->n);
    fputs("{\n  \"tool\": ", f);
    pc_json_quote(f, PC_TOOL);
    fputs(",\n  \"version\": ", f);
    pc_json_quote(f, PC_VERSION);
    fprintf(f, ",\n  \"status\": \"%s\",\n", c.fail ? "fail" : c.other ? "error" : "pass");
    fprintf(f, "  \"counts\": {\"pass\": %d, \"fail\": %d, \"skip\": %d},\n", c.pass, c.fail, c.skip);
    fputs("  \"results\": [", f);
    for (int k = 0; k < vs->n; k++) {
        const pc_verdict *v = &vs->v[k];
        int first = 1;
        fputs(k ? ",\n    {" : "\n    {", f);
        jstr(f, &first, "check", v->check);
        jstr(f, &first, "family", v->family);
        jstr(f, &first, "implementation", v->impl);
        jstr(f, &first, "layout", v->layout[0] ? v->layout : NULL);
        jstr(f, &first, "status", status_word(v->status));
        jnum(f, &first, "measured", v->measured);
        jstr(f, &first, "measured_what", v->measured_what[0] ? v->measured_what : NULL);
        jnum(f, &first, "bound", v->bound);
        jkey(f, &first, "seed");
        fprintf(f, "%llu", (unsigned long long)v->seed);
        jnum(f, &first, "seconds", v->seconds);
        jstr(f, &first, "summary", v->summary);
        jstr(f, &first, "details", v->details);
        jkey(f, &first, "data");
        fputs(v->json && v->json[0] ? v->json : "null", f);
        fputs("\n    }", f);
    }
    fputs(vs->n ? "\n  ]\n}\n" : "]\n}\n", f);
}

/* ---- TAP 14 ------------------------------------------------------------- */

/* A TAP description: '#' starts a directive and must be escaped; no newlines. */
static void tap_desc(FILE *f, const char *s)
{
    for (; *s; s++) {
        if (*s == '#' || *s == '\\') fputc('\\', f);
        fputc(*s == '\n' || *s == '\r' ? ' ' : *s, f);
    }
}

static void write_tap(FILE *f, const pc_verdicts *vs)
{
    /* TAP 14 (the output is also valid TAP 13).  A harness announces the
     * newest version it reads in TAP_VERSION (Test::Harness sets it for the
     * tests it runs); prove before Test::Harness 3.48 (Debian 12's 3.44)
     * knows 13 and reports "TAP version 14" as a parse error, so under such
     * a harness the version line says 13. */
    const char *tv = getenv("TAP_VERSION");
    int version = tv && atoi(tv) >= 12 && atoi(tv) < 14 ? 13 : 14;
    fprintf(f, "TAP version %d\n1..%d\n", version, vs->n);
    for (int k = 0; k < vs->n; k++) {
        const pc_verdict *v = &vs->v[k];
        char t[320];
        title(t, sizeof t, v);
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
        fprintf(f, "\n  seed: %llu\n", (unsigned long long)v->seed);
        if (v->details && v->details[0]) {
            fputs("  witness: |\n", f);
            write_indented(f, v->details, "    ");
        }
        if (v->json && v->json[0]) {
            /* the JSON object as one string: JSON string escaping is valid YAML */
            char *flat = strdup(v->json);
            if (flat) {
                for (char *p = flat; *p; p++) if (*p == '\n') *p = ' ';
                fputs("  data: ", f);
                pc_json_quote(f, flat);
                fputc('\n', f);
                free(flat);
            }
        }
        fputs("  ...\n", f);
    }
}

/* ---- JUnit XML -------------------------------------------------------------- */

/* Length of the valid UTF-8 sequence at S (0: invalid). */
static int utf8_len(const unsigned char *s)
{
    if (s[0] < 0x80) return 1;
    int n = s[0] >= 0xF0 && s[0] <= 0xF4 ? 4 : s[0] >= 0xE0 ? 3 : s[0] >= 0xC2 && s[0] < 0xE0 ? 2 : 0;
    if (s[0] >= 0xF8) n = 0;
    for (int k = 1; k < n; k++)
        if ((s[k] & 0xC0) != 0x80) return 0;
    return n;
}

/* XML text or attribute value: markup escaped; characters XML 1.0 forbids
 * (controls other than tab/newline/CR, invalid UTF-8) become '?'. */
static void xml_esc(FILE *f, const char *str, int attr)
{
    const unsigned char *s = (const unsigned char *)str;
    while (*s) {
        switch (*s) {
        case '&': fputs("&amp;", f); s++; continue;
        case '<': fputs("&lt;", f); s++; continue;
        case '>': fputs("&gt;", f); s++; continue;
        case '"': fputs(attr ? "&quot;" : "\"", f); s++; continue;
        case '\n': fputs(attr ? "&#10;" : "\n", f); s++; continue;
        case '\t': fputs(attr ? "&#9;" : "\t", f); s++; continue;
        default: break;
        }
        if (*s < 0x20) { fputc('?', f); s++; continue; }
        int n = utf8_len(s);
        if (n == 0) { fputc('?', f); s++; continue; }
        fwrite(s, 1, (size_t)n, f);
        s += n;
    }
}

static void write_junit(FILE *f, const pc_verdicts *vs)
{
    counts all = count(vs->v, vs->n);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"pecheck\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
            vs->n, all.fail, all.other, all.seconds);
    /* one testsuite per implementation, in order of first appearance */
    for (int k = 0; k < vs->n; k++) {
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) seen = !strcmp(vs->v[j].impl, vs->v[k].impl);
        if (seen) continue;
        counts c = { 0, 0, 0, 0, 0.0 };
        int n = 0;
        for (int j = k; j < vs->n; j++)
            if (!strcmp(vs->v[j].impl, vs->v[k].impl)) {
                counts one = count(&vs->v[j], 1);
                c.pass += one.pass; c.fail += one.fail; c.skip += one.skip; c.other += one.other;
                c.seconds += one.seconds;
                n++;
            }
        fputs("  <testsuite name=\"", f);
        xml_esc(f, vs->v[k].impl, 1);
        fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
                n, c.fail, c.other, c.skip, c.seconds);
        for (int j = k; j < vs->n; j++) {
            const pc_verdict *v = &vs->v[j];
            if (strcmp(v->impl, vs->v[k].impl)) continue;
            char name[96];
            snprintf(name, sizeof name, "%s%s%s%s", v->check, v->layout[0] ? " [" : "", v->layout,
                     v->layout[0] ? "]" : "");
            fputs("    <testcase classname=\"", f);
            xml_esc(f, v->family, 1);
            fputs("\" name=\"", f);
            xml_esc(f, name, 1);
            fprintf(f, "\" time=\"%.3f\"", isfinite(v->seconds) && v->seconds > 0 ? v->seconds : 0.0);
            if (v->status == PC_OK) { fputs("/>\n", f); continue; }
            fputs(">\n", f);
            if (v->status == PC_SKIP) {
                fputs("      <skipped message=\"", f);
                xml_esc(f, v->summary, 1);
                fputs("\"/>\n", f);
            } else {
                fprintf(f, "      <%s message=\"", v->status == PC_FAIL ? "failure" : "error");
                xml_esc(f, v->summary, 1);
                fputs("\" type=\"", f);
                xml_esc(f, v->check, 1);
                fputs("\">", f);
                if (v->details) xml_esc(f, v->details, 0);
                fprintf(f, "%sseed %llu", v->details && v->details[0] ? "\n" : "",
                        (unsigned long long)v->seed);
                if (v->json && v->json[0]) { fputc('\n', f); xml_esc(f, v->json, 0); }
                fprintf(f, "</%s>\n", v->status == PC_FAIL ? "failure" : "error");
            }
            fputs("    </testcase>\n", f);
        }
        fputs("  </testsuite>\n", f);
    }
    fputs("</testsuites>\n", f);
}

void pc_format_write(FILE *f, int format, const pc_verdicts *vs)
{
    switch (format) {
    case PC_FMT_JSON:  write_json(f, vs); break;
    case PC_FMT_TAP:   write_tap(f, vs); break;
    case PC_FMT_JUNIT: write_junit(f, vs); break;
    default:           write_text(f, vs); break;
    }
}

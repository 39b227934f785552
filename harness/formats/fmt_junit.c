/* fmt_junit.c: the JUnit XML format (format.h). */
#include <math.h>
#include <string.h>
#include "format.h"

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

static int same_case(const pc_verdict *a, const pc_verdict *b)
{
    return !strcmp(a->impl, b->impl) && !strcmp(a->family, b->family) && !strcmp(a->check, b->check) &&
           !strcmp(a->layout, b->layout);
}

/* The test's identity, unique in the run (Jenkins keys its history on the
 * pair): classname "pecheck.IMPL.FAMILY", name "CHECK [LAYOUT]", and " (N)"
 * on the N-th repeat of the same check. */
static void testcase_open(FILE *f, const pc_verdicts *vs, int k)
{
    const pc_verdict *v = &vs->v[k];
    int repeat = 1;
    for (int j = 0; j < k; j++) repeat += same_case(&vs->v[j], v);
    char name[120];
    snprintf(name, sizeof name, "%s%s%s%s", v->check, v->layout[0] ? " [" : "", v->layout,
             v->layout[0] ? "]" : "");
    if (repeat > 1) {
        size_t l = strlen(name);
        snprintf(name + l, sizeof name - l, " (%d)", repeat);
    }
    fputs("    <testcase classname=\"pecheck.", f);
    xml_esc(f, v->impl, 1);
    fputc('.', f);
    xml_esc(f, v->family, 1);
    fputs("\" name=\"", f);
    xml_esc(f, name, 1);
    fprintf(f, "\" time=\"%.3f\"", isfinite(v->seconds) && v->seconds > 0 ? v->seconds : 0.0);
}

static void testcase(FILE *f, const pc_verdicts *vs, int k)
{
    const pc_verdict *v = &vs->v[k];
    testcase_open(f, vs, k);
    if (v->status == PC_OK) { fputs("/>\n", f); return; }
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

/* The testsuite of the implementation of verdict K (its first). */
static void testsuite(FILE *f, const pc_verdicts *vs, int k)
{
    const char *impl = vs->v[k].impl;
    pc_counts c = { 0, 0, 0, 0, 0.0 };
    int n = 0;
    for (int j = k; j < vs->n; j++)
        if (!strcmp(vs->v[j].impl, impl)) {
            pc_counts one = pc_format_count(&vs->v[j], 1);
            c.pass += one.pass; c.fail += one.fail; c.skip += one.skip; c.other += one.other;
            c.seconds += one.seconds;
            n++;
        }
    fputs("  <testsuite name=\"", f);
    xml_esc(f, impl, 1);
    fprintf(f, "\" tests=\"%d\" failures=\"%d\" errors=\"%d\" skipped=\"%d\" time=\"%.3f\">\n",
            n, c.fail, c.other, c.skip, c.seconds);
    for (int j = k; j < vs->n; j++)
        if (!strcmp(vs->v[j].impl, impl)) testcase(f, vs, j);
    fputs("  </testsuite>\n", f);
}

static void write_junit(FILE *f, const pc_result *r)
{
    const pc_verdicts *vs = r->vs;
    pc_counts all = pc_format_count(vs->v, vs->n);
    fputs("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n", f);
    fprintf(f, "<testsuites name=\"pecheck\" tests=\"%d\" failures=\"%d\" errors=\"%d\" time=\"%.3f\">\n",
            vs->n, all.fail, all.other, all.seconds);
    /* one testsuite per implementation, in order of first appearance */
    for (int k = 0; k < vs->n; k++) {
        int seen = 0;
        for (int j = 0; j < k && !seen; j++) seen = !strcmp(vs->v[j].impl, vs->v[k].impl);
        if (!seen) testsuite(f, vs, k);
    }
    fputs("</testsuites>\n", f);
}

const pc_format pc_fmt_junit = { "junit", write_junit };

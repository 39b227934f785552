/* fmt_junit.c: the JUnit XML format (format.h). */
#include <ctype.h>
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

/* The exit code of a run that ended in ST (main.c, pc_exit_code). */
static int run_exit(pc_status st)
{
    return st == PC_EINPUT || st == PC_EIO ? PC_EXIT_USAGE : PC_EXIT_INTERNAL;
}

/* IMPL as one segment of a classname: its last path component, every
 * character other than a letter, digit, '_' or '-' replaced by '_'
 * (Jenkins and GitLab read a classname's dots as packages: a plugin's path
 * "../my_plugin_1.so" becomes "my_plugin_1_so"). */
static void class_segment(char *buf, size_t len, const char *impl)
{
    const char *slash = strrchr(impl, '/');
    snprintf(buf, len, "%s", slash && slash[1] ? slash + 1 : impl);
    for (char *p = buf; *p; p++)
        if (!isalnum((unsigned char)*p) && *p != '_' && *p != '-') *p = '_';
}

/* The test's classname and name: "pecheck.IMPL.FAMILY" (IMPL as
 * class_segment writes it) and "CHECK [LAYOUT]"; a run that ended in an
 * error: "pecheck.COMMAND" and "run (exit N)". */
static void case_names(const pc_verdict *v, char *cls, size_t clen, char *name, size_t nlen)
{
    char seg[sizeof v->impl];
    if (v->command[0]) {
        class_segment(seg, sizeof seg, v->command);
        snprintf(cls, clen, "pecheck.%s", seg);
        snprintf(name, nlen, "run (exit %d)", run_exit(v->status));
        return;
    }
    class_segment(seg, sizeof seg, v->impl);
    snprintf(cls, clen, "pecheck.%s.%s", seg, v->family);
    snprintf(name, nlen, "%s%s%s%s", v->check, v->layout[0] ? " [" : "", v->layout,
             v->layout[0] ? "]" : "");
}

/* The test's identity, unique in the run (Jenkins keys its history on the
 * pair): case_names, and " (N)" after the name of the N-th verdict with the
 * same pair (a repeated check, or two sources of one file name). */
static void testcase_open(FILE *f, const pc_verdicts *vs, int k)
{
    const pc_verdict *v = &vs->v[k];
    char cls[200], name[120], c2[200], n2[120];
    case_names(v, cls, sizeof cls, name, sizeof name);
    int repeat = 1;
    for (int j = 0; j < k; j++) {
        case_names(&vs->v[j], c2, sizeof c2, n2, sizeof n2);
        repeat += !strcmp(c2, cls) && !strcmp(n2, name);
    }
    if (repeat > 1) {
        size_t l = strlen(name);
        snprintf(name + l, sizeof name - l, " (%d)", repeat);
    }
    fputs("    <testcase classname=\"", f);
    xml_esc(f, cls, 1);
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
        if (v->command[0]) { /* the run's error: the command and its message */
            fprintf(f, "pecheck %s exited %d: ", v->command,
                    run_exit(v->status));
            xml_esc(f, v->summary, 0);
            fprintf(f, "</%s>\n    </testcase>\n", v->status == PC_FAIL ? "failure" : "error");
            return;
        }
        if (v->against[0]) {
            fputs("checked against ", f);
            xml_esc(f, v->against, 0);
            fputc('\n', f);
        }
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

/* format.c: the table of output formats (format.h) and what the writers
 * share. */
#include <math.h>
#include <string.h>
#include "format.h"
#include "harness/base/dtype.h"

extern const pc_format pc_fmt_text, pc_fmt_json, pc_fmt_tap, pc_fmt_junit;

/* The order of the first four is enum pc_format_index's (format.h). */
static const pc_format *const table[] = { &pc_fmt_text, &pc_fmt_json, &pc_fmt_tap, &pc_fmt_junit };
#define N_FORMATS ((int)(sizeof table / sizeof table[0]))

int pc_format_find(const char *name)
{
    for (int k = 0; k < N_FORMATS; k++)
        if (!strcmp(table[k]->name, name)) return k;
    return -1;
}

const pc_format *pc_format_at(int k)
{
    return k >= 0 && k < N_FORMATS ? table[k] : NULL;
}

void pc_format_names(char *buf, size_t len)
{
    size_t u = 0;
    buf[0] = '\0';
    for (int k = 0; k < N_FORMATS && u < len; k++)
        u += (size_t)snprintf(buf + u, len - u, "%s%s", k == 0 ? "" : k == N_FORMATS - 1 ? " or " : ", ",
                              table[k]->name);
}

void pc_format_result(FILE *f, int format, const pc_result *r)
{
    const pc_format *fmt = pc_format_at(format);
    (fmt ? fmt : table[0])->write(f, r);
}

void pc_format_write(FILE *f, int format, const pc_verdicts *vs)
{
    pc_format_write_tap(f, format, vs, 0);
}

void pc_format_write_tap(FILE *f, int format, const pc_verdicts *vs, int tap_version)
{
    pc_result r = { .vs = vs, .tap_version = tap_version };
    pc_format_result(f, format, &r);
}

/* ---- shared by the writers ---------------------------------------------- */

const char *pc_format_status_word(pc_status s)
{
    return s == PC_OK ? "pass" : s == PC_FAIL ? "fail" : s == PC_SKIP ? "skip" : "error";
}

pc_counts pc_format_count(const pc_verdict *v, int n)
{
    pc_counts c = { 0, 0, 0, 0, 0.0 };
    for (int k = 0; k < n; k++) {
        if (v[k].status == PC_OK) c.pass++;
        else if (v[k].status == PC_FAIL) c.fail++;
        else if (v[k].status == PC_SKIP) c.skip++;
        else c.other++;
        if (isfinite(v[k].seconds) && v[k].seconds > 0) c.seconds += v[k].seconds;
    }
    return c;
}

void pc_format_title(char *buf, size_t len, const pc_verdict *v)
{
    snprintf(buf, len, "%s %s%s%s%s%s%s", v->impl, v->family, v->family[0] ? " " : "", v->check,
             v->layout[0] ? " [" : "", v->layout, v->layout[0] ? "]" : "");
    pc_format_controls(buf);
}

void pc_format_controls(char *s)
{
    /* a file name with a newline must not start a line of its own in a
     * report read line by line (a forged "PASS ..." in a CI log) */
    for (; *s; s++)
        if ((unsigned char)*s < 0x20 || *s == 0x7f) *s = '?';
}

void pc_format_indented(FILE *f, const char *text, const char *indent)
{
    const char *p = text;
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        fprintf(f, "%s%.*s\n", indent, (int)n, p);
        p += n + (nl ? 1 : 0);
    }
}

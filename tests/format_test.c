/* format_test.c: TAP tests of the table of formats (harness/formats/format.c).
 *
 * Every format of the table is found by its name, named in the list the
 * --format message gives, and writes a check's verdicts and a gate's
 * (pass, fail, skip, an error, text with markup and control characters)
 * without crashing and without writing nothing; a format added to the table
 * is covered here with no change to this test.  JSON members of a gate are
 * spliced one level deeper byte for byte.  A likely cause appended to a
 * summary arrives whole, the summary before it cut at a space when both do
 * not fit (what --quiet shows).  Output: TAP, plan at the end;
 * exit 0 when every test passed. */
#include <math.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/formats/format.h"
#include "harness/io/json.h"
#include "harness/formats/verdict.h"

static int tap_n, tap_failed;

static void ok(int cond, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
static void ok(int cond, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%sok %d - ", cond ? "" : "not ", ++tap_n);
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    if (!cond) tap_failed++;
    fflush(stdout);
}

static char *json_obj(void)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    pc_json j;
    pc_json_init(&j, f);
    pc_json_obj(&j, NULL);
    pc_json_str(&j, "implementation", "x<&\"y");
    pc_json_obj(&j, "params");
    pc_json_int(&j, "d", 8);
    pc_json_end(&j);
    pc_json_num(&j, "max_abs_err", 0.5);
    pc_json_end(&j);
    fclose(f);
    return buf;
}

static void add(pc_verdicts *vs, pc_status st, const char *impl, const char *check)
{
    pc_verdict *v = pc_verdicts_add(vs);
    if (!v) return;
    snprintf(v->impl, sizeof v->impl, "%s", impl);
    snprintf(v->family, sizeof v->family, "sinusoidal");
    snprintf(v->check, sizeof v->check, "%s", check);
    snprintf(v->layout, sizeof v->layout, "half");
    v->status = st;
    v->measured = st == PC_FAIL ? 2.0 : (double)NAN;
    v->bound = 1.0;
    v->seed = 7;
    snprintf(v->summary, sizeof v->summary, "summary <&> \"q\" #hash\x01 \xff");
    v->details = strdup("line one\nline <two> & \x02 three\n");
    v->json = json_obj();
}

static size_t written(int k, const pc_result *r)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return 0;
    pc_format_result(f, k, r);
    fclose(f);
    free(buf);
    return len;
}

/* pc_verdict_add_cause: the cause whole, the summary cut at a word */
static void cause_whole(void)
{
    pc_verdict v;
    memset(&v, 0, sizeof v);
    snprintf(v.summary, sizeof v.summary, "max |err|/bound 3: few values");
    pc_verdict_add_cause(&v, "a wrong base\nevidence: more");
    ok(strcmp(v.summary, "max |err|/bound 3: few values; likely cause: a wrong base") == 0,
       "a short summary gains the cause's first line: '%s'", v.summary);
    size_t k = 0;
    while (k + 6 < sizeof v.summary - 1) {
        memcpy(v.summary + k, "word ", 5);
        k += 5;
    }
    v.summary[k] = '\0';
    const char *cause = "the table's base is 500000, not 10000: pass --base 500000";
    pc_verdict_add_cause(&v, cause);
    const char *at = strstr(v.summary, " [...]; likely cause: ");
    ok(at && strcmp(at + 22, cause) == 0 && at[-1] == 'd' && at[-4] == 'w',
       "a full summary gives way at a space: the cause arrives whole ('...%s')",
       at ? at - 10 : v.summary);
    char big[3000];
    for (size_t j = 0; j < sizeof big - 1; j++) big[j] = j % 6 == 5 ? ' ' : 'x';
    big[sizeof big - 1] = '\0';
    snprintf(v.summary, sizeof v.summary, "short");
    pc_verdict_add_cause(&v, big);
    size_t n = strlen(v.summary);
    ok(n < sizeof v.summary && n > sizeof v.summary / 3
       && strcmp(v.summary + n - 6, " [...]") == 0 && v.summary[n - 7] == 'x',
       "a cause longer than half the summary is cut at a space and marked (%zu chars)", n);
}

int main(void)
{
    cause_whole();
    pc_verdicts vs = { NULL, 0, 0 };
    add(&vs, PC_OK, "a", "accuracy");
    add(&vs, PC_FAIL, "a", "unique");
    add(&vs, PC_SKIP, "b", "decay");
    add(&vs, PC_EINPUT, "b", "run");
    char names[200];
    pc_format_names(names, sizeof names);
    int n = 0;
    for (int k = 0; pc_format_at(k); k++, n++) {
        const pc_format *fmt = pc_format_at(k);
        ok(pc_format_find(fmt->name) == k && strstr(names, fmt->name) != NULL,
           "format %d '%s' is found by its name and listed in \"%s\"", k, fmt->name, names);
        pc_result checks = { .vs = &vs, .has_seed = 1, .seed = 7 };
        pc_result gate = { .vs = &vs, .gate = 1 };
        pc_result one = { .vs = &(pc_verdicts){ vs.v, 1, 1 }, .gate = 1, .single = 1 };
        pc_result brief = { .vs = &vs, .brief = 1 };
        ok(written(k, &checks) > 0 && written(k, &gate) > 0 && written(k, &one) > 0 &&
           written(k, &brief) > 0, "'%s' writes checks, a gate, a single gate and a brief run", fmt->name);
    }
    ok(n >= 4 && pc_format_find("nosuch") == -1 && pc_format_at(n) == NULL,
       "the table holds %d formats; an unknown name is -1", n);

    /* the gate's JSON: the verdict's members one level deeper, same bytes */
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    pc_result one = { .vs = &(pc_verdicts){ vs.v, 1, 1 }, .gate = 1, .single = 1 };
    if (f) { pc_format_result(f, pc_format_find("json"), &one); fclose(f); }
    char *want = NULL;
    size_t wl = 0;
    f = open_memstream(&want, &wl);
    if (f) {
        pc_json j;
        pc_json_init(&j, f);
        pc_json_obj(&j, NULL);
        pc_json_str(&j, "tool", "pecheck");
        pc_json_str(&j, "version", "");
        pc_json_str(&j, "implementation", "x<&\"y");
        pc_json_obj(&j, "params");
        pc_json_int(&j, "d", 8);
        pc_json_end(&j);
        pc_json_num(&j, "max_abs_err", 0.5);
        pc_json_end(&j);
        fclose(f);
    }
    /* compare from the implementation's member on (the version differs) */
    const char *a = buf ? strstr(buf, "  \"implementation\"") : NULL;
    const char *b = want ? strstr(want, "  \"implementation\"") : NULL;
    ok(a && b && !strcmp(a, b), "a gate's JSON holds the verdict's members as pc_json writes them at depth 1");
    free(buf);
    free(want);
    pc_verdicts_free(&vs);
    printf("1..%d\n", tap_n);
    return tap_failed ? 1 : 0;
}

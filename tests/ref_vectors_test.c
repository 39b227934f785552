/* ref_vectors_test.c: check the certified sin/cos reference against
 * independently computed test vectors (TAP output).
 *
 * Usage: ref_vectors_test [FILE]     (default tests/data/sincos_vectors.txt)
 *
 * FILE is written by scripts/gen_test_vectors.py (mpmath interval arithmetic
 * at 300 digits, no MPFR; provenance in tests/data/README.md).  Each data
 * line is
 *     pos i d base sin32 cos32 sin64 cos64   [# comment]
 * with C99 hex floats; sin32/cos32 are binary32 values written as the exactly
 * equal double.  A line "# category: NAME" starts a group of vectors.
 *
 * TAP plan: test 1 says the file was read and holds at least one vector and
 * no malformed line; then one test per category, "not ok" when any vector
 * of it differs from pc_ref_sincos in any of the four bit patterns (or when
 * the reference returns an error).  Each mismatch is a diagnostic line
 *     # FAIL pos=%lld i=%d d=%d base=%a ref=%a got=%a (sin32: ...)
 * (with the value's name, decimals and the file line after the hex), where
 * ref is the vector and got is pc_ref_sincos.  Exit status 0 only when
 * every test passes. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "reference/reference.h"

#define DEFAULT_PATH "tests/data/sincos_vectors.txt"
#define LINE_MAX_LEN 1024
#define MAX_CATEGORIES 64
#define CAT_NAME_LEN 64
#define MAX_TABLES 64   /* distinct (d, base) pairs cached */

typedef struct vec {
    int64_t pos;
    int     i, d;
    double  base;
    float   s32, c32;
    double  s64, c64;
    int     cat;        /* index into the category table */
    long    lineno;
} vec;

typedef struct category {
    char name[CAT_NAME_LEN];
    long nvec, nfail;
} category;

typedef struct table {
    int       d;
    double    base;
    pc_freqs *f;
} table;

/* Bitwise equality (so -0 != +0 and NaN patterns are compared exactly). */
static int same32(float a, float b) { return memcmp(&a, &b, sizeof a) == 0; }
static int same64(double a, double b) { return memcmp(&a, &b, sizeof a) == 0; }

/* Parse one hex (or decimal) double; advance *P.  Returns 0 on success. */
static int parse_double(char **p, double *out)
{
    char *end;
    *out = strtod(*p, &end);
    if (end == *p)
        return -1;
    *p = end;
    return 0;
}

/* A binary32 value written as a double: must convert exactly. */
static int parse_float(char **p, float *out)
{
    double v;
    if (parse_double(p, &v) != 0)
        return -1;
    *out = (float)v;
    return same64((double)*out, v) ? 0 : -1;
}

/* Parse a data line into V (fields only).  Returns 0 on success. */
static int parse_vec(char *line, vec *v)
{
    char *p = line, *end;
    char *hash = strchr(line, '#');
    long long pos;
    long i, d;
    if (hash)
        *hash = '\0';
    pos = strtoll(p, &end, 10);
    if (end == p) return -1;
    p = end;
    i = strtol(p, &end, 10);
    if (end == p) return -1;
    p = end;
    d = strtol(p, &end, 10);
    if (end == p) return -1;
    p = end;
    if (i < 0 || d < 0 || i > PC_D_MAX || d > PC_D_MAX) return -1;
    v->pos = (int64_t)pos;
    v->i = (int)i;
    v->d = (int)d;
    if (parse_double(&p, &v->base) != 0) return -1;
    if (parse_float(&p, &v->s32) != 0) return -1;
    if (parse_float(&p, &v->c32) != 0) return -1;
    if (parse_double(&p, &v->s64) != 0) return -1;
    if (parse_double(&p, &v->c64) != 0) return -1;
    while (*p == ' ' || *p == '\t' || *p == '\n' || *p == '\r')
        p++;
    return *p == '\0' ? 0 : -1;
}

static int is_blank(const char *s)
{
    for (; *s; s++)
        if (*s != ' ' && *s != '\t' && *s != '\n' && *s != '\r')
            return 0;
    return 1;
}

/* Frequencies for (d, base), created on first use and cached. */
static pc_freqs *get_freqs(table *tabs, int *ntabs, int d, double base,
                           pc_err *err)
{
    pc_freqs *f;
    for (int k = 0; k < *ntabs; k++)
        if (tabs[k].d == d && same64(tabs[k].base, base))
            return tabs[k].f;
    if (pc_ref_check_params(d, base, err) != PC_OK)
        return NULL;
    if (*ntabs >= MAX_TABLES) {
        snprintf(err->msg, sizeof err->msg, "more than %d tables", MAX_TABLES);
        return NULL;
    }
    f = pc_freqs_new(d, pc_schedule_geometric(base));
    if (!f) {
        snprintf(err->msg, sizeof err->msg, "pc_freqs_new(%d, %a) failed", d,
                 base);
        return NULL;
    }
    tabs[*ntabs].d = d;
    tabs[*ntabs].base = base;
    tabs[*ntabs].f = f;
    (*ntabs)++;
    return f;
}

static void fail_line(const vec *v, const char *what, double ref, double got)
{
    printf("# FAIL pos=%lld i=%d d=%d base=%a ref=%a got=%a"
           " (%s: ref=%.17g got=%.17g, line %ld)\n",
           (long long)v->pos, v->i, v->d, v->base, ref, got, what, ref, got,
           v->lineno);
}

/* Compare one vector with the reference; returns the number of mismatches
 * (an error of the reference counts as one). */
static int check_vec(const vec *v, table *tabs, int *ntabs)
{
    pc_err err;
    pc_ref2 s, c;
    pc_status st;
    int nbad = 0;
    pc_freqs *f;

    err.msg[0] = '\0';
    f = get_freqs(tabs, ntabs, v->d, v->base, &err);
    if (!f) {
        printf("# FAIL pos=%lld i=%d d=%d base=%a: no table: %s (line %ld)\n",
               (long long)v->pos, v->i, v->d, v->base, err.msg, v->lineno);
        return 1;
    }
    st = pc_ref_sincos(f, v->pos, v->i, &s, &c);
    if (st != PC_OK) {
        printf("# FAIL pos=%lld i=%d d=%d base=%a: pc_ref_sincos returned %d"
               " (line %ld)\n", (long long)v->pos, v->i, v->d, v->base,
               (int)st, v->lineno);
        return 1;
    }
    if (!same32(s.f32, v->s32)) {
        fail_line(v, "sin32", (double)v->s32, (double)s.f32);
        nbad++;
    }
    if (!same32(c.f32, v->c32)) {
        fail_line(v, "cos32", (double)v->c32, (double)c.f32);
        nbad++;
    }
    if (!same64(s.f64, v->s64)) {
        fail_line(v, "sin64", v->s64, s.f64);
        nbad++;
    }
    if (!same64(c.f64, v->c64)) {
        fail_line(v, "cos64", v->c64, c.f64);
        nbad++;
    }
    return nbad;
}

int main(int argc, char **argv)
{
    const char *path = argc > 1 ? argv[1] : DEFAULT_PATH;
    static category cats[MAX_CATEGORIES];
    static table tabs[MAX_TABLES];
    char line[LINE_MAX_LEN];
    vec *vecs = NULL;
    size_t nvec = 0, cap = 0;
    int ncat = 0, ntabs = 0, all_ok = 1;
    long lineno = 0, nbadline = 0;
    FILE *fp = fopen(path, "r");

    if (!fp) {
        printf("1..1\nnot ok 1 - read %s: cannot open\n", path);
        return 1;
    }
    /* Vectors before any "# category:" line go to "uncategorized". */
    strcpy(cats[0].name, "uncategorized");
    ncat = 1;
    while (fgets(line, sizeof line, fp)) {
        lineno++;
        if (!strchr(line, '\n') && !feof(fp)) {
            printf("# line %ld: longer than %d characters\n", lineno,
                   LINE_MAX_LEN - 1);
            nbadline++;
            /* skip the rest of the long line */
            int ch;
            while ((ch = fgetc(fp)) != EOF && ch != '\n')
                ;
            continue;
        }
        if (strncmp(line, "# category:", 11) == 0) {
            char name[CAT_NAME_LEN];
            if (sscanf(line + 11, "%63s", name) != 1) {
                printf("# line %ld: category without a name\n", lineno);
                nbadline++;
                continue;
            }
            if (ncat >= MAX_CATEGORIES) {
                printf("# line %ld: more than %d categories\n", lineno,
                       MAX_CATEGORIES);
                nbadline++;
                continue;
            }
            strcpy(cats[ncat].name, name);
            ncat++;
            continue;
        }
        if (line[0] == '#' || is_blank(line))
            continue;
        if (nvec == cap) {
            size_t ncap = cap ? 2 * cap : 1024;
            vec *nv = realloc(vecs, ncap * sizeof *nv);
            if (!nv) {
                printf("1..1\nnot ok 1 - read %s: out of memory\n", path);
                free(vecs);
                fclose(fp);
                return 1;
            }
            vecs = nv;
            cap = ncap;
        }
        if (parse_vec(line, &vecs[nvec]) != 0) {
            printf("# line %ld: malformed vector\n", lineno);
            nbadline++;
            continue;
        }
        vecs[nvec].cat = ncat - 1;
        vecs[nvec].lineno = lineno;
        cats[ncat - 1].nvec++;
        nvec++;
    }
    if (ferror(fp)) {
        printf("# %s: read error\n", path);
        nbadline++;
    }
    fclose(fp);

    /* Plan: the read test plus every category that holds vectors. */
    {
        int ntests = 1;
        for (int k = 0; k < ncat; k++)
            if (cats[k].nvec > 0)
                ntests++;
        printf("1..%d\n", ntests);
    }
    if (nvec == 0 || nbadline > 0) {
        printf("not ok 1 - read %s: %zu vectors, %ld malformed lines\n", path,
               nvec, nbadline);
        all_ok = 0;
    } else {
        printf("ok 1 - read %s: %zu vectors in %d categories\n", path, nvec,
               ncat - (cats[0].nvec == 0));
    }

    {
        int t = 2;
        for (int k = 0; k < ncat; k++) {
            if (cats[k].nvec == 0)
                continue;
            /* diagnostics of a category come just before its result line */
            for (size_t j = 0; j < nvec; j++)
                if (vecs[j].cat == k && check_vec(&vecs[j], tabs, &ntabs) > 0)
                    cats[k].nfail++;
            if (cats[k].nfail == 0) {
                printf("ok %d - %s: %ld vectors bit-exact\n", t, cats[k].name,
                       cats[k].nvec);
            } else {
                printf("not ok %d - %s: %ld of %ld vectors differ\n", t,
                       cats[k].name, cats[k].nfail, cats[k].nvec);
                all_ok = 0;
            }
            t++;
        }
    }

    for (int k = 0; k < ntabs; k++)
        pc_freqs_free(tabs[k].f);
    free(vecs);
    return all_ok ? 0 : 1;
}

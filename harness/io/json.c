/* json.c: streaming JSON writer. */
#include <math.h>
#include <stdlib.h>
#include "json.h"

char *pc_json_object_text(void (*body)(pc_json *j, const void *ctx), const void *ctx)
{
    char *buf = NULL;
    size_t len = 0;
    FILE *f = open_memstream(&buf, &len);
    if (!f) return NULL;
    pc_json j;
    pc_json_init(&j, f);
    pc_json_obj(&j, NULL);
    body(&j, ctx);
    pc_json_end(&j);
    if (fclose(f) == 0) return buf;
    free(buf);
    return NULL;
}

void pc_json_init(pc_json *j, FILE *f)
{
    j->f = f;
    j->depth = 0;
    j->count[0] = 0;
}

int pc_utf8_len(const unsigned char *s)
{
    unsigned c = s[0];
    if (c < 0x80) return 1;
    int n;
    unsigned lo = 0x80, hi = 0xbf; /* range of the second byte (RFC 3629, table 3-7) */
    if (c >= 0xc2 && c <= 0xdf) n = 2;
    else if (c >= 0xe0 && c <= 0xef) {
        n = 3;
        if (c == 0xe0) lo = 0xa0;        /* no overlong forms */
        if (c == 0xed) hi = 0x9f;        /* no surrogates */
    } else if (c >= 0xf0 && c <= 0xf4) {
        n = 4;
        if (c == 0xf0) lo = 0x90;        /* no overlong forms */
        if (c == 0xf4) hi = 0x8f;        /* nothing above U+10FFFF */
    } else {
        return 0;
    }
    if (s[1] < lo || s[1] > hi) return 0;
    for (int k = 2; k < n; k++)
        if (s[k] < 0x80 || s[k] > 0xbf) return 0;
    return n;
}

void pc_json_quote(FILE *f, const char *s)
{
    fputc('"', f);
    for (const unsigned char *p = (const unsigned char *)s; *p;) {
        int n = 1;
        switch (*p) {
        case '"':  fputs("\\\"", f); break;
        case '\\': fputs("\\\\", f); break;
        case '\n': fputs("\\n", f); break;
        case '\r': fputs("\\r", f); break;
        case '\t': fputs("\\t", f); break;
        default:
            if (*p < 0x20) fprintf(f, "\\u%04x", *p);
            else if ((n = pc_utf8_len(p)) == 0) { fputs("\\ufffd", f); n = 1; }
            else fwrite(p, 1, (size_t)n, f);
        }
        p += n;
    }
    fputc('"', f);
}

static void prefix(pc_json *j, const char *key)
{
    if (j->count[j->depth]++ > 0)
        fputc(',', j->f);
    if (j->depth > 0)
        fprintf(j->f, "\n%*s", 2 * j->depth, "");
    if (key) {
        pc_json_quote(j->f, key);
        fputs(": ", j->f);
    }
}

static void json_open(pc_json *j, const char *key, char o, char c)
{
    prefix(j, key);
    fputc(o, j->f);
    if (j->depth + 1 < PC_JSON_DEPTH) {
        j->depth++;
        j->count[j->depth] = 0;
        j->close[j->depth] = c;
    }
}

void pc_json_obj(pc_json *j, const char *key) { json_open(j, key, '{', '}'); }
void pc_json_arr(pc_json *j, const char *key) { json_open(j, key, '[', ']'); }

void pc_json_end(pc_json *j)
{
    if (j->depth == 0) return;
    int had = j->count[j->depth];
    char c = j->close[j->depth];
    j->depth--;
    if (had) fprintf(j->f, "\n%*s", 2 * j->depth, "");
    fputc(c, j->f);
    if (j->depth == 0) fputc('\n', j->f);
}

void pc_json_str(pc_json *j, const char *key, const char *v)
{
    prefix(j, key);
    if (v) pc_json_quote(j->f, v);
    else fputs("null", j->f);
}

void pc_json_num(pc_json *j, const char *key, double v)
{
    prefix(j, key);
    if (isfinite(v)) fprintf(j->f, "%.17g", v);
    else fputs("null", j->f);
}

void pc_json_int(pc_json *j, const char *key, long long v)
{
    prefix(j, key);
    fprintf(j->f, "%lld", v);
}

void pc_json_bool(pc_json *j, const char *key, int v)
{
    prefix(j, key);
    fputs(v ? "true" : "false", j->f);
}

void pc_json_float(pc_json *j, const char *key, double v)
{
    pc_json_obj(j, key);
    char buf[64];
    snprintf(buf, sizeof buf, "%a", v);
    pc_json_str(j, "hex", buf);
    pc_json_num(j, "dec", v);
    pc_json_end(j);
}

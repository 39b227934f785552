/* jsonread.c: recursive-descent JSON parser (see jsonread.h). */
#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "input.h"
#include "jsonread.h"

typedef struct jp {
    const unsigned char *s;
    size_t n, i;
    const char *what;
    pc_err *err;
} jp;

static pc_status fail(jp *p, const char *msg)
{
    return pc_seterr(p->err, PC_EINPUT, "%s: invalid JSON at byte %zu: %s", p->what, p->i, msg);
}

static void ws(jp *p)
{
    while (p->i < p->n && (p->s[p->i] == ' ' || p->s[p->i] == '\t' || p->s[p->i] == '\n'
                           || p->s[p->i] == '\r'))
        p->i++;
}

static void free_node(pc_jnode *n)
{
    free(n->text);
    for (size_t k = 0; k < n->n; k++) {
        free_node(&n->kids[k]);
        if (n->keys) free(n->keys[k]);
    }
    free(n->kids);
    free(n->keys);
}

void pc_jfree(pc_jnode *n)
{
    if (!n) return;
    free_node(n);
    free(n);
}

static int hex4(const unsigned char *s, unsigned *v)
{
    *v = 0;
    for (int k = 0; k < 4; k++) {
        unsigned c = s[k], d;
        if (c >= '0' && c <= '9') d = c - '0';
        else if (c >= 'a' && c <= 'f') d = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') d = c - 'A' + 10;
        else return -1;
        *v = *v * 16 + d;
    }
    return 0;
}

static size_t put_utf8(char *o, unsigned cp)
{
    if (cp < 0x80) { o[0] = (char)cp; return 1; }
    if (cp < 0x800) { o[0] = (char)(0xc0 | (cp >> 6)); o[1] = (char)(0x80 | (cp & 0x3f)); return 2; }
    if (cp < 0x10000) {
        o[0] = (char)(0xe0 | (cp >> 12)); o[1] = (char)(0x80 | ((cp >> 6) & 0x3f));
        o[2] = (char)(0x80 | (cp & 0x3f)); return 3;
    }
    o[0] = (char)(0xf0 | (cp >> 18)); o[1] = (char)(0x80 | ((cp >> 12) & 0x3f));
    o[2] = (char)(0x80 | ((cp >> 6) & 0x3f)); o[3] = (char)(0x80 | (cp & 0x3f));
    return 4;
}

/* A string starting at the opening quote; decoded into a new buffer. */
static pc_status parse_string(jp *p, char **out)
{
    p->i++; /* opening quote */
    size_t start = p->i;
    /* decoded text is never longer than the source (\uXXXX: 6 bytes -> <= 4) */
    size_t end = start;
    while (end < p->n && p->s[end] != '"') end += p->s[end] == '\\' ? 2 : 1;
    if (end >= p->n) return fail(p, "unterminated string");
    char *o = malloc(end - start + 1);
    if (!o) return pc_seterr(p->err, PC_ENOMEM, "%s: out of memory", p->what);
    size_t k = 0;
    while (p->s[p->i] != '"') {
        unsigned c = p->s[p->i];
        if (c < 0x20) { free(o); return fail(p, "control character in string"); }
        if (c != '\\') { o[k++] = (char)c; p->i++; continue; }
        if (p->i + 1 >= p->n) { free(o); return fail(p, "bad escape"); }
        unsigned e = p->s[p->i + 1];
        p->i += 2;
        switch (e) {
        case '"': o[k++] = '"'; break;
        case '\\': o[k++] = '\\'; break;
        case '/': o[k++] = '/'; break;
        case 'b': o[k++] = '\b'; break;
        case 'f': o[k++] = '\f'; break;
        case 'n': o[k++] = '\n'; break;
        case 'r': o[k++] = '\r'; break;
        case 't': o[k++] = '\t'; break;
        case 'u': {
            unsigned cp;
            if (p->i + 4 > end || hex4(p->s + p->i, &cp) != 0) { free(o); return fail(p, "bad \\u escape"); }
            p->i += 4;
            if (cp >= 0xd800 && cp < 0xdc00 && p->i + 6 <= end && p->s[p->i] == '\\'
                && p->s[p->i + 1] == 'u') {
                unsigned lo;
                if (hex4(p->s + p->i + 2, &lo) == 0 && lo >= 0xdc00 && lo < 0xe000) {
                    cp = 0x10000 + ((cp - 0xd800) << 10) + (lo - 0xdc00);
                    p->i += 6;
                }
            }
            if (cp == 0) { free(o); return fail(p, "\\u0000 in string"); }
            k += put_utf8(o + k, cp);
            break;
        }
        default: free(o); return fail(p, "bad escape");
        }
    }
    p->i++; /* closing quote */
    o[k] = '\0';
    *out = o;
    return PC_OK;
}

static int is_digit(unsigned c) { return c >= '0' && c <= '9'; }

static pc_status parse_number(jp *p, pc_jnode *v)
{
    size_t a = p->i;
    if (p->i < p->n && p->s[p->i] == '-') p->i++;
    if (p->i >= p->n || !is_digit(p->s[p->i])) return fail(p, "bad number");
    if (p->s[p->i] == '0') p->i++;
    else while (p->i < p->n && is_digit(p->s[p->i])) p->i++;
    if (p->i < p->n && p->s[p->i] == '.') {
        p->i++;
        if (p->i >= p->n || !is_digit(p->s[p->i])) return fail(p, "bad number");
        while (p->i < p->n && is_digit(p->s[p->i])) p->i++;
    }
    if (p->i < p->n && (p->s[p->i] == 'e' || p->s[p->i] == 'E')) {
        p->i++;
        if (p->i < p->n && (p->s[p->i] == '+' || p->s[p->i] == '-')) p->i++;
        if (p->i >= p->n || !is_digit(p->s[p->i])) return fail(p, "bad number");
        while (p->i < p->n && is_digit(p->s[p->i])) p->i++;
    }
    size_t len = p->i - a;
    v->text = malloc(len + 1);
    if (!v->text) return pc_seterr(p->err, PC_ENOMEM, "%s: out of memory", p->what);
    memcpy(v->text, p->s + a, len);
    v->text[len] = '\0';
    v->type = PC_J_NUM;
    return PC_OK;
}

static pc_status parse_value(jp *p, pc_jnode *v, int depth);

static pc_status grow(jp *p, pc_jnode *v, size_t *cap, int with_keys)
{
    if (v->n < *cap) return PC_OK;
    size_t nc = *cap ? 2 * *cap : 8;
    pc_jnode *k = realloc(v->kids, nc * sizeof *k);
    if (!k) return pc_seterr(p->err, PC_ENOMEM, "%s: out of memory", p->what);
    v->kids = k;
    if (with_keys) {
        char **ks = realloc(v->keys, nc * sizeof *ks);
        if (!ks) return pc_seterr(p->err, PC_ENOMEM, "%s: out of memory", p->what);
        v->keys = ks;
    }
    *cap = nc;
    return PC_OK;
}

static pc_status parse_container(jp *p, pc_jnode *v, int depth, int obj)
{
    if (depth >= PC_JREAD_DEPTH) return fail(p, "nested too deeply");
    v->type = obj ? PC_J_OBJ : PC_J_ARR;
    p->i++;
    ws(p);
    char close = obj ? '}' : ']';
    if (p->i < p->n && p->s[p->i] == close) { p->i++; return PC_OK; }
    size_t cap = 0;
    for (;;) {
        pc_status st = grow(p, v, &cap, obj);
        if (st != PC_OK) return st;
        char *key = NULL;
        if (obj) {
            ws(p);
            if (p->i >= p->n || p->s[p->i] != '"') return fail(p, "expected a member name");
            if ((st = parse_string(p, &key)) != PC_OK) return st;
            ws(p);
            if (p->i >= p->n || p->s[p->i] != ':') { free(key); return fail(p, "expected ':'"); }
            p->i++;
        }
        pc_jnode *kid = &v->kids[v->n];
        memset(kid, 0, sizeof *kid);
        if (obj) v->keys[v->n] = key;
        v->n++; /* counted now so that an error frees it */
        if ((st = parse_value(p, kid, depth + 1)) != PC_OK) return st;
        ws(p);
        if (p->i < p->n && p->s[p->i] == ',') { p->i++; continue; }
        if (p->i < p->n && p->s[p->i] == close) { p->i++; return PC_OK; }
        return fail(p, obj ? "expected ',' or '}'" : "expected ',' or ']'");
    }
}

static int lit(jp *p, const char *w)
{
    size_t l = strlen(w);
    if (p->n - p->i < l || memcmp(p->s + p->i, w, l) != 0) return 0;
    p->i += l;
    return 1;
}

static pc_status parse_value(jp *p, pc_jnode *v, int depth)
{
    ws(p);
    if (p->i >= p->n) return fail(p, "unexpected end of input");
    unsigned c = p->s[p->i];
    if (c == '{') return parse_container(p, v, depth, 1);
    if (c == '[') return parse_container(p, v, depth, 0);
    if (c == '"') { v->type = PC_J_STR; return parse_string(p, &v->text); }
    if (c == '-' || is_digit(c)) return parse_number(p, v);
    if (lit(p, "null")) { v->type = PC_J_NULL; return PC_OK; }
    if (lit(p, "true")) { v->type = PC_J_TRUE; return PC_OK; }
    if (lit(p, "false")) { v->type = PC_J_FALSE; return PC_OK; }
    return fail(p, "unexpected character");
}

pc_status pc_jparse(const char *text, size_t len, const char *what, pc_jnode **out, pc_err *err)
{
    *out = NULL;
    jp p = { (const unsigned char *)text, len, 0, what, err };
    pc_jnode *v = calloc(1, sizeof *v);
    if (!v) return pc_seterr(err, PC_ENOMEM, "%s: out of memory", what);
    pc_status st = parse_value(&p, v, 0);
    if (st == PC_OK) {
        ws(&p);
        if (p.i != p.n) st = fail(&p, "trailing characters after the value");
    }
    if (st != PC_OK) { pc_jfree(v); return st; }
    *out = v;
    return PC_OK;
}

pc_status pc_jread_file(const char *path, pc_jnode **out, pc_err *err)
{
    *out = NULL;
    FILE *f;
    pc_status ost = pc_in_open(path, &f, err); /* a FIFO without a writer: an error, not a hang */
    if (ost != PC_OK) return ost;
    size_t cap = 1 << 16, n = 0;
    char *buf = malloc(cap);
    pc_status st = PC_OK;
    while (buf) {
        if (n == cap) {
            if (cap >= PC_JREAD_MAX) { st = pc_seterr(err, PC_EINPUT, "%s: larger than %zu bytes", path, PC_JREAD_MAX); break; }
            char *nb = realloc(buf, 2 * cap);
            if (!nb) break;
            buf = nb;
            cap *= 2;
        }
        size_t r = fread(buf + n, 1, cap - n, f);
        n += r;
        if (r == 0) {
            if (ferror(f)) st = pc_seterr(err, PC_EIO, "%s: read error", path);
            break;
        }
    }
    fclose(f);
    if (!buf) return pc_seterr(err, PC_ENOMEM, "%s: out of memory", path);
    if (st == PC_OK) st = pc_jparse(buf, n, path, out, err);
    free(buf);
    return st;
}

const pc_jnode *pc_jget(const pc_jnode *obj, const char *key)
{
    if (!obj || obj->type != PC_J_OBJ) return NULL;
    for (size_t k = obj->n; k-- > 0;)
        if (!strcmp(obj->keys[k], key)) return &obj->kids[k];
    return NULL;
}

const char *pc_jdup_key(const pc_jnode *n)
{
    for (size_t k = 0; k < n->n; k++) {
        for (size_t j = 0; n->type == PC_J_OBJ && j < k; j++)
            if (!strcmp(n->keys[j], n->keys[k])) return n->keys[k];
        const char *d = pc_jdup_key(&n->kids[k]);
        if (d) return d;
    }
    return NULL;
}

pc_status pc_jget_int(const pc_jnode *obj, const char *key, const char *what, long lo, long hi,
                      int *v, int *set, pc_err *err)
{
    const pc_jnode *n = obj ? pc_jget(obj, key) : NULL;
    *set = 0;
    if (!n || n->type == PC_J_NULL) return PC_OK;
    char *end = NULL;
    long x = n->type == PC_J_NUM ? strtol(n->text, &end, 10) : 0;
    if (n->type != PC_J_NUM || *end || x < lo || x > hi)
        return pc_seterr(err, PC_EINPUT, "%s: %s must be an integer in [%ld, %ld]", what, key, lo,
                         hi);
    *v = (int)x;
    *set = 1;
    return PC_OK;
}

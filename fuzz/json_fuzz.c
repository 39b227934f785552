/* json_fuzz.c: libFuzzer target for pc_jparse, the JSON reader behind
 * `pecheck merge` (see fuzz/README.md).
 *
 * Besides "no crash, no leak, no UB" (ASan, UBSan) it checks the contract
 * in jsonread.h on every input and traps on a breach:
 *   - success: every node has a known type; a number's text is a whole
 *     JSON number (strtod reads all of it); an object has one name per
 *     member; and the tree written back as JSON parses again to the same
 *     tree (so nothing was silently dropped or altered);
 *   - failure: PC_EINPUT or PC_ENOMEM, OUT left NULL, and the message is
 *     one non-empty line of printable ASCII. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "harness/io/jsonread.h"

static void check(int cond)
{
    if (!cond)
        __builtin_trap();
}

/* ---- writing a tree back as JSON ---------------------------------------- */

typedef struct buf {
    char *p;
    size_t n, cap;
} buf;

static void put(buf *b, const char *s, size_t n)
{
    if (b->n + n + 1 > b->cap) {
        size_t nc = (b->n + n + 1) * 2;
        char *np = realloc(b->p, nc);
        check(np != NULL);
        b->p = np;
        b->cap = nc;
    }
    memcpy(b->p + b->n, s, n);
    b->n += n;
}

/* a decoded string: quote, backslash and control bytes escaped, every
 * other byte as it is (the reader keeps bytes >= 0x80 unchanged) */
static void put_str(buf *b, const char *s)
{
    put(b, "\"", 1);
    for (const unsigned char *c = (const unsigned char *)s; *c; c++) {
        char e[8];
        if (*c == '"' || *c == '\\') {
            e[0] = '\\'; e[1] = (char)*c;
            put(b, e, 2);
        } else if (*c < 0x20) {
            snprintf(e, sizeof e, "\\u%04x", *c);
            put(b, e, 6);
        } else {
            put(b, (const char *)c, 1);
        }
    }
    put(b, "\"", 1);
}

static void put_node(buf *b, const pc_jnode *v)
{
    switch (v->type) {
    case PC_J_NULL: put(b, "null", 4); break;
    case PC_J_FALSE: put(b, "false", 5); break;
    case PC_J_TRUE: put(b, "true", 4); break;
    case PC_J_NUM: put(b, v->text, strlen(v->text)); break;
    case PC_J_STR: put_str(b, v->text); break;
    case PC_J_ARR: case PC_J_OBJ:
        put(b, v->type == PC_J_OBJ ? "{" : "[", 1);
        for (size_t k = 0; k < v->n; k++) {
            if (k) put(b, ",", 1);
            if (v->type == PC_J_OBJ) {
                put_str(b, v->keys[k]);
                put(b, ":", 1);
            }
            put_node(b, &v->kids[k]);
        }
        put(b, v->type == PC_J_OBJ ? "}" : "]", 1);
        break;
    default: check(0);
    }
}

/* ---- the contract ----------------------------------------------------- */

static void check_node(const pc_jnode *v)
{
    check(v->type >= PC_J_NULL && v->type <= PC_J_OBJ);
    if (v->type == PC_J_NUM) {
        char *end;
        check(v->text != NULL && v->text[0] != '\0');
        (void)strtod(v->text, &end);
        check(*end == '\0');
    }
    if (v->type == PC_J_STR) check(v->text != NULL);
    if (v->type == PC_J_ARR || v->type == PC_J_OBJ) {
        check(v->n == 0 || v->kids != NULL);
        check(v->type == PC_J_ARR || v->n == 0 || v->keys != NULL);
        for (size_t k = 0; k < v->n; k++) {
            if (v->type == PC_J_OBJ) check(v->keys[k] != NULL);
            check_node(&v->kids[k]);
        }
    } else {
        check(v->n == 0);
    }
}

static int same(const pc_jnode *a, const pc_jnode *b)
{
    if (a->type != b->type || a->n != b->n) return 0;
    if ((a->type == PC_J_NUM || a->type == PC_J_STR) && strcmp(a->text, b->text)) return 0;
    for (size_t k = 0; k < a->n; k++) {
        if (a->type == PC_J_OBJ && strcmp(a->keys[k], b->keys[k])) return 0;
        if (!same(&a->kids[k], &b->kids[k])) return 0;
    }
    return 1;
}

static void check_message(const pc_err *e)
{
    size_t n = strnlen(e->msg, sizeof e->msg);
    check(n > 0 && n < sizeof e->msg);
    for (size_t i = 0; i < n; i++)
        check(e->msg[i] >= 0x20 && e->msg[i] < 0x7f);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pc_jnode *t = (pc_jnode *)&t; /* must be set to NULL on failure */
    pc_err e;

    memset(&e, 0x55, sizeof e);  /* catch a message left unterminated */
    pc_status st = pc_jparse((const char *)data, size, "input", &t, &e);
    if (st != PC_OK) {
        check(st == PC_EINPUT || st == PC_ENOMEM);
        check(t == NULL);
        check_message(&e);
        return 0;
    }
    check(t != NULL);
    check_node(t);
    buf b = { NULL, 0, 0 };
    put_node(&b, t);
    pc_jnode *u = NULL;
    check(pc_jparse(b.p, b.n, "rewritten", &u, &e) == PC_OK);
    check(same(t, u));
    pc_jfree(u);
    pc_jfree(t);
    free(b.p);
    return 0;
}

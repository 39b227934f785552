/* json.h: a small streaming JSON writer (objects, arrays, scalars).
 * Keys are passed with each value; pass NULL inside arrays. */
#ifndef PECHECK_JSON_H
#define PECHECK_JSON_H

#include <stdio.h>

#define PC_JSON_DEPTH 32

typedef struct pc_json {
    FILE *f;
    int depth;
    int count[PC_JSON_DEPTH];   /* values written at each level */
    char close[PC_JSON_DEPTH];  /* '}' or ']' */
} pc_json;

void pc_json_init(pc_json *j, FILE *f);
/* A JSON object whose members BODY(J, CTX) writes, as malloc'd text (a
 * verdict's JSON data); NULL when out of memory. */
char *pc_json_object_text(void (*body)(pc_json *j, const void *ctx), const void *ctx);
void pc_json_obj(pc_json *j, const char *key);
void pc_json_arr(pc_json *j, const char *key);
void pc_json_end(pc_json *j);
void pc_json_str(pc_json *j, const char *key, const char *v);   /* NULL -> null */
void pc_json_num(pc_json *j, const char *key, double v);        /* non-finite -> null */
void pc_json_int(pc_json *j, const char *key, long long v);
void pc_json_bool(pc_json *j, const char *key, int v);
/* a float shown two ways: {"hex": "%a", "dec": %.9g} */
void pc_json_float(pc_json *j, const char *key, double v);
/* Writes STR as a JSON string literal: quote, backslash and control
 * characters escaped, and the output always valid UTF-8 whatever bytes STR
 * holds (file names are bytes): every byte that does not start a
 * well-formed UTF-8 sequence (RFC 3629: no overlong forms, no surrogates,
 * nothing above U+10FFFF) is written as \ufffd, the replacement character.
 * We prefer U+FFFD to \u00XX: \u00XX would name a different, valid file
 * ("\xff" would read back as "\u00ff", i.e. "ÿ" in UTF-8), while U+FFFD
 * says plainly that the name was not text. */
void pc_json_quote(FILE *f, const char *s);
/* Length (1..4) of the well-formed UTF-8 sequence at S, or 0 when the byte
 * at S does not start one (S is NUL-terminated). */
int pc_utf8_len(const unsigned char *s);

#endif

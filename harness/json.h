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
void pc_json_obj(pc_json *j, const char *key);
void pc_json_arr(pc_json *j, const char *key);
void pc_json_end(pc_json *j);
void pc_json_str(pc_json *j, const char *key, const char *v);   /* NULL -> null */
void pc_json_num(pc_json *j, const char *key, double v);        /* non-finite -> null */
void pc_json_int(pc_json *j, const char *key, long long v);
void pc_json_bool(pc_json *j, const char *key, int v);
/* a float shown two ways: {"hex": "%a", "dec": %.9g} */
void pc_json_float(pc_json *j, const char *key, double v);
/* writes STR as a JSON string literal (escaped) */
void pc_json_quote(FILE *f, const char *s);

#endif

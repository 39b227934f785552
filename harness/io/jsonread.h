/* jsonread.h: a small JSON reader (RFC 8259) for pecheck's own result
 * files (`pecheck merge`).  The whole text is parsed into a tree; numbers
 * keep their text so they convert exactly (strtod, strtoll).  Bad input is
 * an error with the byte offset, never a crash; depth and size are bounded. */
#ifndef PECHECK_JSONREAD_H
#define PECHECK_JSONREAD_H

#include <stddef.h>
#include "harness/base/status.h"

#define PC_JREAD_DEPTH 64              /* nesting limit */
#define PC_JREAD_MAX   ((size_t)1 << 28) /* 256 MiB: larger files are refused */

typedef enum pc_jtype {
    PC_J_NULL, PC_J_FALSE, PC_J_TRUE, PC_J_NUM, PC_J_STR, PC_J_ARR, PC_J_OBJ
} pc_jtype;

typedef struct pc_jnode pc_jnode;
struct pc_jnode {
    pc_jtype type;
    char *text;        /* PC_J_STR: the decoded string (UTF-8, NUL-terminated);
                          PC_J_NUM: the number as written */
    size_t n;          /* children of an array or object */
    pc_jnode *kids;
    char **keys;       /* object member names (decoded) */
};

/* Parse TEXT[0..LEN) into *OUT (free with pc_jfree).  WHAT names the input
 * in messages ("shard.json"). */
pc_status pc_jparse(const char *text, size_t len, const char *what, pc_jnode **out, pc_err *err);
/* Read and parse the file PATH. */
pc_status pc_jread_file(const char *path, pc_jnode **out, pc_err *err);
void pc_jfree(pc_jnode *n);

/* Member KEY of object OBJ (the last one if repeated), or NULL. */
const pc_jnode *pc_jget(const pc_jnode *obj, const char *key);
/* Integer member KEY of object OBJ (NULL: none) in [LO, HI] into *V, *SET
 * 1; absent or null: *SET 0, *V untouched; another value: PC_EINPUT
 * naming WHAT (the file) and KEY. */
pc_status pc_jget_int(const pc_jnode *obj, const char *key, const char *what, long lo, long hi,
                      int *v, int *set, pc_err *err);
/* A member name that appears twice in one object of the tree N (the
 * first found), or NULL: the reader keeps both, and pc_jget finds the
 * last, so an input that must be one writer's output is refused with it. */
const char *pc_jdup_key(const pc_jnode *n);

#endif

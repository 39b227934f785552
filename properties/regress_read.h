/* regress_read.h: the regression file's reader, on bytes only (no file, no
 * engine), so that a fuzzer can drive it (fuzz/regress_fuzz.c).
 *
 * The file is text, one case a line:
 *   property=P family=F seed=0xS d=D positions=A:B [options=O] impl=NAME
 * (O: the encoding options of the run, percent-encoded, for people). 
 * NAME is the rest of the line after " impl=" (it may hold spaces); the other
 * fields come before it in any order, property, family and seed required,
 * others ignored.  Empty lines and lines starting with '#' are comments; a
 * '\r' ending a line is not part of it.
 *
 * A line is bad (counted, the first one described, skipped) when it is
 * longer than PC_REGRESS_LINE_MAX - 1 bytes, holds a NUL byte, or lacks a
 * field.  Bytes are fed in chunks of any size; the result does not depend on
 * how the input was cut.  A last line without a newline counts as a line. */
#ifndef PECHECK_PROPERTIES_REGRESS_READ_H
#define PECHECK_PROPERTIES_REGRESS_READ_H

#include <stddef.h>
#include <stdint.h>

/* Longest line read, newline excluded, plus one: an implementation's path
 * up to PATH_MAX (4096 on Linux) and the other fields (under 200 bytes)
 * fit with room to spare. */
#define PC_REGRESS_LINE_MAX 8192

typedef struct pc_rline {       /* one case, pointing into the line */
    const char *prop;   size_t prop_len;
    const char *family; size_t family_len;
    const char *impl;   size_t impl_len;
    uint64_t seed;
} pc_rline;

enum pc_rline_kind { PC_RL_COMMENT = 0, PC_RL_CASE = 1, PC_RL_BAD = 2 };

/* Parse LINE (LEN bytes, without its newline): a comment, a case into *OUT,
 * or bad with a short reason in *WHY (a static string). */
int pc_rline_parse(const char *line, size_t len, pc_rline *out, const char **why);

/* Called for each case; a nonzero return stops the reading. */
typedef int (*pc_rline_fn)(void *ctx, const pc_rline *l);

typedef struct pc_rlines {
    pc_rline_fn on_case;
    void *ctx;
    int stopped;              /* ON_CASE asked to stop */
    char line[PC_REGRESS_LINE_MAX];
    size_t len;               /* bytes of the current line held in LINE */
    int overlong;             /* the current line is too long */
    long lineno;              /* lines completed */
    long cases, bad;          /* cases and bad lines seen */
    long first_bad;           /* line number (1-based) of the first bad line */
    const char *first_why;    /* its reason */
} pc_rlines;

void pc_rlines_init(pc_rlines *rl, pc_rline_fn on_case, void *ctx);
/* Feed N bytes; returns 1 once ON_CASE has asked to stop (the rest is not
 * read), else 0. */
int pc_rlines_feed(pc_rlines *rl, const char *data, size_t n);
/* The end of the input: a last line without a newline is read. */
void pc_rlines_end(pc_rlines *rl);

#endif

/* regress_fuzz.c: libFuzzer target for the regression file's line reader
 * (properties/regress_read.c; see fuzz/README.md).
 *
 * The first byte picks a chunk size (1..256); the rest is the file's bytes,
 * fed once in chunks of that size and once whole.  Besides "no crash, no
 * leak, no UB" (ASan, UBSan) it traps when:
 *   - the two readings differ (cases, their seeds and names, bad lines, the
 *     first bad line's number): the result depends on how input was cut;
 *   - a case has an empty property, family or implementation, a field that
 *     holds a newline or a NUL, or points outside the reader's line buffer;
 *   - the counts disagree with the input: lines != newlines (+1 for an
 *     unfinished last line), cases + bad lines > lines, a first bad line
 *     out of 1..lines;
 *   - a line that has a NUL byte, or is longer than the reader takes, is
 *     read as a case. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "properties/regress_read.h"

static void check(int cond)
{
    if (!cond)
        __builtin_trap();
}

typedef struct tally {
    const pc_rlines *rl;
    long cases;
    uint64_t digest;     /* of every case's seed and fields, in order */
} tally;

static uint64_t mix(uint64_t h, const void *p, size_t n)
{
    const unsigned char *s = p;
    for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 0x100000001b3u; /* FNV-1a 64 */
    return h;
}

static void field_ok(const pc_rlines *rl, const char *f, size_t n)
{
    check(f != NULL && n > 0);
    check(f >= rl->line && f + n <= rl->line + PC_REGRESS_LINE_MAX);
    check(memchr(f, '\n', n) == NULL && memchr(f, '\0', n) == NULL);
}

static int on_case(void *ctx, const pc_rline *l)
{
    tally *t = ctx;
    field_ok(t->rl, l->prop, l->prop_len);
    field_ok(t->rl, l->family, l->family_len);
    field_ok(t->rl, l->impl, l->impl_len);
    check(memchr(l->prop, ' ', l->prop_len) == NULL && memchr(l->family, ' ', l->family_len) == NULL);
    t->cases++;
    t->digest = mix(t->digest, &l->seed, sizeof l->seed);
    t->digest = mix(t->digest, l->prop, l->prop_len);
    t->digest = mix(t->digest, l->family, l->family_len);
    t->digest = mix(t->digest, l->impl, l->impl_len);
    return 0;
}

static pc_rlines *read_all(const uint8_t *data, size_t size, size_t chunk, tally *t)
{
    pc_rlines *rl = malloc(sizeof *rl);
    check(rl != NULL);
    memset(t, 0, sizeof *t);
    t->rl = rl;
    pc_rlines_init(rl, on_case, t);
    for (size_t i = 0; i < size; i += chunk)
        check(pc_rlines_feed(rl, (const char *)data + i, size - i < chunk ? size - i : chunk) == 0);
    pc_rlines_end(rl);
    return rl;
}

/* lines the input holds, and whether one of them must be bad */
static long lines_of(const uint8_t *data, size_t size, int *must_bad)
{
    long n = 0;
    size_t start = 0;
    *must_bad = 0;
    for (size_t i = 0; i <= size; i++) {
        if (i < size && data[i] != '\n') continue;
        if (i == size && i == start) break;
        size_t len = i - start;
        int comment = len == 0 || data[start] == '#';
        if (!comment && (len >= PC_REGRESS_LINE_MAX || memchr(data + start, '\0', len))) *must_bad = 1;
        n++;
        start = i + 1;
    }
    return n;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    if (size == 0) return 0;
    size_t chunk = (size_t)data[0] + 1;
    data++;
    size--;
    tally a, b;
    pc_rlines *ra = read_all(data, size, chunk, &a);
    pc_rlines *rb = read_all(data, size, size ? size : 1, &b);
    check(a.cases == b.cases && a.digest == b.digest);
    check(ra->lineno == rb->lineno && ra->bad == rb->bad && ra->first_bad == rb->first_bad);
    check(ra->cases == a.cases);
    int must_bad;
    check(ra->lineno == lines_of(data, size, &must_bad));
    check(ra->cases + ra->bad <= ra->lineno);
    check(!must_bad || ra->bad > 0);
    check(ra->bad == 0 ? ra->first_bad == 0 : ra->first_bad >= 1 && ra->first_bad <= ra->lineno);
    check(ra->bad == 0 || (ra->first_why != NULL && ra->first_why[0] != '\0'));
    free(ra);
    free(rb);
    return 0;
}

/* regress_read.c: the regression file's line reader (regress_read.h). */
#include <string.h>
#include "regress_read.h"

/* the value of KEY= at the start of token T (LEN bytes), or NULL */
static const char *value_of(const char *t, size_t len, const char *key, size_t *vlen)
{
    size_t k = strlen(key);
    if (len < k || memcmp(t, key, k)) return NULL;
    *vlen = len - k;
    return t + k;
}

/* a seed written as C's strtoull with base 0 reads it: 0x hex, 0 octal, decimal */
static int parse_seed(const char *s, size_t len, uint64_t *out)
{
    unsigned base = 10;
    size_t i = 0;
    if (len > 2 && s[0] == '0' && (s[1] == 'x' || s[1] == 'X')) { base = 16; i = 2; }
    else if (len > 1 && s[0] == '0') { base = 8; i = 1; }
    if (len == 0) return 0;
    uint64_t v = 0;
    for (; i < len; i++) {
        unsigned c = (unsigned char)s[i], dgt;
        if (c >= '0' && c <= '9') dgt = c - '0';
        else if (c >= 'a' && c <= 'f') dgt = c - 'a' + 10;
        else if (c >= 'A' && c <= 'F') dgt = c - 'A' + 10;
        else return 0;
        if (dgt >= base || v > (UINT64_MAX - dgt) / base) return 0;
        v = v * base + dgt;
    }
    *out = v;
    return 1;
}

/* the fields before " impl=": property, family, seed */
static const char *parse_fields(const char *s, size_t len, pc_rline *out)
{
    int have_seed = 0;
    for (size_t i = 0; i < len;) {
        const char *t = s + i;
        const char *sp = memchr(t, ' ', len - i);
        size_t tl = sp ? (size_t)(sp - t) : len - i;
        const char *v;
        size_t vl;
        if ((v = value_of(t, tl, "property=", &vl))) { out->prop = v; out->prop_len = vl; }
        else if ((v = value_of(t, tl, "family=", &vl))) { out->family = v; out->family_len = vl; }
        else if ((v = value_of(t, tl, "seed=", &vl))) {
            if (!parse_seed(v, vl, &out->seed)) return "the seed is not a number";
            have_seed = 1;
        }
        i += tl + 1;
    }
    if (!out->prop || !out->prop_len) return "no property=";
    if (!out->family || !out->family_len) return "no family=";
    if (!have_seed) return "no seed=";
    return NULL;
}

int pc_rline_parse(const char *line, size_t len, pc_rline *out, const char **why)
{
    memset(out, 0, sizeof *out);
    *why = NULL;
    if (len > 0 && line[len - 1] == '\r') len--; /* a file saved with CRLF line ends */
    if (len == 0 || line[0] == '#') return PC_RL_COMMENT;
    if (memchr(line, '\0', len)) { *why = "a NUL byte"; return PC_RL_BAD; }
    const char *ip = NULL;
    for (size_t i = 0; i + 6 <= len && !ip; i++)
        if (!memcmp(line + i, " impl=", 6)) ip = line + i;
    if (!ip) { *why = "no impl="; return PC_RL_BAD; }
    out->impl = ip + 6;
    out->impl_len = len - (size_t)(ip + 6 - line);
    if (out->impl_len == 0) { *why = "an empty impl="; return PC_RL_BAD; }
    *why = parse_fields(line, (size_t)(ip - line), out);
    return *why ? PC_RL_BAD : PC_RL_CASE;
}

void pc_rlines_init(pc_rlines *rl, pc_rline_fn on_case, void *ctx)
{
    memset(rl, 0, sizeof *rl);
    rl->on_case = on_case;
    rl->ctx = ctx;
}

static void bad_line(pc_rlines *rl, const char *why)
{
    if (rl->bad++ == 0) {
        rl->first_bad = rl->lineno;
        rl->first_why = why;
    }
}

/* the current line is complete */
static void end_line(pc_rlines *rl)
{
    rl->lineno++;
    pc_rline l;
    const char *why = NULL;
    int kind;
    if (rl->overlong) { kind = PC_RL_BAD; why = "longer than the reader takes"; }
    else kind = pc_rline_parse(rl->line, rl->len, &l, &why);
    rl->len = 0;
    rl->overlong = 0;
    if (kind == PC_RL_BAD) bad_line(rl, why);
    if (kind != PC_RL_CASE) return;
    rl->cases++;
    if (rl->on_case && rl->on_case(rl->ctx, &l)) rl->stopped = 1;
}

int pc_rlines_feed(pc_rlines *rl, const char *data, size_t n)
{
    for (size_t i = 0; i < n && !rl->stopped;) {
        const char *nl = memchr(data + i, '\n', n - i);
        size_t take = nl ? (size_t)(nl - (data + i)) : n - i;
        if (!rl->overlong && rl->len + take < PC_REGRESS_LINE_MAX) {
            memcpy(rl->line + rl->len, data + i, take);
            rl->len += take;
        } else {
            rl->overlong = 1;
        }
        i += take;
        if (nl) { end_line(rl); i++; }
    }
    return rl->stopped;
}

void pc_rlines_end(pc_rlines *rl)
{
    if (!rl->stopped && (rl->len > 0 || rl->overlong)) end_line(rl);
}

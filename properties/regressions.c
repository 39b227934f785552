/* regressions.c: the regression file.  A failing generated case is saved as
 * one line; later runs try the saved cases of (property, family,
 * implementation) first (Hypothesis's example database). */
#include <inttypes.h>
#include <stdlib.h>
#include <string.h>
#include "engine.h"
#include "../harness/output.h"

static char *slurp(const char *path)
{
    FILE *f = fopen(path, "r");
    if (!f) return NULL;
    size_t cap = 4096, n = 0;
    char *buf = malloc(cap);
    while (buf) {
        size_t got = fread(buf + n, 1, cap - n - 1, f);
        n += got;
        if (got == 0) break;
        if (n + 1 >= cap) {
            char *nb = cap < ((size_t)64 << 20) ? realloc(buf, cap * 2) : NULL;
            if (!nb) { free(buf); buf = NULL; break; }
            buf = nb;
            cap *= 2;
        }
    }
    if (buf) buf[n] = '\0';
    fclose(f);
    return buf;
}

/* A regression line: "property=P family=F seed=0xS d=D positions=A:B impl=NAME".
 * Fills SEED when the line names P, F and IMPL. */
static int regress_match(const char *line, size_t len, const char *prop, const char *family,
                         const char *impl, uint64_t *seed)
{
    char buf[1024];
    if (len == 0 || line[0] == '#' || len >= sizeof buf) return 0;
    memcpy(buf, line, len);
    buf[len] = '\0';
    const char *ip = strstr(buf, " impl=");
    if (!ip || strcmp(ip + 6, impl)) return 0;
    buf[ip - buf] = '\0';
    int ok_p = 0, ok_f = 0, ok_s = 0;
    for (char *save = NULL, *t = strtok_r(buf, " ", &save); t; t = strtok_r(NULL, " ", &save)) {
        if (!strncmp(t, "property=", 9)) ok_p = !strcmp(t + 9, prop);
        else if (!strncmp(t, "family=", 7)) ok_f = !strcmp(t + 7, family);
        else if (!strncmp(t, "seed=", 5)) {
            char *end;
            *seed = strtoull(t + 5, &end, 0);
            ok_s = *end == '\0' && end != t + 5;
        }
    }
    return ok_p && ok_f && ok_s;
}

int pc_regress_load(const char *path, const char *prop, const char *family, const char *impl,
                    uint64_t *seeds, char *note, size_t note_len)
{
    if (note_len) note[0] = '\0';
    if (!path) return 0;
    char *text = slurp(path);
    if (!text) return 0;
    int n = 0;
    for (char *l = text; *l && n < PC_REGRESS_MAX;) {
        char *e = strchr(l, '\n');
        size_t len = e ? (size_t)(e - l) : strlen(l);
        uint64_t s;
        if (regress_match(l, len, prop, family, impl, &s)) {
            int dup = 0;
            for (int k = 0; k < n; k++) dup |= seeds[k] == s;
            if (!dup) seeds[n++] = s;
        }
        l += len + (e ? 1 : 0);
    }
    free(text);
    return n;
}

/* Append one line unless present; the file is rewritten atomically. */
pc_status pc_regress_save(const char *path, const pc_property *p, const pc_prun *r,
                          uint64_t seed, pc_err *err)
{
    uint64_t seeds[PC_REGRESS_MAX];
    char note[8];
    int n = pc_regress_load(path, p->name, r->family, r->impl->name, seeds, note, sizeof note);
    for (int k = 0; k < n; k++)
        if (seeds[k] == seed) return PC_OK;
    char *old = slurp(path);
    pc_out out;
    pc_status st = pc_out_open(&out, path, err);
    if (st != PC_OK) { free(old); return st; }
    if (old && *old) {
        fputs(old, out.f);
        if (old[strlen(old) - 1] != '\n') fputc('\n', out.f);
    } else {
        fputs("# pecheck regressions: failing cases, tried first by later runs of `pecheck check`\n"
              "# (one per line; the implementation's name is the rest of the line after impl=)\n",
              out.f);
    }
    fprintf(out.f, "property=%s family=%s seed=0x%016" PRIx64 " d=%d positions=%" PRId64 ":%" PRId64
            " impl=%s\n", p->name, r->family, seed, r->params->d, r->params->pos_lo, r->params->pos_hi,
            r->impl->name);
    free(old);
    return pc_out_close(&out, 1, err);
}

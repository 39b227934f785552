/* slot.c: a shard's record of its slots, and the texts its files share
 * (slot.h). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "slot.h"

pc_slot *pc_shard_rec_slot(pc_shard_rec *rec, int index)
{
    if (index < 0) return NULL;
    if (index >= rec->cap) {
        int cap = rec->cap ? rec->cap : 16;
        while (cap <= index) cap *= 2;
        pc_slot *s = realloc(rec->slots, (size_t)cap * sizeof *s);
        if (!s) return NULL;
        memset(s + rec->cap, 0, (size_t)(cap - rec->cap) * sizeof *s);
        rec->slots = s;
        rec->cap = cap;
    }
    return &rec->slots[index];
}

const char *pc_check_shard_shown(const char *s, char *buf, size_t len)
{
    size_t k = 0;
    for (; s[k] && k + 1 < len; k++) buf[k] = s[k] >= 0x20 && s[k] < 0x7f ? s[k] : '?';
    buf[k] = '\0';
    return buf;
}

int pc_check_shard_hex(const char *s, double *x)
{
    char b[40], *end;
    *x = strtod(s, &end);
    snprintf(b, sizeof b, "%a", *x); /* as write_hex: the one text of each value */
    return *s && !*end && !strcmp(b, s) ? 0 : -1;
}

/* suggest.c: the nearest name to a mistyped one (suggest.h). */
#include <ctype.h>
#include <stdio.h>
#include <string.h>
#include "suggest.h"

#define SUGGEST_MAX_LEN 63 /* longer words are compared on their first 63 characters */

static int same_char(char a, char b)
{
    if (a == '_') a = '-';
    if (b == '_') b = '-';
    return tolower((unsigned char)a) == tolower((unsigned char)b);
}

static int min3(int a, int b, int c)
{
    int m = a < b ? a : b;
    return m < c ? m : c;
}

/* The optimal string alignment distance of A and B (each cut at
 * SUGGEST_MAX_LEN): Levenshtein's with a swap of neighbours as one edit. */
static int distance(const char *a, const char *b)
{
    size_t n = strlen(a), m = strlen(b);
    if (n > SUGGEST_MAX_LEN) n = SUGGEST_MAX_LEN;
    if (m > SUGGEST_MAX_LEN) m = SUGGEST_MAX_LEN;
    int d[SUGGEST_MAX_LEN + 1][SUGGEST_MAX_LEN + 1];
    for (size_t i = 0; i <= n; i++) d[i][0] = (int)i;
    for (size_t j = 0; j <= m; j++) d[0][j] = (int)j;
    for (size_t i = 1; i <= n; i++)
        for (size_t j = 1; j <= m; j++) {
            int cost = same_char(a[i - 1], b[j - 1]) ? 0 : 1;
            d[i][j] = min3(d[i - 1][j] + 1, d[i][j - 1] + 1, d[i - 1][j - 1] + cost);
            if (i > 1 && j > 1 && same_char(a[i - 1], b[j - 2]) && same_char(a[i - 2], b[j - 1])
                && d[i - 2][j - 2] + 1 < d[i][j])
                d[i][j] = d[i - 2][j - 2] + 1;
        }
    return d[n][m];
}

void pc_suggest_init(pc_suggest *s, const char *word)
{
    s->word = word;
    s->best[0] = '\0';
    int reach = (int)(strlen(word) / 3);
    s->dist = (reach < 1 ? 1 : reach > 3 ? 3 : reach) + 1; /* a candidate must come nearer */
}

void pc_suggest_add(pc_suggest *s, const char *candidate)
{
    if (!candidate || !candidate[0]) return;
    int d = distance(s->word, candidate);
    if (d < s->dist && strlen(candidate) < sizeof s->best) {
        s->dist = d;
        snprintf(s->best, sizeof s->best, "%s", candidate);
    }
}

void pc_suggest_add_list(pc_suggest *s, const char *names)
{
    while (*names) {
        size_t n = strcspn(names, " ");
        char w[sizeof s->best];
        if (n < sizeof w) {
            memcpy(w, names, n);
            w[n] = '\0';
            pc_suggest_add(s, w);
        }
        names += n;
        while (*names == ' ') names++;
    }
}

const char *pc_suggest_text(const pc_suggest *s, const char *prefix, char *buf, size_t len)
{
    if (s->best[0]) snprintf(buf, len, " (did you mean %s%s?)", prefix, s->best);
    else buf[0] = '\0';
    return buf;
}

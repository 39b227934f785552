/* suggest.h: "did you mean" for a mistyped name (an option, an
 * implementation, a property, a family).
 *
 *   pc_suggest s;
 *   pc_suggest_init(&s, word);
 *   for each candidate NAME: pc_suggest_add(&s, name);
 *   pc_suggest_text(&s, "--", buf, sizeof buf);  -> " (did you mean --impl?)" or ""
 *
 * The nearest candidate in edit distance (insertions, deletions,
 * substitutions and swaps of two neighbours; '_' and '-' count as the same
 * character, case is ignored), when it is within max(1, |word| / 3) edits
 * (at most 3): a name of 3 letters tolerates one slip, one of 9 three. */
#ifndef PECHECK_SUGGEST_H
#define PECHECK_SUGGEST_H

#include <stddef.h>

typedef struct pc_suggest {
    const char *word;
    char best[64];     /* the nearest candidate so far ("": none within reach) */
    int dist;
} pc_suggest;

void pc_suggest_init(pc_suggest *s, const char *word);
void pc_suggest_add(pc_suggest *s, const char *candidate);
/* Each name of NAMES, a list separated by spaces. */
void pc_suggest_add_list(pc_suggest *s, const char *names);
/* " (did you mean PREFIX BEST?)" into BUF, or "" when no candidate is
 * near; returns BUF. */
const char *pc_suggest_text(const pc_suggest *s, const char *prefix, char *buf, size_t len);

#endif

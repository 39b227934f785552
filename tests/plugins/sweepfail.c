/* sweepfail: correct values, but a call of more than two rows (only the
 * unique sweep's and the linear-shift fit's calls are, under --property
 * unique or linear-shift: their cases call two rows at most) that holds
 * position PECHECK_TEST_AT (unset: any such call) crashes, hangs or
 * returns error 5 (PECHECK_TEST_DO = crash, hang or error).  With
 * PECHECK_TEST_DO = collide, the rows of 2001 are those of 2000 and a
 * call of exactly those two positions (the sweep comparing the rows its
 * hashes found equal) returns error 5.  Every such failure must fail the
 * unique property (tests/plugin_pool.t).  With PECHECK_TEST_DO = twin, the
 * rows of 2001 are those of 2000 and nothing fails: a collision only the
 * sweep finds.  PECHECK_TEST_LOG names a file each call of more than two
 * rows appends "LAYOUT FIRST N" to (the calls a run made). */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }

static int holds(const int64_t *pos, size_t n, int64_t at)
{
    for (size_t r = 0; r < n; r++)
        if (pos[r] == at) return 1;
    return 0;
}

static void log_call(const int64_t *pos, size_t n, int layout)
{
    FILE *f = n > 2 ? test_file("PECHECK_TEST_LOG") : NULL;
    if (!f) return;
    fprintf(f, "%d %lld %zu\n", layout, (long long)pos[0], n);
    fclose(f);
}

int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    const char *what = getenv("PECHECK_TEST_DO"), *at = getenv("PECHECK_TEST_AT");
    int twin = what && !strcmp(what, "twin");
    int collide = twin || (what && !strcmp(what, "collide"));
    log_call(pos, n, layout);
    if (collide && !twin && n == 2 && pos[0] == 2000 && pos[1] == 2001) return 5;
    if (!collide && what && n > 2 && (!at || holds(pos, n, atol(at)))) {
        if (!strcmp(what, "crash")) *(volatile int *)(uintptr_t)0 = 1;
        if (!strcmp(what, "hang")) for (;;) pause();
        return 5;
    }
    for (size_t r = 0; r < n; r++)
        good_row(collide && pos[r] == 2001 ? 2000 : pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

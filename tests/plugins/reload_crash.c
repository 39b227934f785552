/* reload_crash: crashes at position 1000 (as crash.c), and its constructor
 * crashes on every load after the first (it writes a line to the marker
 * file named by PECHECK_TEST_MARK, which the test made empty, on the
 * first).  The host that replaces the crashed one
 * cannot load it: the later calls fail with that cause, and pecheck itself
 * goes on to exit 1. */
#include <stdio.h>
#include <stdlib.h>
#include "common.h"

__attribute__((constructor)) static void on_load(void)
{
    const char *mark = getenv("PECHECK_TEST_MARK");
    FILE *f = mark ? fopen(mark, "r") : NULL;
    int loaded = f && fgetc(f) != EOF;
    if (f) fclose(f);
    if (loaded) *(volatile int *)(uintptr_t)0 = 1; /* loaded before: crash */
    if ((f = test_file("PECHECK_TEST_MARK")) != NULL) {
        fputs("loaded\n", f);
        fclose(f);
    }
}

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) {
        if (pos[r] == 1000) *(volatile int *)(uintptr_t)0 = 1;
        good_row(pos[r], d, base, layout, out + r * (size_t)d);
    }
    return 0;
}

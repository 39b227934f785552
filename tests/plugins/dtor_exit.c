/* dtor_exit: wrong values (sin and cos swapped) and a library that tries to
 * turn the failing gate into exit 0: its destructor and an atexit handler
 * call _exit(0).  They run in the plugin host, never in pecheck: the run
 * still exits 1. */
#include <stdlib.h>
#include <unistd.h>
#include "common.h"

static void leave(void) { _exit(0); }
__attribute__((constructor)) static void on_load(void) { atexit(leave); }
__attribute__((destructor)) static void on_unload(void) { _exit(0); }

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) {
        float *o = out + r * (size_t)d;
        good_row(pos[r], d, base, layout, o);
        for (int i = 0; i < d / 2; i++) {
            size_t a = layout ? (size_t)i : (size_t)(2 * i), b = layout ? (size_t)(i + d / 2) : (size_t)(2 * i + 1);
            float t = o[a]; o[a] = o[b]; o[b] = t;
        }
    }
    return 0;
}

/* common.h: shared body of the test plugins (tests/plugin.t builds each
 * tests/plugins/NAME.c with `cc -shared -fPIC`).  A correct sinusoidal
 * implementation (binary64 angle, rounded once) that each plugin breaks
 * in its own way. */
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include "pecheck_plugin.h"

static inline void good_row(int64_t pos, int d, double base, int layout, float *out)
{
    for (int i = 0; i < d / 2; i++) {
        double theta = (double)pos * pow(base, -2.0 * i / d);
        size_t a = layout ? (size_t)i : (size_t)(2 * i), b = layout ? (size_t)(i + d / 2) : (size_t)(2 * i + 1);
        out[a] = (float)sin(theta);
        out[b] = (float)cos(theta);
    }
}

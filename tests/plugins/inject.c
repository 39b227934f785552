/* inject: a correct plugin that writes a fake TAP line to its stdout (and
 * a line to stderr) on every call.  Both are captured by the plugin host:
 * pecheck's TAP output stays valid and the line is shown in the verdict's
 * details, never on pecheck's stdout. */
#include <unistd.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    static const char fake[] = "not ok 1 - injected\n", note[] = "inject: a line on stderr\n";
    if (write(1, fake, sizeof fake - 1) < 0 || write(2, note, sizeof note - 1) < 0) return 5;
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

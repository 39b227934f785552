/* oob_decode: correct values; a call of one position (the gate's decode
 * step) also writes one float 1 KiB past the end of its OUT, which lies in
 * the trailing canary of the layout the block's larger call made
 * (harness/sandbox/host_proto.h: host_snap). */
#include "common.h"
int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    if (n == 1) ((volatile float *)out)[(size_t)d + 256] = 1.0f;
    return 0;
}

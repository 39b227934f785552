/* scribble: correct values, but each call maps the plugin host's shared
 * memory (its descriptor 4, see harness/sandbox/host_proto.h) and fills the first
 * page, where pecheck's header with the call's layout lies, with 0xFF.
 * pecheck keeps its own copy of what it reads back: the run passes and
 * pecheck is not misled into reading outside its mapping. */
#include <string.h>
#include <sys/mman.h>
#include "common.h"

int pecheck_abi_version(void) { return 1; }
int pecheck_sinusoidal_f32(const int64_t *pos, size_t n, int d, double base, int layout, float *out)
{
    void *p = mmap(NULL, 4096, PROT_READ | PROT_WRITE, MAP_SHARED, 4, 0);
    if (p != MAP_FAILED) {
        memset(p, 0xFF, 4096);
        munmap(p, 4096);
    }
    for (size_t r = 0; r < n; r++) good_row(pos[r], d, base, layout, out + r * (size_t)d);
    return 0;
}

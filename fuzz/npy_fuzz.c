/* npy_fuzz.c: libFuzzer target for pc_npy_parse (see fuzz/README.md).
 *
 * Besides "no crash, no leak, no UB" (ASan, UBSan) it checks the contract
 * in npy.h on every input and traps on a breach:
 *   - success: rank 1..3, count = product of shape, no zero dim, unused
 *     dims 1, dtype one of <f2 <f4 <f8 <u2 (bfloat16 bit patterns) <i8
 *     (position ids: every value an integer of magnitude <= 2^53), data
 *     non-NULL and fully readable,
 *     and the input length is exactly what the header promises' data needs
 *     plus the header (so trailing bytes were not silently ignored);
 *   - failure: PC_EINPUT or PC_ENOMEM, OUT left empty, and the message is
 *     one non-empty line of printable ASCII. */
#include <stdint.h>
#include <stdlib.h>
#include <string.h>

#include "harness/io/npy.h"

static void check(int cond)
{
    if (!cond)
        __builtin_trap();
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    pc_npy a;
    pc_err e;

    memset(&e, 0x55, sizeof e);  /* catch a message left unterminated */
    pc_status st = pc_npy_parse(data, size, &a, &e);
    if (st == PC_OK) {
        size_t item = 0;
        check(a.rank >= 1 && a.rank <= 3);
        check(a.data != NULL);
        check(a.dtype[0] == '<' && a.dtype[3] == '\0');
        check(a.dtype[1] == 'f' || (a.dtype[1] == 'u' && a.dtype[2] == '2') ||
              (a.dtype[1] == 'i' && a.dtype[2] == '8'));
        if (a.dtype[2] == '2')
            item = 2;
        else if (a.dtype[2] == '4')
            item = 4;
        else if (a.dtype[2] == '8')
            item = 8;
        check(item != 0);
        size_t c = 1;
        for (int i = 0; i < 3; i++) {
            check(a.shape[i] >= 1);
            if (i >= a.rank)
                check(a.shape[i] == 1);
            c *= a.shape[i];
        }
        check(c == a.count);
        check(a.count * item < size);
        /* Touch every value so ASan sees the whole allocation. */
        volatile double sink = 0;
        for (size_t i = 0; i < a.count; i++) {
            if (a.dtype[1] == 'i') /* integers, exact in binary64 */
                check(a.data[i] == (double)(int64_t)a.data[i] &&
                      a.data[i] <= 0x1p53 && a.data[i] >= -0x1p53);
            sink = sink + a.data[i];
        }
        (void)sink;
        pc_npy_free(&a);
        check(a.data == NULL);
    } else {
        check(st == PC_EINPUT || st == PC_ENOMEM);
        check(a.data == NULL && a.count == 0 && a.rank == 0);
        size_t n = strnlen(e.msg, sizeof e.msg);
        check(n > 0 && n < sizeof e.msg);
        for (size_t i = 0; i < n; i++)
            check(e.msg[i] >= 0x20 && e.msg[i] < 0x7f);
    }
    return 0;
}

#!/usr/bin/python3
"""Check sampled entries of `pecheck reference` .npy files bit for bit against
an independent computation (mpmath interval arithmetic, exact rounding by
fractions: scripts/gen_test_vectors.py's case_values).

usage: check_reference_npy.py FAMILY LAYOUT DTYPE D BASE POS_START FILE [SAMPLES]
Prints TAP lines (no plan); exit status 1 on any mismatch."""
import os
import random
import sys

import numpy as np

sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..", "scripts"))
import gen_test_vectors as ref  # noqa: E402


def main():
    family, layout, dtype, d, base, start, path = sys.argv[1:8]
    samples = int(sys.argv[8]) if len(sys.argv) > 8 else 40
    d, base, start = int(d), float(base), int(start)
    a = np.load(path)
    n = a.shape[0]
    want_shape = (n, d // 2, 2) if family == "rope" else (n, d)
    ok = a.shape == want_shape and a.dtype == (np.float32 if dtype == "f32" else np.float64)
    print("%s - %s has shape %s dtype %s" % ("ok" if ok else "not ok", os.path.basename(path),
                                              a.shape, a.dtype))
    if not ok:
        return 1
    rng = random.Random(1234)
    bad = 0
    for _ in range(samples):
        r = rng.randrange(n)
        i = rng.randrange(d // 2)
        pos = start + r
        s32, c32, s64, c64 = ref.case_values(pos, i, d, base)
        s, c = (s32, c32) if dtype == "f32" else (s64, c64)
        if family == "rope":
            got_c, got_s = float(a[r, i, 0]), float(a[r, i, 1])
        elif layout == "interleaved":
            got_s, got_c = float(a[r, 2 * i]), float(a[r, 2 * i + 1])
        else:
            got_s, got_c = float(a[r, i]), float(a[r, i + d // 2])
        # compare bit patterns of the doubles (float32 values are exact in double)
        if got_s.hex() != s.hex() or got_c.hex() != c.hex():
            bad += 1
            print("# FAIL pos=%d i=%d ref=(%s,%s) got=(%s,%s)" % (pos, i, s.hex(), c.hex(),
                                                                 got_s.hex(), got_c.hex()))
    print("%s - %d sampled (pos, i) entries match mpmath bit for bit" % ("ok" if bad == 0 else "not ok",
                                                                       samples))
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())

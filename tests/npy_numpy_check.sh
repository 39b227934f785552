#!/bin/sh
# npy_numpy_check.sh: does our .npy reader read what numpy writes?
#
#   tests/npy_numpy_check.sh [NPY_TEST]     (default NPY_TEST: ./npy_test)
#
# numpy (np.lib.format.write_array) writes one file for each dtype <f2 <f4
# <f8, format version 1.0 2.0 3.0 and rank 1 2 3, values included that
# matter (signed zeros, subnormals, extremes, inf, NaN), plus files our
# reader must reject (big-endian, Fortran order, int32, int64 beyond 2^53,
# bool, rank 0, 0 rows); int64 position ids within 2^53 read exactly.
# NPY_TEST --numpy-dir DIR then reads each one back and compares it bit
# for bit with float.hex() of numpy's values.  The other way round,
# NPY_TEST --write-dir DIR writes f32/f64 tables of rank 1..3 with our
# writer, and numpy checks that np.load reads them and that np.save writes
# the very same bytes.  Output is TAP.
#
# Optional: without a Python that can import numpy (Debian: python3-numpy;
# $PYTHON picks one) it prints "ok 1 # SKIP numpy not available" and passes.
set -eu

bin=${1:-./npy_test}

py=
for cand in ${PYTHON:-} python3 /usr/bin/python3; do
    if "$cand" -c 'import numpy' >/dev/null 2>&1; then
        py=$cand
        break
    fi
done
if [ -z "$py" ]; then
    echo "1..1"
    echo "ok 1 # SKIP numpy not available"
    exit 0
fi

dir=$(mktemp -d "${TMPDIR:-/tmp}/npy_numpy.XXXXXX")
trap 'rm -rf "$dir"' EXIT INT TERM

"$bin" --write-dir "$dir"

"$py" - "$dir" <<'EOF'
import os, sys
import numpy as np

out = sys.argv[1]
manifest = []

def values(dt, n):
    """n values of dtype dt: specials first, then a spread of ordinary ones."""
    fi = np.finfo(dt)
    dt0 = np.dtype(dt).type
    special = [0.0, -0.0, 1.0, -2.5, float(fi.tiny), float(fi.max), -float(fi.max),
               float(np.nextafter(dt0(0), dt0(1))), -float(np.nextafter(dt0(0), dt0(1))),
               np.inf, -np.inf, np.nan]
    rng = np.random.default_rng(20240611)   # fixed seed: same files every run
    rest = rng.standard_normal(max(0, n - len(special))) * 100
    return np.concatenate([np.array(special), rest])[:n].astype(dt)

def good(name, a, version):
    path = os.path.join(out, name + '.npy')
    with open(path, 'wb') as f:
        np.lib.format.write_array(f, a, version=version)
    with open(os.path.join(out, name + '.txt'), 'w') as f:
        for v in a.astype(np.float64).ravel(order='C'):
            f.write(float(v).hex() + '\n')
    shape = list(a.shape) + [1] * (3 - a.ndim)
    manifest.append('%s.npy %s %d %d %d %d %s.txt' % (name, a.dtype.str, a.ndim,
                                                      shape[0], shape[1], shape[2], name))

def bad(name, a, word, fortran=False):
    path = os.path.join(out, name + '.npy')
    with open(path, 'wb') as f:
        np.lib.format.write_array(f, np.asfortranarray(a) if fortran else a)
    manifest.append('%s.npy ! %s' % (name, word))

for version in [(1, 0), (2, 0), (3, 0)]:
    for dt in ['<f2', '<f4', '<f8']:
        v = 'v%d' % version[0]
        good('%s_%s_r1' % (v, dt[1:]), values(dt, 24), version)
        good('%s_%s_r2' % (v, dt[1:]), values(dt, 24).reshape(4, 6), version)
        good('%s_%s_r3' % (v, dt[1:]), values(dt, 24).reshape(3, 4, 2), version)

# every binary16 pattern, through numpy's own conversion to float64
good('f2_all', np.arange(65536, dtype='<u2').view('<f2').reshape(256, 256), (1, 0))
# a PE-sized table
good('pe_5000x64', values('<f4', 5000 * 64).reshape(5000, 64), None)

bad('be_f4', values('>f4', 6), 'big-endian')
bad('fortran', values('<f8', 6).reshape(2, 3), 'Fortran', fortran=True)
good('i8', np.array([0, 1, -7, 2**24 + 1, 2**53, -2**53], dtype='<i8'), None)
bad('i8_big', np.array([0, 2**53 + 1], dtype='<i8'), 'beyond 2^53')
bad('i4', np.arange(6, dtype='<i4'), "unsupported dtype '<i4'")
bad('b1', np.ones(6, dtype='?'), "unsupported dtype '|b1'")
bad('c8', np.ones(6, dtype='<c8'), "unsupported dtype '<c8'")
bad('rank0', np.float32(1.0).reshape(()), 'rank 0')
bad('rank4', np.zeros((1, 2, 3, 4), dtype='<f4'), 'rank 4')
bad('zero_rows', np.zeros((0, 64), dtype='<f4'), 'table has 0 rows')

# our writer, read by numpy: np.load must take it and np.save must give
# back the same bytes (header padding included)
import io
for bits in (32, 64):
    for r in (1, 2, 3):
        name = 'ours_f%d_r%d.npy' % (bits, r)
        desc = 'numpy reads %s, np.save writes identical bytes' % name
        try:
            with open(os.path.join(out, name), 'rb') as f:
                ours = f.read()
            a = np.load(io.BytesIO(ours))
            b = io.BytesIO()
            np.save(b, a)
            if a.dtype.str != '<f%d' % (bits // 8) or a.ndim != r:
                manifest.append('@fail %s: dtype %s rank %d' % (desc, a.dtype.str, a.ndim))
            elif b.getvalue() != ours:
                manifest.append('@fail %s: bytes differ' % desc)
            else:
                manifest.append('@ok ' + desc)
        except Exception as e:
            manifest.append('@fail %s: %s' % (desc, str(e).replace('\n', ' ')))

with open(os.path.join(out, 'manifest.txt'), 'w') as f:
    f.write('\n'.join(manifest) + '\n')
EOF

"$bin" --numpy-dir "$dir"

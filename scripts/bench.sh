#!/bin/bash
# bench.sh PECHECK: `make bench`.  Prints, for the sinusoidal and RoPE tables
# (d = 128, base 10000) at 2^14, 2^17 and 2^20 positions:
#   REF      certified binary32 reference table, all cores (tests/reftable_test
#            --bench: blocks of 256 rows computed and discarded, i.e. streamed)
#   NUMPY    a float64 numpy reference of the same table (uncertified; Debian
#            python3-numpy, /usr/bin/python3), chunks of 8192 rows, timed
#            in-process (no interpreter start-up); RoPE input rows are drawn
#            once per chunk outside the timing
#   RATIO    REF / NUMPY (the goal is <= 0.5)
#   GATE     `pecheck check` (accuracy + every property at default cases) on a
#            correct built-in over those positions, wall seconds, all cores
#   RSS      peak resident memory of that gate run (getrusage via /usr/bin/time)
#   NS/VAL   REF nanoseconds per table value (positions x d): flat = linear cost
#   FAST/MPFR PAIRS  pairs decided without MPFR / by MPFR (position 0 is
#            always MPFR's), and in brackets the pairs the binary32 vector
#            path (reference/vecpath.c) left undecided for the scalar path
# then the large cross-checks against pure MPFR: the scalar fast path and
# the vector path, 10^7 pairs each.
# Timings are wall-clock on a possibly shared machine: see the load average
# printed first.  BENCH_SIZES overrides the list of position counts.
set -u
PECHECK=${1:?usage: bench.sh PATH/TO/pecheck}
BUILD=${BUILD:-$(dirname "$PECHECK")}
PY=${PYTHON:-/usr/bin/python3}
REFTAB=$BUILD/tests/reftable_test
FASTTEST=$BUILD/tests/fastpath_test
VECTEST=$BUILD/tests/vecpath_test
SIZES=${BENCH_SIZES:-16384 131072 1048576}
D=128
CORES=$(nproc)
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
for f in "$PECHECK" "$REFTAB" "$FASTTEST" "$VECTEST"; do
    [ -x "$f" ] || { echo "bench.sh: $f is missing (run make first)" >&2; exit 2; }
done
TIME=/usr/bin/time
[ -x $TIME ] || { echo "bench.sh: /usr/bin/time is missing (apt-get install time)" >&2; exit 2; }

cat >"$tmp/np.py" <<'PY'
import sys, time
import numpy as np
fam, n, d = sys.argv[1], int(sys.argv[2]), int(sys.argv[3])
base = 10000.0
omega = base ** (-np.arange(0, d, 2, dtype=np.float64) / d)
chunk = 8192
rng = np.random.default_rng(20260422)
x = rng.standard_normal((min(n, chunk), d)).astype(np.float32).astype(np.float64)
t0 = time.perf_counter()
for p0 in range(0, n, chunk):
    pos = np.arange(p0, min(n, p0 + chunk), dtype=np.float64)
    th = np.outer(pos, omega)
    s, c = np.sin(th), np.cos(th)
    out = np.empty((len(pos), d))
    if fam == "sinusoidal":
        out[:, 0::2] = s
        out[:, 1::2] = c
    else:
        xa, xb = x[:len(pos), 0::2], x[:len(pos), 1::2]
        out[:, 0::2] = xa * c - xb * s
        out[:, 1::2] = xa * s + xb * c
print("%.6f" % (time.perf_counter() - t0))
PY

echo "pecheck bench: d=$D base=10000, $CORES cores, $(uptime | sed 's/.*load/load/')"
echo "numpy $($PY -c 'import numpy; print(numpy.__version__)'); timings are wall-clock seconds"
printf '%-10s %9s %9s %9s %7s %9s %9s %8s  %s\n' FAMILY POSITIONS REF NUMPY RATIO GATE RSS NS/VAL "FAST/MPFR PAIRS"
impl_of() { [ "$1" = rope ] && echo rope-polar || echo double-angle; }
for fam in sinusoidal rope; do
    for n in $SIZES; do
        ref=$("$REFTAB" --bench "$fam" "$n" 0) || { echo "bench.sh: reference failed: $ref" >&2; exit 3; }
        rsec=$(echo "$ref" | awk '{print $2}')
        split=$(echo "$ref" | awk '{print $6 "/" $8 " (" $16 ")"}')
        npsec=$("$PY" "$tmp/np.py" "$fam" "$n" "$D")
        $TIME -f '%e %M' -o "$tmp/time" "$PECHECK" check --impl "$(impl_of $fam)" --d $D \
            --max-pos $((n - 1)) --quiet >"$tmp/gate.out" 2>&1
        read -r gsec rss <"$tmp/time"
        printf '%-10s %9d %9.3f %9.3f %7.2f %9.2f %7.1fMB %8.2f  %s\n' "$fam" "$n" "$rsec" "$npsec" \
            "$(echo "$rsec / $npsec" | bc -l)" "$gsec" "$(echo "$rss / 1024" | bc -l)" \
            "$(echo "$rsec * 1000000000 / ($n * $D)" | bc -l)" "$split"
    done
done

echo
echo "accuracy engine alone, 1048576 positions x d=$D (torch-exp), peak RSS must be <= 64 MiB:"
$TIME -f '%e s wall, %M KB peak RSS' "$PECHECK" accuracy --impl torch-exp --d $D --max-pos 1048575 --quiet 2>&1 | tail -1
echo
echo "fast path vs pure MPFR, 10^7 random pairs (any disagreement fails):"
"$FASTTEST" 10000000 || { echo "bench.sh: fast path cross-check FAILED" >&2; exit 1; }
echo
echo "vector path (binary32) vs pure MPFR, 10^7 random pairs (any disagreement fails):"
"$VECTEST" 10000000 || { echo "bench.sh: vector path cross-check FAILED" >&2; exit 1; }

#!/bin/bash
# `pecheck reference --threads N`: the binary32 tables (vector path,
# reference/vecpath.c) are the same file for 1 and 3 threads, for both
# layouts and the RoPE table, with d/2 = 65 (not a whole number of vector
# lanes) and positions on both sides of 2^40 (where the vector path hands
# over to the scalar one); sampled entries agree with an independent mpmath
# computation (tests/lib/check_reference_npy.py).
set -u
PECHECK=${PECHECK:-build/pecheck}
PY=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
have_py=1
$PY -c 'import numpy, mpmath' 2>/dev/null || have_py=0
cases=(
  "sinusoidal interleaved 130 10000 0 2999"
  "sinusoidal half 130 10000 0 2999"
  "rope interleaved 130 10000 0 2999"
  "sinusoidal interleaved 64 10000 1099511627000 1099511628999"
  "rope interleaved 64 500000 1099511627000 1099511628999"
)
echo "1..$(( ${#cases[@]} * 2 ))"
k=0
for c in "${cases[@]}"; do
    read -r fam lay d base a b <<< "$c"
    for t in 1 3; do
        "$PECHECK" reference --family "$fam" --layout "$lay" --d "$d" --base "$base" \
            --positions "$a:$b" --threads $t --out "$tmp/t$t.npy" --quiet || echo "# exit $? ($t threads)"
    done
    if [ -s "$tmp/t1.npy" ] && cmp -s "$tmp/t1.npy" "$tmp/t3.npy"; then
        echo "ok $((++k)) - $c: 1 and 3 threads write the same file"
    else
        echo "not ok $((++k)) - $c: 1 and 3 threads differ (or failed)"
    fi
    if [ $have_py = 0 ]; then
        echo "ok $((++k)) # SKIP python3-numpy or python3-mpmath not installed"
    elif out=$($PY "$(dirname "$0")/lib/check_reference_npy.py" "$fam" "$lay" f32 "$d" "$base" "$a" \
                "$tmp/t1.npy" 40 2>&1) && ! grep -q "^not ok" <<< "$out"; then
        echo "ok $((++k)) - $c: 40 sampled entries equal mpmath's"
    else
        echo "not ok $((++k)) - $c: sampled entries differ from mpmath's"
        sed 's/^/# /' <<< "$out"
    fi
    rm -f "$tmp"/t*.npy
done

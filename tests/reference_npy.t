#!/bin/bash
# `pecheck reference` writes certified tables: sampled entries agree bit for
# bit with an independent mpmath computation (tests/lib/check_reference_npy.py).
set -u
PECHECK=${PECHECK:-build/pecheck}
PY=/usr/bin/python3
if ! $PY -c 'import numpy, mpmath' 2>/dev/null; then
    echo "1..0 # SKIP python3-numpy or python3-mpmath not installed (scripts/install-deps.sh installs them)"
    exit 0
fi
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cases=(
  "sinusoidal interleaved f32 64 10000 0 255"
  "sinusoidal half f64 128 10000 131000 131127"
  "sinusoidal interleaved f64 768 500000 9007199254740000 9007199254740063"
  "rope interleaved f32 128 10000 16777200 16777263"
  "rope interleaved f64 64 2 4503599627370000 4503599627370031"
)
echo "1..$(( ${#cases[@]} * 3 ))"
k=0
for c in "${cases[@]}"; do
    read -r fam lay dt d base a b <<< "$c"
    f="$tmp/$fam-$lay-$dt-$d.npy"
    if "$PECHECK" reference --family "$fam" --layout "$lay" --dtype "$dt" --d "$d" --base "$base" \
         --positions "$a:$b" --out "$f" --quiet; then
        echo "ok $((++k)) - reference $c written"
    else
        echo "not ok $((++k)) - reference $c failed"
    fi
    $PY "$(dirname "$0")/lib/check_reference_npy.py" "$fam" "$lay" "$dt" "$d" "$base" "$a" "$f" 30 \
        | while read -r line; do
            case "$line" in
              ok*|"not ok"*) echo "${line%% - *} $((++k)) - ${line#* - }";;
              *) echo "$line";;
            esac
          done
    k=$((k + 2))
done

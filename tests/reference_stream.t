#!/bin/bash
# `pecheck reference` streams its table (harness/cli/cmd_reference.c): the f32
# and f64 files are byte for byte those of the in-memory writer it replaced
# (sha256 of the files pecheck 8c13f10 wrote, several blocks each); every
# dtype gives the same file for 1 and 2 threads, written in place (a
# regular file) or in order (a pipe); f16 equals numpy's rounding of the
# f64 table and bf16 an integer rounding of its bits (the '<u2' patterns
# the table reader takes), binary32 values on a midpoint included; a table past the old 2^28-value cap is
# written whole with a small peak RSS.
set -u
PECHECK=${PECHECK:-build/pecheck}
PY=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
golden=(
  "0d62c65450f8993364e73fdf596ca4378ef7c8a3eab45a6b3273e19e8257b2bf sinusoidal interleaved f32 64 10000 0 9999"
  "545e6c87d5b2ff6998e09b09701de1418d8ac168f196750a64646a1157083bb3 sinusoidal half f32 130 10000 0 7000"
  "9b1e328077cba941d74abf2788347a93002721c190201979fb0b8510cd50b55b sinusoidal half f64 130 10000 1000 4999"
  "16f361858f198658aadcd12d49c8a0ca17d6f7b0ebc5cdae2aaee3db93e473de rope interleaved f32 64 10000 0 7777"
  "cbb775db64b870358cc7e577f751e62f0215ef948ff2509020df51fd8f4af5d1 rope interleaved f64 32 500000 16777200 16780000"
  "9b5d8da35dc25c7e0e0782f13cd7d7d8e7a544b5f72fd1425e80976d5ee78e96 sinusoidal interleaved f32 64 10000 1099511620000 1099511629999"
)
dtypes="f32 f64 f16 bf16"
echo "1..$(( ${#golden[@]} + 4 + 2 + 1 ))"
k=0
ok()  { echo "ok $((++k)) - $1"; }
nok() { echo "not ok $((++k)) - $1"; }
ref() { "$PECHECK" reference --quiet "$@"; }

for g in "${golden[@]}"; do
    read -r h fam lay dt d base a b <<< "$g"
    for t in 1 2; do
        ref --family "$fam" --layout "$lay" --dtype "$dt" --d "$d" --base "$base" \
            --positions "$a:$b" --threads $t --out "$tmp/t$t.npy" || echo "# exit $? ($t threads)"
    done
    got=$(sha256sum < "$tmp/t1.npy" | cut -c1-64)
    if [ "$got" = "$h" ] && cmp -s "$tmp/t1.npy" "$tmp/t2.npy"; then
        ok "$fam $lay $dt d=$d $a:$b: the file 8c13f10 wrote, 1 and 2 threads"
    else
        nok "$fam $lay $dt d=$d $a:$b: sha256 $got, want $h (or 2 threads differ)"
    fi
done

# every dtype: 1 and 2 threads, in place and through a pipe, one file
for dt in $dtypes; do
    for fam in sinusoidal rope; do
        args=(--family $fam --layout half --dtype $dt --d 130 --positions 100:4099)
        ref "${args[@]}" --threads 1 --out "$tmp/$fam-$dt-1.npy"
        ref "${args[@]}" --threads 2 --out "$tmp/$fam-$dt-2.npy"
        ref "${args[@]}" --threads 2 --out - | cat >"$tmp/$fam-$dt-p.npy"
    done
    if [ -s "$tmp/sinusoidal-$dt-1.npy" ] && [ -s "$tmp/rope-$dt-1.npy" ] \
       && cmp -s "$tmp/sinusoidal-$dt-1.npy" "$tmp/sinusoidal-$dt-2.npy" \
       && cmp -s "$tmp/sinusoidal-$dt-1.npy" "$tmp/sinusoidal-$dt-p.npy" \
       && cmp -s "$tmp/rope-$dt-1.npy" "$tmp/rope-$dt-2.npy" \
       && cmp -s "$tmp/rope-$dt-1.npy" "$tmp/rope-$dt-p.npy"; then
        ok "$dt: 1 thread, 2 threads and a pipe write the same file (sinusoidal, rope)"
    else
        nok "$dt: the files differ (or one failed)"
    fi
done

if ! $PY -c 'import numpy' 2>/dev/null; then
    for fam in sinusoidal rope; do echo "ok $((++k)) # SKIP python3-numpy not installed"; done
else
    for fam in sinusoidal rope; do
        out=$($PY - "$tmp/$fam-f64-1.npy" "$tmp/$fam-f32-1.npy" "$tmp/$fam-f16-1.npy" \
                   "$tmp/$fam-bf16-1.npy" <<'PY'
import sys
import numpy as np
f64, f32, f16, bf16 = (np.load(p) for p in sys.argv[1:5])
# bf16 by integer rounding of the binary64 bits: keep the top 7 of the 52
# fraction bits, ties to even (every value here is in bfloat16's normal range)
b = f64.view(np.uint64)
low, q = b & np.uint64((1 << 45) - 1), b >> np.uint64(45)
half = np.uint64(1 << 44)
up = (low > half) | ((low == half) & (q & np.uint64(1) == 1))
want = (((q + up) << np.uint64(45)).view(np.float64).astype(np.float32).view(np.uint32) >> 16)
# binary32 values on a midpoint of the narrow format: rows taken from binary64
m32 = f32.view(np.uint32)
print("f16", f16.dtype == np.float16 and f16.shape == f64.shape
      and np.array_equal(f16, f64.astype(np.float16)), int(np.sum((m32 & 0x1fff) == 0x1000)))
print("bf16", bf16.dtype == np.uint16 and bf16.shape == f64.shape
      and np.array_equal(bf16.astype(np.uint32), want), int(np.sum((m32 & 0xffff) == 0x8000)))
PY
)
        echo "$out" | sed "s/^/# $fam /"
        # the f16 line's count: binary32 values on a binary16 midpoint (about
        # 2^-12 of them), so the binary64 fallback is exercised
        if grep -q "^f16 True [1-9]" <<< "$out" && grep -q "^bf16 True" <<< "$out"; then
            ok "$fam: f16 is numpy's rounding of the f64 table, bf16 the integer rounding of its bits"
        else
            nok "$fam: f16 or bf16 is not the rounding of the f64 table"
        fi
    done
fi

# past the old 2^28-value cap: 4194305 x 64 values, streamed through a pipe
n=$(( 4194305 * 64 ))
/usr/bin/time -f '%M' -o "$tmp/rss" "$PECHECK" reference --quiet --family sinusoidal --d 64 \
    --positions 0:4194304 --out - | wc -c >"$tmp/bytes"
rss=$(tail -1 "$tmp/rss"); bytes=$(cat "$tmp/bytes")
# 32 MiB: the window's blocks (8 of 256 KiB) and the program, far below the
# 1 GiB table the in-memory writer held
if [ "$bytes" = $(( n * 4 + 128 )) ] && [ "$rss" -lt 32768 ]; then
    ok "2^28 + 64 values: written whole ($bytes bytes), peak RSS $rss KiB"
else
    nok "2^28 + 64 values: $bytes bytes (want $(( n * 4 + 128 ))), peak RSS $rss KiB"
fi

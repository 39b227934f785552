#!/bin/sh
# torch_integration.t: real PyTorch tables gated by pecheck.
#
# scripts/dump_torch_pe.py (Debian python3-torch) dumps the source article's
# PositionalEncoding buffer (d_model 512, max_len 5000) and a float32
# rotate_half cos/sin cache (head_dim 128, 4096 positions); `pecheck check
# --table` must pass both, and fail the same tables built from bfloat16
# positions.  Without an importable torch the whole file is a visible skip
# ("1..0 # SKIP PyTorch not available: REASON"), never a silent pass.
# $PYTHON picks the interpreter (default /usr/bin/python3, Debian's).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp torch
Q="--cases 10 --regressions off --quiet"

"$PY" "$root/scripts/dump_torch_pe.py" sinusoidal --out "$tmp/pe.npy" >"$tmp/log" 2>&1
ok $? "dump the article's PositionalEncoding buffer (5000, 512)" "$tmp/log"
"$PY" "$root/scripts/dump_torch_pe.py" sinusoidal --positions-dtype bfloat16 --out "$tmp/pe_bf16.npy" >"$tmp/log" 2>&1
ok $? "dump it built from bfloat16 positions" "$tmp/log"
"$PY" "$root/scripts/dump_torch_pe.py" rope --cos "$tmp/cos.npy" --sin "$tmp/sin.npy" >"$tmp/log" 2>&1
ok $? "dump a float32 rotate_half cos/sin cache (4096, 128)" "$tmp/log"
"$PY" "$root/scripts/dump_torch_pe.py" rope --positions-dtype bfloat16 --cos "$tmp/cos_bf16.npy" --sin "$tmp/sin_bf16.npy" >"$tmp/log" 2>&1
ok $? "dump the cache built from bfloat16 positions" "$tmp/log"

# gate: exit status and the decisive line of each
"$PECHECK" check --table "$tmp/pe.npy" --family sinusoidal $Q >"$tmp/out" 2>&1
st=$?
grep -q "^PASS .*accuracy \[interleaved\]: max |err|/bound [0-9.e+-]*: 2560000 values, positions 0..4999 d=512" "$tmp/out"
ok $((st + $?)) "pecheck passes the PyTorch PE table (exit $st)" "$tmp/out"

"$PECHECK" check --table "$tmp/pe_bf16.npy" --family sinusoidal $Q >"$tmp/out" 2>&1
st=$?
grep -q "accuracy \[interleaved\]: error: .* exceed the bound; worst at pos=" "$tmp/out"
ok $(( (st != 1) + $? )) "pecheck fails the bfloat16-position PE table with a witness (exit $st)" "$tmp/out"

"$PECHECK" check --table "$tmp/cos.npy" --table-sin "$tmp/sin.npy" --family rope --base 10000 $Q >"$tmp/out" 2>&1
st=$?
grep -q "^PASS .*cache-layout \[half\]: (n, d) cache, layout half detected" "$tmp/out" &&
    grep -q "^PASS .*rope accuracy \[half\]: max |err|/bound [0-9.e+-]*: 524288 values" "$tmp/out"
ok $((st + $?)) "pecheck passes the rotate_half cache, layout half detected (exit $st)" "$tmp/out"

"$PECHECK" check --table "$tmp/cos_bf16.npy" --table-sin "$tmp/sin_bf16.npy" --family rope --base 10000 $Q >"$tmp/out" 2>&1
st=$?
grep -q "rope accuracy \[half\]: error: .* exceed the bound; worst at pos=" "$tmp/out"
ok $(( (st != 1) + $? )) "pecheck fails the bfloat16-position cache with a witness (exit $st)" "$tmp/out"

echo "1..$n"
[ "$fails" -eq 0 ]

#!/bin/sh
# rope_coords.t: RoPE over real coordinates (--position-ids of float32 or
# float64, --rope-angle-scale), the caches of two vision encoders built as
# their code builds them (tests/lib/coords_caches.py):
#   - EVA-02's VisionRotaryEmbeddingFast at 24 x 24 interpolated from its
#     16 x 16 pretraining grid (positions i * 16 / 24), head dim 64, theta
#     10000: passes with t's float32 values and with i * 16 / 24 in float64
#     (the position's one rounding to binary32 in its bound); built without
#     the interpolation (t = i) it fails, naming the pair's position;
#   - DINOv3's RopePositionEmbedding (head dim 64, base 100, patch centres
#     in [-1, 1], angles 2 pi coords / periods): passes with its float32
#     coordinates and --rope-angle-scale 2pi; the periods of base 1000 fail;
#     1 cls and 4 register rows of cos 1, sin 0 at ids 0 pass, the same
#     rows holding a patch's values fail;
#   - float64 ids equal to integers give the int64 ids' verdicts and
#     measure; rope-relative skips on coordinates saying why; NaN ids and
#     a scale without ids are exit 2.
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp coords

for kv in eva02:ok eva02:noninterp eva02:ids64 eva02:grid16 dinov3:ok dinov3:base1000 dinov3:cls \
          dinov3:clsbad; do
    "$PY" "$root/tests/lib/coords_caches.py" "${kv%:*}" "${kv#*:}" "$tmp/${kv%:*}-${kv#*:}" \
        >>"$tmp/gen.log" 2>&1 || echo "$kv" >>"$tmp/gen.fail"
done
[ ! -f "$tmp/gen.fail" ]
ok $? "build the EVA-02 and DINOv3 caches with PyTorch" "$tmp/gen.log"

EVA="--rope-axes-dim 32,32 --base 10000"
DINO="--rope-axes-dim 32,32 --base 100 --rope-angle-scale 2pi"
gate() { # gate DIR IDS OPTIONS...: the check's output in DIR/out, its status returned
    d=$1; ids=$2; shift 2
    "$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$ids" \
        --cases 40 --regressions off "$@" >"$d/out" 2>&1
}
worst() { sed -n 's/.*accuracy \[[a-z]*\]: max |err|\/bound \([0-9.e+-]*\).*/\1/p' "$1" | head -n 1; }

d=$tmp/eva02-ok
# shellcheck disable=SC2086
gate "$d" "$d/pos.npy" $EVA
[ $? -eq 0 ] && grep -q "PASS .* rope accuracy \[interleaved\].*real coordinates of 2 axes" "$d/out" \
    && grep -q "PASS .* rope rope-norm" "$d/out" && grep -q "PASS .* rope decay" "$d/out"
ok $? "EVA-02 at 24 x 24 interpolated from 16: passes at t's float32 positions (accuracy, rope-norm, decay)" "$d/out"
echo "# EVA-02 (float32 t): worst err/bound $(worst "$d/out")"
grep -q "SKIP .* rope rope-relative .*real coordinates: rope-relative moves rows by whole steps" "$d/out"
ok $? "rope-relative on real coordinates: a skip saying why (the accuracy gate still checks every row)" "$d/out"

d=$tmp/eva02-ids64
# shellcheck disable=SC2086
gate "$d" "$d/pos.npy" $EVA
[ $? -eq 0 ] && grep -q "PASS .* rope accuracy \[interleaved\]" "$d/out"
ok $? "EVA-02 with float64 ids i * 16 / 24 (not t's float32 values): passes, one rounding of the position in the bound" "$d/out"
echo "# EVA-02 (float64 ids): worst err/bound $(worst "$d/out")"

d=$tmp/eva02-noninterp
# shellcheck disable=SC2086
gate "$d" "$d/pos.npy" $EVA
[ $? -eq 1 ] && grep -q "FAIL .* rope accuracy \[interleaved\].*worst at pos=[0-9]* (the pair's position [0-9.-]*)" "$d/out"
ok $? "EVA-02 not interpolated (t = i while the ids say i * 16 / 24): fails naming the pair's position" "$d/out"

d=$tmp/eva02-grid16
# shellcheck disable=SC2086
gate "$d" "$d/pos.npy" $EVA
rc64=$?
sed 's/pos\(_int\)\?\.npy//g; s/([0-9.]* s)//' "$d/out" >"$d/f64"
# shellcheck disable=SC2086
gate "$d" "$d/pos_int.npy" $EVA
rci=$?
sed 's/pos\(_int\)\?\.npy//g; s/([0-9.]* s)//' "$d/out" >"$d/i64"
[ $rc64 -eq 0 ] && [ $rci -eq 0 ] && cmp -s "$d/f64" "$d/i64" && grep -q "PASS .* rope rope-relative" "$d/i64" \
    && grep -q "positions of 2 axes" "$d/i64"
ok $? "float64 ids equal to integers: the int64 ids' verdicts and measures, line for line (rope-relative runs)" "$d/f64"
echo "# EVA-02 16 x 16, float64 and int64 ids: worst err/bound $(worst "$d/f64") and $(worst "$d/i64")"

d=$tmp/dinov3-ok
# shellcheck disable=SC2086
gate "$d" "$d/pos.npy" $DINO
[ $? -eq 0 ] && grep -q "PASS .* rope accuracy \[half\].*angles times 2pi; real coordinates" "$d/out" \
    && grep -q "PASS .* rope decay" "$d/out"
ok $? "DINOv3 (head dim 64, base 100): passes with its float32 coordinates in [-1, 1] and --rope-angle-scale 2pi" "$d/out"
echo "# DINOv3: worst err/bound $(worst "$d/out")"
# shellcheck disable=SC2086
gate "$d" "$d/pos.npy" --rope-axes-dim 32,32 --base 100
[ $? -eq 1 ] && grep -q "FAIL .* rope accuracy \[half\]" "$d/out"
ok $? "DINOv3 without the 2 pi scale: fails" "$d/out"

d=$tmp/dinov3-base1000
# shellcheck disable=SC2086
gate "$d" "$d/pos.npy" $DINO
[ $? -eq 1 ] && grep -q "FAIL .* rope accuracy \[half\].*the pair's position -\?[0-9.]*" "$d/out"
ok $? "DINOv3 built with the wrong period base (1000): fails naming the pair's position" "$d/out"

d=$tmp/dinov3-cls
# shellcheck disable=SC2086
gate "$d" "$d/pos.npy" $DINO
[ $? -eq 0 ] && grep -q "PASS .* rope accuracy \[half\].*(201 rows)" "$d/out"
ok $? "DINOv3 with a cls and 4 register rows first (cos 1, sin 0) at ids 0: passes" "$d/out"
d=$tmp/dinov3-clsbad
# shellcheck disable=SC2086
gate "$d" "$d/pos.npy" $DINO
[ $? -eq 1 ] && grep -q "FAIL .* rope accuracy \[half\].*worst at pos=[0-4][ ,]" "$d/out"
ok $? "the same rows holding a patch's values: fails at one of them" "$d/out"

# bad input: exit 2 naming it
d=$tmp/eva02-ok
"$PY" -c "import numpy as np; a = np.load('$d/pos.npy'); a[3, 1] = np.nan; np.save('$tmp/nan.npy', a)"
# shellcheck disable=SC2086
gate "$d" "$tmp/nan.npy" $EVA
[ $? -eq 2 ] && grep -q "nan.npy: position ids row 3, axis 1 is nan" "$d/out"
ok $? "NaN position ids: exit 2 naming the file, row and axis" "$d/out"
"$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --rope-angle-scale 2pi >"$tmp/o" 2>&1
[ $? -eq 2 ] && grep -q -- "--rope-angle-scale scales the angles of the rows of --position-ids" "$tmp/o"
ok $? "--rope-angle-scale without --position-ids: exit 2 naming it" "$tmp/o"
"$PECHECK" check --table "$d/cos.npy" --table-sin "$d/sin.npy" --position-ids "$d/pos.npy" \
    --rope-angle-scale 2tau $EVA >"$tmp/o" 2>&1
[ $? -eq 2 ] && grep -q -- "--rope-angle-scale: expected a number in (0, 2^64] or a multiple of pi (pi, 2pi), got '2tau'" "$tmp/o"
ok $? "a scale that is neither a number nor a multiple of pi: exit 2" "$tmp/o"

echo "1..$n"
[ "$fails" -eq 0 ]

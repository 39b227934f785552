#!/bin/sh
# rope_xpos.t: xPos (--rope-xpos B, --rope-xpos-offset, --rope-xpos-downscale),
# torchscale's XPOS scale zeta_i^((p + q0)/B) as a certified second factor.
#
# Caches built as torchscale's XPOS builds them (tests/lib/xpos_caches.py,
# float32):
#   - d 64 and 128, length 2048, and decode steps (offset 1000, length 16;
#     offset 2047, length 1, with --pos-start) pass with --rope-xpos 512,
#     rope-norm (the certified norm) and rope-relative (the angle part) too;
#     the keys' cache (downscale) passes with --rope-xpos-downscale; the worst
#     err/bound is printed;
#   - without --rope-xpos the cache fails (its norms are not 1);
#   - wrong variants fail with the cause first: scale_base 256 where 512 is
#     declared, no centring (q = p), the keys' reciprocal scale checked as
#     the queries', the half layout instead of duplicate_interleave; rows
#     one position late (angle and scale: an off-by-one, not another q0),
#     only the angle one position late, the scale on cos only, zeta's 0.4
#     computed as 0.5 (fitted on every pair: not another scale base);
#   - `pecheck reference --rope-xpos` exports A G cos, G sin (against the
#     binary64 formula);
#   - bad input is exit 2 naming it.
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp xpos
gen() { "$PY" "$root/tests/lib/xpos_caches.py" "$@" >>"$tmp/gen.log" 2>&1; }
gen ok 64 2048 0 "$tmp/ok64" && gen ok 128 2048 0 "$tmp/ok128" && gen ok 64 16 1000 "$tmp/dec16" &&
    gen ok 64 1 2047 "$tmp/dec1" && gen down 64 2048 0 "$tmp/down" && gen b256 64 2048 0 "$tmp/b256" &&
    gen nocentre 64 2048 0 "$tmp/nocentre" && gen half 64 2048 0 "$tmp/half" &&
    gen ok 64 1024 0 "$tmp/ok64n1024" && gen down 128 2048 0 "$tmp/down128" &&
    gen late 64 2048 0 "$tmp/late" && gen anglelate 64 2048 0 "$tmp/anglelate" &&
    gen cosonly 64 2048 0 "$tmp/cosonly" && gen zeta05 128 2048 0 "$tmp/zeta05" &&
    gen late 64 16 1000 "$tmp/late16"
ok $? "build torchscale's XPOS caches and the variants" "$tmp/gen.log"

X="--family rope --base 10000 --regressions off"
chk() { # chk PREFIX ARGS...: check the cache PREFIX_{cos,sin}.npy; rc in $rc, output in $tmp/o
    src=$1; shift
    "$PECHECK" check --table "$src"_cos.npy --table-sin "$src"_sin.npy $X "$@" >"$tmp/o" 2>&1
    rc=$?
}
worst() { grep "^PASS .* rope accuracy" "$tmp/o" | sed 's/.*max |err|\/bound \([^:]*\):.*/# worst err\/bound \1/'; }

for c in ok64:0 ok128:0 dec16:1000 dec1:2047; do
    t=${c%:*}; start=${c#*:}
    if [ "$start" -gt 0 ]; then chk "$tmp/$t" --rope-xpos 512 --pos-start "$start"
    else chk "$tmp/$t" --rope-xpos 512; fi
    [ $rc -eq 0 ] && grep -q "^PASS .* rope accuracy \[interleaved\]" "$tmp/o" && ! grep -q "^FAIL" "$tmp/o" &&
        grep -q "xPos: pair i times zeta_i^((p -[0-9]*)/512)" "$tmp/o"
    ok $? "torchscale's XPOS cache $t (offset $start) passes with --rope-xpos 512 (exit $rc)" "$tmp/o"
    worst
done
# whole exponents at the rows of angle 0: at length 1024, row 0's factor is
# zeta_i^-1 (3.5 at pair 0), and the keys' at length 2048 zeta_i^2 (9/64 at
# pair 4 of d 64): exact factors times the probe's exact values can fall
# on a rounding boundary, which the certified reference takes exactly
chk "$tmp/ok64n1024" --rope-xpos 512
[ $rc -eq 0 ] && grep -q "zeta_i^((p -512)/512)" "$tmp/o"
ok $? "length 1024 (row 0's exponent -1, a whole power) passes (exit $rc)" "$tmp/o"
chk "$tmp/down128" --rope-xpos 512 --rope-xpos-downscale
[ $rc -eq 0 ]
ok $? "the keys' cache at d 128, length 2048 (row 0's exponent +2) passes (exit $rc)" "$tmp/o"
chk "$tmp/ok64" --rope-xpos 512
grep -q "^PASS .* rope rope-norm" "$tmp/o" && grep -q "^PASS .* rope rope-relative" "$tmp/o" &&
    grep -q "^PASS .* rope fitted-model" "$tmp/o"
ok $? "rope-norm (the certified norm), rope-relative (the angle part) and the fitted model hold" "$tmp/o"
grep -q "zeta_i^((p -1024)/512)" "$tmp/o"
ok $? "length 2048: torchscale's centring q0 = -(2048 // 2) = -1024" "$tmp/o"
chk "$tmp/dec16" --rope-xpos 512 --pos-start 1000
grep -q "zeta_i^((p -508)/512)" "$tmp/o"
ok $? "a decode step (offset 1000, length 16): q0 = -(1016 // 2) = -508" "$tmp/o"
chk "$tmp/down" --rope-xpos 512 --rope-xpos-downscale
[ $rc -eq 0 ] && grep -q "zeta_i^(-(p -1024)/512)" "$tmp/o"
ok $? "the keys' cache (downscale=True) passes with --rope-xpos-downscale (exit $rc)" "$tmp/o"
worst

chk "$tmp/ok64"
[ $rc -eq 1 ] && grep -q "^FAIL .* rope accuracy" "$tmp/o" && grep -q "^FAIL .* rope rope-norm" "$tmp/o"
ok $? "without --rope-xpos the xPos cache fails: its norms are not 1 (exit $rc)" "$tmp/o"

cause() { grep -m1 "^    likely cause" "$tmp/o"; }
chk "$tmp/b256" --rope-xpos 512
[ $rc -eq 1 ] && cause | grep -q "scale base 256, not 512"
ok $? "scale_base 256 where 512 is declared fails, the cause first: scale base 256, not 512 (exit $rc)" "$tmp/o"
chk "$tmp/nocentre" --rope-xpos 512
[ $rc -eq 1 ] && cause | grep -q "offset q0 0, not -1024: positions not centred"
ok $? "no centring (q = p) fails, the cause first: positions not centred (exit $rc)" "$tmp/o"
chk "$tmp/nocentre" --rope-xpos 512 --rope-xpos-offset 0
[ $rc -eq 0 ]
ok $? "the same cache passes with --rope-xpos-offset 0 (exit $rc)" "$tmp/o"
chk "$tmp/down" --rope-xpos 512
[ $rc -eq 1 ] && cause | grep -q "the reciprocal scale, the keys' (downscale=True)"
ok $? "the keys' reciprocal scale checked as the queries' fails, the cause first (exit $rc)" "$tmp/o"
chk "$tmp/ok64" --rope-xpos 512 --rope-xpos-downscale
[ $rc -eq 1 ] && cause | grep -q "the queries' scale, not the keys' reciprocal"
ok $? "the queries' cache checked with --rope-xpos-downscale fails, the cause first (exit $rc)" "$tmp/o"
chk "$tmp/half" --rope-xpos 512
first=$(grep -m1 "^FAIL" "$tmp/o")
[ $rc -eq 1 ] && echo "$first" | grep -q "rope cache-layout \[interleaved\]" &&
    cause | grep -q "the cache is in the half layout but is checked as interleaved"
ok $? "the half layout instead of duplicate_interleave fails, cache-layout first, the cause naming it (exit $rc)" "$tmp/o"
chk "$tmp/late" --rope-xpos 512
[ $rc -eq 1 ] && cause | grep -q "rows are those of position p+1: the angle and the xPos scale both 1 position late" &&
    ! cause | grep -q "offset q0"
ok $? "rows of p+1 (angle and scale) fail, the cause an off-by-one in the positions, not q0 -1023 (exit $rc)" "$tmp/o"
chk "$tmp/late16" --rope-xpos 512 --pos-start 1000
[ $rc -eq 1 ] && cause | grep -q "rows are those of position p+1: the angle and the xPos scale both 1 position late"
ok $? "a decode step (offset 1000, 16 rows) one position late: the same cause (exit $rc)" "$tmp/o"
chk "$tmp/anglelate" --rope-xpos 512
[ $rc -eq 1 ] && cause | grep -q "angles are those of position p+1 while its xPos scale is that of p" &&
    ! cause | grep -q "attention factor"
ok $? "the angle alone one position late fails, the cause the angle's positions (exit $rc)" "$tmp/o"
chk "$tmp/cosonly" --rope-xpos 512
[ $rc -eq 1 ] && cause | grep -q "xPos scale multiplies the cos only (the sin unscaled)"
ok $? "the scale on cos only fails, the cause naming it (exit $rc)" "$tmp/o"
chk "$tmp/zeta05" --rope-xpos 512
[ $rc -eq 1 ] && cause | grep -q "zeta_i = (2i + 0.5 d) / (1.5 d), not (2i + 0.4 d) / (1.4 d)" &&
    ! cause | grep -q "scale base"
ok $? "zeta with 0.5 in place of 0.4 (d 128) fails, the cause zeta's form, not another scale base (exit $rc)" "$tmp/o"

# the export: G cos, G sin against the binary64 formula
"$PECHECK" reference --family rope --d 64 --base 10000 --rope-xpos 512 --positions 0:2047 --dtype f64 \
    --out "$tmp/ref.npy" --quiet >"$tmp/o" 2>&1 && "$PY" - "$tmp/ref.npy" >>"$tmp/o" 2>&1 <<'PY'
import sys, numpy as np
d, n = 64, 2048
r = np.load(sys.argv[1]).reshape(n, d)  # (cos, sin) of each pair
p = np.arange(n, dtype=np.float64)[:, None]
j = np.arange(d // 2, dtype=np.float64)[None, :]
zeta = (2 * j + 0.4 * d) / (1.4 * d)
g = zeta ** ((p - 1024) / 512)
th = p * 10000.0 ** (-2 * j / d)
want = np.stack((g * np.cos(th), g * np.sin(th)), -1).reshape(n, d)
err = np.abs(r - want).max() / np.abs(want).max()
print("largest relative difference", err)
assert r.shape == (n, d) and err < 1e-12, err
PY
ok $? "reference --rope-xpos 512 exports G cos, G sin (the binary64 formula)" "$tmp/o"

rc=0; "$PECHECK" check --impl rope-polar --d 64 --rope-xpos 0.5 >"$tmp/o" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q "rope-xpos: the scale base must be a number in \\[1, 1e300\\]" "$tmp/o"
ok $? "--rope-xpos 0.5 is exit 2 naming it (exit $rc)" "$tmp/o"
rc=0; "$PECHECK" check --impl rope-polar --d 64 --rope-xpos-offset 3 >"$tmp/o" 2>&1 || rc=$?
[ $rc -eq 2 ] && grep -q "need --rope-xpos B" "$tmp/o"
ok $? "--rope-xpos-offset without --rope-xpos is exit 2 (exit $rc)" "$tmp/o"
"$PECHECK" help check >"$tmp/o" 2>&1
grep -q -- "--rope-xpos B" "$tmp/o" && grep -q -- "--rope-xpos-offset" "$tmp/o" && grep -q -- "--rope-xpos-downscale" "$tmp/o"
ok $? "pecheck help check lists the xPos options" "$tmp/o"
echo "1..$n"
[ "$fails" -eq 0 ]

#!/bin/sh
# checked_against.t: a pass (exit 0) means something was compared with a
# certified value, whatever the source; an option that shapes the spec
# applies or is refused; past the point where the element bound stops
# constraining the angle, the verdict says so and a pair off the unit
# circle still fails.
#
#   1. a version 1 plugin cannot be given position ids (--position-ids) or
#      timesteps (--timesteps): its accuracy gate and properties skip, and
#      `repeat` (the same call made twice), which compares nothing with a
#      reference, does not make the run a pass: exit 2 "nothing checked",
#      one line naming the option and why; the same plugins without those
#      options are checked (a correct one passes, the bad ones fail).
#   2. --rope-axes-dim over position ids of one axis: exit 2 naming the
#      option and the fix (it was ignored: the table held to the plain
#      schedule); with ids of as many axes it applies and a correct axial
#      cache passes.
#   3. all-zero tables at angles where the element bound is capped (RoPE
#      position ids near 2^50, diffusers timesteps near 1e12, --angle-scale
#      1e308) fail a check whose bound does not grow with the angle (the
#      pair's norm: rope-norm, the accuracy gate's past the long-context
#      point, and the timestep gate's sin^2 + cos^2 = 1);
#      correct tables at the same angles pass, and the verdicts carry the
#      long-context note: the timestep gate's in text and JSON, the
#      accuracy gate's under position ids as without them (details, JSON).
# Tables from tests/lib/extreme_tables.py (NumPy); without NumPy a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
if ! "$PY" -c 'import numpy' >/dev/null 2>&1; then
    echo "1..0 # SKIP NumPy not available to $PY"; exit 0
fi
tap_tmp checked
R="--regressions off --quiet"
"$PY" "$root/tests/lib/extreme_tables.py" "$tmp" >"$tmp/gen.log" 2>&1
ok $? "make the tables (tests/lib/extreme_tables.py)" "$tmp/gen.log"
for p in rope_constant sin_offset; do
    ${CC:-cc} -shared -fPIC -I"$root/include" "$root/tests/plugins/$p.c" -o "$tmp/$p.so" -lm 2>>"$tmp/gen.log"
done
${CC:-cc} -shared -fPIC -I"$root/include" "$root/examples/plugin_good.c" -o "$tmp/good.so" -lm 2>>"$tmp/gen.log"
[ -f "$tmp/rope_constant.so" ] && [ -f "$tmp/sin_offset.so" ] && [ -f "$tmp/good.so" ]
ok $? "build the test plugins" "$tmp/gen.log"
"$PY" -c 'import numpy; numpy.save("'"$tmp"'/ids.npy", numpy.arange(256, dtype=numpy.int64)); numpy.save("'"$tmp"'/ts.npy", numpy.arange(0, 1000, 10, dtype=numpy.int64))'

# exit2 WORD... -- ARGS: exit 2, one stderr line holding every WORD, nothing on stdout
exit2() {
    words=""
    while [ "$1" != "--" ]; do words="$words|$1"; shift; done; shift
    "$PECHECK" "$@" >"$tmp/out" 2>"$tmp/err"; rc=$?
    good=0
    [ "$rc" -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ] || good=1
    IFS='|'
    for w in $words; do [ -z "$w" ] || grep -qF -- "$w" "$tmp/err" || good=1; done
    unset IFS
    { echo "rc=$rc"; cat "$tmp/err"; head -5 "$tmp/out"; } >"$tmp/diag"
    return $good
}

# ---- 1. nothing checked against a reference -------------------------------------------
exit2 "nothing checked" "--position-ids" "takes one position a row" "only repeat passed" -- \
    check --family rope --d 64 --max-pos 255 --plugin "$tmp/rope_constant.so" --base 10000 \
    --position-ids "$tmp/ids.npy" $R
ok $? "a v1 RoPE plugin returning 0.25 everywhere under --position-ids: exit 2 naming the option (only repeat ran)" "$tmp/diag"
exit2 "nothing checked" "--timesteps" "only repeat passed" -- \
    check --preset diffusers --timesteps "$tmp/ts.npy" --plugin "$tmp/sin_offset.so" $R
ok $? "a v1 sinusoidal plugin off by 0.5 under --timesteps: exit 2 naming the option" "$tmp/diag"
exit2 "nothing checked" "--position-ids" -- \
    check --family rope --d 64 --max-pos 255 --plugin "$tmp/good.so" --base 10000 \
    --position-ids "$tmp/ids.npy" $R
ok $? "a correct v1 plugin under --position-ids: exit 2 as well (it was not checked either)" "$tmp/diag"
"$PECHECK" check --family rope --d 64 --max-pos 255 --plugin "$tmp/rope_constant.so" --base 10000 $R >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "^FAIL .* rope accuracy" "$tmp/o"
ok $? "the same RoPE plugin without position ids: checked, fails (exit 1)" "$tmp/o"
"$PECHECK" check --family rope --d 64 --max-pos 255 --plugin "$tmp/good.so" --base 10000 $R >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "^PASS .* rope accuracy" "$tmp/o"
ok $? "a correct plugin without position ids: passes (exit 0), no false alarm" "$tmp/o"
"$PECHECK" check --d 64 --max-pos 255 --plugin "$tmp/sin_offset.so" --family sinusoidal $R >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "^FAIL .* sinusoidal accuracy" "$tmp/o"
ok $? "the offset sinusoidal plugin without timesteps: checked, fails (exit 1)" "$tmp/o"

# ---- 2. --rope-axes-dim applies or is refused -----------------------------------------
T="--table $tmp/axial_cos.npy --table-sin $tmp/axial_sin.npy --base 10000 --d 64 --layout half"
exit2 "--rope-axes-dim 32,32" "1 position axis" "ids1.npy" "drop --rope-axes-dim" -- \
    check $T --position-ids "$tmp/ids1.npy" --rope-axes-dim 32,32 $R
ok $? "--rope-axes-dim over ids of one axis: exit 2 naming the option and the fix" "$tmp/diag"
"$PECHECK" check $T --position-ids "$tmp/ids2.npy" --rope-axes-dim 32,32 $R >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "^PASS .* rope accuracy .*axial, dims 32,32" "$tmp/o"
ok $? "--rope-axes-dim over ids of two axes: applies, the correct axial cache passes" "$tmp/o"

# ---- 3. extreme angles ------------------------------------------------------------------
F="--base 10000 --d 64 --layout half --position-ids $tmp/ids_far.npy"
"$PECHECK" check --table "$tmp/zero_cos.npy" --table-sin "$tmp/zero_sin.npy" $F $R >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "^FAIL .* rope rope-norm .* = 1 > bound" "$tmp/o"
ok $? "an all-zero RoPE cache at positions near 2^50: rope-norm fails (exit 1)" "$tmp/o"
"$PECHECK" check --table "$tmp/far_cos.npy" --table-sin "$tmp/far_sin.npy" $F $R >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "^PASS .* rope rope-norm" "$tmp/o"
ok $? "the correct cache at the same positions passes rope-norm (exit 0): no false alarm" "$tmp/o"
"$PECHECK" check --table "$tmp/far_cos.npy" --table-sin "$tmp/far_sin.npy" $F $R --format json >"$tmp/o.json" 2>&1
"$PY" - "$tmp/o.json" >"$tmp/o" 2>&1 <<'PYEOF'
import json, sys
v = [v for v in json.load(open(sys.argv[1]))["results"] if v["check"] == "accuracy"][0]
lc = v["data"]["long_context"]
assert lc and lc["reached"] and lc["pairs_unconstrained_at_end"] == 32, lc
assert "at the largest positions of the rows' ids it no longer constrains 32 of the 32" in v["details"], v["details"]
PYEOF
ok $? "position ids near 2^50: the accuracy verdict carries the long-context note (details, JSON), as without ids" "$tmp/o"
"$PECHECK" check --table "$tmp/axial_cos.npy" --table-sin "$tmp/axial_sin.npy" --base 10000 --d 64 \
    --layout half --position-ids "$tmp/ids2.npy" --rope-axes-dim 32,32 $R --format json >"$tmp/o.json" 2>&1
"$PY" - "$tmp/o.json" >"$tmp/o" 2>&1 <<'PYEOF'
import json, sys
v = [v for v in json.load(open(sys.argv[1]))["results"] if v["check"] == "accuracy"][0]
lc = v["data"]["long_context"]
assert lc and not lc["reached"] and lc["pairs_unconstrained_at_end"] == 0, lc
assert "long context" not in v["details"], v["details"]
PYEOF
ok $? "position ids of small positions: long_context not reached, no note" "$tmp/o"
"$PECHECK" check --table "$tmp/zero_cos.npy" --table-sin "$tmp/zero_sin.npy" $F $R --property accuracy >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "^FAIL .* rope accuracy .*norm 0" "$tmp/o"
ok $? "the all-zero cache there under --property accuracy alone: the gate fails it on its norm (exit 1)" "$tmp/o"
"$PECHECK" check --table "$tmp/far_cos.npy" --table-sin "$tmp/far_sin.npy" $F $R --property accuracy >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "^PASS .* rope accuracy .*long context: the bound no longer constrains the angle of 32 of the 32 pairs" "$tmp/o"
ok $? "the correct cache there under --property accuracy alone: passes (exit 0), its PASS line saying the angles are not constrained there" "$tmp/o"
S="--family sinusoidal --base 10000 --d 64 --pos-start 1125899906842624"
"$PECHECK" accuracy --table "$tmp/ts_zero.npy" $S --quiet >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "long context" "$tmp/o"
ok $? "pecheck accuracy: an all-zero sinusoidal table at positions 2^50..: fails, the long-context note said (exit 1)" "$tmp/o"
"$PECHECK" accuracy --table "$tmp/sin_far.npy" $S --quiet >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "long context" "$tmp/o"
ok $? "pecheck accuracy: the correct table there passes (exit 0), the note said" "$tmp/o"
D="--family sinusoidal --preset diffusers --timesteps $tmp/ts_far.npy"
"$PECHECK" check --table "$tmp/ts_zero.npy" $D $R >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "^FAIL .* sinusoidal accuracy .*off the unit circle.*long context" "$tmp/o"
ok $? "an all-zero timestep table at timesteps near 1e12: fails off the unit circle, the long-context note said (exit 1)" "$tmp/o"
"$PECHECK" check --table "$tmp/ts_good.npy" $D $R >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "^PASS .* sinusoidal accuracy .*long context: the bound no longer constrains" "$tmp/o"
ok $? "the correct timestep table there passes (exit 0), its summary carrying the long-context note" "$tmp/o"
"$PECHECK" check --table "$tmp/ts_good.npy" $D $R --format json >"$tmp/o.json" 2>&1
"$PY" - "$tmp/o.json" >"$tmp/o" 2>&1 <<'PYEOF'
import json, sys
doc = json.load(open(sys.argv[1]))
v = [v for v in doc["results"] if v["check"] == "accuracy"][0]
lc = v["data"]["long_context"]
assert doc["status"] == "pass", doc["status"]
assert lc["reached"] and lc["pairs_unconstrained_at_end"] == 32, lc
assert v["data"]["pairs_off_unit_circle"] == 0, v["data"]
assert "long context" in v["details"], v["details"]
PYEOF
ok $? "JSON: the timestep verdict's data.long_context (reached, 32 pairs) and details" "$tmp/o"
"$PECHECK" check --table "$tmp/ts_zero.npy" --family sinusoidal --preset diffusers \
    --timesteps "$tmp/ts_small.npy" --angle-scale 1e308 $R >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "^FAIL .* sinusoidal accuracy .*off the unit circle" "$tmp/o"
ok $? "an all-zero timestep table under --angle-scale 1e308: fails off the unit circle (exit 1)" "$tmp/o"

echo "1..$n"
[ "$fails" -eq 0 ]

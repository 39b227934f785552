#!/bin/bash
# The CLI of the foundation: exit codes, one-line messages for bad input,
# verdicts and witnesses of the accuracy gate on the built-ins, JSON fields.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"

# expect_usage WORD ARGS...: exit 2, exactly one stderr line containing WORD, no stdout
expect_usage() {
    local word=$1; shift
    "$PECHECK" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    local lines; lines=$(wc -l <"$tmp/err")
    if [ $rc -eq 2 ] && [ "$lines" -eq 1 ] && grep -qi -- "$word" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok "exit 2, one line naming '$word': pecheck $*"
    else
        nok "pecheck $* -> rc=$rc, stderr: $(cat "$tmp/err")"
    fi
}


echo "1..40"
expect_usage "even" accuracy --impl torch-exp --d 7
expect_usage "8192" accuracy --impl torch-exp --d 8194
expect_usage "even" accuracy --impl torch-exp --d 0
expect_usage "negative" accuracy --impl torch-exp --positions -5:10
expect_usage "negative" accuracy --impl torch-exp --max-pos -1
expect_usage "base" accuracy --impl torch-exp --base 1
expect_usage "base" accuracy --impl torch-exp --base 0.5
expect_usage "base" accuracy --impl torch-exp --base nan
expect_usage "after" accuracy --impl torch-exp --positions 10:5
expect_usage "out of range" accuracy --impl torch-exp --positions 0:9007199254740993
expect_usage "unknown implementation" accuracy --impl no-such-impl
expect_usage "family" accuracy --impl torch-exp --family banana
expect_usage "layout" accuracy --impl torch-exp --layout diagonal
expect_usage "dtype" accuracy --impl torch-exp --dtype f8
expect_usage "unknown command" frobnicate
expect_usage "not accepted" list --d 4
expect_usage "needs a value" accuracy --impl
expect_usage "cannot" reference --family sinusoidal --d 8 --positions 0:3 --out /nonexistent-dir/x.npy
expect_usage "cannot write" accuracy --impl double-angle --max-pos 3 --output /nonexistent-dir/r.json
expect_usage "required" reference --family sinusoidal --d 8 --positions 0:3
expect_usage "family" reference --family learned --d 8 --positions 0:3 --out "$tmp/x.npy"
# an option holding one value, given twice, is refused: the parser would keep the last silently
expect_usage "--formulation given twice" check --impl rope-half --formulation hf --formulation cr
expect_usage "--seed given twice" check --impl rope-half --seed 1 --seed=2
expect_usage "--d given twice" check --impl rope-half --d 64 --d=32
# identify --impl all: the built-ins identify takes (before: exit 2 at the first it does not)
"$PECHECK" identify --impl all --quiet --format json >"$tmp/o" 2>"$tmp/e"; rc=$?
nres=$(/usr/bin/python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$tmp/o" 2>/dev/null)
[ $rc -eq 1 ] && [ "${nres:-0}" -ge 10 ] && [ ! -s "$tmp/e" ] \
    && ok "identify --impl all: identifies the built-ins it takes ($nres results, exit 1: some UNKNOWN)" \
    || nok "identify --impl all -> rc=$rc, results ${nres:-none}: $(head -c 300 "$tmp/e")"
# --max-pos and --positions both name the positions: the last was taken, the other dropped
expect_usage "give one of --max-pos and --positions" accuracy --impl rope-half --positions 0:10 --max-pos 50
expect_usage "give one of --max-pos and --positions" check --impl rope-half --max-pos 50 --positions 3:10
# a list option repeats: two built-ins, one verdict line of each
"$PECHECK" check --impl rope-half --impl torch-exp --max-pos 63 >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "rope-half" "$tmp/o" && grep -q "torch-exp" "$tmp/o" && ok "--impl given twice checks both" \
    || nok "--impl twice: $(tail -3 "$tmp/o")"
# the same value twice says nothing new: taken (a wrapper adding --format json to a line that has it)
"$PECHECK" check --impl rope-half --max-pos 63 --formulation hf --formulation hf >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "strict class hf" "$tmp/o" && ok "--formulation hf twice: taken, the hf class" \
    || nok "--formulation hf twice: $(tail -3 "$tmp/o")"

# a failed write leaves no file behind
[ ! -e "$tmp/x.npy" ] && ls "$tmp" | grep -q tmp && nok "temporary left behind" || ok "no partial output after a failed run"

# verdicts of the gate
"$PECHECK" accuracy --impl torch-exp --d 128 --max-pos 4095 --quiet >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "^PASS" "$tmp/o" && ok "torch-exp passes" || nok "torch-exp: $(cat "$tmp/o")"
"$PECHECK" accuracy --impl rope-half --d 128 --max-pos 1023 --quiet >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "layout=half" "$tmp/o" && ok "rope-half passes on its own layout" || nok "rope-half: $(cat "$tmp/o")"
"$PECHECK" accuracy --impl bf16-positions --max-pos 1023 --quiet >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "the first at pos=257" "$tmp/o" && ok "bf16-positions fails first at pos 257 (bf16 rounds 257 to 256)" \
    || nok "bf16-positions: $(cat "$tmp/o")"
"$PECHECK" accuracy --impl sin-only --max-pos 15 --quiet >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "the first at pos=0$" "$tmp/o" && grep -Eq "worst \(largest err/bound\): pos=[0-9]+( \(asked for alone, n = 1\))? dim=1 " "$tmp/o" \
    && ok "sin-only fails from pos 0 (cos(0) = 1 expected, sin(0) = 0 given), worst on dim 1 (pair 0's cos, exact angle)" || nok "sin-only: $(cat "$tmp/o")"
"$PECHECK" accuracy --impl plus-1e-4 --max-pos 255 --quiet >"$tmp/o" 2>&1
[ $? -eq 1 ] && ok "a uniform 1e-4 error fails the default gate" || nok "plus-1e-4: $(cat "$tmp/o")"
"$PECHECK" accuracy --impl plus-1e-4 --max-pos 255 --tol-abs 2e-4 --quiet >"$tmp/o" 2>&1
[ $? -eq 0 ] && ok "--tol-abs 2e-4 accepts it" || nok "plus-1e-4 with --tol-abs: $(cat "$tmp/o")"
"$PECHECK" accuracy --impl rope-bf16-cache --max-pos 255 --quiet >"$tmp/o" 2>&1
[ $? -eq 1 ] && ok "a bfloat16 RoPE cache fails" || nok "rope-bf16-cache: $(cat "$tmp/o")"
"$PECHECK" accuracy --impl rope-bf16-cache --max-pos 255 --dtype bf16 --quiet >"$tmp/o" 2>&1
[ $? -eq 0 ] && ok "... and passes when declared bf16" || nok "rope-bf16-cache bf16: $(cat "$tmp/o")"

# JSON fields
"$PECHECK" accuracy --impl cos-shifted --d 16 --max-pos 63 --format json --output "$tmp/r.json" --quiet
rc=$?
if [ $rc -eq 1 ] && /usr/bin/python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
need = ["tool", "version", "implementation", "family", "params", "seed", "status", "max_abs_err",
        "max_ulp_err", "rms_err", "nmse", "bound", "worst"]
missing = [k for k in need if k not in r]
assert not missing, missing
assert r["status"] == "fail" and r["tool"] == "pecheck"
assert {"d", "base", "layout", "dtype", "positions"} <= set(r["params"])
w = r["worst"]
assert {"pos", "dim", "got", "ref"} <= set(w) and w["dim"] % 2 == 1, w  # a cos column
assert float.fromhex(w["got"]["hex"]) == w["got"]["dec"]
PY
then ok "JSON has the documented fields; cos-shifted's worst element is a cos column"
else nok "JSON output (rc=$rc)"; fi

# `list` names every built-in with a description
"$PECHECK" list >"$tmp/o"
[ "$(grep -c 'KNOWN BAD' "$tmp/o")" -ge 5 ] && grep -q '^torch-exp ' "$tmp/o" && ok "list shows built-ins" || nok "list"

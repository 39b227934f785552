#!/bin/bash
# Nothing checked is an error, not a pass: a --family the implementation
# lacks, a --property that applies to no family checked, a --layout the
# implementation declines: exit 2, one stderr line naming what did not apply,
# nothing on stdout.  Where something else was checked, the run goes on and
# the declined layout is a SKIP saying so (not a FAIL of every property).
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
small="--max-pos 63 --cases 5 --quiet --regressions off"

# nothing WORD... -- ARGS: exit 2, one line containing every WORD, no stdout
nothing() {
    local words=()
    while [ "$1" != "--" ]; do words+=("$1"); shift; done; shift
    "$PECHECK" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    local good=1
    for w in "${words[@]}"; do grep -qF -- "$w" "$tmp/err" || good=0; done
    if [ $rc -eq 2 ] && [ $good -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]; then
        ok "exit 2 naming ${words[*]}: pecheck $*"
    else nok "pecheck $*: rc=$rc stderr: $(cat "$tmp/err") stdout: $(head -3 "$tmp/out")"; fi
}

echo "1..12"
nothing "nothing checked" "rope" -- check --impl torch-exp --family rope $small
nothing "nothing checked" "--property rope-norm" -- check --impl torch-exp --property rope-norm $small
nothing "nothing checked" "--property alibi-slopes" -- check --impl rope-polar --property alibi-slopes $small
nothing "nothing checked" "--layout interleaved" "rope-half" -- check --impl rope-half --layout interleaved $small
nothing "nothing checked" "rope" -- accuracy --impl torch-exp --family rope --max-pos 63 --quiet
nothing "nothing checked" "learned" -- check --impl torch-exp --family learned $small

# a property that applies to some of the sources: run, no error
"$PECHECK" check --impl torch-exp --impl rope-polar --property rope-norm $small >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q "PASS  rope-polar rope rope-norm" "$tmp/out" \
    && ok "--property rope-norm over torch-exp and rope-polar runs on rope-polar, exit 0" \
    || nok "mixed property: rc=$rc $(cat "$tmp/err")"

# a single-layout implementation under its other layout, among others: SKIP with a note, no FAIL
"$PECHECK" check --impl rope-half --impl rope-polar --family rope --layout interleaved $small >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 0 ] && ! grep -q "^FAIL  rope-half\|^rope-half.*error" "$tmp/out" \
   && grep -q "^SKIP  rope-half rope rope-norm \[interleaved\]: .*declines --layout interleaved" "$tmp/out"; then
    ok "rope-half under --layout interleaved: its properties SKIP naming the layout, exit 0 (rope-polar checked)"
else nok "rope-half interleaved: rc=$rc $(grep rope-half "$tmp/out" | head -3)"; fi
"$PECHECK" check --impl rope-half --layout half $small >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 0 ] && ok "rope-half under its own --layout half passes" || nok "rope-half half: rc=$rc $(tail -3 "$tmp/out")"

# --property all runs every gate and property that applies (README, "Properties"):
# the attention and learned gates included, which a named property skips
"$PECHECK" check --impl attention-nocausal --property all $small >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "^FAIL  attention-nocausal attention accuracy-causal" "$tmp/out" \
    && grep -q "^PASS  attention-nocausal attention equivariance" "$tmp/out" \
    && ok "--property all on attention-nocausal runs the attention gate (accuracy-causal fails), exit 1" \
    || nok "--property all attention: rc=$rc $(cat "$tmp/err") $(head -3 "$tmp/out")"
"$PECHECK" check --impl learned-clamp --property all $small >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 1 ] && grep -q "^FAIL  learned-clamp learned out-of-range" "$tmp/out" \
    && grep -q "^FAIL  learned-clamp learned learned-range" "$tmp/out" \
    && ok "--property all on learned-clamp runs the learned gate and its properties, exit 1" \
    || nok "--property all learned: rc=$rc $(cat "$tmp/err") $(head -3 "$tmp/out")"

# accuracy calls the ABI v1 entry points: a kernel of ABI v2 only is exit 2
# naming its v2 entry point and the command that gates it
v2=${BUILD:-build}/examples/plugin_rope_half.so
"$PECHECK" accuracy --plugin "$v2" --family rope --d 64 --max-pos 63 --quiet >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "nothing checked: .*exports the ABI v2 entry point pecheck_rope_v2, which .pecheck check --plugin .* --property accuracy. gates" "$tmp/err" \
    && ok "accuracy on an ABI v2 kernel: exit 2 naming check --property accuracy" \
    || nok "accuracy v2: rc=$rc $(cat "$tmp/err")"

#!/bin/bash
# The "add a family" recipe of docs/architecture.md, exercised: the demo
# family (tests/family_demo/: a reference, two built-ins, a descriptor with
# its gate and its own option, --demo-ulps) registered through PC_FAMILIES_EXTRA into the test-only binary
# build/tests/pecheck_demo; build/pecheck must not contain it.
set -u
PECHECK=${PECHECK:-build/pecheck}
BUILD=${BUILD:-build}
DEMO=$BUILD/tests/pecheck_demo
. "$(dirname "$0")/lib/tap.bash"
check() { if eval "$1"; then ok "$2"; else nok "$2 ($(head -c 400 "$tmp/out" "$tmp/err" 2>/dev/null | tr '\n' ' '))"; fi; }

echo "1..15"
"$DEMO" list >"$tmp/out" 2>"$tmp/err"
check 'grep -qE "^demo-double +demo " "$tmp/out" && grep -qE "^demo-shifted +demo " "$tmp/out"' \
    "the test binary lists the demo family's built-ins"
check '[ "$(grep -c . "$tmp/out")" -eq $(( $("$PECHECK" list | grep -c .) + 2 )) ]' \
    "and every production built-in besides"

"$DEMO" check --impl demo-double --max-pos 300 >"$tmp/out" 2>"$tmp/err"; rc=$?
check '[ $rc -eq 0 ] && grep -q "^PASS  demo-double demo angle-ulp" "$tmp/out"' \
    "check runs the demo family's gate from its descriptor: demo-double passes"

"$DEMO" check --impl demo-shifted --max-pos 300 >"$tmp/out" 2>"$tmp/err"; rc=$?
check '[ $rc -eq 1 ] && grep -q "demo angle-ulp: error: .* first: pos=1 pair=0" "$tmp/out"' \
    "the known-bad demo-shifted fails at pos=1 pair=0"

"$DEMO" help check >"$tmp/out" 2>"$tmp/err"
check 'grep -q "^  --demo-ulps N" "$tmp/out"' "the family's own option is on check's help page"

"$DEMO" check --impl demo-shifted --max-pos 300 --demo-ulps 7 >"$tmp/out" 2>"$tmp/err"; rc=$?
check '[ $rc -eq 1 ] && grep -q "demo angle-ulp: error: .* off by more than 7 ulp" "$tmp/out"' \
    "its spec reaches its gate: the bound is --demo-ulps 7"

"$DEMO" check --impl demo-double --demo-ulps 0 >"$tmp/out" 2>"$tmp/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "demo-ulps: 0 is out of range" "$tmp/err"' \
    "the family validates its own option: --demo-ulps 0 is exit 2 naming it"

"$PECHECK" check --impl torch-exp --demo-ulps 5 >"$tmp/out" 2>"$tmp/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "demo-ulps" "$tmp/err"' "build/pecheck knows no --demo-ulps"

"$DEMO" check --impl demo-shifted --max-pos 20 --format json >"$tmp/out" 2>"$tmp/err"
check 'grep -q "\"family\": *\"demo\"" "$tmp/out"' "the JSON verdict names the demo family"

"$DEMO" check --impl torch-exp --max-pos 50 --property accuracy >"$tmp/out" 2>"$tmp/err"
check '! grep -q " demo " "$tmp/out" && grep -q "torch-exp sinusoidal accuracy" "$tmp/out"' \
    "a sinusoidal built-in is not claimed by the demo family"

"$DEMO" check --impl torch-exp --family demo >"$tmp/out" 2>"$tmp/err"; rc=$?
check '[ $rc -eq 2 ] && [ ! -s "$tmp/out" ] && grep -q "nothing checked.*does not implement the demo family" "$tmp/err"' \
    "--family demo on another built-in: nothing checked, exit 2 with the reason"

"$DEMO" check --family bogus >"$tmp/out" 2>"$tmp/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "expected sinusoidal, rope, learned, attention, t5, alibi, txl, demo or all" "$tmp/err"' \
    "the --family message is generated from the registry (demo included)"

"$PECHECK" list >"$tmp/out" 2>"$tmp/err"
check '! grep -q demo "$tmp/out"' "build/pecheck lists no demo built-in"

"$PECHECK" check --family demo >"$tmp/out" 2>"$tmp/err"; rc=$?
check '[ $rc -eq 2 ] && grep -q "expected sinusoidal, rope, learned, attention, t5, alibi, txl or all" "$tmp/err"' \
    "build/pecheck knows no demo family"

check '! nm "$PECHECK" 2>/dev/null | grep -q "pc_family_demo\|pc_impl_demo" && nm "$DEMO" | grep -q pc_family_demo' \
    "the demo family's symbols are in the test binary only"

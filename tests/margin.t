#!/bin/bash
# unique's distinguishability margin: a pass whose worst case lies inside the
# margin says why (the margin is required only where the exact rows are more
# than twice it apart); a pass outside it does not.
set -u
PECHECK=${PECHECK:-build/pecheck}
export PECHECK_REGRESSIONS=off
n=0
ok()  { echo "ok $((++n)) - $*"; }
nok() { echo "not ok $((++n)) - $*"; }
echo "1..2"
f16=$("$PECHECK" check --impl torch-exp --dtype f16 --property unique --quiet 2>&1 | grep '^PASS')
case $f16 in *"not required: the margin applies where the exact rows are more than twice it apart"*)
    ok "f16: the margin exceeds the distance and the summary says why it passes" ;;
    *) nok "f16 summary: $f16" ;; esac
f32=$("$PECHECK" check --impl torch-exp --property unique --quiet 2>&1 | grep '^PASS')
case $f32 in *"not required"*) nok "f32 summary: $f32" ;;
    *"(margin "*) ok "f32: the distance exceeds the margin, no note" ;;
    *) nok "f32 summary: $f32" ;; esac

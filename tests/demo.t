#!/bin/bash
# `pecheck demo` checks every built-in (`pecheck list`) with what `check`
# runs, each gets its documented verdict, and it writes no file.
set -u
PECHECK=${PECHECK:-build/pecheck}
case $PECHECK in /*) ;; *) PECHECK=$PWD/$PECHECK ;; esac
. "$(dirname "$0")/lib/tap.bash"
echo "1..4"
"$PECHECK" list | awk 'NR > 1 { print $1 }' | sort >"$tmp/list"
mkdir "$tmp/run"
(cd "$tmp/run" && unset PECHECK_REGRESSIONS && "$PECHECK" demo --max-pos 1023 >../out 2>../err); rc=$?
[ $rc -eq 0 ] && grep -q "every correct one passes and every known-bad one fails" "$tmp/out" \
    && ok "demo: exit 0, every built-in gets its documented verdict" || nok "demo: rc=$rc $(tail -3 "$tmp/err")"
awk '$3 == "PASS" || $3 == "FAIL" { print $1 }' "$tmp/out" | sort >"$tmp/demoed"
cmp -s "$tmp/list" "$tmp/demoed" && ok "demo covers every built-in ($(wc -l <"$tmp/list"))" \
    || nok "demo misses: $(comm -23 "$tmp/list" "$tmp/demoed" | tr '\n' ' ')"
bad=$(awk '($3 == "PASS") != ($4 == "correct") && ($3 == "PASS" || $3 == "FAIL")' "$tmp/out")
[ -z "$bad" ] && ok "each line's verdict is its documented one" || nok "mismatch: $bad"
left=$(ls -A "$tmp/run")
[ -z "$left" ] && ok "demo writes no file (no regression file)" || nok "demo left: $left"

#!/bin/sh
# diagnosis_audit.t: scripts/diagnosis_audit.py, the 43 realistic RoPE bugs
# (caches made as HF transformers makes them, plugins compiled here): every
# one fails, and the first likely cause the run prints is the right one for
# at least 40 of them (the goal; docs/diagnosis.md).  The figure and any
# bug whose headline is wrong are printed as TAP comments.  Without torch: a
# visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
"$PY" "$root/scripts/diagnosis_audit.py" --pecheck "$PECHECK" >"${TMPDIR:-/tmp}/pecheck-audit.$$" 2>&1
rc=$?
out="${TMPDIR:-/tmp}/pecheck-audit.$$"
line=$(tail -n 1 "$out")
grep -E 'WRONG|MISSED' "$out" | sed 's/^/# /'
echo "# $line"
caught=$(echo "$line" | sed -n 's/^caught \([0-9]*\)\/43, right cause first \([0-9]*\)\/43$/\1/p')
right=$(echo "$line" | sed -n 's/^caught \([0-9]*\)\/43, right cause first \([0-9]*\)\/43$/\2/p')
[ $rc -eq 0 ] && [ "${caught:-0}" -eq 43 ]
ok $? "every one of the 43 bugs fails (caught ${caught:-?}/43)" "$out"
[ $rc -eq 0 ] && [ "${right:-0}" -ge 40 ]
ok $? "the first likely cause is the right one for at least 40 of 43 (${right:-?})" "$out"
rm -f "$out"
echo "1..$n"
[ "$fails" -eq 0 ]

#!/bin/sh
# diagnosis_audit.t: scripts/diagnosis_audit.py, the 45 realistic RoPE bugs
# (caches made as HF transformers makes them, plugins compiled here): every
# one fails, and the first likely cause the run prints is the right one for
# at least all but 3 of them (the goal: 40 of 43; docs/diagnosis.md).  The figure and any
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
pat='^caught \([0-9]*\)\/\([0-9]*\), right cause first \([0-9]*\)\/[0-9]*$'
caught=$(echo "$line" | sed -n "s/$pat/\1/p")
total=$(echo "$line" | sed -n "s/$pat/\2/p")
right=$(echo "$line" | sed -n "s/$pat/\3/p")
[ $rc -eq 0 ] && [ "${total:-0}" -ge 43 ] && [ "${caught:-0}" -eq "${total:-0}" ]
ok $? "every one of the ${total:-?} bugs fails (caught ${caught:-?})" "$out"
[ $rc -eq 0 ] && [ "${right:-0}" -ge $(( ${total:-0} - 3 )) ]
ok $? "the first likely cause is the right one for all but at most 3 of ${total:-?} (${right:-?})" "$out"
rm -f "$out"
echo "1..$n"
[ "$fails" -eq 0 ]

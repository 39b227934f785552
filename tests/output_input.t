#!/bin/bash
# --output / --out naming one of the run's inputs (directly or through a
# symlink) is refused with exit 2, and the input is left as it was.
set -u
PECHECK=${PECHECK:-build/pecheck}
export PECHECK_REGRESSIONS=off
. "$(dirname "$0")/lib/tap.bash"
echo "1..4"
"$PECHECK" reference --family sinusoidal --d 8 --positions 0:15 --out "$tmp/pe.npy" --quiet 2>/dev/null
cp "$tmp/pe.npy" "$tmp/orig.npy"
ln -s "$tmp/pe.npy" "$tmp/link.npy"
for out in "$tmp/pe.npy" "$tmp/link.npy"; do
    "$PECHECK" check --table "$tmp/pe.npy" --family sinusoidal --format json --output "$out" >/dev/null 2>"$tmp/err"; rc=$?
    [ $rc -eq 2 ] && grep -q "refusing to overwrite" "$tmp/err" && cmp -s "$tmp/pe.npy" "$tmp/orig.npy" \
        && ok "check --output $(basename "$out") onto its --table: exit 2, the table kept" \
        || nok "check --output $(basename "$out"): rc=$rc $(cat "$tmp/err")"
done
"$PECHECK" accuracy --impl torch-exp --d 8 --max-pos 15 --shard 1/1 --format json --output "$tmp/s.json" 2>/dev/null
cp "$tmp/s.json" "$tmp/s.orig"
"$PECHECK" merge --output "$tmp/s.json" "$tmp/s.json" >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && cmp -s "$tmp/s.json" "$tmp/s.orig" && ok "merge --output onto a shard: exit 2, the shard kept" \
    || nok "merge: rc=$rc $(cat "$tmp/err")"
"$PECHECK" check --table "$tmp/pe.npy" --family sinusoidal --format json --output "$tmp/new.json" >/dev/null 2>&1; rc=$?
[ $rc -le 1 ] && [ -s "$tmp/new.json" ] && ok "a different --output is written" || nok "new output: rc=$rc"

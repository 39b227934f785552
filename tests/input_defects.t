#!/bin/bash
# Small input defects: a one-row table at position 0 is checked (not "no
# range"); --pos-start accepts a table whose last row is exactly 2^53 and
# refuses one row more; `check --table /dev/zero` is an input error at once
# (bad magic), not a read until memory runs out; the rotate-recurrence
# built-in and `check --impl all` at position 2^53 end (a row costs at most
# 2^16 recurrence steps); a FIFO that no process opens for writing, given
# as a table or a shard, is exit 2 after a bounded wait (harness/io/input.h),
# not a hang in open(), while a FIFO whose writer comes a moment after
# pecheck, or whose writer is slower than that wait to write, and a pipe
# (bash's <(...)) are read as tables.  The `timeout`s below only turn a hang into
# a failure; they are far above the time these take.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
P53=9007199254740992
q="--quiet --regressions off"

echo "1..14"
"$PECHECK" reference --family sinusoidal --d 8 --positions 0:0 --out "$tmp/one.npy" 2>/dev/null
"$PECHECK" check --table "$tmp/one.npy" $q >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 0 ] && ok "a one-row table at position 0 passes" || nok "one-row table: rc=$rc $(grep -v '^ ' "$tmp/out" | head -12)"
grep -q "^SKIP .*extrapolation.*serves positions 0..0 only" "$tmp/out" \
    && ok "its extrapolation is skipped: the rows 0..0 are a range, not 'unlimited'" \
    || nok "extrapolation: $(grep extrapolation "$tmp/out" | head -2)"

"$PECHECK" reference --family sinusoidal --d 8 --positions 0:3 --out "$tmp/four.npy" 2>/dev/null
"$PECHECK" check --table "$tmp/four.npy" --pos-start $((P53 - 3)) $q >"$tmp/out" 2>&1; rc=$?
[ $rc -le 1 ] && grep -q "positions $((P53 - 3))..$P53" "$tmp/out" \
    && ok "--pos-start 2^53-3 with 4 rows (last row exactly 2^53) is accepted" \
    || nok "pos-start 2^53-3: rc=$rc $(head -3 "$tmp/out")"
"$PECHECK" check --table "$tmp/four.npy" --pos-start $((P53 - 2)) $q >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "2^53" "$tmp/err" && ok "--pos-start 2^53-2 with 4 rows is refused (exit 2)" \
    || nok "pos-start 2^53-2: rc=$rc $(cat "$tmp/err")"

timeout 60 "$PECHECK" check --table /dev/zero $q >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "not a .npy file" "$tmp/err" && [ ! -s "$tmp/out" ] \
    && ok "check --table /dev/zero: exit 2, not a .npy file" || nok "/dev/zero: rc=$rc $(cat "$tmp/err")"
timeout 60 "$PECHECK" accuracy --table /dev/urandom --d 8 $q >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && ok "accuracy --table /dev/urandom: exit 2" || nok "/dev/urandom: rc=$rc $(cat "$tmp/err")"

timeout 300 "$PECHECK" check --impl rotate-recurrence --positions $P53:$P53 $q >"$tmp/out" 2>&1; rc=$?
[ $rc -ne 124 ] && [ $rc -le 1 ] && ok "rotate-recurrence at position 2^53 ends (exit $rc)" \
    || nok "rotate-recurrence 2^53: rc=$rc $(tail -2 "$tmp/out")"
timeout 300 "$PECHECK" check --impl all --positions $P53:$P53 --cases 10 $q >"$tmp/out" 2>&1; rc=$?
[ $rc -ne 124 ] && [ $rc -le 1 ] && ok "check --impl all at position 2^53 ends (exit $rc)" \
    || nok "all 2^53: rc=$rc $(tail -2 "$tmp/out")"
# past the period the recurrence restarts from its anchor: still a (failing) verdict, no hang
timeout 300 "$PECHECK" accuracy --impl rotate-recurrence --positions 65000:70000 --quiet >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 1 ] && grep -q "^FAIL" "$tmp/out" && ok "rotate-recurrence across the 2^16 anchor still fails the gate" \
    || nok "rotate-recurrence 65000:70000: rc=$rc $(head -2 "$tmp/out")"

mkfifo "$tmp/fifo"
timeout 120 "$PECHECK" check --table "$tmp/fifo" $q >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "fifo: a FIFO that no process opened for writing" "$tmp/err" && [ ! -s "$tmp/out" ] \
    && ok "check --table on a FIFO with no writer: exit 2 naming it, no output" \
    || nok "FIFO table: rc=$rc $(cat "$tmp/err")"
timeout 120 "$PECHECK" merge "$tmp/fifo" >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "fifo: a FIFO that no process opened for writing" "$tmp/err" \
    && ok "merge of a FIFO with no writer: exit 2" || nok "FIFO shard: rc=$rc $(cat "$tmp/err")"
# the writer opens its end a second after pecheck started (pecheck is then
# waiting in open(), or, on a busy machine, the writer waits for it: both
# orders must work); every writer gives up after 60 s, so no test can hang
( sleep 1; timeout 60 bash -c 'cat "$1" >"$2"' _ "$tmp/one.npy" "$tmp/fifo" ) &
timeout 120 "$PECHECK" check --table "$tmp/fifo" $q >"$tmp/out" 2>&1; rc=$?
wait
[ $rc -eq 0 ] && ok "a FIFO whose writer comes a second after pecheck started is read as a table" \
    || nok "FIFO with a late writer: rc=$rc $(head -3 "$tmp/out")"
# a writer that opens the FIFO at once but writes only after the 5 s wait
timeout 60 bash -c 'exec 3>"$2"; sleep 6; cat "$1" >&3' _ "$tmp/one.npy" "$tmp/fifo" &
timeout 120 "$PECHECK" check --table "$tmp/fifo" $q >"$tmp/out" 2>&1; rc=$?
wait
[ $rc -eq 0 ] && ok "a FIFO whose writer takes longer than the wait to write is read" \
    || nok "FIFO with a slow writer: rc=$rc $(head -3 "$tmp/out")"
timeout 120 "$PECHECK" check --table <(cat "$tmp/one.npy") $q >"$tmp/out" 2>&1; rc=$?
[ $rc -eq 0 ] && ok "a pipe (<(...)) is read as a table" || nok "pipe: rc=$rc $(head -3 "$tmp/out")"

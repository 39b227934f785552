#!/bin/bash
# The regression file through `pecheck check`: concurrent runs append whole
# lines under a lock (one header, no broken or duplicate line); a damaged
# file (NUL byte, bad line, unfinished last line) is reported and kept byte
# for byte, the new case appended after it; a file over the size limit is
# reported and left as it is.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
# a small failing run: cos-shifted breaks linear-shift at once
run() { "$PECHECK" check --impl cos-shifted --d 16 --positions 0:255 --property linear-shift --cases 20 "$@"; }

echo "1..6"

# 10 runs at once, each with its own seed, on one file
reg=$tmp/conc
for s in 1 2 3 4 5 6 7 8 9 10; do run --seed $s --regressions "$reg" >"$tmp/out$s" 2>&1 & done
wait
bad=$(grep -cvE '^(#.*|property=linear-shift family=sinusoidal seed=0x[0-9a-f]{16} d=16 positions=0:255 options=--base%2010000%20--layout%20interleaved impl=cos-shifted)$' "$reg")
heads=$(grep -c '^# pecheck regressions' "$reg")
dups=$(sort "$reg" | uniq -d | wc -l)
cases=$(grep -c '^property=' "$reg")
saved=$(grep -l "case saved to" "$tmp"/out* | wc -l)
[ "$bad" -eq 0 ] && [ "$heads" -eq 1 ] && [ "$dups" -eq 0 ] && [ "$cases" -ge 1 ] && [ "$(tail -c1 "$reg" | od -An -c | tr -d ' ')" = '\n' ] \
    && ok "10 concurrent runs: $cases whole lines, one header, no duplicate ($saved runs saved a case)" \
    || nok "concurrent runs: bad=$bad heads=$heads dups=$dups cases=$cases: $(cat "$reg")"
# every run that reported a saved case finds it in the file
missing=0
for f in "$tmp"/out*; do
    s=$(grep -o 'seed: 0x[0-9a-f]*' "$f" | head -1 | cut -c7-)
    grep -q "case saved to" "$f" && ! grep -q "seed=$s " "$reg" && missing=$((missing + 1))
done
[ "$missing" -eq 0 ] && ok "no saved case is lost" || nok "$missing saved cases are not in the file"

# a damaged file: kept byte for byte, reported, appended to
reg=$tmp/damaged
printf '# mine\nproperty=linear-shift family=sinusoidal seed=0x1 impl=\0cos-shifted\ngarbage\nproperty=linear-shift family=sinus' >"$reg"
cp "$reg" "$tmp/before"
run --regressions "$reg" >"$tmp/o" 2>&1
rc=$?
size=$(stat -c %s "$tmp/before")
[ $rc -eq 1 ] && cmp -s -n "$size" "$reg" "$tmp/before" && [ "$(stat -c %s "$reg")" -gt "$size" ] \
    && grep -q '^property=linear-shift family=sinusoidal seed=0x[0-9a-f]* d=16' "$reg" \
    && ok "a file with a NUL byte, a bad line and an unfinished line is kept and appended to" \
    || nok "damaged file: rc=$rc, $(od -c "$reg" | head)"
grep -q "regression file $reg: 3 bad lines skipped (first: line 2, a NUL byte); left as it is" "$tmp/o" \
    && ok "the bad lines are reported" || nok "no report: $(grep -i regression "$tmp/o")"

# over the size limit (a sparse file): reported, not touched
reg=$tmp/huge
printf '# big\n' >"$reg" && truncate -s 67108865 "$reg"
run --regressions "$reg" >"$tmp/o" 2>&1
[ "$(stat -c %s "$reg")" -eq 67108865 ] && [ "$(head -c 6 "$reg")" = "# big" ] \
    && ok "a file over 64 MiB is left as it is" || nok "huge file changed: $(stat -c %s "$reg")"
grep -q "regression file $reg is 67108865 bytes, over the limit" "$tmp/o" && grep -q "could not save the case" "$tmp/o" \
    && ok "and reported, the case not saved" || nok "huge file not reported: $(grep -i regression "$tmp/o")"

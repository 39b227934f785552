#!/bin/bash
# Outputs lose nothing: --output through a symlink writes its target and
# keeps the link; a device or FIFO is written in place, never replaced; a
# 0600 file stays 0600; a write error (/dev/full, EFBIG on a file) is exit 3
# with a message, the old file kept, no temporary left,
# in every command, stdout included; SIGTERM during `report` leaves no
# DIR.tmp.PID folder (SIGINT: tests/output_test.c).
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
acc() { "$PECHECK" accuracy --impl torch-exp --max-pos 10 --quiet "$@"; }

echo "1..20"

# a symlink is written through; the link stays a link
echo old >"$tmp/target.json"; chmod 600 "$tmp/target.json"
ln -s target.json "$tmp/link.json"
acc --format json --output "$tmp/link.json"; rc=$?
if [ $rc -eq 0 ] && [ -L "$tmp/link.json" ] && grep -q '"status"' "$tmp/target.json"; then
    ok "--output onto a symlink writes its target, the link stays"
else nok "symlink output: rc=$rc $(ls -la "$tmp")"; fi
[ "$(stat -c %a "$tmp/target.json")" = 600 ] && ok "the 0600 target stays 0600" \
    || nok "mode became $(stat -c %a "$tmp/target.json")"

# a dangling symlink: the target is created, the link kept
mkdir "$tmp/sub"; ln -s sub/new.json "$tmp/dangling.json"
acc --output "$tmp/dangling.json"; rc=$?
[ $rc -eq 0 ] && [ -L "$tmp/dangling.json" ] && [ -s "$tmp/sub/new.json" ] \
    && ok "a dangling symlink: its target is created, the link kept" || nok "dangling: rc=$rc"

# a chain of two links
ln -s dangling.json "$tmp/chain.json"; rm -f "$tmp/sub/new.json"
acc --output "$tmp/chain.json"; rc=$?
[ $rc -eq 0 ] && [ -L "$tmp/chain.json" ] && [ -L "$tmp/dangling.json" ] && [ -s "$tmp/sub/new.json" ] \
    && ok "a chain of links is followed to its end" || nok "chain: rc=$rc"

# a loop of links is refused
ln -s loop2 "$tmp/loop1"; ln -s loop1 "$tmp/loop2"
acc --output "$tmp/loop1" 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "symbolic links" "$tmp/err" && ok "a loop of symlinks is exit 2 with a message" \
    || nok "loop: rc=$rc $(cat "$tmp/err")"

# a regular file: replaced, mode kept, no temporary left
echo old >"$tmp/plain.json"; chmod 640 "$tmp/plain.json"
acc --output "$tmp/plain.json"; rc=$?
[ $rc -eq 0 ] && [ "$(stat -c %a "$tmp/plain.json")" = 640 ] && grep -q PASS "$tmp/plain.json" \
    && ok "a regular file is replaced keeping mode 640" || nok "plain: rc=$rc $(stat -c %a "$tmp/plain.json")"
ls "$tmp" "$tmp/sub" | grep -q '\.tmp\.' && nok "a temporary was left: $(ls "$tmp")" || ok "no *.tmp.PID left"

# a FIFO is written directly, never replaced by a file
mkfifo "$tmp/fifo"
cat "$tmp/fifo" >"$tmp/fifo.out" & reader=$!
acc --output "$tmp/fifo"; rc=$?
wait $reader
[ $rc -eq 0 ] && [ -p "$tmp/fifo" ] && grep -q PASS "$tmp/fifo.out" \
    && ok "a FIFO is written in place and stays a FIFO" || nok "fifo: rc=$rc $(ls -la "$tmp/fifo")"

# /dev/null stays a character device (written directly, not renamed over:
# the check works even as root, who could replace it)
acc --output /dev/null; rc=$?
[ $rc -eq 0 ] && [ -c /dev/null ] && ok "--output /dev/null: exit 0, /dev/null still a device" \
    || nok "/dev/null: rc=$rc"

# write errors are exit 3 with a message, in every command
full() {
    local what=$1; shift
    "$PECHECK" "$@" >/dev/full 2>"$tmp/err"; local rc=$?
    if [ $rc -eq 3 ] && grep -q "No space left" "$tmp/err" && [ "$(wc -l <"$tmp/err")" -eq 1 ]; then
        ok "$what: exit 3, one line naming the error"
    else nok "$what: rc=$rc stderr: $(cat "$tmp/err")"; fi
}
if [ -w /dev/full ]; then
    full "list > /dev/full" list
    full "accuracy --format json > /dev/full" accuracy --impl torch-exp --max-pos 10 --quiet --format json
    full "check --format tap > /dev/full" check --impl torch-exp --family sinusoidal --max-pos 10 --cases 5 --quiet --format tap
    full "explain > /dev/full" explain
    full "help > /dev/full" help
    full "accuracy --output /dev/full" accuracy --impl torch-exp --max-pos 10 --quiet --output /dev/full
    full "reference --out /dev/full" reference --family sinusoidal --d 8 --positions 0:3 --out /dev/full
else
    for k in 1 2 3 4 5 6 7; do ok "# SKIP no /dev/full"; done
fi

# a write error on a regular file (the file size limit, with SIGXFSZ ignored:
# write() fails with EFBIG, as on a full disk): exit 3, the old file kept, no
# temporary left
limited() { (trap '' XFSZ; ulimit -f 1; exec "$PECHECK" "$@"); }
echo "old result" >"$tmp/kept.json"
limited accuracy --impl torch-exp --max-pos 10 --quiet --format json --output "$tmp/kept.json" 2>"$tmp/err"; rc=$?
if [ $rc -eq 3 ] && [ "$(cat "$tmp/kept.json")" = "old result" ] && grep -q "write failed" "$tmp/err" \
   && ! ls "$tmp" | grep -q '\.tmp\.'; then
    ok "write error on --output FILE: exit 3, the old file kept, no temporary"
else nok "EFBIG --output: rc=$rc $(cat "$tmp/err") $(ls "$tmp")"; fi
limited reference --family sinusoidal --d 64 --positions 0:63 --out "$tmp/big.npy" 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && [ ! -e "$tmp/big.npy" ] && ! ls "$tmp" | grep -q 'big.npy.tmp' \
    && ok "write error on reference --out: exit 3, no file, no temporary" || nok "EFBIG reference: rc=$rc $(cat "$tmp/err")"
limited report --impl torch-exp --out "$tmp/limrep" --quiet >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 3 ] && [ ! -e "$tmp/limrep" ] && ! ls "$tmp" | grep -q 'limrep.tmp' \
    && ok "write error in report: exit 3, no report folder left" || nok "EFBIG report: rc=$rc $(cat "$tmp/err") $(ls "$tmp")"

# SIGTERM while a report is built: the DIR.tmp.PID folder is removed (SIGTERM:
# a background job of a script ignores SIGINT; tests/output_test.c sends SIGINT)
if command -v gnuplot >/dev/null; then
    "$PECHECK" report --impl all --out "$tmp/rep" --quiet >/dev/null 2>&1 & pid=$!
    for ((i = 0; i < 600; i++)); do [ -d "$tmp/rep.tmp.$pid" ] && break; sleep 0.1; done
    seen=0; [ -d "$tmp/rep.tmp.$pid" ] && seen=1
    kill -TERM $pid; wait $pid; rc=$?
    if [ $seen -eq 1 ] && [ $rc -eq 143 ] && [ ! -e "$tmp/rep.tmp.$pid" ] && [ ! -e "$tmp/rep" ]; then
        ok "SIGTERM during report: died of SIGTERM, rep.tmp.PID removed, no rep"
    else nok "report SIGTERM: seen=$seen rc=$rc $(ls "$tmp")"; fi
else
    ok "# SKIP gnuplot not installed"
fi

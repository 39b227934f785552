#!/bin/sh
# served.t: `pecheck check --serve W,R` gates a RoPE rotation answered by
# the process that started pecheck (harness/sandbox/served.h; the protocol:
# docs/python.md "The served kernel's protocol"), driven here by
# tests/lib/served_server.py (NumPy):
#   1. a correct rotation passes the accuracy gate, the passthrough check
#      and the RoPE properties, in f32, bf16 and f16 (--serve-dtype: that
#      dtype's verdicts only), full and partial rotary, one target or two
#      (--serve-targets q,k: each gated, each named); it is called at the
#      positions asked (--max-pos): extrapolation skips, saying so;
#   2. the certified cos and sin a request carries (--serve-cos-sin) are
#      within half an ulp of binary32 (2^-25 for |v| < 1) of float64's;
#   3. a rotation with swapped pairs, the wrong direction, positions off
#      by one or no rotation at all fails with that cause first; one that
#      writes the padding
#      between the views fails passthrough;
#   4. a kernel that refuses every call checks nothing: exit 2;
#   5. a channel that breaks (EOF, a reply cut short, another magic number,
#      a tensor of another size) is no verdict: exit 2 naming it;
#   6. bad options: fds that are not open, repeated target names, a dtype
#      the kernel ABI has not: exit 2 naming the option.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
if ! "$PY" -c 'import numpy' >/dev/null 2>&1; then
    echo "1..0 # SKIP NumPy not available to $PY"; exit 0
fi
tap_tmp served
O="--d 64 --max-pos 1023 --layout half --base 10000 --regressions off"
serve() { # serve MODE NAME OPTIONS...: the server's line in $tmp/NAME.rc, pecheck's output in $tmp/NAME.out
    m=$1; name=$2; shift 2
    "$PY" "$root/tests/lib/served_server.py" "$PECHECK" "$m" "$tmp/$name.out" "$@" \
        >"$tmp/$name.rc" 2>"$tmp/$name.err"
}
rc_of() { sed -n 's/^rc \([0-9]*\) .*/\1/p' "$tmp/$1.rc"; }

# 1. correct rotations
serve ok f32 $O
[ "$(rc_of f32)" = 0 ] && grep -q '^PASS  rotation rope accuracy \[half, f32\]' "$tmp/f32.out" \
    && grep -q '^PASS  rotation rope passthrough \[half, f32\]' "$tmp/f32.out" \
    && [ "$(grep -c '^PASS  rotation rope \(rope-relative\|rope-norm\|decay\|unique\)' "$tmp/f32.out")" = 4 ] \
    && grep -q '^SKIP  rotation rope extrapolation.*serves positions 0..1023 only' "$tmp/f32.out"
ok $? "f32: accuracy, passthrough and 4 properties pass; extrapolation skips (positions 0..1023 asked)" "$tmp/f32.out"
for dt in bf16 f16; do
    serve ok "$dt" $O --serve-dtype "$dt" --dtype "$dt"
    [ "$(rc_of "$dt")" = 0 ] && grep -q "^PASS  rotation rope accuracy \[half, $dt\]" "$tmp/$dt.out" \
        && ! grep -q 'accuracy \[half, \(f32\|f16\|bf16\)\]' "$tmp/$dt.out" | grep -v "$dt" \
        && [ "$(grep -c '^[A-Z]*  rotation rope accuracy' "$tmp/$dt.out")" = 1 ]
    ok $? "$dt: one accuracy verdict, in $dt, passes" "$tmp/$dt.out"
done
serve ok partial --d 64 --rotary-dim 16 --max-pos 1023 --layout interleaved --base 10000 --regressions off
[ "$(rc_of partial)" = 0 ] && grep -q 'head dim 64, rotary dim 16' "$tmp/partial.out" \
    && grep -q '^PASS  rotation rope passthrough \[interleaved, f32\]' "$tmp/partial.out"
ok $? "partial rotary (16 of 64, interleaved): passes, pass-through dims bit for bit" "$tmp/partial.out"
serve ok qk $O --serve-targets q,k
[ "$(rc_of qk)" = 0 ] && grep -q '^PASS  q rope accuracy' "$tmp/qk.out" && grep -q '^PASS  k rope accuracy' "$tmp/qk.out"
ok $? "--serve-targets q,k: q and k each gated and named" "$tmp/qk.out"

# 2. the certified cos and sin
# ($O with --max-pos 40000: an option holding one value is given once)
serve ok cs --d 64 --max-pos 40000 --layout half --base 10000 --regressions off --serve-cos-sin
e=$(sed -n 's/.*cos-sin-err \(.*\)$/\1/p' "$tmp/cs.rc")
[ "$(rc_of cs)" = 0 ] && awk -v e="$e" 'BEGIN { exit !(e > 0 && e <= 2.9802322387695312e-08 * 1.0001) }'
ok $? "--serve-cos-sin: cos, sin within 2^-25 of float64's at positions to 40000 (got $e)" "$tmp/cs.rc"

# 3. bugs, each with its cause first
cause() { grep -m1 'likely cause' "$tmp/$1.out"; }
serve pair pair $O
[ "$(rc_of pair)" = 1 ] && cause pair | grep -q 'layouts are swapped'
ok $? "pairs of the other layout: exit 1, cause 'layouts are swapped'" "$tmp/pair.out"
serve dir dir $O
[ "$(rc_of dir)" = 1 ] && cause dir | grep -q 'turns the wrong way'
ok $? "rotation by -theta: exit 1, cause 'turns the wrong way'" "$tmp/dir.out"
serve off1 off1 $O
[ "$(rc_of off1)" = 1 ] && cause off1 | grep -q 'off by +1'
ok $? "positions + 1: exit 1, cause 'off by +1'" "$tmp/off1.out"
serve still still $O
[ "$(rc_of still)" = 1 ] && cause still | grep -q 'does not rotate these dims'
ok $? "no rotation: exit 1, cause 'does not rotate these dims'" "$tmp/still.out"
serve pad pad $O
[ "$(rc_of pad)" = 1 ] && grep -q '^FAIL  rotation rope passthrough' "$tmp/pad.out" \
    && grep -q '^PASS  rotation rope accuracy' "$tmp/pad.out"
ok $? "writes between the views: passthrough fails, accuracy passes" "$tmp/pad.out"

# 4. nothing checked
serve refuse refuse $O
[ "$(rc_of refuse)" = 2 ] && grep -q 'nothing checked' "$tmp/refuse.out"
ok $? "a kernel that refuses every call: exit 2, nothing checked" "$tmp/refuse.out"

# 5. a broken channel is no verdict
for m in eof:'end of file' short:'cut short' magic:'magic number' size:'another size'; do
    mode=${m%%:*}; words=${m#*:}
    serve "$mode" "$mode" $O
    [ "$(rc_of "$mode")" = 2 ] && grep -q "channel broke: .*$words" "$tmp/$mode.out" \
        && ! grep -q '^\(PASS\|FAIL\) ' "$tmp/$mode.out"
    ok $? "channel $mode: exit 2 naming '$words', no verdict lines" "$tmp/$mode.out"
done

# 6. bad options
"$PECHECK" check --family rope $O --serve 97,98 >"$tmp/fd.out" 2>&1
[ $? -eq 2 ] && grep -q -- '--serve 97,98: not an open file descriptor pair' "$tmp/fd.out"
ok $? "--serve with fds not open: exit 2 naming it" "$tmp/fd.out"
"$PECHECK" check --family rope $O --serve 0,1 --serve-targets q,q </dev/null >"$tmp/tg.out" 2>&1
[ $? -eq 2 ] && grep -q -- "--serve-targets 'q,q'" "$tmp/tg.out"
ok $? "--serve-targets q,q: exit 2 naming it" "$tmp/tg.out"
"$PECHECK" check --family rope $O --serve 0,1 --serve-dtype f64 </dev/null >"$tmp/dt.out" 2>&1
[ $? -eq 2 ] && grep -q -- "--serve-dtype: expected f32, f16 or bf16, got 'f64'" "$tmp/dt.out"
ok $? "--serve-dtype f64: exit 2 naming it" "$tmp/dt.out"
"$PECHECK" check --family rope $O --serve 3 >"$tmp/sv.out" 2>&1
[ $? -eq 2 ] && grep -q -- "--serve: expected W,R" "$tmp/sv.out"
ok $? "--serve 3: exit 2, expected W,R" "$tmp/sv.out"

echo "1..$n"
[ "$fails" -eq 0 ]

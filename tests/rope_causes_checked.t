#!/bin/sh
# rope_causes_checked.t: causes said only once checked against the rows
# (docs/diagnosis.md), on caches built here (tests/lib/causes_more_caches.py).
#
# A cache whose columns are not the config's rotary dim fails (exit 1)
# naming what the columns hold when the rows show it, and is refused
# (exit 2) with the plain rotary-dim message otherwise
# (families/rope/slice_cause.c):
#   - GPT-NeoX-20B (24 of 96 dims rotate) with the default schedule over
#     the whole 96-dim head: the whole head and the ignored rotary dim
#     named, with the share of values the 96-dim schedule reproduces, and
#     no property run (they need the rotary dim's schedule); under --shard
#     the same text is a refusal (exit 2), as before;
#   - the same 96 columns at another base (no schedule of the config):
#     the plain rotary-dim message, no cause;
#   - the correct 24-dim cache passes, with no refusal.
# The 24 rotary dims followed by 72 columns of cos 1, sin 0 (the head's
# non-rotary dims stored as identity), 96 columns read as d = 192, built
# here with numpy: check fails (exit 1) naming the 96 columns, the identity
# columns and the slice to check with --rotary-dim 24, with or without that
# option (it was refused with "d = 192"); the slice it names passes with
# that option; identify refuses it (exit 2) naming the slice to identify,
# which it finds.
# Dynamic NTK with HunYuan's alpha (base' = base alpha^(d/(d-2)),
# families/rope/likely.c alpha_cause), a dense config of head 64, alpha 50:
#   - the cache of rope_theta alone: "alpha is ignored" first, and the
#     gate passes with the base it names (--base 10000, no scaling);
#   - base x alpha, no exponent: "without its exponent" first, with base
#     500000, which passes the gate as --base;
#   - the correct cache passes, no cause.
# Without torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp causeschecked

GEN=$root/tests/lib/causes_more_caches.py
run() { # run VARIANT: the cache built and checked; rc in $tmp/VARIANT/rc
    v=$1; shift
    "$PY" "$GEN" "$v" "$tmp/$v" >"$tmp/$v.gen" 2>&1 || { echo 99 >"$tmp/$v.rc"; return; }
    (cd "$tmp/$v" && PECHECK_REGRESSIONS=off "$PECHECK" check --table cos.npy --table-sin sin.npy \
        --hf-config config.json --threads 2 "$@" >out.txt 2>err.txt; echo $? >rc)
}
rc_is() { [ "$(cat "$tmp/$1/rc" 2>/dev/null)" = "$2" ]; }

run ok_neox
rc_is ok_neox 0 && [ ! -s "$tmp/ok_neox/err.txt" ]
ok $? "ok_neox: the 24-dim rotary cache passes" "$tmp/ok_neox/out.txt"

run head_neox
f=$tmp/head_neox/out.txt
grep -m1 '^    likely cause' "$f" >"$tmp/head_neox/first" 2>/dev/null
rc_is head_neox 1 && [ ! -s "$tmp/head_neox/err.txt" ] \
    && grep -qF "the rotary dim is 24 (partial rotary) but the cache has 96 columns" "$tmp/head_neox/first" \
    && grep -qF "schedule computed over 96 dims (pairs 0..47; 100.0% of the values of 256 rows)" "$tmp/head_neox/first" \
    && grep -qF "built over the whole head (head_dim 96), the rotary dim ignored" "$tmp/head_neox/first" \
    && grep -q "^FAIL .* rope accuracy: error: the cache's 96 columns are not the config's rotary dim" "$f" \
    && grep -q "^3 checks: 2 passed, 1 failed" "$f"
ok $? "head_neox: fails naming the whole head's schedule, 100% reproduced; no property run" "$f"
(cd "$tmp/head_neox" && PECHECK_REGRESSIONS=off "$PECHECK" check --table cos.npy --table-sin sin.npy \
    --hf-config config.json --threads 2 --shard 1/2 >shard.out 2>shard.err; echo $? >shard.rc)
[ "$(cat "$tmp/head_neox/shard.rc")" = 2 ] && grep -qF "built over the whole head (head_dim 96)" "$tmp/head_neox/shard.err"
ok $? "head_neox --shard 1/2: refused (exit 2) with the same cause" "$tmp/head_neox/shard.err"

run head_neox_base
e=$tmp/head_neox_base/err.txt
rc_is head_neox_base 2 && grep -qF "the rotary dim is 24 (partial rotary) but the cache or --d has d = 96" "$e" \
    && ! grep -q "whole head\|computed over" "$e"
ok $? "head_neox_base: 96 columns of another base: the plain message, no cause claimed" "$e"

run alpha_ok
rc_is alpha_ok 0 && ! grep -q "likely cause" "$tmp/alpha_ok/out.txt"
ok $? "alpha_ok: HunYuan-style alpha 50 at head 64 passes, no cause" "$tmp/alpha_ok/out.txt"
# base B: the named base passes the gate on its own (--base B, the plain schedule)
base_passes() {
    (cd "$tmp/$1" && PECHECK_REGRESSIONS=off "$PECHECK" check --table cos.npy --table-sin sin.npy \
        --base "$2" --property accuracy --threads 2 >"base.txt" 2>&1)
}
run alpha_ignored
f=$tmp/alpha_ignored/out.txt
rc_is alpha_ignored 1 && grep -m1 "^    likely cause" "$f" | grep -qF "likely cause: alpha is ignored: the cache is rope_theta's own schedule, base 10000, not dynamic NTK alpha 50's base' = base x alpha^(d/(d-2)) = 10000 x 50^(64/62) = 567251.285" \
    && base_passes alpha_ignored 10000
ok $? "alpha_ignored: alpha ignored named first, and base 10000 passes the gate" "$f"
run alpha_noexp
f=$tmp/alpha_noexp/out.txt
rc_is alpha_noexp 1 && grep -m1 "^    likely cause" "$f" | grep -qF "likely cause: alpha is applied without its exponent d/(d-2): the cache's base is base x alpha = 500000, not base x alpha^(64/62) = 567251.285" \
    && base_passes alpha_noexp 500000 && ! grep -q "alpha is ignored" "$f"
ok $? "alpha_noexp: alpha without its exponent named first (base 500000, which passes), not 'ignored'" "$f"

# identity columns after the rotary ones: the brief's GPT-NeoX head (24 of 96)
mkdir "$tmp/ident"
"$PY" - "$tmp/ident" <<'PY'
import sys
import numpy as np
out, n, rd = sys.argv[1], 512, 24  # more rows than the cause reads (256)
inv = 1.0 / 10000 ** (np.arange(0, rd, 2) / rd)
emb = np.concatenate([np.outer(np.arange(n), inv)] * 2, axis=1)  # cat(freqs, freqs)
cos = np.concatenate([np.cos(emb), np.ones((n, 96 - rd))], axis=1).astype(np.float32)
sin = np.concatenate([np.sin(emb), np.zeros((n, 96 - rd))], axis=1).astype(np.float32)
np.save(out + "/cos.npy", cos); np.save(out + "/sin.npy", sin)
np.save(out + "/cos24.npy", cos[:, :rd]); np.save(out + "/sin24.npy", sin[:, :rd])
PY
ident() { # ident NAME ARGS...: pecheck ARGS in $tmp/ident, output in NAME.out, exit status in NAME.rc
    v=$1; shift
    (cd "$tmp/ident" && PECHECK_REGRESSIONS=off "$PECHECK" "$@" >"$v.out" 2>&1; echo $? >"$v.rc")
}
ident_said() { # ident_said FILE: the identity columns and the slice named
    grep -qF "the cache has 96 columns (read as d = 192, one column a pair), and columns 24..95 are cos 1 and sin 0 at every row read (the first 256 of 512 rows, from position 0)" "$1" \
        && grep -qF "its rotary part is columns 0..23, a rotary dim of 24" "$1"
}
for opt in "" "--rotary-dim 24"; do
    ident plain check --family rope --table cos.npy --table-sin sin.npy --base 10000 --threads 2 $opt
    f=$tmp/ident/plain.out
    [ "$(cat "$tmp/ident/plain.rc")" = 1 ] && ident_said "$f" \
        && grep -q "^FAIL .* rope accuracy: error: the cache's 96 columns are not" "$f" \
        && grep -qF "check cos[:, :24] and sin[:, :24] with --rotary-dim 24" "$f" \
        && grep -q "^3 checks: 2 passed, 1 failed" "$f"
    ok $? "identity columns${opt:+ under $opt}: fails naming the 96 columns and --rotary-dim 24" "$f"
done
ident slice check --family rope --table cos24.npy --table-sin sin24.npy --base 10000 --rotary-dim 24 --threads 2
[ "$(cat "$tmp/ident/slice.rc")" = 0 ] && grep -q "^PASS .* rope accuracy" "$tmp/ident/slice.out"
ok $? "identity columns: the slice named, cos[:, :24] with --rotary-dim 24, passes" "$tmp/ident/slice.out"
ident id identify --table cos.npy --table-sin sin.npy
f=$tmp/ident/id.out
[ "$(cat "$tmp/ident/id.rc")" = 2 ] && [ "$(wc -l <"$f")" -eq 1 ] && ident_said "$f" \
    && grep -qF "identify cos[:, :24] and sin[:, :24]" "$f"
ok $? "identity columns: identify refuses (exit 2) naming the slice to identify" "$f"
ident id24 identify --table cos24.npy --table-sin sin24.npy
[ "$(cat "$tmp/ident/id24.rc")" = 0 ] && grep -q "^FOUND .* d 24" "$tmp/ident/id24.out"
ok $? "identity columns: identify finds the slice's schedule" "$tmp/ident/id24.out"

echo "1..$n"
[ "$fails" -eq 0 ]

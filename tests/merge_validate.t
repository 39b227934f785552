#!/bin/bash
# `pecheck merge` validates every shard before merging: status consistent
# with the counts, integers in range, numbers finite, witnesses that agree
# with their elements, the maxima and the status, one implementation and one
# set of parameters, and it names a missing shard.  Each forged shard is
# exit 2 with one stderr line naming the shard file and the field.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"

# forge IN OUT PYTHON: OUT is IN's JSON (as d) after the Python statement;
# the number 2^70 and 1e999 are written as raw text by the placeholders.
# setgot(w, x) makes witness w claim the output x with abs_err and ulp_err
# computed as the engine does (harness/engine/accuracy.c: pc_check_element,
# pc_ulp32), so that only the witness's relation to the rest can show it.
forge() {
    /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, math, struct, sys
d = json.load(open(sys.argv[1]))
def setgot(w, x):
    x = struct.unpack("f", struct.pack("f", x))[0]  # a binary32 output
    ref, ref32 = float.fromhex(w["ref"]["hex"]), float.fromhex(w["ref_f32"]["hex"])
    e = math.frexp(abs(ref32))[1] - 1 if ref32 else None
    ulp = 2.0 ** -149 if e is None else 2.0 ** (max(e, -126) - 23)
    w["got"] = {"hex": x.hex(), "dec": x}
    w["abs_err"] = abs(x - ref)
    w["ulp_err"] = w["abs_err"] / ulp
exec(sys.argv[3])
t = json.dumps(d, indent=2).replace('"@2^70@"', '1180591620717411303424').replace('"@1e999@"', '1e999')
open(sys.argv[2], 'w').write(t)
PY
}

# refused WORD... -- ARGS: exit 2, one stderr line containing every WORD, no stdout
refused() {
    local words=()
    while [ "$1" != "--" ]; do words+=("$1"); shift; done; shift
    "$PECHECK" merge "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    local good=1
    for w in "${words[@]}"; do grep -qF -- "$w" "$tmp/err" || good=0; done
    if [ $rc -eq 2 ] && [ $good -eq 1 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && [ ! -s "$tmp/out" ]; then
        ok "refused (exit 2, names ${words[*]}): $(sed "s|$tmp/||g" "$tmp/err")"
    else
        nok "expected exit 2 naming ${words[*]}: rc=$rc stderr: $(cat "$tmp/err")"
    fi
}

echo "1..39"

# genuine shards: sin-only fails (shard 1 and 2 over the bound), torch-exp passes
for k in 1 2 3; do
    "$PECHECK" accuracy --impl torch-exp --max-pos 700 --quiet --shard $k/3 --format json --output "$tmp/p$k.json"
    "$PECHECK" accuracy --impl sin-only --max-pos 700 --quiet --shard $k/3 --format json --output "$tmp/f$k.json"
done
"$PECHECK" merge "$tmp/p1.json" "$tmp/p2.json" "$tmp/p3.json" >/dev/null; rc=$?
[ $rc -eq 0 ] && ok "genuine passing shards merge to exit 0" || nok "genuine pass: rc=$rc"
"$PECHECK" merge "$tmp/f1.json" "$tmp/f2.json" "$tmp/f3.json" >/dev/null; rc=$?
[ $rc -eq 1 ] && ok "genuine failing shards merge to exit 1" || nok "genuine fail: rc=$rc"

# status against counts
forge "$tmp/p2.json" "$tmp/x.json" 'd["status"] = "fail"'
refused x.json status fail -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/f2.json" "$tmp/x.json" 'd["status"] = "pass"'
refused x.json status pass -- "$tmp/f1.json" "$tmp/x.json" "$tmp/f3.json"
forge "$tmp/f2.json" "$tmp/x.json" 'd["values_over_bound"] = 0; d["status"] = "pass"'
refused x.json -- "$tmp/f1.json" "$tmp/x.json" "$tmp/f3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["status"] = "skip"'
refused x.json values -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"

# numbers out of range or not finite
forge "$tmp/p2.json" "$tmp/x.json" 'd["values"] = -5'
refused x.json values -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["values"] = "@2^70@"'
refused x.json values -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["values"] += 128'
refused x.json values -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["max_abs_err"] = "@1e999@"'
refused x.json max_abs_err finite -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["max_err_over_bound"] = -1'
refused x.json max_err_over_bound -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["max_err_over_bound"] = 3.5'
refused x.json max_err_over_bound -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/f2.json" "$tmp/x.json" 'd["values_nonfinite"] = d["values_over_bound"] + 1'
refused x.json values_nonfinite -- "$tmp/f1.json" "$tmp/x.json" "$tmp/f3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["seconds"] = "@1e999@"'
refused x.json seconds -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["params"]["base"] = None'
refused x.json params -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["shard"]["n"] = "@2^70@"'
refused x.json n -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["worst"]["pos"] = 0'
refused x.json worst position -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["worst"]["dim"] = 4096'
refused x.json worst dimension -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"

# the witnesses against their elements, the maxima and the status
forge "$tmp/f2.json" "$tmp/x.json" 'd["worst"]["abs_err"] = 1e-9'
refused x.json worst abs_err -- "$tmp/f1.json" "$tmp/x.json" "$tmp/f3.json"
forge "$tmp/f2.json" "$tmp/x.json" 'd["worst"]["ulp_err"] *= 2'
refused x.json worst ulp_err -- "$tmp/f1.json" "$tmp/x.json" "$tmp/f3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["worst"]["bound"] = None'
refused x.json worst bound -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["worst"]["bound"] /= 4'
refused x.json worst max_err_over_bound -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"
# a failing shard turned into a pass in every count and status (its worst
# element rewritten to a correct output, or kept): the witnesses give it away
forge "$tmp/f2.json" "$tmp/x.json" 'd.update(status="pass", values_over_bound=0, first_over_bound=None, max_err_over_bound=0.5); setgot(d["worst"], float.fromhex(d["worst"]["ref_f32"]["hex"]))'
refused x.json max_err_over_bound -- "$tmp/f1.json" "$tmp/x.json" "$tmp/f3.json"
forge "$tmp/f2.json" "$tmp/x.json" 'd.update(status="pass", values_over_bound=0, first_over_bound=None, max_err_over_bound=1.0)'
refused x.json worst max_err_over_bound -- "$tmp/f1.json" "$tmp/x.json" "$tmp/f3.json"
forge "$tmp/f2.json" "$tmp/x.json" 'd["max_abs_at"]["abs_err"] = 0.5 * d["max_abs_err"]; setgot(d["max_abs_at"], float.fromhex(d["max_abs_at"]["ref"]["hex"]) + 0.5 * d["max_abs_err"])'
refused x.json max_abs_at max_abs_err -- "$tmp/f1.json" "$tmp/x.json" "$tmp/f3.json"
forge "$tmp/f2.json" "$tmp/x.json" 'setgot(d["first_over_bound"], float.fromhex(d["first_over_bound"]["ref_f32"]["hex"]))'
refused x.json first_over_bound "not over its bound" -- "$tmp/f1.json" "$tmp/x.json" "$tmp/f3.json"

# one implementation, one set of parameters
refused p1.json f2.json implementation -- "$tmp/p1.json" "$tmp/f2.json" "$tmp/p3.json"
forge "$tmp/p2.json" "$tmp/x.json" 'd["params"]["d"] = 64; d["values"] //= 2'
refused x.json d -- "$tmp/p1.json" "$tmp/x.json" "$tmp/p3.json"

# a missing shard is named
for k in 1 2 4 5 6 7 8; do
    "$PECHECK" accuracy --impl torch-exp --max-pos 2100 --quiet --shard $k/8 --format json --output "$tmp/e$k.json"
done
refused "shard 3/8 missing" torch-exp -- "$tmp"/e?.json
refused "shard 2/3 missing" -- "$tmp/p1.json" "$tmp/p3.json"

# a shard that got no block (256 positions are one block: shard 2/2 checks
# nothing) is the engine's empty metrics: every maximum and sum 0, every
# witness null.  Figures under "values": 0 would reach the merge (its maxima
# and sums are merged whatever the count), and a lone "skip" would make the
# merged run a skip.
for k in 1 2; do
    "$PECHECK" accuracy --impl torch-exp --max-pos 255 --quiet --shard $k/2 --format json --output "$tmp/z$k.json"
done
"$PECHECK" merge "$tmp/z1.json" "$tmp/z2.json" >/dev/null; rc=$?
[ $rc -eq 0 ] && ok "genuine shards, one of them empty, merge to exit 0" || nok "empty shard: rc=$rc"
forge "$tmp/z2.json" "$tmp/x.json" 'd["max_err_over_bound"] = 3.0'
refused x.json max_err_over_bound '"values" is 0' -- "$tmp/z1.json" "$tmp/x.json"
forge "$tmp/z2.json" "$tmp/x.json" 'd["max_ulp_err"] = 1e6'
refused x.json max_ulp_err '"values" is 0' -- "$tmp/z1.json" "$tmp/x.json"
forge "$tmp/z2.json" "$tmp/x.json" 'd["sum_sq_err_exact"] = ["0x1p+0"]'
refused x.json sum_sq_err_exact '"values" is 0' -- "$tmp/z1.json" "$tmp/x.json"
forge "$tmp/z2.json" "$tmp/x.json" 'd["values_over_bound"] = 1; d["status"] = "fail"'
refused x.json values_over_bound -- "$tmp/z1.json" "$tmp/x.json"
forge "$tmp/z2.json" "$tmp/x.json" 'd["status"] = "skip"; d["note"] = "torch-exp does not implement the sinusoidal family"'
refused x.json status skip "shard 1/2" -- "$tmp/z1.json" "$tmp/x.json"

# a shard that got no block called the implementation nowhere: without
# --layout it cannot see rope-half decline the interleaved layout, and keeps
# it; its layout is no claim (it carries no value), the run's is the others'
for k in 1 2 3; do
    "$PECHECK" accuracy --impl rope-half --max-pos 511 --quiet --shard $k/3 --format json --output "$tmp/h$k.json"
done
"$PECHECK" merge "$tmp/h3.json" "$tmp/h1.json" "$tmp/h2.json" --format json >"$tmp/out" 2>"$tmp/err"; rc=$?
[ $rc -eq 0 ] && grep -q '"layout": "half"' "$tmp/out" && grep -q '"values": 65536' "$tmp/out" \
    && ok "rope-half's shards, the third empty, merge to exit 0 under the half layout" \
    || nok "rope-half, an empty shard: rc=$rc $(cat "$tmp/err")"
"$PECHECK" merge "$tmp/h2.json" "$tmp/h3.json" "$tmp/h1.json" --format json >"$tmp/out2" 2>/dev/null; rc=$?
[ $rc -eq 0 ] && cmp -s "$tmp/out" "$tmp/out2" && ok "the merge is the same whichever file comes first" || nok "order changes the merge"
forge "$tmp/h2.json" "$tmp/x.json" 'd["params"]["layout"] = "interleaved"'
refused x.json layout -- "$tmp/h3.json" "$tmp/h1.json" "$tmp/x.json"

#!/bin/sh
# precision.t: the decomposed precision model (harness/engine/model.h,
# docs/precision-model.md) on the built-in formulations.
#
# - long context: a uniform 1e-4 error fails at positions 2000000..2004095
#   (pair 0's angle is exact in every formulation, its budget a few u; the
#   pairs past the long-context point, whose norm it moves by about 1e-4,
#   are held to the same budget: the bound's part that is not the angle's);
#   the text and JSON say from which position the bound stops constraining
#   and what to do; --max-abs-err adds an absolute budget;
# - the default class holds every built-in binary32 formulation (PyTorch's
#   exp and pow forms, Meta's polar form, HF's rotate_half, ggml's
#   cumulative product) at d 64, 128, 256 and bases 1e4, 5e5, 1e6, on three
#   sampled blocks of 1024 positions up to 2^20 (the first, the middle and
#   the last block: the full 2^20 positions take minutes); the worst
#   err/bound of each formulation is printed as a TAP comment;
# - --strict (RoPE: the hf class, transformers' float32 frequencies;
#   sinusoidal: cr, a correctly rounded binary32 frequency and angle): ggml
#   fails and the output says why; binary64 angles rounded once pass.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_tmp precision
# the largest err/bound of a text result
ratio() { sed -n 's/^  largest err\/bound = //p' "$1"; }

"$PECHECK" accuracy --impl plus-1e-4 --d 128 --positions 2000000:2004095 --quiet >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "worst (largest err/bound): pos=[0-9]* dim=[0-9]* " "$tmp/o" \
    && grep -q "|err| = 0.0001 vs bound 1.19e-07 " "$tmp/o"
ok $? "plus-1e-4 at positions 2000000..2004095 fails, held to the budget of pair 0 (exact angle), R u" "$tmp/o"

"$PECHECK" accuracy --impl torch-exp --d 128 --positions 2000000:2004095 --quiet >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q "long context: from position 173853 the bound of pair 1 exceeds 0.1" "$tmp/o" \
    && grep -q "binary64" "$tmp/o" && grep -q "split positions" "$tmp/o"
ok $? "torch-exp at 2M passes and says from where the bound stops constraining, and what to do" "$tmp/o"

"$PECHECK" accuracy --impl torch-exp --d 128 --positions 2000000:2000255 --format json --output "$tmp/r.json" --quiet
rc=$?
[ $rc -eq 0 ] && /usr/bin/python3 - "$tmp/r.json" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))
lc = r["long_context"]
assert lc["reached"] is True and lc["bound_vacuous_from_pos"] == 173853 and lc["bound_vacuous_pair"] == 1
assert 0 < lc["pairs_unconstrained_at_end"] < 64 and "binary64" in lc["advice"]
assert lc["f32_angle_unrepresentable_pair"] == 1
assert r["bound"]["class"] == "default" and r["bound"]["R"] == 2
PY
ok $? "JSON: long_context with the position, the pair, the count and the advice"

"$PECHECK" accuracy --impl torch-exp --d 128 --max-pos 4095 --format json --output "$tmp/r.json" --quiet
/usr/bin/python3 -c '
import json, sys; r = json.load(open(sys.argv[1]))
assert r["long_context"]["reached"] is False' "$tmp/r.json"
ok $? "at 4096 positions the long-context note is not reached"

"$PECHECK" accuracy --impl torch-exp --positions 2000000:2000255 --max-abs-err 1e-3 --quiet >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "|err| <= 0.001 (--max-abs-err)" "$tmp/o"
ok $? "--max-abs-err 1e-3 fails torch-exp at 2M (its float32 angles are off by up to 0.12)" "$tmp/o"
"$PECHECK" accuracy --impl torch-exp --positions 2000000:2000255 --max-abs-err 0.5 --quiet >"$tmp/o" 2>&1
ok $? "--max-abs-err 0.5 passes it" "$tmp/o"
"$PECHECK" accuracy --impl torch-exp --max-abs-err -1 --quiet >"$tmp/o" 2>&1
[ $? -eq 2 ] && grep -q -- "--max-abs-err: must be > 0" "$tmp/o"
ok $? "--max-abs-err -1 is exit 2 naming the option" "$tmp/o"

# the default class over the grid: every run passes, worst ratio per formulation
for impl in torch-exp torch-pow rope-polar rope-half rope-ggml; do
    lay=interleaved; [ $impl = rope-half ] && lay=half
    worst=0; bad=""
    for d in 64 128 256; do
        for base in 10000 500000 1000000; do
            for blk in 0:1023 523776:524799 1047552:1048575; do
                "$PECHECK" accuracy --impl $impl --layout $lay --d $d --base $base \
                    --positions $blk --quiet >"$tmp/o" 2>&1
                rc=$?
                r=$(ratio "$tmp/o")
                [ $rc -eq 0 ] || bad="$bad d=$d base=$base $blk (rc $rc);"
                worst=$(awk -v a="$worst" -v b="${r:-0}" 'BEGIN { print (b > a) ? b : a }')
            done
        done
    done
    echo "# $impl: worst err/bound $worst (default class, d 64/128/256, bases 1e4/5e5/1e6, 3 blocks to 2^20)"
    [ -z "$bad" ]
    ok $? "$impl passes the default class on the grid${bad:+: failed$bad}"
done

# --strict
for lay in interleaved half; do
    "$PECHECK" accuracy --impl rope-ggml --layout $lay --d 128 --max-pos 4095 --strict --quiet >"$tmp/o" 2>&1
    [ $? -eq 1 ] && grep -q "strict class: the angle of pair [0-9]* is off by" "$tmp/o" \
        && grep -q "a cumulative product (ggml" "$tmp/o"
    ok $? "rope-ggml ($lay) fails --strict and says why: a cumulative product" "$tmp/o"
done
"$PECHECK" accuracy --impl rope-ggml --d 128 --max-pos 1023 --strict --format json --output "$tmp/s.json" --quiet
[ $? -eq 1 ] && /usr/bin/python3 -c '
import json, sys; r = json.load(open(sys.argv[1]))
assert r["bound"]["class"] == "hf" and "cumulative product" in r["class_note"]' "$tmp/s.json"
ok $? "JSON: bound.class hf (--strict on RoPE: the hf class) and class_note naming the cumulative product"
"$PECHECK" accuracy --impl double-angle --d 128 --max-pos 70000 --strict --quiet >"$tmp/o" 2>&1
ok $? "double-angle (binary64 angles rounded once) passes --strict: $(ratio "$tmp/o")" "$tmp/o"
"$PECHECK" accuracy --impl torch-exp --d 128 --max-pos 4095 --strict --quiet >"$tmp/o" 2>&1
[ $? -eq 1 ] && grep -q "a frequency computed by exp or pow, not correctly rounded" "$tmp/o"
ok $? "torch-exp fails --strict: its frequency is not correctly rounded" "$tmp/o"

# --formulation hf under --impl all: RoPE's built-ins take the hf class, the
# sinusoidal ones their own strict class (cr), each verdict naming its class;
# the verdicts are --strict's (a verdict, not exit 2); alone, exit 2
"$PECHECK" check --impl all --formulation hf --quiet --format json --output "$tmp/hf.json" >"$tmp/o" 2>&1
rc=$?
"$PECHECK" check --impl all --strict --quiet --format json --output "$tmp/st.json" >>"$tmp/o" 2>&1
[ $rc -eq 1 ] && /usr/bin/python3 -c '
import json, sys
hf, st = (json.load(open(f))["results"] for f in sys.argv[1:3])
key = lambda r: (r["implementation"], r["family"], r["check"], r.get("layout"))
assert {key(r): r["status"] for r in hf} == {key(r): r["status"] for r in st}
acc = [r for r in hf if r["check"] == "accuracy" and r["family"] in ("rope", "sinusoidal")]
rope = [r for r in acc if r["family"] == "rope"]
sin = [r for r in acc if r["family"] == "sinusoidal"]
assert rope and sin, (len(rope), len(sin))
assert all("strict class hf" in r["against"] for r in rope), [r["against"] for r in rope][:1]
assert all("strict class cr" in r["against"] and "sinusoidal has no hf class" in r["against"]
           for r in sin), [r["against"] for r in sin][:1]' "$tmp/hf.json" "$tmp/st.json" >>"$tmp/o" 2>&1
ok $? "--impl all --formulation hf: exit 1, RoPE's verdicts in hf, the sinusoidal ones in cr saying so, as --strict's" "$tmp/o"
"$PECHECK" check --impl torch-exp --formulation hf >"$tmp/o" 2>&1
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/o")" -eq 1 ] && grep -q "no source here is checked as one (torch-exp: sinusoidal)" "$tmp/o"
ok $? "--impl torch-exp --formulation hf: exit 2, one line (no source takes the hf class)" "$tmp/o"
# --formulation ggml alike: RoPE's built-ins in ggml, the sinusoidal ones in cr saying so
"$PECHECK" check --impl all --formulation ggml --quiet --format json --output "$tmp/gg.json" >"$tmp/o" 2>&1
[ $? -eq 1 ] && /usr/bin/python3 -c '
import json, sys
res = json.load(open(sys.argv[1]))["results"]
acc = [r for r in res if r["check"] == "accuracy"]
rope = [r for r in acc if r["family"] == "rope"]
sin = [r for r in acc if r["family"] == "sinusoidal"]
assert rope and sin, (len(rope), len(sin))
assert all("strict class ggml" in r["against"] for r in rope), [r["against"] for r in rope][:1]
assert all("strict class cr" in r["against"] and "sinusoidal has no ggml class" in r["against"]
           for r in sin), [r["against"] for r in sin][:1]' "$tmp/gg.json" >>"$tmp/o" 2>&1
ok $? "--impl all --formulation ggml: exit 1, RoPE's verdicts in ggml, the sinusoidal ones in cr saying so" "$tmp/o"
"$PECHECK" check --impl torch-exp --formulation ggml >"$tmp/o" 2>&1
[ $? -eq 2 ] && [ "$(wc -l <"$tmp/o")" -eq 1 ] && grep -q "llama.cpp's rope is RoPE's" "$tmp/o"
ok $? "--impl torch-exp --formulation ggml: exit 2, one line naming llama.cpp's rope" "$tmp/o"

# the JSON's bound.u is the text's u (binary32's 2^-24) at every --dtype;
# bound.u_s the storage's
for dt in f32:0 f16:0.00048828125 bf16:0.00390625; do
    "$PECHECK" accuracy --impl rope-half --dtype "${dt%:*}" --max-pos 255 >"$tmp/o" 2>&1 &&
    grep -q "u = 2^-24, u_s = " "$tmp/o" &&
    "$PECHECK" accuracy --impl rope-half --dtype "${dt%:*}" --max-pos 255 --format json \
        --output "$tmp/u.json" >>"$tmp/o" 2>&1 && /usr/bin/python3 -c '
import json, sys; b = json.load(open(sys.argv[1]))["bound"]
assert b["u"] == 2.0 ** -24 and b["u_s"] == float(sys.argv[2]), b
assert b["u_definition"].startswith("u: binary32") and "u_s: the storage" in b["u_definition"], b' \
        "$tmp/u.json" "${dt#*:}" >>"$tmp/o" 2>&1
    ok $? "--dtype ${dt%:*}: JSON bound.u = 2^-24 as the text says, bound.u_s = ${dt#*:}" "$tmp/o"
done

echo "1..$n"
[ $fails -eq 0 ]

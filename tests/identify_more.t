#!/bin/sh
# identify_more.t: `pecheck identify` on what it is handed beyond a cache of
# positions 0..n-1 (tables from tests/lib/identify_cases.py and
# tests/lib/axes_caches.py, numpy and PyTorch):
#   - every family's JSON output parses (python3 json), with --position-ids
#     of one and of several axes;
#   - an ALiBi slope table and a T5 bucket table without --family are read
#     as their family's (from the table's shape and dtype);
#   - ids of several axes without a split: the M-RoPE sections (in turn or
#     interleaved) or axial dims that explain every pair;
#   - float position ids: whole numbers get astype(int64), fractional ones
#     are pointed at --timesteps;
#   - a bfloat16 Llama 3.1 cache too short for its low-frequency pairs to
#     turn: llama3 with the released scaling whose band fits, bf16 storage;
#   - Kimi-K2's YaRN (beta_fast = beta_slow = 1) is identified; LongRoPE
#     factors are never proposed below 1;
#   - every FOUND's check_args pass `pecheck check` on the same input, and
#     every UNKNOWN's closest is one check takes (not exit 2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp identmore

"$PY" "$root/tests/lib/identify_cases.py" "$tmp" >"$tmp/gen" 2>&1 || { cat "$tmp/gen"; exit 1; }
for k in mrope mrope3 axial; do
    "$PY" "$root/tests/lib/axes_caches.py" $k ok "$tmp/$k" >>"$tmp/gen" 2>&1 || { cat "$tmp/gen"; exit 1; }
done
"$PECHECK" reference --family sinusoidal --d 64 --positions 0:127 --out "$tmp/sin.npy" --quiet
# Llama 3.1's cache as transformers builds it for a bfloat16 model, 8192
# positions, widened to float32 (what numpy holds of a bf16 tensor)
echo "$root/tests/data/configs/meta-llama--Llama-3.1-8B.json ok bfloat16 8192 $tmp/l31bf" |
    "$PY" "$root/tests/lib/zoo_caches.py" - >>"$tmp/gen" 2>&1 || { cat "$tmp/gen"; exit 1; }
"$PY" - "$tmp/l31bf" <<'PY'
import sys, numpy as np
for n in ("cos", "sin"):
    a = np.load("%s/%s.npy" % (sys.argv[1], n))
    np.save("%s/%s32.npy" % (sys.argv[1], n), (a.astype(np.uint32) << 16).view(np.float32))
PY

# json NAME ARGS...: identify ARGS --format json into $tmp/NAME.json; 0 when
# it exits 0 or 1 and its output parses
json() {
    name=$1; shift
    "$PECHECK" identify "$@" --format json >"$tmp/$name.json" 2>"$tmp/$name.err"
    rc=$?
    [ $rc -le 1 ] && "$PY" -c 'import json,sys; json.load(open(sys.argv[1]))' "$tmp/$name.json" \
        >>"$tmp/$name.err" 2>&1
}

# the JSON of every family, with position ids of one and several axes
json rope --table "$tmp/kimi/cos.npy" --table-sin "$tmp/kimi/sin.npy"
ok $? "rope: identify's JSON parses" "$tmp/rope.err"
json ids1 --table "$tmp/ids/cos.npy" --table-sin "$tmp/ids/sin.npy" --position-ids "$tmp/ids/ids.npy"
ok $? "rope, --position-ids of one axis: identify's JSON parses" "$tmp/ids1.err"
json mrope --table "$tmp/mrope/cos.npy" --table-sin "$tmp/mrope/sin.npy" \
    --position-ids "$tmp/mrope/pos.npy" --rope-sections 16,24,24 --base 1000000
ok $? "rope, --position-ids of 3 axes (M-RoPE): identify's JSON parses" "$tmp/mrope.err"
json axial --table "$tmp/axial/cos.npy" --table-sin "$tmp/axial/sin.npy" \
    --position-ids "$tmp/axial/pos.npy" --rope-axes-dim 64,64 --layout interleaved
ok $? "rope, --position-ids of 2 axes (axial): identify's JSON parses" "$tmp/axial.err"
json alibi --family alibi --table "$tmp/alibi.npy"
ok $? "alibi: identify's JSON parses" "$tmp/alibi.err"
json t5 --family t5 --table "$tmp/t5.npy"
ok $? "t5: identify's JSON parses" "$tmp/t5.err"
json sin --table "$tmp/sin.npy"
ok $? "sinusoidal: identify's JSON parses" "$tmp/sin.err"

# rows at position ids of one axis: fitted at their own positions
"$PECHECK" identify --table "$tmp/ids/cos.npy" --table-sin "$tmp/ids/sin.npy" \
    --position-ids "$tmp/ids/ids.npy" >"$tmp/out" 2>&1
[ $? -eq 0 ] && grep -q "^FOUND .*at the positions of" "$tmp/out" &&
    grep -q "schedule: default, base 10000$" "$tmp/out" &&
    grep -q "check: .*--position-ids $tmp/ids/ids.npy" "$tmp/out"
ok $? "rows at ids [5,9,100,7,3000,12,13,14]*8: FOUND default base 10000, --position-ids in check" "$tmp/out"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]
sys.exit(not (r["found"] and abs(r["rope_theta"] - 10000) < 1e-6 and "--position-ids" in r["check_args"]))' \
    "$tmp/ids1.json"
ok $? "the same in JSON: found, rope_theta 10000, --position-ids in check_args" "$tmp/ids1.json"
"$PECHECK" identify --table "$tmp/ids/cos.npy" --table-sin "$tmp/ids/sin.npy" \
    --position-ids "$tmp/ids/ids_shift.npy" >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "^UNKNOWN" "$tmp/out" && grep -q "position ids +2" "$tmp/out"
ok $? "ids 2 below the rows' positions: UNKNOWN, saying ids +2" "$tmp/out"
"$PECHECK" identify --table "$tmp/ids/cos.npy" --table-sin "$tmp/ids/sin.npy" \
    --position-ids "$tmp/ids/ids_far.npy" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && [ ! -s "$tmp/o" ] && grep -q -- "--position-ids .*no two of its 64 positions are within 3" "$tmp/e"
ok $? "ids 0, 10, 20, ...: exit 2 naming --position-ids (no step can be unwrapped)" "$tmp/e"

# ids of several axes and no split given: the split that explains every pair
# (JSON parsed; check_args run below)
json mrope_n --table "$tmp/mrope/cos.npy" --table-sin "$tmp/mrope/sin.npy" \
    --position-ids "$tmp/mrope/pos.npy" --base 1000000
json mrope3_n --table "$tmp/mrope3/cos.npy" --table-sin "$tmp/mrope3/sin.npy" \
    --position-ids "$tmp/mrope3/pos.npy" --base 5000000
json axial_n --table "$tmp/axial/cos.npy" --table-sin "$tmp/axial/sin.npy" \
    --position-ids "$tmp/axial/pos.npy" --base 10000
json flux_n --table "$tmp/flux/cos.npy" --table-sin "$tmp/flux/sin.npy" \
    --position-ids "$tmp/flux/pos.npy" --base 10000
for c in "mrope_n --rope-sections 16,24,24 Qwen2-VL" "mrope3_n --rope-sections 24,20,20:--mrope-interleaved Qwen3-VL" \
         "axial_n --rope-axes-dim 64,64 2-D-axial" "flux_n --rope-axes-dim 16,56,56 FLUX"; do
    set -- $c
    "$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; a=r["check_args"]
want = [sys.argv[2]] + sys.argv[3].split(":")
sys.exit(not (r["found"] and any(a[k:k + len(want)] == want for k in range(len(a)))))' \
        "$tmp/$1.json" "$2" "$3" >"$tmp/$1.cmp" 2>&1
    ok $? "$4 rows without a split: FOUND, $2 $3 in check_args" "$tmp/$1.json"
done
# no split explains the pairs under the base given: UNKNOWN (exit 1, before:
# exit 2), naming what was tried, its check line holding the closest split
# tried, which check takes (exit 1: it fails with its own cause, not exit 2)
"$PECHECK" identify --table "$tmp/mrope/cos.npy" --table-sin "$tmp/mrope/sin.npy" \
    --position-ids "$tmp/mrope/pos.npy" --base 10000 >"$tmp/o" 2>"$tmp/e"
rc=$?
line=$(sed -n 's/^  check: pecheck check //p' "$tmp/o")
[ $rc -eq 1 ] && grep -q "^UNKNOWN" "$tmp/o" && grep -q "no split tried explains every pair" "$tmp/o" \
    && printf '%s\n' "$line" | grep -q -- "--rope-\(sections\|axes-dim\) [0-9]"
ok $? "M-RoPE rows under another base, no split: UNKNOWN naming what was tried, a split in its check line (exit $rc)" "$tmp/o"
# shellcheck disable=SC2086
"$PECHECK" check $line --regressions off >"$tmp/c" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q "FAIL .* rope accuracy .*likely cause" "$tmp/c"
ok $? "M-RoPE rows under another base: check takes the closest line and fails with a cause (exit $rc)" "$tmp/c"

# YaRN with beta_fast = beta_slow = 1 (Kimi-K2: a ramp one pair wide)
json kimi --table "$tmp/kimi/cos.npy" --table-sin "$tmp/kimi/sin.npy"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; s=r["rope_scaling"] or {}
want = {"rope_type": "yarn", "factor": 32, "original_max_position_embeddings": 4096, "beta_fast": 1,
        "beta_slow": 1, "attention_factor": 1}
close = lambda a, b: a is not None and abs(a - b) <= 1e-6 * abs(b)
sys.exit(not (r["found"] and r["rope_theta"] == 50000 and all(close(s.get(k), v) if k != "rope_type"
              else s.get(k) == v for k, v in want.items())))' \
    "$tmp/kimi.json" >"$tmp/kimi.err" 2>&1
ok $? "Kimi-K2's cache: yarn, base 50000, factor 32, original 4096, betas 1 and 1, attention 1" "$tmp/kimi.json"
# LongRoPE factors of 1 that the fit puts a rounding below 1: proposed as 1
json lrhead --table "$tmp/lrhead/cos.npy" --table-sin "$tmp/lrhead/sin.npy"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; s=r["rope_scaling"] or {}
sys.exit(not (r["found"] and r["rope_type"] == "longrope" and min(s["short_factor"]) >= 1))' \
    "$tmp/lrhead.json" >"$tmp/lrhead.err" 2>&1
ok $? "LongRoPE with head factors 1: found, every factor >= 1" "$tmp/lrhead.json"
json shift --table "$tmp/ids/cos.npy" --table-sin "$tmp/ids/sin.npy" --position-ids "$tmp/ids/ids_shift.npy"

# a built-in computes at the positions it is called with: ids are refused
"$PECHECK" identify --impl rope-half --positions 0:63 --position-ids "$tmp/ids/ids.npy" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && [ ! -s "$tmp/o" ] && grep -q -- "--position-ids .*without --position-ids" "$tmp/e"
ok $? "a built-in with --position-ids: exit 2 (it is not called at the ids)" "$tmp/e"

# tables of ALiBi and T5 without --family: their family from shape and dtype
"$PECHECK" identify --table "$tmp/alibi.npy" >"$tmp/out" 2>&1
[ $? -eq 0 ] && grep -q "^FOUND .*ALiBi, 8 heads" "$tmp/out" && grep -q -- "--family alibi" "$tmp/out"
ok $? "an (8,) float32 slope table without --family: identified as ALiBi" "$tmp/out"
"$PECHECK" identify --table "$tmp/t5.npy" >"$tmp/out" 2>&1
[ $? -eq 0 ] && grep -q "^FOUND .*T5 buckets" "$tmp/out" && grep -q "num_buckets: 32" "$tmp/out"
ok $? "a (32, 32) int64 bucket table without --family: identified as T5" "$tmp/out"

# float position ids
"$PECHECK" identify --table "$tmp/ids/cos.npy" --table-sin "$tmp/ids/sin.npy" \
    --position-ids "$tmp/ids/ids_frac.npy" >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && grep -q -- "--timesteps" "$tmp/e" && grep -q "real coordinates" "$tmp/e" &&
    ! grep -q "astype" "$tmp/e"
ok $? "fractional float position ids: exit 2, check them as coordinates (or --timesteps)" "$tmp/e"
"$PECHECK" identify --table "$tmp/ids/cos.npy" --table-sin "$tmp/ids/sin.npy" \
    --position-ids "$tmp/ids/ids_whole.npy" >"$tmp/o" 2>"$tmp/e"
rc=$?
"$PECHECK" identify --table "$tmp/ids/cos.npy" --table-sin "$tmp/ids/sin.npy" \
    --position-ids "$tmp/ids/ids.npy" >"$tmp/o2" 2>&1
rc2=$?
sed 's/ids_whole\.npy/ids.npy/g' "$tmp/o" >"$tmp/o1"
[ $rc -eq $rc2 ] && [ $rc -ne 2 ] && grep -q "^FOUND" "$tmp/o1" && diff -q "$tmp/o1" "$tmp/o2" >/dev/null
ok $? "whole float position ids: identified as the same int64 ids are" "$tmp/o"

# a bfloat16 Llama 3.1 cache of 8192 positions: its pairs past the band do
# not turn enough to be resolved; the released llama3 scaling whose band
# fits is named (it was a LongRoPE of 64 invented factors), storage bf16
json l31bf --table "$tmp/l31bf/cos32.npy" --table-sin "$tmp/l31bf/sin32.npy"
"$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]; s=r["rope_scaling"] or {}
sys.exit(not (r["found"] and r["storage"] == "bf16" and s.get("rope_type") == "llama3"
              and s.get("factor") == 8 and r["rope_theta"] == 500000 and "--dtype" in r["check_args"]))' \
    "$tmp/l31bf.json" >"$tmp/l31bf.err" 2>&1
ok $? "a bf16 Llama 3.1 cache (8192 positions): llama3, factor 8, base 500000, bf16 storage" "$tmp/l31bf.json"

# every FOUND's check_args pass check on the same input; every other's are
# taken by check (exit 0 or 1: never a closest that check refuses)
for name in rope ids1 mrope axial alibi t5 sin kimi lrhead shift mrope_n mrope3_n axial_n flux_n l31bf; do
    "$PY" -c 'import json, subprocess, sys
rs = json.load(open(sys.argv[1]))["results"]
bad = 0
for r in rs:
    rc = subprocess.call([sys.argv[2], "check"] + r["check_args"] + ["--quiet", "--regressions",
                         "off"], stdout=open(sys.argv[3], "w"), stderr=subprocess.STDOUT)
    bad |= rc != 0 if r["found"] else rc == 2
sys.exit(bad)' "$tmp/$name.json" "$PECHECK" "$tmp/$name.check" 2>"$tmp/$name.check.err"
    ok $? "$name: check_args pass check (FOUND), or are taken by it (UNKNOWN)" "$tmp/$name.check"
done

echo "1..$n"
[ "$fails" -eq 0 ]

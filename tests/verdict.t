#!/bin/bash
# verdict.t: what a verdict says and how it reads.  Every PASS and FAIL line
# says what it was checked against (the schedule, the base and where it came
# from); a cache's failure shows the user's own cos and sin at the witness
# before the rotated vector, and err/bound first (no ulp count on the line);
# the likely cause is the best-supported one, with its evidence and the other
# candidates; a replay line run as printed reruns the failing case (a table's
# --pos-start, an --hf-config); RoPE's unique property fails a cache whose
# positions collapse (float32 past 2^24) with the first colliding pair; a
# layout the source does not hold is no verdict; JUnit classnames carry no path
# and no dot of a file name; TAP's data is a YAML mapping; mistyped options,
# implementations, properties and families get a suggestion; `explain
# fitted-model`; a config's bad value names the file and key; the fitted model
# of a NaN cache says NaN, not a position 2^63 off.
set -u
PECHECK=${PECHECK:-build/pecheck}
PY=${PYTHON:-/usr/bin/python3}
. "$(dirname "$0")/lib/tap.bash"
Q="--cases 10 --regressions off"
echo "1..21"

# caches made with numpy: a correct one (d 64, base 10000, half layout), and a
# bfloat16 one widened to float32
"$PY" - "$tmp" <<'PY' || { echo "Bail out! numpy"; exit 1; }
import sys, numpy as np
d, n = 64, 512
t = np.arange(n, dtype=np.float64)[:, None]
w = 10000.0 ** (-np.arange(0, d, 2) / d)
a = np.concatenate([t * w, t * w], axis=1)
c, s = np.cos(a).astype(np.float32), np.sin(a).astype(np.float32)
np.save(sys.argv[1] + "/cos.npy", c); np.save(sys.argv[1] + "/sin.npy", s)
def bf16(x):
    u = x.astype(np.float32).view(np.uint32).astype(np.uint64)
    u = ((u + 0x7FFF + ((u >> 16) & 1)) & 0xFFFF0000).astype(np.uint32)
    return u.view(np.float32)
np.save(sys.argv[1] + "/cos_bf.npy", bf16(c)); np.save(sys.argv[1] + "/sin_bf.npy", bf16(s))
c2 = c.copy(); c2[:, :] = np.nan
np.save(sys.argv[1] + "/cos_nan.npy", c2); np.save(sys.argv[1] + "/sin_nan.npy", c2)
PY
T="--table $tmp/cos.npy --table-sin $tmp/sin.npy --family rope"
B="--table $tmp/cos_bf.npy --table-sin $tmp/sin_bf.npy --family rope"

# 1. what a line was checked against: a config's schedule and base named on every PASS line
echo '{"rope_theta": 10000.0, "head_dim": 128, "max_position_embeddings": 4096}' >"$tmp/d.json"
"$PECHECK" check --impl rope-half --max-pos 300 --hf-config "$tmp/d.json" $Q >"$tmp/o" 2>&1
[ "$(grep -c '^PASS ' "$tmp/o")" -ge 4 ] \
    && ! grep '^PASS ' "$tmp/o" | grep -vq "checked against schedule default, base 10000, rotary dim 128 ($tmp/d.json); base from rope_theta of $tmp/d.json" \
    && ok "every PASS line of an --hf-config run names the schedule, the base and where it came from" \
    || nok "against: $(grep '^PASS' "$tmp/o" | head -2)"

# 2. a cache's failure: the user's own cos/sin first, err/bound first, no ulp on the line
"$PECHECK" check $B --base 10000 --property accuracy $Q >"$tmp/o" 2>&1
rc=$?
line=$(grep '^FAIL .* rope accuracy' "$tmp/o")
[ $rc -eq 1 ] && echo "$line" | grep -q 'error: max |err|/bound [0-9.e+]*: .* worst at pos=[0-9]*, pair [0-9]*: cos\[[0-9]*, [0-9]*\] = .*, exact .*; sin\[[0-9]*, [0-9]*\] = .*; the rotated vector.s dim' \
    && ! echo "$line" | grep -q ulp \
    && ok "a cache's failure shows its own cos[r, j] and sin[r, j] beside the exact values, then the rotated vector; err/bound first, no ulp" \
    || nok "witness: $line"

# 3. the ranked cause: storage first, with evidence and the other candidates
grep -q '; likely cause: every value of the cache is a bfloat16 number: .*rerun with --dtype bf16' "$tmp/o" \
    && grep -q '^      evidence: all .* values of .* rows are bfloat16 numbers' "$tmp/o" \
    && ok "a bfloat16 cache checked as float32: the likely cause says so first, with its evidence" \
    || nok "ranked cause: $(grep 'likely cause' "$tmp/o" | head -2)"

# 3b. an interleaved (repeat_interleave) cache checked as half: the columns
# name the layout first, not an attention factor or a scaling
"$PY" - "$tmp" <<'PY'
import sys, numpy as np
d, n = 64, 512
t = np.arange(n, dtype=np.float64)[:, None]
a = np.repeat(t * 10000.0 ** (-np.arange(0, d, 2) / d), 2, axis=1)
np.save(sys.argv[1] + "/icos.npy", np.cos(a).astype(np.float32))
np.save(sys.argv[1] + "/isin.npy", np.sin(a).astype(np.float32))
PY
"$PECHECK" check --table "$tmp/icos.npy" --table-sin "$tmp/isin.npy" --family rope --base 10000 \
    --layout half --property accuracy $Q >"$tmp/o3" 2>&1
grep -q '; likely cause: the cache is in the interleaved layout but is checked as half: .*pass --layout interleaved' "$tmp/o3" \
    && grep -q '^      evidence: every repeated column pair of the interleaved layout is equal' "$tmp/o3" \
    && ok "an interleaved cache checked as half: the likely cause names the layout first, with its evidence" \
    || nok "flipped layout: $(grep 'likely cause' "$tmp/o3" | head -2)"

# 4. a PASS line carries no ulp count; err/bound leads
"$PECHECK" check $T --base 10000 --property accuracy $Q >"$tmp/o" 2>&1
grep -q '^PASS .* rope accuracy \[half\]: max |err|/bound [0-9.e+-]*: 32768 values, positions 0..511 d=64, max |err| ' "$tmp/o" \
    && ! grep '^PASS .* accuracy' "$tmp/o" | grep -q ulp \
    && ok "a passing accuracy line leads with max |err|/bound and has no ulp count" || nok "pass line: $(grep accuracy "$tmp/o")"

# 5. a table whose positions start at 100: the replay line carries --pos-start and reruns the case
"$PECHECK" check $T --base 10000 --pos-start 100 --tol-abs 1e-9 --property rope-norm $Q >"$tmp/o" 2>&1
replay=$(sed -n 's/^ *replay: pecheck //p' "$tmp/o" | head -1)
at=$(grep -o 'at position [0-9]*' "$tmp/o" | head -1)
eval "\"$PECHECK\" $replay --regressions off" >"$tmp/r" 2>&1
rc=$?
echo "$replay" | grep -q -- '--pos-start 100' && [ $rc -eq 1 ] && [ -n "$at" ] && grep -q "$at" "$tmp/r" \
    && ok "a table's replay line carries --pos-start; run as printed it fails the same case ($at)" \
    || nok "replay: rc=$rc '$replay' '$at' $(head -2 "$tmp/r")"

# 6. the same for --hf-config (its schedule shapes the run)
cat >"$tmp/cfg.json" <<'J'
{"rope_theta": 10000.0, "head_dim": 64, "max_position_embeddings": 4096, "rope_scaling": {"rope_type": "linear", "factor": 2.0}}
J
"$PECHECK" check $T --hf-config "$tmp/cfg.json" --property rope-relative --tol-abs 1e-9 $Q >"$tmp/o" 2>&1
replay=$(sed -n 's/^ *replay: pecheck //p' "$tmp/o" | head -1)
eval "\"$PECHECK\" $replay --regressions off" >"$tmp/r" 2>&1
rc=$?
echo "$replay" | grep -q -- "--hf-config $tmp/cfg.json" && [ $rc -eq 1 ] \
    && ok "a replay line under --hf-config carries it, and fails again as printed" \
    || nok "hf-config replay: rc=$rc '$replay'"

# 6b. the regression file's record carries the same options
"$PECHECK" check $T --hf-config "$tmp/cfg.json" --property rope-relative --tol-abs 1e-9 --cases 10 \
    --regressions "$tmp/reg" >/dev/null 2>&1
grep -q "^property=rope-relative family=rope seed=0x[0-9a-f]* d=64 positions=0:511 options=--layout%20half%20--table-sin%20$tmp/sin.npy%20--tol-abs%201e-09%20--hf-config%20$tmp/cfg.json impl=$tmp/cos.npy\$" "$tmp/reg" \
    && ok "a saved failing case records the options that shaped its run (--hf-config, --tol-abs, --table-sin)" \
    || nok "regression record: $(grep property= "$tmp/reg")"

# 7. RoPE unique: positions past 2^24 collapse, the first colliding pair and the cause
"$PECHECK" check --impl rope-half --positions 16777216:16779263 --property unique $Q >"$tmp/o" 2>&1
rc=$?
[ $rc -eq 1 ] && grep -q '^FAIL .* rope unique .*positions 16777216 and 16777217: bit-identical rows' "$tmp/o" \
    && grep -q 'likely cause: positions 16777216 and 16777217 are the same binary32 number' "$tmp/o" \
    && ok "unique: a RoPE source whose positions collapse past 2^24 fails with the first colliding pair" \
    || nok "rope unique: $(head -3 "$tmp/o")"
"$PECHECK" check --impl rope-half --max-pos 4095 --property unique $Q >"$tmp/o" 2>&1
[ $? -eq 0 ] && grep -q '^PASS .* rope unique' "$tmp/o" && ok "unique: a correct RoPE built-in passes over 0..4095" \
    || nok "rope unique pass: $(head -3 "$tmp/o")"

# 8. a layout the source does not hold is no SKIP line
"$PECHECK" check --impl rope-half --max-pos 300 $Q >"$tmp/o" 2>&1
! grep -q '^SKIP .*accuracy' "$tmp/o" && grep -q '^PASS .* accuracy \[half\]: .*(the source holds the half layout only: it declines interleaved)' "$tmp/o" \
    && ok "a half-only source: no SKIP line for interleaved; the half verdict says so" || nok "declined layout: $(grep accuracy "$tmp/o")"

# 9. JUnit: a plugin path gives no slash and no extra dot in the classname
mkdir -p "$tmp/sub.dir"
cp "$tmp/cos.npy" "$tmp/sub.dir/my.cache.npy"
"$PECHECK" check --table "$tmp/sub.dir/my.cache.npy" --table-sin "$tmp/sin.npy" --family rope --base 10000 \
    --format junit $Q >"$tmp/j.xml" 2>/dev/null
"$PY" - "$tmp/j.xml" <<'PY' && ok "JUnit classnames: pecheck.NAME.FAMILY, no path, no dot inside NAME" || nok "junit classnames"
import re, sys, xml.etree.ElementTree as ET
cls = {c.get("classname") for c in ET.parse(sys.argv[1]).getroot().findall(".//testcase")}
assert cls == {"pecheck.my_cache_npy.rope"}, cls
PY

# 10. TAP: data is a YAML mapping
"$PECHECK" check $B --base 10000 --property accuracy --format tap $Q >"$tmp/t.tap" 2>/dev/null
"$PY" - "$tmp/t.tap" <<'PY' && ok "TAP: the YAML block's data is a mapping (witness, params), not a string" || nok "tap data"
import sys, yaml
text = open(sys.argv[1]).read()
blocks = [b.split("\n  ...")[0] for b in text.split("\n  ---\n")[1:]]
docs = [yaml.safe_load(b) for b in blocks]
data = [d["data"] for d in docs if "data" in d]
assert data and all(isinstance(x, dict) for x in data), [type(x) for x in data]
assert docs[0]["data"]["worst"]["pos"] >= 0 and docs[0]["against"].startswith("base 10000")
PY

# 11. did you mean
"$PECHECK" check --imp rope-half 2>"$tmp/e1"; r1=$?
"$PECHECK" check --impl torch-expp 2>"$tmp/e2"; r2=$?
"$PECHECK" check --impl rope-half --property linear_shift 2>"$tmp/e3"; r3=$?
"$PECHECK" check --impl rope-half --family ropee 2>"$tmp/e4"; r4=$?
[ $r1$r2$r3$r4 = 2222 ] && grep -q 'unknown option --imp (did you mean --impl?)' "$tmp/e1" \
    && grep -q "unknown implementation 'torch-expp' (did you mean torch-exp?)" "$tmp/e2" \
    && grep -q "unknown property 'linear_shift' (did you mean linear-shift?)" "$tmp/e3" \
    && grep -q "got 'ropee' (did you mean rope?)" "$tmp/e4" \
    && ok "did you mean: options, implementations, properties, families" \
    || nok "did you mean: $r1$r2$r3$r4 $(cat "$tmp/e1" "$tmp/e2" "$tmp/e3" "$tmp/e4")"

# 12. explain fitted-model (a check of its own, not a property)
"$PECHECK" explain fitted-model >"$tmp/o" 2>&1 && grep -q '^fitted-model: ' "$tmp/o" && grep -q 'docs/fitted-model.md' "$tmp/o" \
    && "$PECHECK" explain fited-model 2>&1 | grep -q 'did you mean fitted-model?' \
    && ok "explain fitted-model describes it; a misspelling is suggested" || nok "explain: $(head -3 "$tmp/o")"

# 13. a config's bad value names the file and the key
echo '{"rope_theta": -10000, "head_dim": 64}' >"$tmp/neg.json"
"$PECHECK" check --impl rope-half --hf-config "$tmp/neg.json" --max-pos 10 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "$tmp/neg.json: rope_theta must be a finite number > 1, got -10000" "$tmp/e" \
    && ok "a negative rope_theta: exit 2 naming the file and the key" || nok "config error: $(cat "$tmp/e")"
echo '{"rope_theta": 10000, "head_dim": 64, "rope_scaling": {"rope_type": "linear", "factor": -2}}' >"$tmp/neg2.json"
"$PECHECK" check --impl rope-half --hf-config "$tmp/neg2.json" --max-pos 10 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "$tmp/neg2.json: rope_scaling.factor must be" "$tmp/e" \
    && ok "a bad rope_scaling value: exit 2 naming the file and the key" || nok "config error 2: $(cat "$tmp/e")"

# 14. the fitted model of a NaN cache says NaN
"$PECHECK" check --table "$tmp/cos_nan.npy" --table-sin "$tmp/sin_nan.npy" --family rope --base 10000 \
    --property accuracy $Q >"$tmp/o" 2>&1
grep -q '^FAIL .* fitted-model .*32 of 32 pairs hold NaN or Inf' "$tmp/o" && ! grep -q '922337203685477\|+nan' "$tmp/o" \
    && ok "a NaN cache's fitted model says NaN (no position 2^63 off, no +nan rad)" || nok "NaN fit: $(grep fitted-model "$tmp/o")"

# 15. rope-relative's norm cause has the sign of the cache's own norm error there
"$PECHECK" check $B --base 10000 --property rope-relative --tol-abs 1e-9 $Q >"$tmp/o" 2>&1
"$PY" - "$tmp/o" "$tmp/cos_bf.npy" "$tmp/sin_bf.npy" <<'PY' && ok "rope-relative's cause gives the norm error with its sign" || nok "sign: $(grep 'likely cause' "$tmp/o")"
import re, sys, numpy as np
m = re.search(r"the rotation at position (\d+) scales pair (\d+)'s norm by 1 ([-+][0-9.e-]+)", open(sys.argv[1]).read())
c, s = np.load(sys.argv[2]).astype(np.float64), np.load(sys.argv[3]).astype(np.float64)
p, i, said = int(m.group(1)), int(m.group(2)), float(m.group(3))
true = np.hypot(c[p, i], s[p, i]) - 1.0
assert np.sign(true) == np.sign(said) and abs(true - said) < 1e-3 * abs(true) + 1e-6, (true, said)
PY

# 16. exit 2 under --format junit: the command and its error
"$PECHECK" check --impl nope --format junit --output "$tmp/e.xml" 2>/dev/null
"$PY" - "$tmp/e.xml" <<'PY' && ok "exit 2, JUnit: classname pecheck.check, the error in the body" || nok "exit-2 junit"
import sys, xml.etree.ElementTree as ET
c = ET.parse(sys.argv[1]).getroot().find(".//testcase")
e = c.find("error")
assert c.get("classname") == "pecheck.check" and c.get("name") == "run (exit 2)", c.attrib
assert e.text.startswith("pecheck check exited 2: unknown implementation 'nope'"), e.text
PY

# 17. report: the spec's options (a scaled schedule: the precision model and plot 1's line the
# gate's), a user's table marked as such, its families' plots only
"$PY" - "$tmp" <<'PY'
import sys, numpy as np
d, n = 64, 512
t = np.arange(n, dtype=np.float64)[:, None]
w = 10000.0 ** (-np.arange(0, d, 2) / d) / 4.0          # linear scaling, factor 4
a = np.concatenate([t * w, t * w], axis=1)
np.save(sys.argv[1] + "/lcos.npy", np.cos(a).astype(np.float32)); np.save(sys.argv[1] + "/lsin.npy", np.sin(a).astype(np.float32))
PY
PECHECK_GNUPLOT=/nonexistent "$PECHECK" report --table "$tmp/lcos.npy" --table-sin "$tmp/lsin.npy" --base 10000 \
    --rope-scaling '{"rope_type":"linear","factor":4}' --out "$tmp/rep" --quiet >/dev/null 2>"$tmp/e"
rc=$?
"$PY" - "$tmp/rep" <<'PY' && [ $rc -eq 0 ] && ok "report: --rope-scaling is its reference (the scaled cache passes), the table is 'your table', only RoPE's plots" || nok "report: rc=$rc $(cat "$tmp/e")"
import json, sys
s = json.load(open(sys.argv[1] + "/summary.json"))
ri = s["implementations"][0]
assert ri["accuracy"]["status"] == "pass" and ri["fitted_model"]["status"] == "pass", ri["accuracy"]["status"]
assert ri["user_source"] is True and ri["documented_correct"] is False
assert [p["id"] for p in s["plots"]] == ["error_vs_position", "error_heatmap", "ulp_histogram", "rope_decay", "rope_shift"], [p["id"] for p in s["plots"]]
html = open(sys.argv[1] + "/index.html").read()
assert "your table" in html and 'id="t5_buckets"' not in html and 'name="viewport"' in html
# the Parameters say what the rows were checked against, and the gate covers every row of the table
assert "<tr><th>checked against</th><td>schedule linear" in html and "factor 4" in html, html[:200]
assert "<tr><th>accuracy gate positions</th><td>0..511 " in html
assert "<tr><th>base</th>" not in html
# the precision model and plot 1's line are the gate's, from its schedule
m = s["model"]
assert m["C_from"] == "the gates' schedules" and m["C"] == ri["accuracy"]["bound"]["C"], m
assert "from the schedule" in m["description"] and "from the schedules they were checked against" in html
PY

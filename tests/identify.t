#!/bin/sh
# identify.t: `pecheck identify` on synthetic caches of every schedule, made by
# `pecheck reference` (certified values; split by tests/lib/npy_pairs.py, standard
# library only).  For each: the base within 1e-3 relative, the schedule type and
# its parameters recovered; the identified rope_scaling, given back to `pecheck
# check`, passes the accuracy gate on the same cache.  The recovered-vs-true table
# is printed as TAP comments.  Also: bfloat16 storage found from the values, a
# position offset, the layout of built-ins, and bad input (exit 2).
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_tmp ident

PHI_SHORT='[1.0,1.0199999809265137,1.0299999713897705,1.0299999713897705,1.0499999523162842,1.0499999523162842,1.0499999523162842,1.0499999523162842,1.0499999523162842,1.0699999332427979,1.0999999046325684,1.1099998950958252,1.1599998474121094,1.1599998474121094,1.1699998378753662,1.2899998426437378,1.339999794960022,1.679999828338623,1.7899998426437378,1.8199998140335083,1.8499997854232788,1.8799997568130493,1.9099997282028198,1.9399996995925903,1.9899996519088745,2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0199997425079346,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0299997329711914,2.0799996852874756,2.0899996757507324,2.189999580383301,2.2199995517730713,2.5899994373321533,2.729999542236328,2.749999523162842,2.839999437332153]'
PHI_LONG='[1.0800000429153442,1.1100000143051147,1.1399999856948853,1.340000033378601,1.5899999141693115,1.600000023841858,1.6200000047683716,2.620000123977661,3.2300000190734863,3.2300000190734863,4.789999961853027,7.400000095367432,7.700000286102295,9.09000015258789,12.199999809265137,17.670000076293945,24.46000099182129,28.57000160217285,30.420001983642578,30.840002059936523,32.590003967285156,32.93000411987305,42.320003509521484,44.96000289916992,50.340003967285156,50.45000457763672,57.55000305175781,57.93000411987305,58.21000289916992,60.1400032043457,62.61000442504883,62.62000274658203,62.71000289916992,63.1400032043457,63.1400032043457,63.77000427246094,63.93000411987305,63.96000289916992,63.970001220703125,64.02999877929688,64.06999969482422,64.08000183105469,64.12000274658203,64.41000366210938,64.4800033569336,64.51000213623047,64.52999877929688,64.83999633789062]'
PHI="\"factor\":32,\"original_max_position_embeddings\":4096,\"short_factor\":$PHI_SHORT,\"long_factor\":$PHI_LONG"

# NAME D POSITIONS BASE ROPE_SCALING (none: the default schedule)
CASES="
default-1e4 128 4096 10000 none
default-5e5 64 8192 500000 none
default-1e6 128 8192 1000000 none
linear-x8 128 8192 10000 {\"rope_type\":\"linear\",\"factor\":8}
linear-x4-5e5 64 8192 500000 {\"rope_type\":\"linear\",\"factor\":4}
dynamic-x2-16k 128 16384 10000 {\"rope_type\":\"dynamic\",\"factor\":2,\"max_position_embeddings\":4096}
dynamic-x4-5e5 64 32768 500000 {\"rope_type\":\"dynamic\",\"factor\":4,\"max_position_embeddings\":8192}
yarn-qwen-x4 128 8192 1000000 {\"rope_type\":\"yarn\",\"factor\":4,\"original_max_position_embeddings\":32768}
yarn-x8-4k 128 8192 10000 {\"rope_type\":\"yarn\",\"factor\":8,\"original_max_position_embeddings\":4096}
yarn-betas-8-1 128 8192 10000 {\"rope_type\":\"yarn\",\"factor\":16,\"original_max_position_embeddings\":4096,\"beta_fast\":8,\"beta_slow\":1}
yarn-betas-1-1 128 8192 10000 {\"rope_type\":\"yarn\",\"factor\":32,\"original_max_position_embeddings\":4096,\"beta_fast\":1,\"beta_slow\":1}
yarn-att 128 8192 500000 {\"rope_type\":\"yarn\",\"factor\":16,\"original_max_position_embeddings\":8192,\"attention_factor\":1.25}
llama3-x8 128 65536 500000 {\"rope_type\":\"llama3\",\"factor\":8,\"low_freq_factor\":1,\"high_freq_factor\":4,\"original_max_position_embeddings\":8192}
llama3-x32 64 65536 500000 {\"rope_type\":\"llama3\",\"factor\":32,\"low_freq_factor\":1,\"high_freq_factor\":4,\"original_max_position_embeddings\":8192}
longrope-phi-long 96 8192 10000 {\"rope_type\":\"longrope\",$PHI}
longrope-phi-short 96 2048 10000 {\"rope_type\":\"longrope\",$PHI}
"

# gen DIR D N BASE RS [SCALE MODE]: the certified cache of positions 0..N-1
gen() {
    mkdir -p "$1"
    if [ "$5" = none ]; then set -- "$1" "$2" "$3" "$4" "" "${6:-1}" "${7:-}"; fi
    "$PECHECK" reference --family rope --d "$2" --base "$4" ${5:+--rope-scaling "$5"} \
        --positions 0:$(($3 - 1)) --out "$1/p.npy" --quiet &&
    "$PY" "$root/tests/lib/npy_pairs.py" "$1/p.npy" "$1/cos.npy" "$1/sin.npy" ${6:-1} ${7:-}
}

# compare TRUE_JSON ID_JSON BASE: base, type and parameters; one table line on stdout
cat >"$tmp/cmp.py" <<'PYEOF'
import json, sys
true_rs = None if sys.argv[1] == "none" else json.loads(sys.argv[1])
base = float(sys.argv[3])
r = json.load(open(sys.argv[2]))["results"][0]
got = r["rope_scaling"]
bad = []
if not r["found"]: bad.append("not found")
if not abs(r["rope_theta"] / base - 1) <= 1e-3: bad.append("base %r" % r["rope_theta"])
ttype = "default" if true_rs is None else true_rs["rope_type"]
if r["rope_type"] != ttype: bad.append("type %s" % r["rope_type"])
def close(a, b, rel=1e-6):
    return a is not None and abs(a - b) <= rel * abs(b)
for k, v in (true_rs or {}).items():
    if k == "rope_type" or (ttype == "longrope" and k in ("factor", "original_max_position_embeddings")):
        continue
    if k in ("short_factor", "long_factor"):
        want = v  # the factors in force: long above the original length
        continue
    if k == "attention_factor":
        if not close(r["attention_factor"], v): bad.append("attention %r" % r["attention_factor"])
    elif not (got and close(got.get(k), v)): bad.append("%s %r" % (k, got and got.get(k)))
if ttype == "longrope":
    want = true_rs["long_factor"] if int(sys.argv[4]) > 4096 else true_rs["short_factor"]
    fs = got and got.get("short_factor") or []
    if len(fs) != len(want) or any(not close(a, b) for a, b in zip(fs, want)):
        bad.append("factors")
params = "-" if got is None else ", ".join("%s %s" % (k, json.dumps(v) if not isinstance(v, list)
    else "%.4g..%.4g" % (v[0], v[-1])) for k, v in got.items() if k != "rope_type")
print("%-8s base %-12.9g (true %-8g) %s; A %.6g; %s" % (r["rope_type"], r["rope_theta"], base,
      params, r["attention_factor"], "ok" if not bad else "MISMATCH: " + "; ".join(bad)))
sys.exit(1 if bad else 0)
PYEOF

echo "$CASES" | while read -r name d len base rs; do
    [ -n "$name" ] || continue
    dir=$tmp/$name
    gen "$dir" "$d" "$len" "$base" "$rs" >"$dir.gen" 2>&1
    "$PECHECK" identify --table "$dir/cos.npy" --table-sin "$dir/sin.npy" --format json \
        >"$dir.json" 2>"$dir.err"
    rc=$?
    line=$("$PY" "$tmp/cmp.py" "$rs" "$dir.json" "$base" "$len" 2>&1)
    [ $rc -eq 0 ] && [ $? -eq 0 ]
    # (the line is recomputed so that its exit status counts)
    "$PY" "$tmp/cmp.py" "$rs" "$dir.json" "$base" "$len" >/dev/null 2>&1
    c=$?
    [ $rc -eq 0 ] && [ $c -eq 0 ]
    ok $? "$name: identify recovers base, type and parameters" "$dir.json"
    echo "# $name: $line"
    # the identified schedule, given back to check, passes on the same cache
    theta=$("$PY" -c 'import json,sys; print(repr(json.load(open(sys.argv[1]))["results"][0]["rope_theta"]))' "$dir.json")
    rsj=$("$PY" -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"][0]["rope_scaling"]; print(json.dumps(r) if r else "")' "$dir.json")
    "$PECHECK" check --table "$dir/cos.npy" --table-sin "$dir/sin.npy" --base "$theta" \
        ${rsj:+--rope-scaling "$rsj"} --property accuracy --layout half --quiet --regressions off >"$dir.check" 2>&1
    ok $? "$name: check with the identified rope_scaling passes" "$dir.check"
    # identify's check_args, as they are, make check pass
    "$PY" -c 'import json, subprocess, sys
a = json.load(open(sys.argv[1]))["results"][0]["check_args"]
sys.exit(subprocess.call([sys.argv[2], "check"] + a + ["--property", "accuracy", "--quiet",
     "--regressions", "off"], stdout=open(sys.argv[3], "w"), stderr=subprocess.STDOUT))' \
        "$dir.json" "$PECHECK" "$dir.check2"
    ok $? "$name: check with identify's check_args passes" "$dir.check2"
done >"$tmp/cases.tap"
cat "$tmp/cases.tap"
n=$((n + $(grep -c '^\(not \)\?ok' "$tmp/cases.tap")))
fails=$((fails + $(grep -c '^not ok' "$tmp/cases.tap")))

# bfloat16 values widened to float32: the storage is found from the values
gen "$tmp/bf" 128 8192 500000 none 1 bf16 >/dev/null 2>&1
"$PECHECK" identify --table "$tmp/bf/cos.npy" --table-sin "$tmp/bf/sin.npy" >"$tmp/out" 2>&1
[ $? -eq 0 ] && grep -q "storage: bf16" "$tmp/out" && grep -q "schedule: default, base 500000$" "$tmp/out"
ok $? "bfloat16 widened: storage bf16 and base 500000" "$tmp/out"

# rows of position p+3: the offset
mkdir -p "$tmp/off"
"$PECHECK" reference --family rope --d 64 --base 10000 --positions 3:4098 --out "$tmp/off/p.npy" --quiet &&
"$PY" "$root/tests/lib/npy_pairs.py" "$tmp/off/p.npy" "$tmp/off/cos.npy" "$tmp/off/sin.npy"
"$PECHECK" identify --table "$tmp/off/cos.npy" --table-sin "$tmp/off/sin.npy" >"$tmp/out" 2>&1
[ $? -eq 0 ] && grep -q "position offset: +3 (the rows are those of position p+3)" "$tmp/out"
ok $? "rows of p+3: position offset +3" "$tmp/out"
line=$(sed -n 's/^  check: //p' "$tmp/out")
case $line in *"--pos-start 3"*) eval "\"\$PECHECK\" ${line#pecheck } --property accuracy --quiet --regressions off" \
    >"$tmp/chk" 2>&1 ;; *) false ;; esac
ok $? "rows of p+3: identify's command line (--pos-start 3) passes check" "$tmp/chk"

# built-ins: the layout they accept, the schedule at the --base they are given
"$PECHECK" identify --impl rope-polar --base 500000 >"$tmp/out" 2>&1
[ $? -eq 0 ] && grep -q "layout: interleaved (the implementation declines half)" "$tmp/out" &&
    grep -q "schedule: default, base 500000$" "$tmp/out"
ok $? "rope-polar: interleaved, default base 500000" "$tmp/out"

# a scaled norm the schedule does not give: an attention factor, given
gen "$tmp/sc" 64 4096 10000 none 1.25 >/dev/null 2>&1
"$PECHECK" identify --table "$tmp/sc/cos.npy" --table-sin "$tmp/sc/sin.npy" >"$tmp/out" 2>&1
grep -q "attention factor: 1.25 (given: not the schedule's own)" "$tmp/out"
ok $? "a norm of 1.25 on a default cache: reported as an attention factor" "$tmp/out"

# bad input: exit 2 naming the problem, nothing on stdout
"$PECHECK" identify --impl txl-f32 >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && [ ! -s "$tmp/o" ] && grep -q "no family that identify takes provides it" "$tmp/e"
ok $? "a Transformer-XL source: exit 2" "$tmp/e"
"$PECHECK" identify --impl rope-half --family learned >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && [ ! -s "$tmp/o" ] && grep -q -- "--family learned takes a learned table" "$tmp/e"
ok $? "--family learned of a RoPE built-in: exit 2 naming what learned's identify takes" "$tmp/e"
"$PECHECK" identify --impl rope-half --family transformer-xl >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && [ ! -s "$tmp/o" ] && grep -q "identify takes" "$tmp/e"
ok $? "--family of no identify: exit 2 naming the families identify takes" "$tmp/e"
"$PECHECK" identify --impl rope-half --format tap >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && [ ! -s "$tmp/o" ] && grep -q "identify writes text or json" "$tmp/e"
ok $? "--format tap: exit 2" "$tmp/e"
"$PECHECK" identify --impl rope-half --positions 0:5 >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && [ ! -s "$tmp/o" ] && grep -q "cannot be fitted" "$tmp/e"
ok $? "6 positions: exit 2" "$tmp/e"

echo "1..$n"
[ "$fails" -eq 0 ]

#!/bin/bash
# `pecheck check --shard K/N` and `pecheck merge` of the N check shards: the
# merged result is the unsharded run's, bit for bit (JSON except "seconds",
# exit code), for passing and failing implementations, for a property that
# fails in one shard only (its shrunk counterexample included), and for
# --threads 1 and 2; merge refuses shards that are not those of one run, or
# whose numbers pecheck would not write.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
strip() { grep -v '"seconds"' "$1"; }

same_json() {
    if [ -s "$1" ] && [ -s "$2" ] && diff <(strip "$1") <(strip "$2") >"$tmp/diff"; then ok "$3"
    else nok "$3"; sed 's/^/# /' "$tmp/diff" | head -20; fi
}

# sharded N ARGS...: the N shards (run in reverse order, 2 threads) merged
# against the unsharded run (1 thread): exit code and JSON
sharded() {
    local N=$1; shift
    "$PECHECK" check "$@" --quiet --threads 1 --format json --output "$tmp/full.json" 2>/dev/null
    local rc0=$?
    local files=()
    for ((k = N; k >= 1; k--)); do
        "$PECHECK" check "$@" --quiet --threads 2 --shard "$k/$N" --output "$tmp/s$k.json"
        files+=("$tmp/s$k.json")
    done
    "$PECHECK" merge --format json --output "$tmp/merged.json" "${files[@]}" 2>/dev/null; local rc1=$?
    if [ $rc0 -eq $rc1 ]; then ok "merge exit $rc1 = unsharded exit: $N check shards of $*"
    else nok "merge exit $rc1, unsharded $rc0: $N check shards of $*"; fi
    same_json "$tmp/full.json" "$tmp/merged.json" "merged JSON = unsharded JSON: $N check shards of $*"
}

# refused WORD... -- FILES: merge exits 2 with one stderr line holding every WORD, no stdout
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

# forge IN OUT PYTHON: OUT is IN's JSON (as d) after the Python statement
forge() {
    /usr/bin/python3 - "$1" "$2" "$3" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
def slot(check): return [s for s in d["slots"] if s["check"] == check][0]
exec(sys.argv[3])
open(sys.argv[2], 'w').write(json.dumps(d, indent=2))
PY
}

echo "1..87"

# --threads 1 and 2: the same check, bit for bit
for impl in torch-exp rope-bf16-cache bf16-positions; do
    for t in 1 2; do
        "$PECHECK" check --impl "$impl" --max-pos 1500 --threads $t --quiet --format json --output "$tmp/t$t.json" 2>/dev/null
    done
    same_json "$tmp/t1.json" "$tmp/t2.json" "check --threads 1 = --threads 2 ($impl)"
done

sharded 3 --impl torch-exp --max-pos 3000                                 # pass
sharded 4 --impl bf16-positions --positions 100:2999                      # known bad: every check fails
sharded 2 --impl rope-polar --impl rope-bf16-cache --max-pos 1500         # RoPE: a declined layout, a fitted cause
sharded 3 --impl learned-clamp --impl attention-nocausal --causal         # contract gates; an existential property
sharded 8 --impl sin-only --max-pos 600 --cases 5                         # more shards than cases

# the fitted model: each shard writes the sums of its own blocks only, merge
# joins them and judges (a pass, the unwrap's integer turns crossing blocks
# and shards, an amplitude and a frequency failure)
fitted_slots() { # FILE: status and measured of every fitted-model verdict
    /usr/bin/python3 -c 'import json, sys
print(" ".join("%s:%r" % (v["status"], v["measured"]) for v in json.load(open(sys.argv[1]))["results"]
               if v["check"] == "fitted-model"))' "$1"; }
sharded 4 --impl bf16-positions --positions 100:2999 --property accuracy
/usr/bin/python3 - "$tmp" >"$tmp/py" <<'PY'
import json, sys
for k in (1, 2, 3, 4):
    d = json.load(open(f"{sys.argv[1]}/s{k}.json"))
    f = [s for s in d["slots"] if s["check"] == "fitted-model"][0]["fit"]
    lo, n = f["sums"]["start"], f["sums"]["count"]
    turns = sum(p["sm"] != "0" for p in f["sums"]["pairs"])
    print(lo, n, "turns" if turns else "none")
PY
if [ "$(tr '\n' ' ' <"$tmp/py")" = "100 768 none 868 768 turns 1636 768 turns 2404 596 turns " ]; then
    ok "fitted-model shards: each holds its own blocks' sums; the phase turns whole turns from shard 2 on"
else nok "fitted-model shards' sums: $(tr '\n' ' ' <"$tmp/py")"; fi
sharded 3 --impl plus-1e-4 --positions 2000000:2010000 --layout interleaved --property accuracy
[[ "$(fitted_slots "$tmp/merged.json")" == fail:* ]] && ok "plus-1e-4 at 2M: the merged fitted model fails" \
    || nok "plus-1e-4 at 2M: merged fitted model $(fitted_slots "$tmp/merged.json")"
sharded 2 --impl rope-ggml --strict --layout interleaved --property accuracy --max-pos 5000
[[ "$(fitted_slots "$tmp/merged.json")" == fail:* ]] && ok "rope-ggml --strict: the merged fitted model fails" \
    || nok "rope-ggml --strict: merged fitted model $(fitted_slots "$tmp/merged.json")"
mkdir -p "$tmp/fit"; cp "$tmp"/s[12].json "$tmp/fit/"
f1=$tmp/fit/s1.json; f2=$tmp/fit/s2.json
forge "$f2" "$tmp/x.json" 'slot("fitted-model")["fit"]["sums"]["pairs"][3]["sm"] = "12x"'
refused x.json fit.sm -- "$f1" "$tmp/x.json"
forge "$f2" "$tmp/x.json" 'slot("fitted-model")["fit"]["sums"]["count"] += 1'
refused x.json fit.sums.count -- "$f1" "$tmp/x.json"
forge "$f2" "$tmp/x.json" 'slot("fitted-model")["fit"]["sums"]["pairs"][0]["first"] = "0x1p+2"'
refused x.json fit.first -- "$f1" "$tmp/x.json"
forge "$f2" "$tmp/x.json" 'slot("fitted-model")["fit"]["omega"][5] = "0x1p-3"'
refused x.json fit.omega "not the run" -- "$f1" "$tmp/x.json"
forge "$f2" "$tmp/x.json" 'del slot("fitted-model")["fit"]["sums"]["pairs"][7]["zr"]'
refused x.json fit.zr -- "$f1" "$tmp/x.json"
forge "$f1" "$tmp/x.json" 'del slot("fitted-model")["fit"]'
refused x.json fit -- "$tmp/x.json" "$f2"

# a property that fails in one shard only: unique's first failing case is
# case 9, in shard 3 of 3; shards 1 and 2 pass, and shard 1 (the sweep's
# owner) finds a collision by its sweep, which the earlier case outranks
sharded 3 --impl bf16-positions --property unique --max-pos 700 --cases 12
/usr/bin/python3 - "$tmp" >"$tmp/py" <<'PY'
import json, sys
sp = [json.load(open(f"{sys.argv[1]}/s{k}.json"))["slots"][0]["split"] for k in (1, 2, 3)]
print(" ".join(str(s["failed_at"]) for s in sp), " ".join(str(s["sweep"]) for s in sp))
PY
if [ "$(cat "$tmp/py")" = "-1 -1 9 2 0 0" ]; then ok "unique fails in shard 3 only (case 9); shard 1's sweep found one"
else nok "unique's failures by shard: $(cat "$tmp/py")"; fi
if grep -q 'generated case 9' "$tmp/merged.json" && grep -q 'smallest counterexample' "$tmp/merged.json" \
   && grep -q '"status": "fail"' "$tmp/merged.json"; then ok "merged verdict: shard 3's case 9, shrunk"
else nok "merged verdict lacks shard 3's shrunk case 9"; fi
cp "$tmp"/s[123].json "$tmp/keep/" 2>/dev/null || { mkdir "$tmp/keep"; cp "$tmp"/s[123].json "$tmp/keep/"; }

# text and TAP: the same verdict lines as the unsharded run
"$PECHECK" check --impl bf16-positions --property unique --max-pos 700 --cases 12 --format tap >"$tmp/full.tap"
"$PECHECK" merge --format tap "$tmp"/keep/s*.json >"$tmp/merged.tap"
if diff "$tmp/full.tap" "$tmp/merged.tap" >/dev/null; then ok "merged TAP = unsharded TAP"
else nok "merged TAP differs"; fi

# validation: one run, every shard, numbers as pecheck writes them
k1=$tmp/keep/s1.json; k2=$tmp/keep/s2.json; k3=$tmp/keep/s3.json
refused "check shard 2/3 missing" -- "$k1" "$k3"
refused "given twice" -- "$k1" "$k1" "$k3"
"$PECHECK" check --impl bf16-positions --property unique --max-pos 700 --cases 12 --seed 7 --quiet --shard 2/3 --output "$tmp/seed7.json"
refused "not shards of one run" "options differ" -- "$k1" "$tmp/seed7.json" "$k3"
"$PECHECK" accuracy --impl torch-exp --max-pos 600 --quiet --shard 2/3 --format json --output "$tmp/acc.json"
refused "check shard" -- "$k1" "$tmp/acc.json" "$k3"
forge "$k3" "$tmp/x.json" 'slot("unique")["split"]["failed_at"] = 2'
refused x.json failed_at -- "$k1" "$k2" "$tmp/x.json"
forge "$k2" "$tmp/x.json" 'slot("unique")["split"]["start"] = 3'
refused x.json split.start -- "$k1" "$tmp/x.json" "$k3"
forge "$k2" "$tmp/x.json" 'slot("unique")["split"]["sweep"] = 2'
refused x.json sweep -- "$k1" "$tmp/x.json" "$k3"
forge "$k3" "$tmp/x.json" 'slot("unique")["verdict"]["status"] = "pass"'
refused x.json verdict.status -- "$k1" "$k2" "$tmp/x.json"
forge "$k2" "$tmp/x.json" 'slot("unique")["split"]["total"] = 13'
refused x.json "number of cases" -- "$k1" "$tmp/x.json" "$k3"
forge "$k2" "$tmp/x.json" 'slot("unique")["split"]["owner"] = 2'
refused x.json owner -- "$k1" "$tmp/x.json" "$k3"
forge "$k2" "$tmp/x.json" 'd["format"] = 1'
refused x.json "format 1" -- "$k1" "$tmp/x.json" "$k3"

# the accuracy slots keep the accuracy shards' validation, and a verdict
# every shard makes must be the same in all
for k in 1 2; do
    "$PECHECK" check --impl learned-clamp --impl torch-exp --max-pos 700 --quiet --shard $k/2 --output "$tmp/m$k.json"
done
forge "$tmp/m2.json" "$tmp/x.json" 'slot("accuracy")["accuracy"]["result"]["values"] += 128'
refused x.json values -- "$tmp/m1.json" "$tmp/x.json"
forge "$tmp/m2.json" "$tmp/x.json" 'slot("accuracy")["accuracy"]["result"]["status"] = "fail"'
refused x.json status -- "$tmp/m1.json" "$tmp/x.json"
forge "$tmp/m2.json" "$tmp/x.json" 'slot("lookup")["verdict"]["summary"] = "fine"'
refused m1.json x.json "slot 1" verdict -- "$tmp/m1.json" "$tmp/x.json"
"$PECHECK" merge "$tmp/m1.json" "$tmp/m2.json" >/dev/null 2>&1; rc=$?
[ $rc -eq 1 ] && ok "genuine shards of a failing run merge to exit 1" || nok "genuine merge: rc=$rc"

# plugin faults: the accuracy gate stops at the faulting block in one
# shard (crash: SIGSEGV at position 1000, in block 768..1023 of shard 2, its
# call of 768..1022;
# oob: a write outside OUT at the first call; error: an error from
# position 600 on, so shards 2 and 3 are declined at their first block),
# and the merged result is the unsharded run's, with no fitted-model
# verdict after a gate that faulted
for p in crash oob error; do
    cc -shared -fPIC -Iinclude tests/plugins/$p.c -o "$tmp/$p.so" -lm
done
sharded 2 --plugin "$tmp/oob.so" --max-pos 700 --cases 5
sharded 3 --plugin "$tmp/error.so" --max-pos 3000 --cases 5
sharded 3 --plugin "$tmp/crash.so" --max-pos 2000 --cases 20
/usr/bin/python3 - "$tmp/merged.json" >"$tmp/py" <<'PY'
import json, sys
r = json.load(open(sys.argv[1]))["results"]
acc = [v for v in r if v["check"] == "accuracy"]
print(len(acc), all(v["status"] == "fail" and "SIGSEGV" in v["summary"] and "pos=768..1022" in v["summary"]
                    for v in acc), sum(v["check"] == "fitted-model" for v in r))
PY
if [ "$(cat "$tmp/py")" = "2 True 0" ]; then ok "merged: both layouts fail naming the SIGSEGV at 768..1022, no fitted-model verdict"
else nok "merged crash verdicts: $(cat "$tmp/py")"; fi
cp "$tmp"/s[123].json "$tmp/keep/"
k1=$tmp/keep/s1.json; k2=$tmp/keep/s2.json; k3=$tmp/keep/s3.json
# forged fault records: off a block boundary, past the shard, in a shard
# whose status is pass, or disagreeing with the slot's "faulted"
acc='[s for s in d["slots"] if s["check"] == "accuracy"][0]["accuracy"]'
forge "$k2" "$tmp/x.json" "$acc[\"result\"][\"fault\"][\"start\"] = 1000"
refused x.json fault "block of the shard" -- "$k1" "$tmp/x.json" "$k3"
forge "$k2" "$tmp/x.json" "$acc[\"result\"][\"fault\"][\"start\"] = 1536"
refused x.json fault "block of the shard" -- "$k1" "$tmp/x.json" "$k3"
forge "$k2" "$tmp/x.json" "$acc[\"result\"][\"fault\"][\"start\"] = -256"
refused x.json fault.start -- "$k1" "$tmp/x.json" "$k3"
forge "$k2" "$tmp/x.json" "$acc[\"result\"][\"status\"] = \"pass\""
refused x.json fault status -- "$k1" "$tmp/x.json" "$k3"
forge "$k2" "$tmp/x.json" "$acc[\"faulted\"] = False"
refused x.json accuracy.faulted -- "$k1" "$tmp/x.json" "$k3"
forge "$k1" "$tmp/x.json" "$acc[\"result\"][\"fault\"] = {\"start\": 256}; $acc[\"result\"][\"status\"] = \"fail\"; $acc[\"result\"][\"note\"] = \"SIGSEGV\"; $acc[\"faulted\"] = True"
refused x.json values -- "$tmp/x.json" "$k2" "$k3"

# the regression file: a shard writes none (shards read it side by side);
# merge saves the failing case the unsharded run saves, to the same file
# (here reg, relative, in directories u and s), and a later run replays it
# first, sharded or not
PECHECK=$(realpath "$PECHECK") # the runs below change directory
regr() { # DIR ARGS...: pecheck in DIR with the regression file reg
    local dir=$1; shift
    (cd "$dir" && PECHECK_REGRESSIONS=reg "$PECHECK" "$@")
}
mkdir "$tmp/u" "$tmp/s"
A=(--impl bf16-positions --property unique --max-pos 700 --cases 12 --quiet)
for round in 1 2; do
    regr "$tmp/u" check "${A[@]}" --format json --output full.json >/dev/null 2>&1; rc0=$?
    for k in 3 2 1; do regr "$tmp/s" check "${A[@]}" --shard $k/3 --output s$k.json 2>/dev/null; done
    [ $round -eq 1 ] && { [ -e "$tmp/s/reg" ] && nok "a shard wrote the regression file" || ok "no shard wrote the regression file"; }
    regr "$tmp/s" merge --format json --output merged.json s1.json s2.json s3.json >/dev/null 2>&1; rc1=$?
    [ $rc0 -eq 1 ] && [ $rc1 -eq 1 ] && ok "round $round: merge exit 1 = unsharded exit" || nok "round $round: rc $rc0 vs $rc1"
    same_json "$tmp/u/full.json" "$tmp/s/merged.json" "round $round: merged JSON = unsharded JSON (the note names the file)"
    [ $round -eq 1 ] && grep -q 'case saved to reg' "$tmp/s/merged.json" && saved=1
    if [ -s "$tmp/u/reg" ] && cmp -s "$tmp/u/reg" "$tmp/s/reg"; then ok "round $round: merge's regression file = the unsharded run's"
    else nok "round $round: regression files differ"; diff "$tmp/u/reg" "$tmp/s/reg" | sed 's/^/# /'; fi
done
if [ "$(grep -c '^property=unique family=sinusoidal seed=0x' "$tmp/s/reg")" = 1 ] \
   && grep -q 'regression case 0' "$tmp/s/merged.json" && [ "${saved:-0}" = 1 ]; then
    ok "one line saved; round 2 replays it first (regression case 0)"
else nok "the saved case is not replayed"; fi
# a merge whose regression file is another: exit 2, nothing written
cp "$tmp/s/s1.json" "$tmp/s/s2.json" "$tmp/s/s3.json" "$tmp/"
(cd "$tmp/s" && rm -f reg && for k in 1 2 3; do PECHECK_REGRESSIONS=reg "$PECHECK" check "${A[@]}" --shard $k/3 --output s$k.json 2>/dev/null; done)
refused "regression file reg" "merge's is" -- --regressions "$tmp/s/other" "$tmp/s/s1.json" "$tmp/s/s2.json" "$tmp/s/s3.json"
[ -e "$tmp/s/other" ] || [ -e "$tmp/s/reg" ] && nok "a refused merge wrote a regression file" || ok "a refused merge wrote no regression file"
# forged: a case to save in a shard whose cases passed, another seed, none
# of pecheck's fields, shards that name different files
s1=$tmp/s/s1.json; s2=$tmp/s/s2.json; s3=$tmp/s/s3.json
forge "$s3" "$tmp/x.json" 'slot("unique")["split"]["save"]["seed"] = "12"'
refused x.json split.save.seed -- --regressions reg "$s1" "$s2" "$tmp/x.json"
forge "$s3" "$tmp/x.json" 'slot("unique")["split"]["save"]["d"] = 127'
refused x.json split.save -- --regressions reg "$s1" "$s2" "$tmp/x.json"
forge "$s3" "$tmp/x.json" 'del slot("unique")["split"]["save"]'
refused x.json split.save -- --regressions reg "$s1" "$s2" "$tmp/x.json"
forge "$s2" "$tmp/x.json" 'slot("unique")["split"]["save"] = {"impl": "bf16-positions", "seed": "1", "d": 128, "start": 0, "end": 700}'
refused x.json split.save "did not fail" -- --regressions reg "$s1" "$tmp/x.json" "$s3"
forge "$s2" "$tmp/x.json" 'd["run"]["regressions"] = "other"'
refused x.json run.regressions -- --regressions reg "$s1" "$tmp/x.json" "$s3"
# a regression file that cannot be written: the merged note says so, as the
# unsharded run's does
mkdir "$tmp/u/dir" "$tmp/s/dir"
(cd "$tmp/u" && "$PECHECK" check "${A[@]}" --regressions dir --format json --output full.json >/dev/null 2>&1)
(cd "$tmp/s" && for k in 1 2 3; do "$PECHECK" check "${A[@]}" --regressions dir --shard $k/3 --output s$k.json 2>/dev/null; done)
(cd "$tmp/s" && "$PECHECK" merge --regressions dir --format json --output merged.json s1.json s2.json s3.json >/dev/null 2>&1)
same_json "$tmp/u/full.json" "$tmp/s/merged.json" "a directory as regression file: merged JSON = unsharded JSON"
grep -q 'could not save the case' "$tmp/s/merged.json" && ok "merged note: could not save the case" || nok "merged note lacks 'could not save'"

# a plugin that hangs: a check shard in which a call timed out writes no
# file and exits 2 naming the plugin (its later calls are refused in that
# shard only)
cc -shared -fPIC -Iinclude tests/plugins/hang.c -o "$tmp/hang.so" -lm
"$PECHECK" check --plugin "$tmp/hang.so" --max-pos 700 --cases 3 --timeout-ms 300 --shard 2/2 \
    --output "$tmp/h2.json" >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "hang.so timed out" "$tmp/err" && grep -q "without --shard" "$tmp/err" \
   && [ ! -e "$tmp/h2.json" ] && [ ! -s "$tmp/out" ]; then ok "a shard whose plugin hung: exit 2, no file"
else nok "hung shard: rc=$rc $(cat "$tmp/err")"; fi

# a RoPE schedule in force: merge renders the verdict with a placeholder
# schedule (check_shard.c), which the witness' coordinate text must not read
sharded 2 --impl rope-half --rope-scaling '{"rope_type":"linear","factor":4}' --property accuracy --max-pos 3000

# rows of position ids over two axes (axial, a 32 x 32 grid): every shard's
# fitted-model slot holds the setup's note, which merge (no schedule of its
# own) reads back as the run's
/usr/bin/python3 - "$tmp" <<'END'
import sys, numpy as np
t = np.arange(1024)
ids = np.stack([t % 32, t // 32], 1).astype(np.int64)
w = 10000.0 ** (-np.arange(0, 32, 4, dtype=np.float64)[:8] / 32)   # each axis' 16 dims
ang = np.concatenate([ids[:, :1] * w, ids[:, 1:] * w], 1)
np.save(sys.argv[1] + "/ax_c.npy", np.cos(ang).astype(np.float32))
np.save(sys.argv[1] + "/ax_s.npy", np.sin(ang).astype(np.float32))
np.save(sys.argv[1] + "/ax_ids.npy", ids)
END
sharded 3 --table "$tmp/ax_c.npy" --table-sin "$tmp/ax_s.npy" --position-ids "$tmp/ax_ids.npy" \
    --base 10000 --rope-axes-dim 16,16 --layout interleaved --property accuracy

# real coordinates (float64 ids, a grid scaled by 0.75), checked at another
# base: the merged failure names the witness' coordinate as the unsharded
# one does (merge holds no schedule: the shard carries the text)
/usr/bin/python3 - "$tmp" <<'END'
import sys, numpy as np
t = np.arange(1024)
ids = np.stack([t % 32, t // 32], 1).astype(np.float64) * 0.75
w = 10000.0 ** (-np.arange(0, 32, 4, dtype=np.float64)[:8] / 32)
ang = np.concatenate([ids[:, :1] * w, ids[:, 1:] * w], 1)
np.save(sys.argv[1] + "/co_c.npy", np.cos(ang).astype(np.float32))
np.save(sys.argv[1] + "/co_s.npy", np.sin(ang).astype(np.float32))
np.save(sys.argv[1] + "/co_ids.npy", ids)
END
sharded 3 --table "$tmp/co_c.npy" --table-sin "$tmp/co_s.npy" --position-ids "$tmp/co_ids.npy" \
    --base 5000 --rope-axes-dim 16,16 --layout interleaved --property accuracy
grep -q "the pair's position" "$tmp/merged.json" && ok "merged coordinates' failure names the pair's position" \
    || nok "merged coordinates' failure lacks the pair's position"

# usage
"$PECHECK" check --impl torch-exp --shard 1/2 --format tap >"$tmp/out" 2>"$tmp/err"; rc=$?
if [ $rc -eq 2 ] && grep -q "shard" "$tmp/err" && [ ! -s "$tmp/out" ]; then ok "--shard with --format tap: exit 2"
else nok "--shard --format tap: rc=$rc $(cat "$tmp/err")"; fi

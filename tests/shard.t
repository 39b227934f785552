#!/bin/bash
# Threads, shards and `pecheck merge`: the result of the accuracy gate is the
# same bits (JSON, except "seconds") for any --threads N and for shards
# merged in any order; merge refuses files that are not the shards of one run.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
strip() { grep -v '"seconds"' "$1"; }

# same_json A B WHAT: identical except the timing field
same_json() {
    if [ -s "$1" ] && [ -s "$2" ] && diff <(strip "$1") <(strip "$2") >"$tmp/diff"; then ok "$3"
    else nok "$3"; sed 's/^/# /' "$tmp/diff" | head -20; fi
}

# sharded N RUNARGS...: run the N shards (reverse order), merge, compare with
# the unsharded run (JSON and exit code)
sharded() {
    local N=$1; shift
    "$PECHECK" accuracy "$@" --quiet --format json --output "$tmp/full.json"; local rc0=$?
    local files=()
    for ((k = N; k >= 1; k--)); do
        "$PECHECK" accuracy "$@" --quiet --shard "$k/$N" --threads 2 --format json --output "$tmp/s$k.json"
        files+=("$tmp/s$k.json")
    done
    "$PECHECK" merge --format json --output "$tmp/merged.json" "${files[@]}"; local rc1=$?
    if [ $rc0 -eq $rc1 ]; then ok "merge exit $rc1 = unsharded exit: $N shards of $*"
    else nok "merge exit $rc1, unsharded $rc0: $N shards of $*"; fi
    same_json "$tmp/full.json" "$tmp/merged.json" "merged JSON = unsharded JSON: $N shards of $*"
}

# expect_usage WORD ARGS...: exit 2, one stderr line containing WORD, no stdout
expect_usage() {
    local word=$1; shift
    "$PECHECK" "$@" >"$tmp/out" 2>"$tmp/err"; local rc=$?
    if [ $rc -eq 2 ] && [ "$(wc -l <"$tmp/err")" -eq 1 ] && grep -qi -- "$word" "$tmp/err" && [ ! -s "$tmp/out" ]; then
        ok "exit 2, one line naming '$word': pecheck ${*//$tmp\//}"
    else
        nok "pecheck $* -> rc=$rc, stderr: $(cat "$tmp/err")"
    fi
}

echo "1..37"

# --threads: 1, 2 and 5 give the same JSON
for impl in torch-exp rope-polar rotate-recurrence; do
    for t in 1 2 5; do
        "$PECHECK" accuracy --impl "$impl" --max-pos 3000 --threads $t --quiet --format json --output "$tmp/t$t.json"
    done
    same_json "$tmp/t1.json" "$tmp/t2.json" "--threads 1 = --threads 2 ($impl)"
    same_json "$tmp/t1.json" "$tmp/t5.json" "--threads 1 = --threads 5 ($impl)"
done

sharded 3 --impl torch-exp --max-pos 3000                         # pass
sharded 4 --impl plus-1e-4 --positions 1000:4999                  # fail, offset range
sharded 3 --impl rope-half --max-pos 2000                         # declines interleaved: retried half
sharded 5 --impl torch-exp --impl sin-only --max-pos 700          # two results; shards without blocks
cc -shared -fPIC -Iinclude tests/plugins/crash.c -o "$tmp/crash.so" -lm
sharded 3 --plugin "$tmp/crash.so" --max-pos 2000                 # a crash at position 1000 stops shard 2
cc -shared -fPIC -Iinclude tests/plugins/hang.c -o "$tmp/hang.so" -lm
sharded 2 --plugin "$tmp/hang.so" --max-pos 1000 --timeout-ms 300            # a time-out stops each shard

# the shard files say which shard they are; the merged file does not
if grep -q '"shard"' "$tmp/s1.json" && ! grep -q '"shard"' "$tmp/merged.json"; then ok "shard field only in shard files"
else nok "shard field only in shard files"; fi

# text verdict of a failing merge
"$PECHECK" accuracy --impl sin-only --max-pos 600 --quiet --shard 1/2 --format json --output "$tmp/a1.json"
"$PECHECK" accuracy --impl sin-only --max-pos 600 --quiet --shard 2/2 --format json --output "$tmp/a2.json"
"$PECHECK" merge "$tmp/a1.json" "$tmp/a2.json" >"$tmp/out"; rc=$?
if [ $rc -eq 1 ] && grep -q '^FAIL  sin-only' "$tmp/out"; then ok "merge text: FAIL verdict, exit 1"
else nok "merge text: rc=$rc $(head -1 "$tmp/out")"; fi

# a family's schedule (Llama 3.1's llama3, from its config): the merged
# text names it as the unsharded text does (its second line), the JSON too
C=$(dirname "$0")/data/configs/meta-llama--Llama-3.1-8B.json
L=(--impl rope-half --hf-config "$C" --max-pos 1023 --quiet)
"$PECHECK" accuracy "${L[@]}" >"$tmp/l.txt" 2>&1
for k in 1 2; do
    "$PECHECK" accuracy "${L[@]}" --shard $k/2 --format json --output "$tmp/l$k.json"
done
"$PECHECK" merge "$tmp/l1.json" "$tmp/l2.json" >"$tmp/lm.txt" 2>&1
if grep -q "^  schedule llama3, base 500000" "$tmp/l.txt" && diff "$tmp/l.txt" "$tmp/lm.txt" >"$tmp/diff"; then
    ok "merge text = unsharded text under a llama3 schedule, schedule line included"
else nok "merge text under llama3 differs:"; sed 's/^/# /' "$tmp/diff" | head -8; fi
"$PECHECK" merge --format json "$tmp/l1.json" "$tmp/l2.json" | grep -q '"schedule": "schedule llama3, base 500000'
[ $? -eq 0 ] && ok "merged JSON: params.schedule names llama3" || nok "merged JSON has no params.schedule"
"$PECHECK" accuracy --impl rope-half --base 500000 --max-pos 1023 --quiet --shard 2/2 --format json --output "$tmp/l2b.json"
expect_usage "schedule differs" merge "$tmp/l1.json" "$tmp/l2b.json"

# refusals
"$PECHECK" accuracy --impl sin-only --max-pos 600 --seed 7 --quiet --shard 2/2 --format json --output "$tmp/b2.json"
"$PECHECK" accuracy --impl sin-only --max-pos 600 --quiet --shard 2/3 --format json --output "$tmp/c2.json"
printf '{"tool": "pecheck", "version": ' >"$tmp/trunc.json"
expect_usage "shard" merge "$tmp/a1.json"
expect_usage "twice" merge "$tmp/a1.json" "$tmp/a1.json"
expect_usage "seed" merge "$tmp/a1.json" "$tmp/b2.json"
expect_usage "shard count" merge "$tmp/a1.json" "$tmp/c2.json"
expect_usage "invalid JSON" merge "$tmp/a1.json" "$tmp/trunc.json"
# a RoPE schedule in force (--rope-scaling): the merged JSON is the unsharded
# one's, its bound's C_formula (the schedule's kappa_i) included
sharded 2 --impl rope-half --rope-scaling '{"rope_type":"linear","factor":4}' --max-pos 1200
# a strict class the family computes (--formulation ggml: bound.formulation's
# kappa_i and k_i, no frequencies) on a YaRN schedule
sharded 2 --impl rope-ggml --rope-scaling '{"rope_type":"yarn","factor":4,"original_max_position_embeddings":4096}' --formulation ggml --positions 0:1199
# a shard written as text (no --format json): merge names the file and the fix
"$PECHECK" accuracy --impl torch-exp --max-pos 600 --shard 2/2 --output "$tmp/text2.txt" 2>/dev/null
expect_usage "text2.txt: not a shard file (not JSON): write each shard with --format json" merge "$tmp/a1.json" "$tmp/text2.txt"
expect_usage "cannot open" merge "$tmp/a1.json" "$tmp/missing.json"
expect_usage "shard files" merge
expect_usage "shard" accuracy --impl torch-exp --shard 4/3
expect_usage "shard" accuracy --impl torch-exp --shard 0/3

#!/bin/sh
# fitted_model.t: the fitted-model verdict of `pecheck check` (docs/fitted-model.md).
# Caches come from `pecheck reference` (split by tests/lib/npy_pairs.py, standard
# library only): a Llama-3 cache whose rows are those of position p+1 fails the
# fitted model at 1M and 2M positions, which names the offset; the correct cache
# passes; a cache with a scaled norm fails on its amplitude; plus-1e-4 fails at 2M
# on its amplitude; the correct built-ins pass at long context; ggml's cumulative
# product passes the default class and fails --strict, named.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_tmp fitm
RS='{"rope_type":"llama3","factor":8,"low_freq_factor":1,"high_freq_factor":4,"original_max_position_embeddings":8192}'

# cache P0 SHIFT SCALE: the certified Llama-3 cache of positions P0+SHIFT .. (4096 rows)
cache() {
    a=$(($1 + $2)); b=$(($1 + $2 + 4095))
    "$PECHECK" reference --family rope --d 128 --base 500000 --rope-scaling "$RS" \
        --positions $a:$b --out "$tmp/p.npy" --quiet &&
    "$PY" "$root/tests/lib/npy_pairs.py" "$tmp/p.npy" "$tmp/c.npy" "$tmp/s.npy" "$3"
}
# gate P0: check the cache as rows P0..
gate() {
    "$PECHECK" check --table "$tmp/c.npy" --table-sin "$tmp/s.npy" --pos-start "$1" --base 500000 \
        --rope-scaling "$RS" --property accuracy --layout half --quiet --regressions off >"$tmp/out" 2>&1
}

for p0 in 1048576 2097152; do
    cache $p0 0 1 && gate $p0
    ok $? "Llama-3 cache at $p0: passes accuracy and the fitted model" "$tmp/out"
    grep -q "PASS.*fitted-model \[half\]: frequency, phase offset, amplitude and DC offset of all 64 pairs" "$tmp/out"
    ok $? "  the fitted-model verdict is there and passes" "$tmp/out"
    cache $p0 1 1 && gate $p0
    [ $? -eq 1 ] && grep -q "FAIL.*fitted-model \[half\].*pair 0: phase offset +1 rad = +1 positions.*position p+1?" "$tmp/out"
    ok $? "rows of p+1 at $p0: the fitted model fails naming the offset" "$tmp/out"
done

cache 1048576 0 1.0001 && gate 1048576
[ $? -eq 1 ] && grep -q "FAIL.*fitted-model.*amplitude 1.0001.*scaled norm" "$tmp/out"
ok $? "a cache with norm 1.0001: fails on its amplitude, a scaled norm" "$tmp/out"

"$PECHECK" check --impl plus-1e-4 --positions 2000000:2004095 --layout interleaved --property accuracy \
    --quiet --regressions off >"$tmp/out" 2>&1
[ $? -eq 1 ] && grep -q "FAIL.*fitted-model.*amplitude" "$tmp/out"
ok $? "plus-1e-4 at 2M: the fitted model fails on the amplitude" "$tmp/out"

for impl in torch-exp torch-pow rope-half; do
    "$PECHECK" check --impl $impl --positions 2000000:2004095 --property accuracy --quiet \
        --regressions off >"$tmp/out" 2>&1
    [ $? -eq 0 ] && grep -q "PASS.*fitted-model" "$tmp/out"
    ok $? "$impl at 2M: passes the fitted model" "$tmp/out"
done

# ggml's cumulative product: inside the default class, outside --strict, named
"$PECHECK" check --impl rope-ggml --layout interleaved --property accuracy --quiet --regressions off \
    >"$tmp/out" 2>&1
grep -q "PASS.*fitted-model" "$tmp/out"
ok $? "rope-ggml: the fitted model passes the default class" "$tmp/out"
"$PECHECK" check --impl rope-ggml --layout interleaved --strict --property accuracy --quiet \
    --regressions off >"$tmp/out" 2>&1
grep -q "FAIL.*fitted-model.*frequency .* ulp above exact.*a cumulative-product schedule?" "$tmp/out"
ok $? "rope-ggml --strict: the fitted model fails, naming a cumulative-product schedule" "$tmp/out"

"$PECHECK" check --impl torch-exp --positions 0:4095 --tol-abs 1 --property accuracy --quiet \
    --regressions off >"$tmp/out" 2>&1
! grep -q "fitted-model" "$tmp/out"
ok $? "--tol-abs: no fitted model (the user's bound replaces the model)" "$tmp/out"

# the fitted model's seconds: its share of the one accuracy pass that made
# its sums (not 0; rope-polar declines the interleaved layout: 3 fits), so the summary line's total, the verdicts' sum, covers it
"$PECHECK" check --impl torch-exp --impl rope-polar --max-pos 40000 --property accuracy --format json \
    --quiet --regressions off >"$tmp/out" 2>&1
"$PY" -c 'import json, sys
r = json.load(open(sys.argv[1]))["results"]
fit = [v["seconds"] for v in r if v["check"] == "fitted-model"]
acc = [v["seconds"] for v in r if v["check"] == "accuracy" and v["status"] != "skip"]
sys.exit(not (len(fit) == 3 and len(acc) == 3 and all(s > 0 for s in fit + acc)))' "$tmp/out"
ok $? "the fitted-model verdicts carry their seconds (> 0), as the accuracy verdicts" "$tmp/out"

echo "1..$n"
[ "$fails" -eq 0 ]

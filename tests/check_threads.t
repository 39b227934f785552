#!/bin/bash
# `pecheck check` gives the same result for --threads 1 and 2 (the JSON
# with the seconds removed): the accuracy gate's one pass over both layouts,
# the unique property's sweep on threads (bf16-positions: collisions the
# sweep finds), failing and declining built-ins, and plugins (their calls
# in a fixed order); the fitted-model verdicts (their sums made by the same
# pass, exact per block: docs/fitted-model.md) are among those compared.
set -u
PECHECK=${PECHECK:-build/pecheck}
BUILD=${BUILD:-build}
export PECHECK_REGRESSIONS=off
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
cases=(
  "--impl torch-exp --d 64 --max-pos 20000"
  "--impl bf16-positions --d 32 --max-pos 20000"
  "--impl plus-1e-4 --d 32 --max-pos 3000"
  "--impl rope-half --d 64 --max-pos 3000"
  "--impl rotate-recurrence --d 16 --max-pos 70000"
  "--plugin $BUILD/examples/plugin_good.so --d 32 --max-pos 3000"
  "--plugin $BUILD/examples/plugin_good.so --d 64 --max-pos 9000 --property accuracy"
  "--impl rope-ggml --strict --d 64 --max-pos 9000 --property accuracy"
  "--impl torch-exp --d 32 --positions 16777000:16790000 --property accuracy"
)
echo "1..${#cases[@]}"
strip() { /usr/bin/python3 -c '
import json, sys
def s(o):
    if isinstance(o, dict): return {k: s(v) for k, v in o.items() if k != "seconds"}
    if isinstance(o, list): return [s(v) for v in o]
    return o
print(json.dumps(s(json.load(sys.stdin)), sort_keys=True))'; }
k=0
for c in "${cases[@]}"; do
    # shellcheck disable=SC2086
    "$PECHECK" check $c --threads 1 --format json --quiet 2>/dev/null | strip >"$tmp/t1"
    # shellcheck disable=SC2086
    "$PECHECK" check $c --threads 2 --format json --quiet 2>/dev/null | strip >"$tmp/t2"
    if [ -s "$tmp/t1" ] && cmp -s "$tmp/t1" "$tmp/t2" && grep -q '"fitted-model"' "$tmp/t1"; then
        echo "ok $((++k)) - check $c: the same result for 1 and 2 threads"
    else
        echo "not ok $((++k)) - check $c: 1 and 2 threads differ (or no result, or no fitted model)"
        diff <(tr ',' '\n' <"$tmp/t1") <(tr ',' '\n' <"$tmp/t2") | head -5 | sed 's/^/# /'
    fi
done

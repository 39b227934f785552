#!/bin/sh
# properties_bench.sh PECHECK [D...]: the property catalogue on the correct
# built-ins, 1000 cases per property, positions 0..131072 (the acceptance
# run of the property engine).  Prints one line per verdict (status, cases,
# seconds) from the JSON output, the accuracy gate and its fitted model left
# out; exit 1 if any check fails.
set -u
PECHECK=${1:?usage: properties_bench.sh PECHECK [D...]}
shift
DS=${*:-128 512}
CASES=${CASES:-1000}
MAXPOS=${MAXPOS:-131072}
export PECHECK_REGRESSIONS=off
# every property of each family (a property named for another family is
# refused with exit 2: "does not apply")
PROPS="--property all"
rc=0
for d in $DS; do
  for spec in "torch-exp sinusoidal interleaved" "torch-exp sinusoidal half" \
              "torch-pow sinusoidal interleaved" "double-angle sinusoidal interleaved" \
              "rope-polar rope interleaved" "rope-half rope half" \
              "learned-table learned -" "attention-f32 attention -"; do
    set -- $spec
    lay=""
    [ "$3" != "-" ] && lay="--layout $3"
    t0=$(date +%s.%N)
    out=$("$PECHECK" check --impl "$1" --family "$2" $lay --d "$d" --max-pos "$MAXPOS" \
          --cases "$CASES" $PROPS --format json --quiet)
    st=$?
    t1=$(date +%s.%N)
    [ $st -ne 0 ] && rc=1
    printf '%s\n' "$out" | /usr/bin/python3 -c '
import json, sys
d, impl, lay, wall = sys.argv[1:5]
r = json.load(sys.stdin)
for v in r["results"]:
    if v["check"] in ("accuracy", "fitted-model"): continue
    print("d=%-4s %-14s %-11s %-12s %-14s %-5s %7.2fs  %s" % (d, impl, v["family"], lay, v["check"],
          v["status"], v["seconds"], v["summary"][:90]))
print("d=%-4s %-14s total wall %.1fs (including the accuracy gate)" % (d, impl, float(wall)))
' "$d" "$1" "$3" "$(echo "$t1 - $t0" | bc)"
  done
done
exit $rc

#!/bin/sh
# report_schedule.t: the report's RoPE plots draw what the verdicts judged.
# A Llama 3.1 cache built by transformers' code (tests/lib/zoo_caches.py)
# and one of base 10000 (a wrong theta), each under --hf-config: plots 4
# (long-term decay) and 6 (shift invariance) compare each against the
# schedule its verdicts were checked against (llama3, base 500000), as
# their titles say.  The correct cache, whose verdicts pass, stays under
# the decay property's bound and near binary32 roundoff in plot 6; the
# wrong one, which fails, crosses the bound and sits far above.  Before,
# both plots used the report's default base 10000: the correct cache was
# drawn at 0.16 relative score error and the wrong one near the bound.
# The error scan covers the positions checked, and a heatmap cell no
# element falls in is no data.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp repsched
C=$root/tests/data/configs/meta-llama--Llama-3.1-8B.json
printf '%s ok float32 4096 %s\n%s base float32 4096 %s\n' "$C" "$tmp/ok" "$C" "$tmp/base" |
    "$PY" "$root/tests/lib/zoo_caches.py" - >"$tmp/gen.log" 2>&1
ok $? "build a correct and a wrong-theta Llama 3.1 cache with transformers' code" "$tmp/gen.log"

for v in ok base; do
    "$PECHECK" report --table "$tmp/$v/cos.npy" --table-sin "$tmp/$v/sin.npy" --hf-config "$C" \
        --out "$tmp/r-$v" >"$tmp/$v.log" 2>&1
    echo $? >"$tmp/$v.rc"
done
# the verdicts (summary.json) and the plots' data
verdict() { "$PY" -c 'import json,sys; d=json.load(open(sys.argv[1])); print(d["implementations"][0]["accuracy"]["status"])' "$tmp/r-$1/summary.json" 2>/dev/null; }
# plot 4: the largest |implementation - reference| / bound over r
decay_ratio() { awk 'NR > 1 && $4 != "NaN" { d = $4 - $2; if (d < 0) d = -d; r = d / $3; if (r > m) m = r } END { print m + 0 }' "$tmp/r-$1/rope_decay_impl.dat"; }
# plot 6: the largest relative score error
shift_max() { awk 'NR > 1 && $2 != "NaN" { if ($2 > m) m = $2 } END { print m + 0 }' "$tmp/r-$1/rope_shift.dat"; }

[ "$(cat "$tmp/ok.rc")" = 0 ] && [ "$(verdict ok)" = pass ] &&
    awk -v r="$(decay_ratio ok)" 'BEGIN { exit !(r <= 1) }' &&
    awk -v s="$(shift_max ok)" 'BEGIN { exit !(s < 2 ^ -16) }'
ok $? "the correct cache: accuracy passes, plot 4 within the decay bound ($(decay_ratio ok) of it), plot 6 at $(shift_max ok) (under 2^-16)" "$tmp/ok.log"
[ "$(verdict base)" = fail ] &&
    awk -v r="$(decay_ratio base)" 'BEGIN { exit !(r > 1) }' &&
    awk -v s="$(shift_max base)" 'BEGIN { exit !(s > 2 ^ -8) }'
ok $? "the wrong theta: accuracy fails, plot 4 crosses the decay bound ($(decay_ratio base) of it), plot 6 at $(shift_max base) (over 2^-8)" "$tmp/base.log"
grep -q 'sched = "schedule llama3, base 500000"' "$tmp/r-ok/rope_decay.gp" &&
    grep -q 'sched = "schedule llama3, base 500000"' "$tmp/r-ok/rope_shift.gp"
ok $? "plots 4 and 6 name the schedule they were drawn against (llama3, base 500000)" "$tmp/r-ok/rope_shift.gp"

# the error scan covers what was checked: a 4096-row table's report ends
# its bins at row 4095 (plot 1's axis ran to 131072); beside a built-in
# (which serves every position) the table's heatmap cells past its rows
# are no data (NaN), not the floor colour of an error of 0
last=$(tail -n 1 "$tmp/r-ok/error_vs_position.dat" | awk '{ print $2 }')
[ "$last" = 4095 ] && ! grep -q NaN "$tmp/r-ok/heatmap_worst.dat"
ok $? "a 4096-row table's scan ends at its last row (last bin ends at $last), every heatmap cell has data" "$tmp/r-ok/error_vs_position.dat"
"$PECHECK" report --impl rope-bf16-cache --table "$tmp/ok/cos.npy" --table-sin "$tmp/ok/sin.npy" \
    --base 500000 --out "$tmp/r-mix" >"$tmp/mix.log" 2>&1
"$PY" - "$tmp/r-mix" >"$tmp/mix.chk" 2>&1 <<'PY'
import sys, os
d = sys.argv[1]
bad = []
for name in ("heatmap_worst.dat", "heatmap_good.dat"):
    rows = [ln.split() for ln in open(os.path.join(d, name)).read().splitlines()[1:]]
    # the table's panel: cells of bins past its rows are NaN, every other has data
    past = [r for r in rows if int(r[1]) > 4095]
    within = [r for r in rows if int(r[2]) <= 4095]
    if all(r[4] == "NaN" for r in past) and past and all(r[4] != "NaN" for r in within):
        print("table panel:", name, len(past), "cells past row 4095 are NaN")
        sys.exit(0)
print("no panel with NaN past the table's rows")
sys.exit(1)
PY
ok $? "beside a built-in, the table's heatmap cells past its rows are no data (NaN)" "$tmp/mix.chk"

echo "1..$n"
[ "$fails" -eq 0 ]

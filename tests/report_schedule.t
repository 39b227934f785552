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

echo "1..$n"
[ "$fails" -eq 0 ]

#!/bin/bash
# Every property of the catalogue names a built-in that breaks it (the
# BROKEN BY column of `pecheck explain`, the live counterexample of
# `pecheck explain NAME`), and that built-in does fail that property.
set -u
PECHECK=${PECHECK:-build/pecheck}
export PECHECK_REGRESSIONS=off
. "$(dirname "$0")/lib/tap.bash"
"$PECHECK" explain >"$tmp/list" || { echo "1..1"; nok "pecheck explain lists the properties"; exit 0; }
awk '/^OTHER CHECK/ { exit } NR > 1 && NF >= 3 && $1 ~ /^[a-z0-9-]+$/ { print $1 }' "$tmp/list" >"$tmp/props"
"$PECHECK" list | awk 'NR > 1 { print $1 }' >"$tmp/builtins"
echo "1..$(( $(wc -l <"$tmp/props") + 2 ))"
[ "$(wc -l <"$tmp/props")" -ge 20 ] && ok "explain lists $(wc -l <"$tmp/props") properties" || nok "too few properties"
while read -r p; do
    # the column after FAMILIES: the first field that names a built-in (pecheck list)
    breaker=$(awk -v p="$p" '$1 == p' "$tmp/list" | tr -s ' ' '\n' | grep -x -F -f "$tmp/builtins" | head -1)
    if [ -z "$breaker" ]; then nok "$p: no built-in breaks it"; continue; fi
    "$PECHECK" check --impl "$breaker" --property "$p" --format json >"$tmp/r.json" 2>/dev/null
    if /usr/bin/python3 - "$tmp/r.json" "$p" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if any(r["check"] == sys.argv[2] and r["status"] == "fail" for r in d["results"]) else 1)
PY
    then ok "$p is broken by $breaker"; else nok "$p: $breaker does not fail it"; fi
done <"$tmp/props"
# the shift-invariance table of `explain rope-relative` is of the shrunk case's own rows m, n
"$PECHECK" explain rope-relative >"$tmp/rel" 2>&1
case_mn=$(grep -A1 'smallest counterexample' "$tmp/rel" | tail -1 | grep -o 'm = [0-9]*, n = [0-9]*')
table_mn=$(grep 'absolute offset s (' "$tmp/rel" | grep -o 'm = [0-9]*, n = [0-9]*')
[ -n "$case_mn" ] && [ "$case_mn" = "$table_mn" ] && ok "explain rope-relative: the table is of the case's $case_mn" \
    || nok "explain rope-relative: the case is '$case_mn', the table is headed '$table_mn'"

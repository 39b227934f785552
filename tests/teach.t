#!/bin/bash
# Every property of the catalogue names a built-in that breaks it by a
# conceptual mistake (the CONCEPTUAL BUG column of `pecheck explain`), and
# some a second one that breaks it by a precision mistake (PRECISION BUG);
# each built-in named does fail that property.
set -u
PECHECK=${PECHECK:-build/pecheck}
export PECHECK_REGRESSIONS=off
. "$(dirname "$0")/lib/tap.bash"
"$PECHECK" explain >"$tmp/list" || { echo "1..1"; nok "pecheck explain lists the properties"; exit 0; }
awk '/^OTHER CHECK/ { exit } NR > 1 && NF >= 3 && $1 ~ /^[a-z0-9-]+$/ { print $1 }' "$tmp/list" >"$tmp/props"
"$PECHECK" list | awk 'NR > 1 { print $1 }' >"$tmp/builtins"
echo "1..$(( 2 * $(wc -l <"$tmp/props") + 3 ))"
[ "$(wc -l <"$tmp/props")" -ge 20 ] && ok "explain lists $(wc -l <"$tmp/props") properties" || nok "too few properties"
while read -r p; do
    # the two columns after FAMILIES (17 + 1 + 24 + 1 characters in), 18 + 1 wide each
    row=$(awk -v p="$p" '$1 == p' "$tmp/list")
    concept=$(echo "${row:43:18}" | tr -d ' ')
    precision=$(echo "${row:62:18}" | tr -d ' ')
    grep -qx -F -e "$concept" "$tmp/builtins" || concept=""
    for breaker in "$concept" "$precision"; do
        if [ -z "$breaker" ]; then nok "$p: no built-in in its CONCEPTUAL BUG column"; continue; fi
        if [ "$breaker" = "-" ]; then ok "$p: no precision bug # SKIP no built-in loses precision there"; continue; fi
        grep -qx -F -e "$breaker" "$tmp/builtins" || { nok "$p: '$breaker' is no built-in"; continue; }
        "$PECHECK" check --impl "$breaker" --property "$p" --format json >"$tmp/r.json" 2>/dev/null
        if /usr/bin/python3 - "$tmp/r.json" "$p" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
sys.exit(0 if any(r["check"] == sys.argv[2] and r["status"] == "fail" for r in d["results"]) else 1)
PY
        then ok "$p is broken by $breaker"; else nok "$p: $breaker does not fail it"; fi
    done
done <"$tmp/props"
# the shift-invariance table of `explain rope-relative` is of the shrunk case's own rows m, n,
# in each of its two sections
"$PECHECK" explain rope-relative >"$tmp/rel" 2>&1
for kind in CONCEPTUAL PRECISION; do
    awk -v k="$kind" '/^A [A-Z]+ MISTAKE THAT BREAKS IT/ { on = ($2 == k) } on' "$tmp/rel" >"$tmp/sec"
    case_mn=$(grep -A1 'smallest counterexample' "$tmp/sec" | tail -1 | grep -o 'm = [0-9]*, n = [0-9]*')
    table_mn=$(grep 'absolute offset s (' "$tmp/sec" | grep -o 'm = [0-9]*, n = [0-9]*')
    [ -n "$case_mn" ] && [ "$case_mn" = "$table_mn" ] && ok "explain rope-relative ($kind): the table is of the case's $case_mn" \
        || nok "explain rope-relative ($kind): the case is '$case_mn', the table is headed '$table_mn'"
done

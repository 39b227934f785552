#!/bin/bash
# `pecheck explain PROPERTY` shows two mistakes that break each property: a
# built-in whose idea is wrong (A CONCEPTUAL MISTAKE THAT BREAKS IT, with its
# flaw in words: "what is wrong: ...") and, where one exists, one whose idea
# is right but whose arithmetic is not precise enough (A PRECISION MISTAKE
# THAT BREAKS IT).  Each section is a FAIL of its own with its smallest
# counterexample and the property's math at that case; a property without a
# precision bug says so.  The new conceptual built-ins fail their property
# under `check` (exit 1) and `list` marks them known bad.
set -u
PECHECK=${PECHECK:-build/pecheck}
export PECHECK_REGRESSIONS=off
. "$(dirname "$0")/lib/tap.bash"
"$PECHECK" explain >"$tmp/list" || { echo "1..1"; nok "pecheck explain lists the properties"; exit 0; }
awk '/^OTHER CHECK/ { exit } NR > 1 && NF >= 3 { print $1 }' "$tmp/list" >"$tmp/props"
"$PECHECK" list >"$tmp/builtins"
np=$(wc -l <"$tmp/props")
echo "1..$(( 2 * np + 6 ))"

head -1 "$tmp/list" | grep -q 'CONCEPTUAL BUG.*PRECISION BUG' \
    && ok "the table has a column for each kind of mistake" || nok "header: $(head -1 "$tmp/list")"

# SECTION FILE KIND: the lines of FILE's section of KIND (CONCEPTUAL or PRECISION)
section() { awk -v k="$2" '/^A [A-Z]+ MISTAKE THAT BREAKS IT: / { on = ($2 == k) } /^\(no built-in breaks/ { on = 0 } on' "$1"; }

# KIND's section of P's lesson names IMPL and is a failure of its own, shrunk
# (accuracy, a whole check, shows its worst element instead), with the math
# at the smallest case; prints what is wrong
check_section() {
    local p=$1 kind=$2 impl=$3 f=$tmp/sec
    section "$tmp/o" "$kind" >"$f"
    head -1 "$f" | grep -q -F -x "A $kind MISTAKE THAT BREAKS IT: $impl" || { echo "no $kind section naming $impl"; return 1; }
    grep -q "^  FAIL  $impl " "$f" || { echo "no FAIL line of $impl"; return 1; }
    if [ "$p" = accuracy ]; then
        grep -q 'worst (largest err/bound): pos=' "$f" || { echo "no worst element"; return 1; }
        return 0
    fi
    grep -q "^    smallest counterexample (" "$f" || { echo "no smallest counterexample"; return 1; }
    [ "$(grep -c 'the math at this case: .* = ' "$f")" -eq 1 ] || { echo "no math line at the smallest case"; return 1; }
}

while read -r p; do
    row=$(awk -v p="$p" '$1 == p' "$tmp/list")
    concept=$(echo "${row:43:18}" | tr -d ' ')
    precision=$(echo "${row:62:18}" | tr -d ' ')
    "$PECHECK" explain "$p" >"$tmp/o" 2>&1; rc=$?
    why=$(check_section "$p" CONCEPTUAL "$concept")
    flaw=$(section "$tmp/o" CONCEPTUAL | sed -n 's/^  what is wrong: //p')
    if [ $rc -eq 0 ] && [ -z "$why" ] && [ "${#flaw}" -ge 20 ]; then
        ok "explain $p: the conceptual mistake $concept fails, shrunk, with the math and its flaw ('${flaw:0:40}...')"
    else nok "explain $p (rc $rc): conceptual $concept: ${why:-the flaw is not shown}"; fi
    if [ "$precision" = "-" ]; then
        grep -q '^(no built-in breaks this property by a precision mistake' "$tmp/o" && [ -z "$(section "$tmp/o" PRECISION)" ] \
            && ok "explain $p: no precision mistake, and it says so" || nok "explain $p: no precision built-in, but no note"
        continue
    fi
    why=$(check_section "$p" PRECISION "$precision")
    [ $rc -eq 0 ] && [ -z "$why" ] && ok "explain $p: the precision mistake $precision fails, shrunk, with the math" \
        || nok "explain $p (rc $rc): precision $precision: $why"
done <"$tmp/props"

# the flaw shown is the built-in's own: the accuracy gate prints the same one
"$PECHECK" explain rope-relative >"$tmp/o" 2>&1
shown=$(section "$tmp/o" CONCEPTUAL | sed -n 's/^  what is wrong: //p')
"$PECHECK" accuracy --impl rope-mixed-layout --max-pos 255 >"$tmp/a" 2>&1
gate=$(sed -n 's/^ *known flaw: //p' "$tmp/a" | head -1)
[ -n "$shown" ] && [ "$shown" = "$gate" ] && ok "the conceptual section shows the built-in's flaw" \
    || nok "flaw shown '$shown', the gate's '$gate'"

# the new conceptual built-ins: known bad in list, and `check` fails their property (exit 1)
for t in "ring-slot sinusoidal unique" "rope-mixed-layout rope rope-relative"; do
    set -- $t
    grep -q "^$1 .*$2 .*KNOWN BAD" "$tmp/builtins" \
        && "$PECHECK" check --impl "$1" --family "$2" --property "$3" --quiet >/dev/null 2>&1; rc=$?
    grep -q "^$1 .*KNOWN BAD" "$tmp/builtins" && [ $rc -eq 1 ] && ok "$1: known bad, and check --property $3 exits 1" \
        || nok "$1: list or check (rc $rc)"
done
"$PECHECK" check --impl rope-mixed-layout --family rope --property rope-norm --property decay --quiet >/dev/null 2>&1
[ $? -eq 1 ] && ok "rope-mixed-layout fails rope-norm and decay" || nok "rope-mixed-layout: rope-norm, decay"

# deterministic: the same lesson twice is the same text
"$PECHECK" explain unique >"$tmp/u1" 2>&1; "$PECHECK" explain unique >"$tmp/u2" 2>&1
cmp -s "$tmp/u1" "$tmp/u2" && ok "explain unique is the same text twice" || nok "explain unique differs between runs"

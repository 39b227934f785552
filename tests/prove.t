#!/bin/bash
# The Frama-C proof can fail: scripts/prove.sh --broken runs WP on the
# learned-table lookup with its bound check off by one (ACSL/broken/
# learned_table_le.sed: pos > 512 instead of pos >= 512), on the .npy
# table's row lookup accepting one row past the end (table_row_past_end.sed)
# and on the canary scan reading the last byte of OUT (canary_reads_out.sed),
# and must report an unproved goal for each, exit 1, and name the goals that
# catch the defects.  The full proof (about 2.5 minutes of CPU time, 4 to 14 minutes
# on a busy 2-core machine) is `make prove`, not part of `make check`.
# Also checks that the mutant really differs from the shipped source and that
# the shipped lookup itself is proved (one file, same settings).
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=${BUILD:-$ROOT/build}
n=0
ok()  { echo "ok $((++n)) - $*"; }
nok() { echo "not ok $((++n)) - $*"; }

for t in frama-c why3 z3 cvc4; do
    if ! command -v $t >/dev/null 2>&1; then
        echo "1..0 # SKIP $t not installed (Debian: frama-c-base why3 z3 cvc4; scripts/install-deps.sh)"
        exit 0
    fi
done
echo "1..7"
out="$BUILD/prove-test"
rm -rf "$out"; mkdir -p "$out"

PROVE_OUT="$out" PROVE_MUTANTS="learned_table_le table_row_past_end canary_reads_out" "$ROOT/scripts/prove.sh" --broken >"$out/broken.log" 2>&1
rc=$?
[ $rc -eq 1 ] && ok "prove.sh --broken exits 1 on the off-by-one lookups" \
              || nok "prove.sh --broken exit $rc, expected 1: $(tail -5 "$out/broken.log")"
grep -qE '^  WP broken/learned_table_le +[0-9]+ / [0-9]+ +goals .*UNPROVED' "$out/broken.log" \
    && ok "the mutant's WP run has an unproved goal" || nok "no UNPROVED line: $(tail -5 "$out/broken.log")"
grep -q 'lookup_loop_invariant_checked_preserved' "$out/broken.log" \
    && ok "the unproved goal is the lookup's 'checked' invariant" \
    || nok "expected goal lookup_loop_invariant_checked_preserved not reported"
grep -qE '^  WP broken/table_row_past_end +[0-9]+ / [0-9]+ +goals .*UNPROVED' "$out/broken.log" &&
    grep -q 'row_of_out_of_range_ensures_rejected' "$out/broken.log" \
    && ok "the .npy table mutant fails row_of's out_of_range behavior" \
    || nok "table_row_past_end: expected row_of_out_of_range_ensures_rejected unproved: $(grep table_row "$out/broken.log")"
grep -qE '^  WP broken/canary_reads_out +[0-9]+ / [0-9]+ +goals .*UNPROVED' "$out/broken.log" &&
    grep -q 'pc_canary_check_call_changed_bytes_2_requires_valid' "$out/broken.log" \
    && ok "the canary scan reading a byte of OUT fails its read precondition" \
    || nok "canary_reads_out: expected pc_canary_check_call_changed_bytes_2_requires_valid unproved: $(grep canary "$out/broken.log")"
mut="$out/broken/families/learned/learned_table_le.c"
{ [ ! -s "$mut" ] || cmp -s "$ROOT/families/learned/learned_table.c" "$mut"; } \
    && nok "mutant missing or identical to families/learned/learned_table.c" \
    || ok "mutant differs from families/learned/learned_table.c ($(diff "$ROOT/families/learned/learned_table.c" "$mut" | grep -c '^>') line changed)"
# The shipped lookup, same settings (prove.sh's step limits, not a clock).
PROVE_OUT="$out/shipped" PROVE_UNITS="families/learned/learned_table.c:lookup" "$ROOT/scripts/prove.sh" --wp-only \
    >"$out/shipped.log" 2>&1
rc=$?
line=$(grep -E '^  WP families/learned/learned_table.c ' "$out/shipped.log")
p=$(echo "$line" | awk '{print $3}'); t=$(echo "$line" | awk '{print $5}')
[ $rc -eq 0 ] && [ -n "$t" ] && [ "$t" -gt 0 ] && [ "$p" = "$t" ] && ok "shipped lookup: $p / $t goals proved" \
    || nok "shipped lookup: exit $rc, '$line' (see $out/shipped.log)"

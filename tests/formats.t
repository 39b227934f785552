#!/bin/bash
# The table of formats (harness/formats/format.c): every format of the table works in
# every command that reports verdicts (check, accuracy, merge), and the gate's
# result is one model: `accuracy --format json` holds the same fields as the
# "data" of check's accuracy verdict; TAP and JUnit of `accuracy` and `merge`
# are well formed and carry the verdict.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
ACC="--d 16 --max-pos 255 --quiet"

echo "1..7"

# the formats are the table's: an unknown one is named with the list
"$PECHECK" check --impl torch-exp --format yaml >"$tmp/o" 2>"$tmp/e"
[ $? -eq 2 ] && grep -q "expected text, json, tap or junit, got 'yaml'" "$tmp/e" \
    && ok "an unknown format is exit 2 naming the table's formats" || nok "yaml: $(cat "$tmp/e")"

# shards for merge
"$PECHECK" accuracy --impl sin-only --impl torch-exp $ACC --shard 1/2 --format json --output "$tmp/s1.json"
"$PECHECK" accuracy --impl sin-only --impl torch-exp $ACC --shard 2/2 --format json --output "$tmp/s2.json"

bad=""
for fmt in text json tap junit; do
    "$PECHECK" check --impl sin-only $ACC --cases 5 --regressions off --format $fmt >"$tmp/c.$fmt" 2>/dev/null
    [ $? -eq 1 ] && [ -s "$tmp/c.$fmt" ] || bad="$bad check/$fmt"
    "$PECHECK" accuracy --impl sin-only --impl torch-exp $ACC --format $fmt >"$tmp/a.$fmt" 2>/dev/null
    [ $? -eq 1 ] && [ -s "$tmp/a.$fmt" ] || bad="$bad accuracy/$fmt"
    "$PECHECK" merge --format $fmt "$tmp/s1.json" "$tmp/s2.json" >"$tmp/m.$fmt" 2>/dev/null
    [ $? -eq 1 ] && [ -s "$tmp/m.$fmt" ] || bad="$bad merge/$fmt"
done
[ -z "$bad" ] && ok "every format works in check, accuracy and merge (exit 1 on a failing run)" || nok "failed:$bad"

grep -q '^not ok 1 - sin-only sinusoidal accuracy \[interleaved\]$' "$tmp/a.tap" && grep -q '^ok 2 - torch-exp sinusoidal accuracy \[interleaved\]$' "$tmp/a.tap" \
    && grep -q '^1\.\.2$' "$tmp/a.tap" && ok "accuracy --format tap: one test point per implementation" || nok "tap: $(head -5 "$tmp/a.tap")"
# the same bytes but the time taken ("seconds": the shards' total)
secs='s/"seconds": [0-9.e+-]*//g'
cmp -s <(sed "$secs" "$tmp/a.tap") <(sed "$secs" "$tmp/m.tap") && ok "merge --format tap writes what the unsharded run writes" \
    || nok "merge tap differs: $(diff "$tmp/a.tap" "$tmp/m.tap" | head -5)"

python3 - "$tmp" <<'PY' && ok "accuracy and merge --format junit: well-formed XML, one testcase per implementation, sin-only failing" || nok "junit"
import sys, xml.etree.ElementTree as ET
for name in ("a.junit", "m.junit"):
    root = ET.parse(sys.argv[1] + "/" + name).getroot()
    cases = root.findall(".//testcase")
    fails = [c for c in cases if c.find("failure") is not None]
    assert root.get("tests") == "2" and len(cases) == 2, name
    assert len(fails) == 1, name
    assert [c.find("failure") is not None for c in cases] == [True, False], name
PY

# one result model: the gate's JSON is the data of check's accuracy verdict
"$PECHECK" accuracy --impl torch-exp $ACC --format json >"$tmp/one.json"
"$PECHECK" check --impl torch-exp $ACC --layout interleaved --property accuracy --regressions off --format json >"$tmp/chk.json"
python3 - "$tmp" <<'PY' && ok "accuracy --format json holds the fields of check's accuracy verdict (data)" || nok "gate json differs from check's data"
import json, sys
d = sys.argv[1]
one = json.load(open(d + "/one.json"))
chk = json.load(open(d + "/chk.json"))
data = [r for r in chk["results"] if r["check"] == "accuracy"][0]["data"]
for x in (one, data):
    x.pop("seconds", None)
one.pop("tool"); one.pop("version")
assert one == data, (sorted(one), sorted(data))
PY
python3 - "$tmp" <<'PY' && ok "accuracy --format json with two implementations: status and results" || nok "two-implementation json"
import json, sys
a = json.load(open(sys.argv[1] + "/a.json"))
assert a["tool"] == "pecheck" and a["status"] == "fail"
assert [r["implementation"] for r in a["results"]] == ["sin-only", "torch-exp"]
assert [r["status"] for r in a["results"]] == ["fail", "pass"]
PY

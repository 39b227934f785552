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

echo "1..14"

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

# TAP that prove reads: Debian 12's prove (Test::Harness 3.44) knows TAP 13
# and fails a run whose version line says 14, even a passing one.  A CI job
# runs pecheck outside any harness, where TAP_VERSION (Test::Harness's, for
# the tests it runs, this file too) is not set.
unset TAP_VERSION
PROVE="prove --exec cat"
"$PECHECK" check --impl torch-exp $ACC --cases 5 --regressions off --format tap --output "$tmp/pass.tap" 2>/dev/null
rc=$?
$PROVE "$tmp/pass.tap" >"$tmp/prove.pass" 2>&1
prc=$?
[ $rc -eq 0 ] && [ $prc -eq 0 ] && grep -q "^Result: PASS" "$tmp/prove.pass" && ! grep -q "Parse errors" "$tmp/prove.pass" \
    && ok "prove reads a passing run's TAP: Result: PASS" || nok "pass.tap (rc $rc, prove $prc): $(cat "$tmp/prove.pass")"
"$PECHECK" check --impl sin-only $ACC --cases 5 --regressions off --format tap --output "$tmp/fail.tap" 2>/dev/null
rc=$?
nfail=$(grep -c "^not ok " "$tmp/fail.tap")
ntests=$(grep -c "^\(not \)\?ok " "$tmp/fail.tap")
$PROVE "$tmp/fail.tap" >"$tmp/prove.fail" 2>&1
prc=$?
[ $rc -eq 1 ] && [ $prc -ne 0 ] && [ "$nfail" -ge 1 ] && grep -q "^Result: FAIL" "$tmp/prove.fail" \
    && grep -q "Failed $nfail/$ntests subtests" "$tmp/prove.fail" && ! grep -q "Parse errors" "$tmp/prove.fail" \
    && ok "prove reads a failing run's TAP: $nfail of $ntests failed, Result: FAIL, no parse error" \
    || nok "fail.tap (rc $rc, prove $prc): $(cat "$tmp/prove.fail")"
# a run that ends in an error (exit 2) still leaves a TAP file prove reads as failed
"$PECHECK" check --table "$tmp/absent.npy" --format tap --output "$tmp/err.tap" 2>/dev/null
rc=$?
$PROVE "$tmp/err.tap" >"$tmp/prove.err" 2>&1
prc=$?
[ $rc -eq 2 ] && [ $prc -ne 0 ] && grep -q "Failed 1/1 subtests" "$tmp/prove.err" && ! grep -q "Parse errors" "$tmp/prove.err" \
    && ok "prove reads an exit-2 run's TAP as one failed test" || nok "err.tap (rc $rc, prove $prc): $(cat "$tmp/prove.err")"
# the YAML diagnostics are YAML (TAP 13's blocks between '  ---' and '  ...')
python3 - "$tmp/fail.tap" "$tmp/err.tap" <<'PY' && ok "every YAML diagnostic block parses, with message, severity and seed" || nok "yaml"
import sys, yaml
for path in sys.argv[1:]:
    lines = open(path).read().splitlines()
    assert lines[0] == "TAP version 13", lines[0]
    blocks, i = 0, 0
    while "  ---" in lines[i:]:
        i = lines.index("  ---", i)
        j = lines.index("  ...", i)
        y = yaml.safe_load("\n".join(l[2:] for l in lines[i + 1:j]))
        assert isinstance(y, dict) and {"message", "severity", "seed"} <= set(y), y
        blocks, i = blocks + 1, j
    assert blocks == sum(l.startswith("not ok ") for l in lines), (path, blocks)
PY
# --tap-version 14: the same lines but the first; 13 is the default; nothing else taken
"$PECHECK" check --impl torch-exp $ACC --cases 5 --regressions off --format tap --tap-version 14 >"$tmp/v14.tap" 2>/dev/null
"$PECHECK" check --impl torch-exp $ACC --cases 5 --regressions off --format tap --tap-version 13 >"$tmp/v13.tap" 2>/dev/null
"$PECHECK" check --impl torch-exp $ACC --format json --tap-version 14 >/dev/null 2>"$tmp/e14"
rc=$?
"$PECHECK" check --impl torch-exp $ACC --format tap --tap-version 12 >/dev/null 2>"$tmp/e12"
rc12=$?
[ "$(head -1 "$tmp/v14.tap")" = "TAP version 14" ] && [ "$(head -1 "$tmp/pass.tap")" = "TAP version 13" ] \
    && cmp -s <(tail -n +2 "$tmp/v14.tap" | sed "$secs") <(tail -n +2 "$tmp/v13.tap" | sed "$secs") \
    && [ $rc -eq 2 ] && grep -q -- "--tap-version 14 applies to --format tap only" "$tmp/e14" \
    && [ $rc12 -eq 2 ] && grep -q -- "--tap-version: expected 13 or 14, got '12'" "$tmp/e12" \
    && ok "--tap-version 14 changes the version line only; 13 by default; without --format tap or not 13/14: exit 2" \
    || nok "tap-version: rc $rc $rc12 $(head -1 "$tmp/v14.tap") $(cat "$tmp/e14" "$tmp/e12")"

# JUnit that a consumer reads: junit-10.xsd's structure and required attributes
# (tests/lib/junit_check.py), for check, accuracy, merge and an exit-2 run
"$PECHECK" check --table "$tmp/absent.npy" --format junit --output "$tmp/err.junit" 2>/dev/null
JC="$(dirname "$0")/lib/junit_check.py"
python3 "$JC" "$tmp/c.junit" "$tmp/a.junit" "$tmp/m.junit" "$tmp/err.junit" >"$tmp/jc" 2>&1 \
    && { ! command -v xmllint >/dev/null || xmllint --noout "$tmp/c.junit" "$tmp/err.junit" 2>>"$tmp/jc"; } \
    && ok "JUnit of check, accuracy, merge and an exit-2 run: junit-10.xsd's elements, required attributes and counts" \
    || nok "junit: $(cat "$tmp/jc")"
# the checker itself refuses what the schema refuses
printf '<testsuites><testsuite name="x" tests="1" failures="0"><testcase/></testsuite></testsuites>' >"$tmp/bad.junit"
python3 "$JC" "$tmp/bad.junit" >"$tmp/jcb" 2>&1
[ $? -eq 1 ] && grep -q "lacks the required attribute errors" "$tmp/jcb" && grep -q "testcase> lacks the required attribute name" "$tmp/jcb" \
    && ok "junit_check refuses a testsuite without errors= and a testcase without name=" || nok "junit_check: $(cat "$tmp/jcb")"

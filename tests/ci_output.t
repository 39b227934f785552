#!/bin/bash
# What a CI log and a JUnit consumer see: every failure line starts with FAIL
# and the run ends with the list of what failed; with --output the text
# report goes to stderr too; JUnit test identities are unique; a run that
# ends in an error still writes its TAP or JUnit file; --property runs only
# the named properties (the gate only as "accuracy"), --replay one case;
# `accuracy --impl all` gates every built-in with certified rows.
set -u
PECHECK=${PECHECK:-build/pecheck}
. "$(dirname "$0")/lib/tap.bash"
Q="--d 16 --positions 0:600 --cases 10 --regressions off"

echo "1..16"

"$PECHECK" check --impl torch-exp --impl bf16-positions $Q >"$tmp/t" 2>/dev/null
rc=$?
"$PECHECK" check --impl torch-exp --impl bf16-positions $Q --format json >"$tmp/j" 2>/dev/null
nfail=$(python3 -c 'import json,sys; print(sum(r["status"]=="fail" for r in json.load(open(sys.argv[1]))["results"]))' "$tmp/j")
[ $rc -eq 1 ] && [ "$nfail" -ge 1 ] && [ "$(grep -c '^FAIL  ' "$tmp/t")" -eq "$nfail" ] \
    && ! grep -vqE '^(PASS  |SKIP  |FAIL  |    |failed \(|  [^ ]|[0-9]+ checks?: )' "$tmp/t" \
    && ok "every failure line starts with FAIL ($nfail), every other line is PASS, SKIP, details or the summary" \
    || nok "text lines: rc=$rc nfail=$nfail $(grep -vE '^(PASS|SKIP|FAIL|    )' "$tmp/t" | head -3)"

tail -n $((nfail + 2)) "$tmp/t" >"$tmp/tail"
[ "$(head -1 "$tmp/tail")" = "failed ($nfail):" ] && tail -1 "$tmp/tail" | grep -q "checks: .* $nfail failed" \
    && [ "$(grep -c '^  bf16-positions sinusoidal ' "$tmp/tail")" -eq "$nfail" ] \
    && ok "the run ends with the list of what failed, then the counts" || nok "short summary: $(cat "$tmp/tail")"

"$PECHECK" check --impl torch-exp --impl bf16-positions $Q --format junit --output "$tmp/j.xml" >"$tmp/o" 2>"$tmp/e"
rc=$?
[ $rc -eq 1 ] && [ ! -s "$tmp/o" ] && grep -q "^failed ($nfail):" "$tmp/e" && grep -q '^FAIL  bf16-positions' "$tmp/e" \
    && ok "--output j.xml: the text report goes to stderr (a CI log shows the failures), stdout stays empty" \
    || nok "--output: rc=$rc stdout=$(wc -c <"$tmp/o") stderr=$(head -3 "$tmp/e")"

python3 - "$tmp/j.xml" <<'PY' && ok "JUnit: (classname, name) unique, classname pecheck.IMPL.FAMILY" || nok "JUnit identities"
import sys, xml.etree.ElementTree as ET
cases = ET.parse(sys.argv[1]).getroot().findall(".//testcase")
pairs = [(c.get("classname"), c.get("name")) for c in cases]
assert len(cases) > 10 and len(set(pairs)) == len(pairs), pairs
assert all(c.startswith("pecheck.") for c, _ in pairs)
assert ("pecheck.bf16-positions.sinusoidal", "accuracy [interleaved]") in pairs
PY

"$PECHECK" check --impl torch-exp --impl torch-exp $Q --format junit >"$tmp/jj.xml" 2>/dev/null
python3 - "$tmp/jj.xml" <<'PY' && ok "JUnit: the same implementation twice gets distinct names (N)" || nok "repeat identities"
import sys, xml.etree.ElementTree as ET
pairs = [(c.get("classname"), c.get("name")) for c in ET.parse(sys.argv[1]).getroot().findall(".//testcase")]
assert len(set(pairs)) == len(pairs) and ("pecheck.torch-exp.sinusoidal", "accuracy [interleaved] (2)") in pairs, pairs
PY

# exit 2 still writes TAP / JUnit with one error case (JSON: no file)
"$PECHECK" check --plugin "$tmp/none.so" --format junit --output "$tmp/err.xml" 2>/dev/null
rc=$?
python3 - "$tmp/err.xml" <<'PY' && [ $rc -eq 2 ] && ok "exit 2: the JUnit file holds one error test with the message" || nok "exit 2 junit: rc=$rc"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
errs = root.findall(".//error")
assert root.get("tests") == "1" and root.get("errors") == "1" and len(errs) == 1
assert "none.so" in errs[0].get("message")
PY
"$PECHECK" check --plugin "$tmp/none.so" --format tap --output "$tmp/err.tap" 2>/dev/null
rc=$?
[ $rc -eq 2 ] && grep -q '^1\.\.1$' "$tmp/err.tap" && grep -q '^not ok 1 - ' "$tmp/err.tap" && grep -q 'severity: error' "$tmp/err.tap" \
    && ok "exit 2: the TAP file holds one failing test point, severity error" || nok "exit 2 tap: rc=$rc $(cat "$tmp/err.tap" 2>&1 | head -5)"
"$PECHECK" check --plugin "$tmp/none.so" --format json --output "$tmp/err.json" 2>/dev/null
[ ! -e "$tmp/err.json" ] && ok "exit 2 with --format json writes no file" || nok "a JSON file was written on exit 2"

# the same for accuracy and merge
"$PECHECK" accuracy --plugin "$tmp/none.so" --format junit --output "$tmp/acc.xml" 2>/dev/null
rc=$?
python3 - "$tmp/acc.xml" <<'PY' && [ $rc -eq 2 ] && ok "accuracy, exit 2: the JUnit file holds one error test naming the command and the error" || nok "accuracy exit 2 junit: rc=$rc"
import sys, xml.etree.ElementTree as ET
root = ET.parse(sys.argv[1]).getroot()
errs = root.findall(".//error")
assert root.get("errors") == "1" and len(errs) == 1 and "none.so" in errs[0].get("message")
case = root.find(".//testcase")
assert case.get("classname") == "pecheck.accuracy" and case.get("name") == "run (exit 2)", case.attrib
assert errs[0].text.startswith("pecheck accuracy exited 2: ") and "seed" not in errs[0].text, errs[0].text
PY
echo '{"tool": "pecheck"}' >"$tmp/bad.json"
"$PECHECK" merge --format tap --output "$tmp/merge.tap" "$tmp/bad.json" 2>/dev/null
rc=$?
[ $rc -eq 2 ] && grep -q '^not ok 1 - pecheck merge run$' "$tmp/merge.tap" && grep -q 'bad.json' "$tmp/merge.tap" \
    && ok "merge, exit 2: the TAP file holds one failing test point naming the shard" || nok "merge exit 2 tap: rc=$rc $(head -5 "$tmp/merge.tap" 2>&1)"

# --quiet: one line per check; the run's seed once, each case seed once
"$PECHECK" check --impl torch-exp --impl bf16-positions $Q --quiet >"$tmp/q" 2>/dev/null
checks=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["results"]))' "$tmp/j")
[ "$(grep -c '^\(PASS\|SKIP\|FAIL\)  ' "$tmp/q")" -eq "$checks" ] && ! grep -q '^    ' "$tmp/q" \
    && ok "--quiet: one line per check ($checks), no details" || nok "--quiet: $(grep '^    ' "$tmp/q" | head -3)"
dups=$(grep -o 'seed: 0x[0-9a-f]*' "$tmp/t" | sort | uniq -d | wc -l)
! grep -q '(seed ' "$tmp/t" && [ "$dups" -eq 0 ] && tail -1 "$tmp/t" | grep -q '; seed 20260422$' \
    && ok "each seed printed once: case seeds in their failure, the run's seed on the last line" \
    || nok "seeds: dups=$dups $(grep '(seed ' "$tmp/t" | head -2) $(tail -1 "$tmp/t")"

# --property: only the named checks
"$PECHECK" check --impl cos-shifted $Q --property linear-shift --format json >"$tmp/p.json" 2>/dev/null
python3 -c 'import json,sys; r=json.load(open(sys.argv[1]))["results"]; assert [x["check"] for x in r] == ["linear-shift"], r' "$tmp/p.json" \
    && ok "--property linear-shift runs linear-shift only (no accuracy gate)" || nok "--property linear-shift: $(head -c 300 "$tmp/p.json")"
"$PECHECK" check --impl plus-1e-4 $Q --property accuracy --format json >"$tmp/a.json" 2>/dev/null
python3 -c '
import json,sys
r=json.load(open(sys.argv[1]))["results"]
assert [(x["check"], x["layout"]) for x in r] == [("accuracy", "interleaved"), ("fitted-model", "interleaved"),
    ("accuracy", "half"), ("fitted-model", "half")], r
assert all(x["measured_what"] == ("max |err|/bound" if x["check"] == "accuracy" else "max fitted/bound") for x in r)' "$tmp/a.json" \
    && ok "--property accuracy runs the gate (accuracy, fitted model) once per layout, nothing else" || nok "--property accuracy: $(head -c 300 "$tmp/a.json")"
seed=$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["results"][0]["data"]["case_seed"])' "$tmp/p.json")
"$PECHECK" check --impl cos-shifted $Q --property linear-shift --replay "$seed" >"$tmp/r" 2>/dev/null
[ "$(grep -c '^\(PASS\|FAIL\|SKIP\)  ' "$tmp/r")" -eq 1 ] && grep -q "(replay, run seed" "$tmp/r" && grep -q "^1 check: " "$tmp/r" \
    && ok "--replay reruns exactly the one case ($seed)" || nok "--replay: $(cat "$tmp/r" | head -5)"

# accuracy --impl all: every built-in with certified rows
"$PECHECK" accuracy --impl all --d 8 --max-pos 31 --quiet --format json >"$tmp/all.json" 2>"$tmp/e"
rc=$?
want=$("$PECHECK" list | awk '$2 == "sinusoidal" || $2 == "rope" {print $1}' | sort | tr '\n' ' ')
got=$(python3 -c 'import json,sys; print(" ".join(sorted(r["implementation"] for r in json.load(open(sys.argv[1]))["results"])))' "$tmp/all.json" 2>/dev/null)
[ $rc -eq 1 ] && [ "$got " = "$want" ] && ok "accuracy --impl all gates every sinusoidal and RoPE built-in (exit 1: the known-bad ones fail)" \
    || nok "accuracy --impl all: rc=$rc got='$got' want='$want' $(cat "$tmp/e")"

#!/bin/bash
# File names reach gnuplot, HTML and JSON only escaped, whatever bytes they
# hold.  A plugin and a table whose names carry a newline, a gnuplot shell
# escape (`!cmd`), a backquoted command, quotes and a byte that is not UTF-8:
# the report still builds, no command runs (no PWNED file), summary.json and
# `check --format json` are valid UTF-8 JSON (invalid bytes as \ufffd), and
# the HTML shows the name escaped.
set -u
PECHECK=${PECHECK:-build/pecheck}
BUILD=${BUILD:-build}
. "$(dirname "$0")/lib/tap.bash"

echo "1..10"
evil=$'evil\n!touch${IFS}PWNED\n`touch${IFS}PWNED2`\xff\'"<evil>'
cp "$BUILD/examples/plugin_good.so" "$tmp/$evil.so"
"$PECHECK" reference --family sinusoidal --d 16 --positions 0:63 --out "$tmp/$evil.npy" >/dev/null 2>&1

# valid_json FILE: strict UTF-8 and JSON; prints the names found
valid_json() {
    /usr/bin/python3 -c '
import json, sys
raw = open(sys.argv[1], "rb").read()
d = json.loads(raw.decode("utf-8"))          # strict: fails on a bad byte
sys.exit(0 if "\\ufffd" in raw.decode("utf-8") or "\ufffd" in json.dumps(d, ensure_ascii=False) else 3)
' "$1"
}

cd "$tmp" || exit 1
# the plugin alone: its name is both panels' title of the heatmap (the string
# that a newline used to break out of)
"$PECHECK" report --plugin "./$evil.so" --out rep1 --quiet >out 2>err; rc=$?
[ $rc -eq 0 ] && [ -s rep1/index.html ] && ok "report with a hostile plugin name builds" \
    || nok "report plugin: rc=$rc $(cat err)"
# gnuplot runs in the report folder; the shell it would start, there too
pwned() { ls -d PWNED* rep*/PWNED* rep*.tmp.*/PWNED* 2>/dev/null | head -1; }
[ -n "$(pwned)" ] && nok "gnuplot ran a command: $(pwned)" || ok "no PWNED file: gnuplot ran nothing"
grep -q '<evil>' rep1/index.html && nok "raw <evil> in the HTML" || ok "HTML: the name's markup is escaped"
valid_json rep1/summary.json && ok "summary.json: valid UTF-8 JSON, the bad byte as \\ufffd" \
    || nok "summary.json not valid UTF-8 JSON"

"$PECHECK" report --table "./$evil.npy" --d 16 --max-pos 63 --out rep2 --quiet >out 2>err; rc=$?
[ $rc -eq 0 ] && [ -s rep2/index.html ] && ok "report with a hostile table name builds" \
    || nok "report table: rc=$rc $(cat err)"
[ -n "$(pwned)" ] && nok "gnuplot ran a command: $(pwned)" || ok "no PWNED file after the table report"

# gnuplot scripts: the names are single-quoted words without quotes or newlines
grep -h "^worst = \|^good = " rep1/error_heatmap.gp rep2/error_heatmap.gp 2>/dev/null >vars
if [ -s vars ] && ! grep -v "^[a-z]* = '[A-Za-z0-9._+:-]*'$" vars >/dev/null; then
    ok "gnuplot variables are plain single-quoted words"
else nok "gnuplot variables: $(cat vars)"; fi

"$PECHECK" check --plugin "./$evil.so" --family sinusoidal --cases 5 --max-pos 63 --quiet --format json >c.json; rc=$?
[ $rc -le 1 ] && valid_json c.json && ok "check --format json: valid UTF-8 JSON for a non-UTF-8 plugin path" \
    || nok "check json: rc=$rc"
"$PECHECK" accuracy --table "./$evil.npy" --d 16 --max-pos 63 --quiet --format json >a.json; rc=$?
[ $rc -le 1 ] && valid_json a.json && ok "accuracy --format json: valid UTF-8 JSON for a non-UTF-8 table path" \
    || nok "accuracy json: rc=$rc"
"$PECHECK" check --table "./$evil.npy" --d 16 --max-pos 63 --cases 5 --quiet --format tap >c.tap; rc=$?
grep -q '^!touch\|^`touch' c.tap && nok "TAP: the name's newline started a line" || ok "TAP: no line starts inside the name"

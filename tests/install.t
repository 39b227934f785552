#!/bin/bash
# `make install PREFIX=...` puts a working pecheck, the plugin header, the
# report's gnuplot scripts and the Python package under PREFIX (the README's
# bare `pecheck` examples use it); the prefix still works when moved, away
# from the source tree (the binary finds PREFIX/share/pecheck/ beside its
# own folder).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-$PWD/build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok()  { echo "ok $((++n)) - $*"; }
nok() { echo "not ok $((++n)) - $*"; }
echo "1..7"
if make -s install BUILD="$BUILD" PREFIX="$tmp/p" >"$tmp/log" 2>&1; then ok "make install PREFIX=..."; else nok "make install: $(tail -3 "$tmp/log")"; fi
"$tmp/p/bin/pecheck" list >"$tmp/list" 2>&1 && grep -q torch-exp "$tmp/list" \
    && ok "the installed pecheck runs (list)" || nok "installed pecheck: $(head -3 "$tmp/list")"
[ -f "$tmp/p/include/pecheck_plugin.h" ] && ok "the plugin header is installed" || nok "no header"
# without PECHECK: PREFIX/bin/pecheck beside PREFIX/share/pecheck/python
env -u PECHECK PATH=/usr/bin:/bin PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$tmp/p/share/pecheck/python" \
    /usr/bin/python3 -c 'import pecheck; print(pecheck.find_binary())' >"$tmp/py" 2>&1 \
    && [ "$(cat "$tmp/py")" = "$tmp/p/bin/pecheck" ] && ok "the installed Python package finds the prefix's binary" \
    || nok "python: $(cat "$tmp/py")"

# the prefix moved elsewhere, run from a folder with no reports/ of its own
# and without PECHECK_REPORTS: report finds its scripts through the binary
mv "$tmp/p" "$tmp/moved"
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && env -u PECHECK_REPORTS PECHECK_REGRESSIONS=off "$tmp/moved/bin/pecheck" report \
    --impl all --out "$tmp/cwd/r" >"$tmp/rep.log" 2>&1); rc=$?
[ $rc -eq 0 ] && [ -f "$tmp/cwd/r/index.html" ] && ok "the moved prefix's pecheck report is exit 0 and writes index.html" \
    || nok "report from the moved prefix: exit $rc: $(tail -3 "$tmp/rep.log")"
# every script of the source tree is in the report: reports/*.gp and the
# families' own plots (found in PREFIX/share/pecheck/families/)
missing=""
for f in reports/*.gp families/*/*.gp; do
    [ -f "$tmp/cwd/r/$(basename "$f")" ] || missing="$missing $f"
done
[ -z "$missing" ] && ok "the report holds every gnuplot script (reports/ and families/)" || nok "scripts missing from the report:$missing"
if command -v "${PECHECK_GNUPLOT:-gnuplot}" >/dev/null 2>&1; then
    bad=""
    for f in reports/*.gp families/*/*.gp; do
        png="$tmp/cwd/r/$(basename "$f" .gp).png"
        [ -s "$png" ] || bad="$bad $(basename "$png")"
    done
    [ -z "$bad" ] && ok "every plot is drawn from the moved prefix's scripts" || nok "plots not drawn:$bad"
else
    ok "# SKIP gnuplot not installed (the scripts are still found: the test above)"
fi

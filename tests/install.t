#!/bin/bash
# `make install PREFIX=...` puts a working pecheck, the plugin header and the
# Python package under PREFIX (the README's bare `pecheck` examples use it).
set -u
cd "$(dirname "$0")/.." || exit 1
BUILD=${BUILD:-$PWD/build}
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok()  { echo "ok $((++n)) - $*"; }
nok() { echo "not ok $((++n)) - $*"; }
echo "1..4"
if make -s install BUILD="$BUILD" PREFIX="$tmp/p" >"$tmp/log" 2>&1; then ok "make install PREFIX=..."; else nok "make install: $(tail -3 "$tmp/log")"; fi
"$tmp/p/bin/pecheck" list >"$tmp/list" 2>&1 && grep -q torch-exp "$tmp/list" \
    && ok "the installed pecheck runs (list)" || nok "installed pecheck: $(head -3 "$tmp/list")"
[ -f "$tmp/p/include/pecheck_plugin.h" ] && ok "the plugin header is installed" || nok "no header"
PECHECK="$tmp/p/bin/pecheck" PYTHONDONTWRITEBYTECODE=1 PYTHONPATH="$tmp/p/share/pecheck/python" \
    /usr/bin/python3 -c 'import pecheck; print(pecheck.find_binary())' >"$tmp/py" 2>&1 \
    && grep -q "$tmp/p/bin/pecheck" "$tmp/py" && ok "the installed Python package finds the binary" || nok "python: $(cat "$tmp/py")"

#!/bin/bash
# Regenerates every table and runs every case. usage: run_all.sh [OUTDIR] [PECHECK]
set -e
HERE=$(cd "$(dirname "$0")" && pwd)
OUT=${1:-/tmp/audit_blind2}; PC=${2:-$HERE/../../build/pecheck}
PY=${PYTHON:-/usr/bin/python3}
$PY "$HERE/gen_tables.py" "$OUT/t" >/dev/null
$PY "$HERE/gen_extra.py"  "$OUT/x" >/dev/null   # rewrites x/cases.tsv with the extra cases only
$PY "$HERE/gen_extra2.py" "$OUT/y" >/dev/null
for b in t x y; do "$HERE/run_cases.sh" "$PC" "$OUT/$b"; done

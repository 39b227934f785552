#!/bin/sh
# class_kappa.t: the phase constant of each tolerance class against the
# angles real code computes (scripts/class_kappa.py; docs/precision-model.md,
# "The constant of each class").  For every class (timesteps, min_timescale,
# M-RoPE, axial, yarn with and without truncation, llama3's band; HF's,
# diffusers', tensor2tensor's and llama.cpp's formulations) the measured
# k_i of every pair stays within pecheck's kappa_i, and the constant the
# script derives (the C code's formulas) is the C pecheck reports for a cache
# of the case.  The table of measures is printed as TAP comments.  Without
# torch: a visible skip.
set -u
here=$(cd "$(dirname "$0")" && pwd)
. "$here/lib/tap.sh"
tap_need_torch
tap_tmp kappa

PECHECK="$PECHECK" "$PY" "$root/scripts/class_kappa.py" >"$tmp/out" 2>&1
rc=$?
sed 's/^/# /' "$tmp/out"
ok $rc "every measured k_i within its class's kappa_i; pecheck's C is the derived one" "$tmp/out"
lines=$(grep -c ' | ' "$tmp/out")
[ "$lines" -ge 14 ]
ok $? "every class measured ($lines lines)" "$tmp/out"
! grep -q "MISMATCH\|no accuracy result\|no JSON" "$tmp/out"
ok $? "pecheck reported a C for every case it ran" "$tmp/out"
# a constant below the measure is caught: the axial class held to 2 (a
# pretended kappa under the measured 2.09) must fail the script's test
"$PY" - "$root/scripts" <<'PYEOF' >"$tmp/neg" 2>&1
import sys
sys.path.insert(0, sys.argv[1])
import class_kappa as ck
ck.c_pow = lambda base, dim, i: 2.0
sys.exit(0 if ck.main(["x", "axial-eva02-32,32"]) == 1 else 3)
PYEOF
ok $? "a kappa below the measured k fails the comparison" "$tmp/neg"
echo "1..$n"
[ "$fails" -eq 0 ]

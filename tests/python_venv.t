#!/bin/bash
# The Python package as a user installs it: a fresh virtualenv (with the
# system's numpy, torch and pytest: --system-site-packages), `pip install
# ./python` offline (--no-index: the build backend needs nothing from an
# index), then the whole pytest suite of tests/python against the installed
# package (PECHECK_TEST_INSTALLED=1: nothing from the checkout on sys.path,
# the pytest plugin loaded by its pytest11 entry point), and the `pecheck`
# console entry; the README's whole example run from a folder outside the
# checkout with no $PECHECK (the package finds the build/pecheck of the
# checkout it was installed from); then the wheel `make wheel` builds (the
# binary and the report's scripts bundled) in a second virtualenv, whose
# `pecheck report` works with no other pecheck anywhere; last, the package
# installed from a copy of the checkout without build/pecheck says to run
# make there.  Nothing is written into the checkout.
set -u
cd "$(dirname "$0")/.." || exit 1
PECHECK=$(cd "$(dirname "${PECHECK:-build/pecheck}")" && pwd)/$(basename "${PECHECK:-build/pecheck}")
PY=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok()  { echo "ok $((++n)) - $*"; }
nok() { echo "not ok $((++n)) - $*"; }
echo "1..8"
if ! $PY -c 'import venv, ensurepip, pytest, numpy' 2>/dev/null; then
    for i in 1 2 3 4 5 6 7 8; do echo "ok $i # SKIP python3-venv, python3-pytest or python3-numpy missing (scripts/install-deps.sh installs them)"; done
    exit 0
fi
export PYTHONDONTWRITEBYTECODE=1
$PY -m venv --system-site-packages "$tmp/venv" >"$tmp/venv.log" 2>&1 \
    && ok "python3 -m venv --system-site-packages" || nok "venv: $(tail -3 "$tmp/venv.log")"
if "$tmp/venv/bin/pip" install --no-index --no-cache-dir ./python >"$tmp/pip.log" 2>&1 \
    && "$tmp/venv/bin/pip" show pecheck 2>/dev/null | grep -q "^Location: $tmp/venv/"; then
    ok "pip install --no-index ./python (offline) installs pecheck into the virtualenv"
else
    nok "pip install ./python: $(tail -5 "$tmp/pip.log" | tr '\n' ' ')"
fi
# the console entry runs the binary; without one it says what to do (exit 2)
PECHECK="$PECHECK" "$tmp/venv/bin/pecheck" list >"$tmp/list" 2>&1 && grep -q torch-exp "$tmp/list" \
    && ok "the venv's pecheck command runs the binary (PECHECK)" || nok "console entry: $(head -3 "$tmp/list")"
# the README's whole example ("A whole example, which runs as it is from
# any folder"), from a folder outside the checkout, no $PECHECK, no pecheck
# on PATH: the binary is the checkout's build/pecheck, recorded at install
mkdir "$tmp/elsewhere"
$PY - README.md >"$tmp/elsewhere/example.py" <<'PY'
import sys
lines = open(sys.argv[1], encoding="utf-8").read().split("\n")
i = next(k for k, l in enumerate(lines) if "A whole example, which" in l)
while not lines[i].startswith("    "):
    i += 1
while i < len(lines) and (lines[i].startswith("    ") or lines[i] == ""):
    print(lines[i][4:])
    i += 1
PY
if ! $PY -c 'import torch' 2>/dev/null; then
    echo "ok $((++n)) # SKIP python3-torch missing (the README's example uses it)"
elif ! [ -x build/pecheck ]; then
    echo "ok $((++n)) # SKIP no build/pecheck in the checkout (make builds it)"
else
    (cd "$tmp/elsewhere" && env -u PECHECK PATH=/usr/bin:/bin "$tmp/venv/bin/python" example.py \
        >"$tmp/example.log" 2>&1 \
        && env -u PECHECK PATH=/usr/bin:/bin "$tmp/venv/bin/python" -c \
           'import pecheck; print("binary:", pecheck.find_binary())' >>"$tmp/example.log" 2>&1); rc=$?
    if [ $rc -eq 0 ] && grep -q "^pecheck: the RoPE cache fails" "$tmp/example.log" \
        && grep -q "^pecheck: the rotation apply_rotary_pos_emb (form 'q,k,cos,sin') passes" \
           "$tmp/example.log" \
        && grep -qx "binary: $PWD/build/pecheck" "$tmp/example.log"; then
        ok "the README's example runs from another folder with no PECHECK: the checkout's build/pecheck"
    else
        nok "README example from $tmp/elsewhere: exit $rc: $(tail -5 "$tmp/example.log" | tr '\n' ' ')"
    fi
fi
# the suite against the installed package, run from a folder outside the
# checkout (nothing of python/ importable from there)
tests=$PWD/tests/python
(cd "$tmp" && PECHECK="$PECHECK" PECHECK_TEST_INSTALLED=1 "$tmp/venv/bin/python" -m pytest -q \
    -p no:cacheprovider --basetemp="$tmp/pytest" --durations=5 "$tests" >"$tmp/pytest.log" 2>&1); rc=$?
if [ $rc -eq 0 ]; then
    ok "tests/python against the installed package: $(tail -1 "$tmp/pytest.log")"
    grep -A6 "slowest" "$tmp/pytest.log" | sed 's/^/# /'
else
    nok "tests/python against the installed package (exit $rc)"
    # on standard error too: prove (make check, CI) shows a test's stderr
    # but not its '#' lines, and a failure must say which test failed
    tail -40 "$tmp/pytest.log" | sed 's/^/# /' | tee /dev/stderr
fi

# the bundled wheel (what `make wheel` runs, into a folder of this test)
if $PY python/backend/pecheck_backend.py --bundle "$PECHECK" --out "$tmp/wheel" >"$tmp/wheel.log" 2>&1 \
    && $PY -m venv --system-site-packages "$tmp/venv2" >>"$tmp/wheel.log" 2>&1 \
    && "$tmp/venv2/bin/pip" install --no-index --no-cache-dir "$tmp"/wheel/pecheck-*.whl >>"$tmp/wheel.log" 2>&1 \
    && [ -x "$tmp"/venv2/lib/python3*/site-packages/pecheck/bin/pecheck ]; then
    ok "the bundled wheel installs the binary as pecheck/bin/pecheck"
else
    nok "bundled wheel: $(tail -5 "$tmp/wheel.log" | tr '\n' ' ')"
fi
mkdir "$tmp/cwd"
(cd "$tmp/cwd" && env -u PECHECK -u PECHECK_REPORTS PATH=/usr/bin:/bin PECHECK_REGRESSIONS=off \
    "$tmp/venv2/bin/pecheck" report --impl rope-half --out "$tmp/cwd/r" >"$tmp/rep.log" 2>&1); rc=$?
[ $rc -eq 0 ] && [ -f "$tmp/cwd/r/rope_decay.gp" ] && [ -f "$tmp/cwd/r/error_vs_position.gp" ] \
    && ok "the wheel's pecheck report finds its bundled scripts" \
    || nok "report from the wheel: exit $rc: $(tail -3 "$tmp/rep.log")"

# installed from a checkout (a copy of this one's python/, Makefile and
# plugin header) that has no build/pecheck: exit 2 saying to run make
# there; once it has one, that binary, from any folder
co="$tmp/checkout"
mkdir -p "$co/include" && cp Makefile "$co/" && cp include/pecheck_plugin.h "$co/include/" \
    && cp -r python "$co/python" && rm -rf "$co/python/pecheck/__pycache__"
"$tmp/venv/bin/pip" install --no-index --no-cache-dir --force-reinstall --no-deps "$co/python" \
    >"$tmp/pip2.log" 2>&1 || echo "# pip install $co/python: $(tail -3 "$tmp/pip2.log")"
(cd "$tmp/elsewhere" && env -u PECHECK PATH="$tmp/venv/bin:/usr/bin:/bin" "$tmp/venv/bin/pecheck" list \
    >"$tmp/none" 2>&1); rc=$?
mkdir "$co/build" && cp "$PECHECK" "$co/build/pecheck"
found=$(cd "$tmp/elsewhere" && env -u PECHECK PATH=/usr/bin:/bin "$tmp/venv/bin/python" -c \
        'import pecheck; print(pecheck.find_binary())' 2>&1)
if [ $rc -eq 2 ] && grep -q "binary not found: run \`make\` in $co, the checkout.*PECHECK" "$tmp/none" \
    && [ "$found" = "$co/build/pecheck" ]; then
    ok "installed from a checkout without build/pecheck: exit 2 saying to run make there; then its binary"
else
    nok "no binary: exit $rc: $(cat "$tmp/none"); then found: $found"
fi

#!/bin/bash
# The Python package as a user installs it: a fresh virtualenv (with the
# system's numpy, torch and pytest: --system-site-packages), `pip install
# ./python` offline (--no-index: the build backend needs nothing from an
# index), then the whole pytest suite of tests/python against the installed
# package (PECHECK_TEST_INSTALLED=1: nothing from the checkout on sys.path,
# the pytest plugin loaded by its pytest11 entry point), and the `pecheck`
# console entry; then the wheel `make wheel` builds (the binary and the
# report's scripts bundled) in a second virtualenv, whose `pecheck report`
# works with no other pecheck anywhere.  Nothing is written into the checkout.
set -u
cd "$(dirname "$0")/.." || exit 1
PECHECK=$(cd "$(dirname "${PECHECK:-build/pecheck}")" && pwd)/$(basename "${PECHECK:-build/pecheck}")
PY=/usr/bin/python3
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok()  { echo "ok $((++n)) - $*"; }
nok() { echo "not ok $((++n)) - $*"; }
echo "1..7"
if ! $PY -c 'import venv, ensurepip, pytest, numpy' 2>/dev/null; then
    for i in 1 2 3 4 5 6 7; do echo "ok $i # SKIP python3-venv, python3-pytest or python3-numpy missing (scripts/install-deps.sh installs them)"; done
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
env -u PECHECK PATH="$tmp/venv/bin:/usr/bin:/bin" "$tmp/venv/bin/pecheck" list >"$tmp/none" 2>&1; rc=$?
[ $rc -eq 2 ] && grep -q "binary not found.*PECHECK" "$tmp/none" \
    && ok "without a binary: exit 2 saying where it looks" || nok "no binary: exit $rc: $(cat "$tmp/none")"
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
    tail -40 "$tmp/pytest.log" | sed 's/^/# /'
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

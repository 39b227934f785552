#!/bin/sh
# The Python package (python/pecheck) under pytest, as one TAP test: a
# correct and a wrong cache, every accepted shape (tests/python/).
# The same suite runs in tests/python_venv.t against the package pip
# installs from these sources: where that test can run (python3-venv
# present), this one leaves the suite to it rather than run the same tests
# on the same code twice; PECHECK_PYTHON_CHECKOUT=1 runs it here anyway
# (the checkout's python/ on sys.path, the plugin from conftest.py).
PECHECK=${PECHECK:-build/pecheck}
export PECHECK
cd "$(dirname "$0")/.." || exit 1
echo "1..1"
if ! /usr/bin/python3 -c 'import pytest, numpy' 2>/dev/null; then
    echo "ok 1 # SKIP python3-pytest or python3-numpy missing (scripts/install-deps.sh installs them)"
    exit 0
fi
if [ "${PECHECK_PYTHON_CHECKOUT:-0}" != 1 ] && /usr/bin/python3 -c 'import venv, ensurepip' 2>/dev/null; then
    echo "ok 1 # SKIP the suite runs once, against the installed package: tests/python_venv.t (PECHECK_PYTHON_CHECKOUT=1 runs it here)"
    exit 0
fi
# a pytest folder of this run's own: pytest's default one is shared by every
# session of the user and keeps the newest three, so a session running beside
# this one (tests/python_venv.t under prove -j) could remove this one's files
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
out=$(PYTHONDONTWRITEBYTECODE=1 /usr/bin/python3 -m pytest -q -p no:cacheprovider \
      --basetemp="$tmp/pytest" tests/python 2>&1); rc=$?
if [ $rc -eq 0 ]; then
    echo "ok 1 - python/pecheck under pytest: $(printf '%s\n' "$out" | tail -1)"
else
    echo "not ok 1 - python/pecheck under pytest (exit $rc)"
    # on standard error too: prove (make check, CI) shows a test's stderr
    # but not its '#' lines, and a failure must say which test failed
    printf '%s\n' "$out" | tail -40 | sed 's/^/# /' | tee /dev/stderr
fi

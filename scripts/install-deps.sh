#!/bin/sh
# install-deps.sh: install the Debian packages a pecheck task needs, only
# those missing.  Idempotent: with everything present it prints one line.
#   scripts/install-deps.sh [demo|check|all]   install what is missing (default all)
#   scripts/install-deps.sh --check [SET]      list what is missing, exit 1 if any
#   scripts/install-deps.sh --list [SET]       print the packages of SET
# `make demo` asks for demo, `make check` for check, .ci/run for all.
# Off Debian (no dpkg-query/apt-get) it names the packages and exits 2:
# install their equivalents by hand and run make again (README, "Without Debian").
set -eu

# demo: build the MPFR reference (+GMP, MPFI for attention) and draw the
# report's plots (gnuplot)
DEMO="gcc make libmpfr-dev libgmp-dev libmpfi-dev gnuplot-nox"
# check: what tests/ use besides: prove (perl), PyYAML for TAP's YAML blocks,
# numpy/PyTorch/mpmath/pytest for the integration tests and the Python
# package, python3-venv for its install into a fresh virtualenv
# (tests/python_venv.t), Chromium for the report's browser test, Frama-C
# with its provers for tests/prove.t, time and bc for the benchmarks' scripts
CHECK="$DEMO perl time bc python3-yaml python3-numpy python3-torch python3-mpmath python3-pytest python3-venv chromium frama-c-base why3 z3 cvc4"
# all: CI adds clang (second compiler, libFuzzer with its runtime)
ALL="$CHECK clang libclang-rt-14-dev"

mode=install
case "${1:-}" in
    --check) mode=check; shift ;;
    --list) mode=list; shift ;;
esac
case "${1:-all}" in
    demo) want=$DEMO ;;
    check) want=$CHECK ;;
    all) want=$ALL ;;
    *) echo "install-deps: unknown set '$1' (expected demo, check or all)" >&2; exit 2 ;;
esac

if [ "$mode" = list ]; then echo "$want"; exit 0; fi
if ! command -v dpkg-query >/dev/null 2>&1; then
    echo "install-deps: no dpkg-query (not Debian): install the equivalents of: $want" >&2
    echo "install-deps: then build with 'make all' (README, \"Without Debian\")" >&2
    exit 2
fi

missing=""
for p in $want; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ "$mode" = check ]; then
    if [ -n "$missing" ]; then echo "missing:$missing"; exit 1; fi
    exit 0
fi
if [ -z "$missing" ]; then
    echo "install-deps: all Debian packages present"
    exit 0
fi
echo "install-deps: installing:$missing"
SUDO=""
if [ "$(id -u)" != 0 ]; then
    command -v sudo >/dev/null 2>&1 || { echo "install-deps: need root or sudo to install:$missing" >&2; exit 2; }
    SUDO=sudo
fi
command -v apt-get >/dev/null 2>&1 || { echo "install-deps: no apt-get: install by hand:$missing" >&2; exit 2; }
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
# Why3 must know the provers (Frama-C WP asks it); detect them once.
if command -v why3 >/dev/null 2>&1; then
    why3 config detect >/dev/null 2>&1 || why3 config --detect >/dev/null 2>&1 || true
fi
echo "install-deps: done"

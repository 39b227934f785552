#!/bin/sh
# install-deps.sh: install the Debian packages pecheck needs, only those
# missing.  Idempotent: with everything present it prints one line and exits.
#   scripts/install-deps.sh          install what is missing
#   scripts/install-deps.sh --check  list what is missing, exit 1 if any
set -eu

# build and core: the MPFR reference (+GMP), MPFI for the attention
# reference, perl for prove, time and bc for `make bench`
CORE="gcc make libmpfr-dev libgmp-dev libmpfi-dev perl time bc"
# reports (gnuplot), proofs (Frama-C WP + provers), integration tests
# (numpy, PyTorch, mpmath for independent test vectors), headless browser
# check of the HTML report, clang for libFuzzer, PyYAML to read TAP's YAML blocks
EXTRA="python3-yaml gnuplot-nox frama-c-base why3 z3 cvc4 python3-numpy python3-torch python3-mpmath chromium clang libclang-rt-14-dev"

missing=""
for p in $CORE $EXTRA; do
    dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q "install ok installed" || missing="$missing $p"
done

if [ "${1:-}" = "--check" ]; then
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
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
# shellcheck disable=SC2086
$SUDO apt-get install -y -qq --no-install-recommends $missing
# Why3 must know the provers (Frama-C WP asks it); detect them once.
if command -v why3 >/dev/null 2>&1; then
    why3 config detect >/dev/null 2>&1 || why3 config --detect >/dev/null 2>&1 || true
fi
echo "install-deps: done"

#!/bin/bash
# scripts/install-deps.sh on a fresh machine, simulated: shims for
# dpkg-query (nothing installed), apt-get (records what it would install)
# and id (root) show what `make demo`, `make check` and CI would install.
set -u
cd "$(dirname "$0")/.." || exit 1
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
n=0
ok()  { echo "ok $((++n)) - $*"; }
nok() { echo "not ok $((++n)) - $*"; }
mkdir -p "$tmp/bin"
printf '#!/bin/sh\nexit 1\n' >"$tmp/bin/dpkg-query"
printf '#!/bin/sh\necho "$@" >>"%s/apt.log"\n' "$tmp" >"$tmp/bin/apt-get"
printf '#!/bin/sh\necho 0\n' >"$tmp/bin/id"
chmod +x "$tmp/bin/"*

# installed SET: the packages apt-get was asked to install for SET
installed() {
    rm -f "$tmp/apt.log"
    PATH="$tmp/bin:$PATH" sh scripts/install-deps.sh "$1" >/dev/null 2>&1 || return 1
    grep '^install' "$tmp/apt.log" | tr ' ' '\n' | grep -v '^-' | grep -v '^install$' | sort
}

echo "1..6"
demo=$(installed demo)
if [ -n "$demo" ] && ! printf '%s\n' "$demo" | grep -qE '^(python3-torch|chromium|frama-c-base|clang|why3)$'; then
    ok "make demo installs only the demo's packages: $(echo $demo)"
else
    nok "demo set: $(echo $demo)"
fi
printf '%s\n' "$demo" | grep -qx libmpfr-dev && printf '%s\n' "$demo" | grep -qx gnuplot-nox \
    && ok "the demo's set has MPFR and gnuplot" || nok "demo set lacks MPFR or gnuplot"
check=$(installed check)
printf '%s\n' "$check" | grep -qx python3-pytest && printf '%s\n' "$check" | grep -qx frama-c-base \
    && ! printf '%s\n' "$check" | grep -qx clang \
    && ok "make check installs the tests' packages, not CI's clang" || nok "check set: $(echo $check)"
all=$(installed all)
printf '%s\n' "$all" | grep -qx clang && ok "CI's set adds clang" || nok "all set: $(echo $all)"
PATH="$tmp/bin:$PATH" sh scripts/install-deps.sh nosuch >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "unknown set" "$tmp/err" && ok "an unknown set is exit 2" || nok "unknown set: rc=$rc"
# off Debian: no dpkg-query on PATH at all
mkdir -p "$tmp/nodeb"; for t in sh grep cat echo; do ln -sf "$(command -v $t)" "$tmp/nodeb/$t"; done
PATH="$tmp/nodeb" sh scripts/install-deps.sh demo >/dev/null 2>"$tmp/err"; rc=$?
[ $rc -eq 2 ] && grep -q "not Debian" "$tmp/err" && ok "off Debian: exit 2 naming the packages" || nok "off Debian: rc=$rc $(cat "$tmp/err")"

# tap.sh: what the POSIX sh .t tests share, sourced as
#   here=$(cd "$(dirname "$0")" && pwd)
#   . "$here/lib/tap.sh"
# It sets root (the checkout), PECHECK (the binary; make check passes it),
# PY (the interpreter: $PYTHON, default Debian's), the counters n and fails,
# and defines ok, tap_tmp and tap_need_torch.  A test ends with
#   echo "1..$n"; [ "$fails" -eq 0 ]
root=$(dirname "$here")
PECHECK=${PECHECK:-$root/build/pecheck}
PY=${PYTHON:-/usr/bin/python3}
n=0
fails=0

ok() { # ok COND NAME [DIAG-FILE]: COND an exit status; the file's first lines on failure
    n=$((n + 1))
    if [ "$1" -eq 0 ]; then echo "ok $n - $2"; else
        echo "not ok $n - $2"; fails=$((fails + 1))
        [ -n "${3:-}" ] && [ -f "$3" ] && sed 's/^/#   /' "$3" | head -n 20
    fi
}

tap_tmp() { # tap_tmp NAME: tmp, a new folder pecheck-NAME.* removed at exit
    tmp=$(mktemp -d "${TMPDIR:-/tmp}/pecheck-$1.XXXXXX")
    trap 'rm -rf "$tmp"' EXIT
}

tap_need_torch() { # without an importable torch and numpy: the whole file a visible skip
    reason=$("$PY" -c 'import torch, numpy' 2>&1 | tail -n 1)
    if [ -n "$reason" ] || ! "$PY" -c 'import torch, numpy' >/dev/null 2>&1; then
        echo "1..0 # SKIP PyTorch not available: ${reason:-$PY cannot import torch}"
        exit 0
    fi
}

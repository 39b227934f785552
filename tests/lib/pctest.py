"""pctest.py: small TAP helpers shared by the Python .t tests of pecheck.

Every test prints "ok N - name" or "not ok N - name" plus "# " lines saying
why; done() prints the plan ("1..N") at the end and returns the exit status
(0 when every test passed).  The environment gives PECHECK (the binary) and
BUILD (the build folder), as `make check` sets them.
"""
import os
import subprocess
import sys

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
PECHECK = os.environ.get("PECHECK", os.path.join(ROOT, "build", "pecheck"))

_n = 0
_failed = 0


def ok(cond, name, why=""):
    """One TAP line; WHY (any text) is shown as '# ' lines on failure."""
    global _n, _failed
    _n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", _n, name))
    if not cond:
        _failed += 1
        for line in str(why).splitlines()[:40]:
            print("#   " + line)
    sys.stdout.flush()
    return cond


def run(args, timeout=120):
    """Run pecheck ARGS; returns (exit code, stdout, stderr, seconds)."""
    import time
    t0 = time.monotonic()
    p = subprocess.run([PECHECK] + list(args), stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       timeout=timeout)
    return p.returncode, p.stdout.decode("utf-8", "replace"), p.stderr.decode("utf-8", "replace"), \
        time.monotonic() - t0


def check_json(args):
    """Run `pecheck check ARGS --format json`: (exit code, the parsed
    document or None, the text to show when it is None)."""
    import json
    rc, out, err, _ = run(["check"] + list(args) + ["--format", "json"])
    try:
        return rc, json.loads(out), err
    except ValueError:
        return rc, None, out + err


def build_plugin(name, folder):
    """tests/plugins/NAME.c built with `cc -shared -fPIC` (or $CC) into
    FOLDER/NAME.so; its path."""
    out = os.path.join(folder, name + ".so")
    subprocess.run([os.environ.get("CC", "cc"), "-O1", "-shared", "-fPIC",
                    "-I" + os.path.join(ROOT, "include"),
                    os.path.join(ROOT, "tests", "plugins", name + ".c"), "-o", out, "-lm"],
                   check=False)
    return out


def no_seconds(x):
    """X (parsed JSON) without its "seconds" members, at any depth: what
    must be equal between runs that differ only in timing."""
    if isinstance(x, dict):
        return {k: no_seconds(v) for k, v in x.items() if k != "seconds"}
    if isinstance(x, list):
        return [no_seconds(v) for v in x]
    return x


def done():
    print("1..%d" % _n)
    return 1 if _failed else 0

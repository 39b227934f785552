"""Finding and running the pecheck binary, and the `pecheck` console entry."""
import os
import re
import subprocess
import sys

from . import _cleanup

# exit codes of every pecheck command (README "Exit codes")
EXIT_PASS, EXIT_FAIL, EXIT_INPUT, EXIT_INTERNAL = 0, 1, 2, 3

_HERE = os.path.dirname(os.path.abspath(__file__))

# Where a binary may lie, relative to this package's folder, after $PECHECK:
#   bin/pecheck                 a wheel of `make wheel` (bundled)
#   ../../build/pecheck         the source checkout (python/pecheck -> build/)
#   ../../../../bin/pecheck     `make install`: PREFIX/share/pecheck/python/pecheck -> PREFIX/bin
_BESIDE = (("bin", "pecheck"),
           (os.pardir, os.pardir, "build", "pecheck"),
           (os.pardir, os.pardir, os.pardir, os.pardir, "bin", "pecheck"))


def _recorded_checkout():
    """The checkout this installed package was built from (`pip install
    ./python` records it in pecheck/_checkout.py), or None."""
    try:
        from . import _checkout
    except ImportError:  # the package run from python/, a bundled wheel, make install
        return None
    return getattr(_checkout, "CHECKOUT", None)


class PecheckError(RuntimeError):
    """pecheck could not judge the input (exit 2 or 3), or could not be run:
    the message is pecheck's own, or says what is missing."""


def _is_elf(path):
    """True for an executable ELF file (not the Python console script that
    `pip install` puts on PATH under the same name)."""
    try:
        with open(path, "rb") as f:
            return f.read(4) == b"\x7fELF" and os.access(path, os.X_OK)
    except OSError:
        return False


def find_binary():
    """The pecheck binary: $PECHECK, else the one bundled in this package
    (a wheel of `make wheel`), the source checkout's build/pecheck (the
    package run from python/), an installed PREFIX/bin/pecheck beside
    PREFIX/share/pecheck/python, the build/pecheck of the checkout the
    package was installed from (`pip install ./python` records it), and
    last `pecheck` on PATH (an ELF binary, not this package's console entry).
    Raises PecheckError naming what to do when there is none."""
    env = os.environ.get("PECHECK")
    if env:
        if os.path.isdir(env) or not os.access(env, os.X_OK):
            raise PecheckError("PECHECK=%s: no executable there (unset it, or point it at the "
                               "pecheck binary)" % env)
        return os.path.abspath(env)  # the binary may run in another folder
    for parts in _BESIDE:
        cand = os.path.normpath(os.path.join(_HERE, *parts))
        if _is_elf(cand):
            return cand
    checkout = _recorded_checkout()
    if checkout and _is_elf(os.path.join(checkout, "build", "pecheck")):
        return os.path.join(checkout, "build", "pecheck")
    for folder in os.environ.get("PATH", "").split(os.pathsep):
        cand = os.path.join(folder or os.curdir, "pecheck")
        if _is_elf(cand):
            return cand
    built = ("run `make` in %s, the checkout this package was installed from (no build/pecheck "
             "there), " % checkout) if checkout else ""
    raise PecheckError("pecheck binary not found: %sset PECHECK=/path/to/pecheck, put it on PATH "
                       "(`make install PREFIX=...`), or install the wheel of `make wheel`, which "
                       "bundles it" % built)


class Running:
    """A pecheck run started by start(): finish() waits for it, cancel()
    stops it (a run whose result is no longer wanted)."""

    def __init__(self, binary, proc):
        self.binary, self.proc = binary, proc

    def finish(self):
        """(exit code, stdout, stderr) as text; exit codes other than pass
        and fail raise PecheckError with pecheck's message."""
        __tracebackhide__ = True
        try:
            out, err = self.proc.communicate()
        except BaseException:  # interrupted: no run outlives its caller (as subprocess.run)
            self.proc.kill()
            self.proc.wait()
            raise
        finally:
            _cleanup.drop_proc(self.proc)
        out = out.decode("utf-8", "replace")
        err = err.decode("utf-8", "replace").strip()
        if self.proc.returncode not in (EXIT_PASS, EXIT_FAIL):
            raise PecheckError("pecheck exited %d: %s" % (self.proc.returncode, err or "(no message)"))
        return self.proc.returncode, out, err

    def cancel(self):
        if self.proc.returncode is None:  # not finished: stopped and reaped
            self.proc.kill()
            self.proc.communicate()
        _cleanup.drop_proc(self.proc)


def start(args, cwd=None, pass_fds=()):
    """Start pecheck ARGS without waiting for it; returns its Running."""
    __tracebackhide__ = True
    binary = find_binary()
    try:
        proc = _cleanup.popen([binary] + list(args), stdout=subprocess.PIPE,  # killed on SIGTERM
                              stderr=subprocess.PIPE, cwd=cwd, pass_fds=tuple(pass_fds))
    except OSError as e:
        raise PecheckError("cannot run the pecheck binary %s: %s" % (binary, e)) from None
    return Running(binary, proc)


def run(args, cwd=None, pass_fds=()):
    """Run pecheck ARGS; returns (exit code, stdout, stderr) as text.  Exit
    codes other than pass and fail raise PecheckError with pecheck's message."""
    __tracebackhide__ = True
    return start(args, cwd, pass_fds).finish()


_HELP_CACHE = {}


def check_options():
    """{option name without dashes: its argument's name ('' for a flag)} of
    `pecheck check`, read from `pecheck help check` (cached per binary), so
    that keyword arguments follow the CLI's options as the binary has them."""
    binary = find_binary()
    if binary not in _HELP_CACHE:
        proc = subprocess.run([binary, "help", "check"], stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, check=False)
        opts = {}
        for line in proc.stdout.decode("utf-8", "replace").splitlines():
            if not line.startswith("  --"):
                continue
            # "  --hf-config config.json  RoPE: ...": the option and its
            # argument, then two or more spaces, then the help
            head = re.split(r"\s{2,}", line.strip())[0].split()
            opts[head[0][2:]] = head[1] if len(head) > 1 else ""
        _HELP_CACHE[binary] = opts
    return _HELP_CACHE[binary]


def main(argv=None):
    """The `pecheck` console entry: run the binary with the same arguments
    (exec: its exit code and output are the binary's own)."""
    args = sys.argv[1:] if argv is None else list(argv)
    try:
        binary = find_binary()
    except PecheckError as e:
        sys.stderr.write("pecheck: %s\n" % e)
        return EXIT_INPUT
    try:
        os.execv(binary, [binary] + args)
    except OSError as e:
        sys.stderr.write("pecheck: cannot run %s: %s\n" % (binary, e))
        return EXIT_INTERNAL
    return EXIT_INTERNAL  # not reached: execv replaced the process


if __name__ == "__main__":
    sys.exit(main())

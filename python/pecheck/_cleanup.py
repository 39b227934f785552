"""What a SIGTERM or a SIGHUP must not leave behind: the staging folders of
the checks under way (_transport.Staging, pecheck-XXXXXXXX in the temporary
folder) and the pecheck processes they started.

Python's default action for SIGTERM (a cancelled CI job, `timeout`) and for
SIGHUP (the terminal closed, an ssh session lost) ends the process at once:
no finally clause runs, so a check under way left its staging folder
behind, and its pecheck process running.  The first staging folder or
process installs a handler for each of the two (from the main thread only,
which is where Python allows it, and only over the default action or a
Python handler: never over SIG_IGN, as nohup sets for SIGHUP, or a handler
set outside Python) that kills the pecheck processes, waits for them to end
(a process still writing into its folder would keep it from being removed),
removes the folders, and then does what the signal did before: the previous
Python handler, or the default action, re-raised so that the process still
ends by that signal (its parent sees the same status as before).  SIGINT
needs none: Python's own handler raises KeyboardInterrupt, and the finally
clauses remove the folder and kill the process (_binary.Running.finish).

The handler runs in the main thread between two bytecodes, possibly while
that thread is inside one of the functions below: it therefore takes no
lock, and reads the sets through list(), which copies them without
releasing the GIL.  Between the creation of a folder or a process and its
registration there is a window (subprocess.Popen returns some bytecodes
after the child has entered its folder): a signal that lands there is held
back until the registration is done (deferred()), or the process would
outlive its caller.  Only the main thread's window is closed so: a check
started from another thread can still lose its process to a SIGTERM that
lands in that thread's window (the handler cannot wait for another thread
without risking a deadlock)."""
import contextlib
import os
import shutil
import signal
import subprocess
import tempfile
import threading
import time

_dirs = set()
_procs = set()
# the signals whose default action ends the process without a finally clause
_SIGNALS = tuple(getattr(signal, n) for n in ("SIGTERM", "SIGHUP") if hasattr(signal, n))
# previous: the handler each signal had, where ours replaced it
_state = {"installed": False, "previous": {}, "deferring": 0, "pending": None}

# how long the handler waits for a killed pecheck process to end before it
# removes the folders anyway: SIGKILL ends a process at its next return to
# user space, which is microseconds unless it is blocked in the kernel
# (a disk or a network file system): then the folder may stay, the caller
# still ends by its signal
_KILLED_END_WAIT_S = 5.0


def _await_end(proc):
    """Wait (up to _KILLED_END_WAIT_S) for PROC to have ended, without
    reaping it: its Popen object still collects its status as before."""
    deadline = time.monotonic() + _KILLED_END_WAIT_S
    while True:
        try:
            if os.waitid(os.P_PID, proc.pid, os.WEXITED | os.WNOHANG | os.WNOWAIT):
                return
        except ChildProcessError:  # reaped already
            return
        if time.monotonic() >= deadline:
            return
        time.sleep(0.005)


def _clean_up():
    procs = list(_procs)
    for proc in procs:
        try:
            proc.kill()
        except OSError:
            pass
    for proc in procs:
        _await_end(proc)
    for path in list(_dirs):
        shutil.rmtree(path, ignore_errors=True)
    _dirs.clear()


def _on_signal(signum, frame):
    if _state["deferring"]:  # inside deferred(): acted on when it ends (the first one)
        _state["pending"] = _state["pending"] or (signum, frame)
        return
    _clean_up()
    previous = _state["previous"].get(signum)
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


@contextlib.contextmanager
def deferred():
    """A SIGTERM or SIGHUP arriving in the main thread inside this block is
    acted on when the block ends (creation and registration are then one
    step)."""
    _install()
    main = threading.current_thread() is threading.main_thread()
    if main:
        _state["deferring"] += 1
    try:
        yield
    finally:
        if main:
            _state["deferring"] -= 1
            pending = _state["pending"]
            if not _state["deferring"] and pending:
                _state["pending"] = None
                _on_signal(*pending)


def _install():
    """The handler, once, where it may be installed (the module docstring)."""
    if _state["installed"] or threading.current_thread() is not threading.main_thread():
        return
    _state["installed"] = True
    for signum in _SIGNALS:
        current = signal.getsignal(signum)
        if current is signal.SIG_DFL or (callable(current) and current is not _on_signal):
            _state["previous"][signum] = current
            signal.signal(signum, _on_signal)


def make_dir(prefix):
    """A new temporary folder, removed on SIGTERM or SIGHUP until drop_dir()."""
    with deferred():
        path = tempfile.mkdtemp(prefix=prefix)
        _dirs.add(path)
    return path


def drop_dir(path):
    _dirs.discard(path)


def popen(argv, **kwargs):
    """subprocess.Popen(ARGV, **KWARGS), killed on SIGTERM or SIGHUP until drop_proc()."""
    with deferred():
        proc = subprocess.Popen(argv, **kwargs)
        _procs.add(proc)
    return proc


def drop_proc(proc):
    _procs.discard(proc)

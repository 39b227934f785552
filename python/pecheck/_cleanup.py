"""What a SIGTERM must not leave behind: the staging folders of the checks
under way (_transport.Staging, pecheck-XXXXXXXX in the temporary folder)
and the pecheck processes they started.

Python's default action for SIGTERM ends the process at once: no finally
clause runs, so a check under way left its staging folder behind, and its
pecheck process running.  The first staging folder installs a handler
(from the main thread only, which is where Python allows it, and only over
the default action or a Python handler: never over SIG_IGN or a handler set
outside Python) that kills the pecheck processes, removes the folders, and
then does what the signal did before: the previous Python handler, or the
default action, re-raised so that the process still ends by SIGTERM (its
parent sees the same status as before).

The handler runs in the main thread between two bytecodes, possibly while
that thread is inside one of the functions below: it therefore takes no
lock, and reads the sets through list(), which copies them without
releasing the GIL."""
import os
import shutil
import signal
import threading

_dirs = set()
_procs = set()
_state = {"installed": False, "previous": None}


def _on_sigterm(signum, frame):
    for proc in list(_procs):
        try:
            proc.kill()
        except OSError:
            pass
    for path in list(_dirs):
        shutil.rmtree(path, ignore_errors=True)
    _dirs.clear()
    previous = _state["previous"]
    if callable(previous):
        previous(signum, frame)
        return
    signal.signal(signum, signal.SIG_DFL)
    os.kill(os.getpid(), signum)


def _install():
    """The handler, once, where it may be installed (the module docstring)."""
    if _state["installed"] or threading.current_thread() is not threading.main_thread():
        return
    _state["installed"] = True
    current = signal.getsignal(signal.SIGTERM)
    if current is signal.SIG_DFL or (callable(current) and current is not _on_sigterm):
        _state["previous"] = current
        signal.signal(signal.SIGTERM, _on_sigterm)


def add_dir(path):
    _install()
    _dirs.add(path)


def drop_dir(path):
    _dirs.discard(path)


def add_proc(proc):
    _procs.add(proc)


def drop_proc(proc):
    _procs.discard(proc)

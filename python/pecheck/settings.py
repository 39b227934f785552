"""Settings shared by the API and the pytest plugin."""
import os

_state = {"verbose": None, "keep_root": None}


def verbose():
    """Whether failure messages carry the full report: set by the pytest
    plugin from -v, else $PECHECK_VERBOSE (1: yes)."""
    if _state["verbose"] is not None:
        return _state["verbose"]
    return os.environ.get("PECHECK_VERBOSE", "") not in ("", "0")


def set_verbose(flag):
    """Full reports in failure messages (True), short ones (False), or the
    environment's choice again (None)."""
    _state["verbose"] = None if flag is None else bool(flag)


def keep_root():
    """The folder for failing runs' inputs that the pytest plugin chose (a
    path, or a function giving it when first needed), or None."""
    root = _state["keep_root"]
    return root() if callable(root) else root


def set_keep_root(root):
    _state["keep_root"] = root

"""pytest tests of where the package finds the binary once installed: a
wheel built from a checkout without the binary (`pip install ./python`)
records the checkout's path (pecheck/_checkout.py), and the package runs
that checkout's build/pecheck from any folder; a bundled wheel records
none.  tests/python_venv.t does the same through pip, from another folder."""
import importlib.util
import os
import shutil
import zipfile

import pytest

import pecheck  # noqa: E402  (python/ of the checkout, or the installed package: conftest.py)
from pecheck import _binary

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir))


def backend():
    path = os.path.join(ROOT, "python", "backend", "pecheck_backend.py")
    spec = importlib.util.spec_from_file_location("pecheck_backend_under_test", path)
    mod = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def test_a_wheel_built_from_the_checkout_records_it(tmp_path):
    name = backend().build_wheel(str(tmp_path))
    with zipfile.ZipFile(str(tmp_path / name)) as z:
        assert "pecheck/_checkout.py" in z.namelist()
        text = z.read("pecheck/_checkout.py").decode()
        record = z.read([n for n in z.namelist() if n.endswith(".dist-info/RECORD")][0]).decode()
    ns = {}
    exec(compile(text, "_checkout.py", "exec"), ns)
    assert ns["CHECKOUT"] == ROOT
    assert "pecheck/_checkout.py,sha256=" in record


def test_a_bundled_wheel_records_no_checkout(tmp_path):
    name = backend().build_wheel(str(tmp_path), {"bundle": _binary.find_binary()})
    with zipfile.ZipFile(str(tmp_path / name)) as z:
        names = z.namelist()
    assert "pecheck/bin/pecheck" in names and "pecheck/_checkout.py" not in names


def test_an_sdist_elsewhere_records_no_checkout(tmp_path, monkeypatch):
    b = backend()
    monkeypatch.setattr(b, "SOURCE_TREE", str(tmp_path))  # python/ unpacked outside a checkout
    with zipfile.ZipFile(str(tmp_path / b.build_wheel(str(tmp_path)))) as z:
        assert "pecheck/_checkout.py" not in z.namelist()


@pytest.fixture
def recorded(monkeypatch, tmp_path):
    """A package installed from the checkout TMP_PATH/checkout, run from
    another folder with no $PECHECK and no pecheck on PATH."""
    binary = _binary.find_binary()
    checkout = tmp_path / "checkout"
    checkout.mkdir()
    monkeypatch.delenv("PECHECK", raising=False)
    monkeypatch.setattr(_binary, "_BESIDE", ())
    monkeypatch.setattr(_binary, "_recorded_checkout", lambda: str(checkout))
    monkeypatch.setenv("PATH", "/nonexistent")
    monkeypatch.chdir(tmp_path)
    return checkout, binary


def test_the_recorded_checkouts_binary_is_found(recorded):
    checkout, binary = recorded
    (checkout / "build").mkdir()
    shutil.copy(binary, str(checkout / "build" / "pecheck"))
    assert pecheck.find_binary() == str(checkout / "build" / "pecheck")


def test_a_recorded_checkout_without_a_binary_says_to_run_make_there(recorded):
    checkout, _ = recorded
    with pytest.raises(pecheck.PecheckError,
                       match=r"binary not found: run `make` in %s, the checkout this package was "
                             r"installed from .*PECHECK=" % checkout):
        pecheck.find_binary()

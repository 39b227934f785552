"""The Python tests run against the checkout's python/ (tests/python.t),
or, with PECHECK_TEST_INSTALLED=1, against the package pip installed in a
virtualenv (tests/python_venv.t): then nothing here points at the checkout,
and the pytest plugin is the one its pytest11 entry point loaded."""
import os
import sys

ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir))
INSTALLED = os.environ.get("PECHECK_TEST_INSTALLED") == "1"

if INSTALLED:
    pytest_plugins = ["pytester"]
else:
    sys.path.insert(0, os.path.join(ROOT, "python"))
    pytest_plugins = ["pytester", "pecheck.pytest_plugin"]

# the tests run pecheck from other folders (pytester's, the staging folder)
if os.environ.get("PECHECK"):
    os.environ["PECHECK"] = os.path.abspath(os.environ["PECHECK"])

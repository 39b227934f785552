"""pytest tests of pecheck's pytest plugin: the pecheck_gate fixture, the
pecheck marker, short failure messages and the full report on -v, pecheck's
verdicts in pytest's JUnit XML, and the traceback without the helper's
frames.  Each runs pytest in a subprocess on a small test file (pytester):
with the installed package the plugin comes from its pytest11 entry point,
in the checkout from -p pecheck.pytest_plugin."""
import os
import xml.etree.ElementTree as ET

import pytest

import pecheck  # noqa: E402  (python/ of the checkout, or the installed package: conftest.py)
from conftest import INSTALLED, ROOT

pytest.importorskip("torch")

CACHES = '''
import math
import pytest
import torch
import pecheck

def rope(n=512, d=32, base=10000.0, offset=0.0):
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    f = torch.outer(torch.arange(n).float() + offset, inv)
    e = torch.cat((f, f), dim=-1)
    return e.cos(), e.sin()
'''


def run(pytester, source, *args):
    pytester.makepyfile(test_user=CACHES + source)
    env_args = [] if INSTALLED else ["-p", "pecheck.pytest_plugin"]
    if not INSTALLED:
        pytester._monkeypatch.setenv("PYTHONPATH", os.path.join(ROOT, "python"))
    return pytester.runpytest_subprocess(*(env_args + ["-p", "no:cacheprovider"] + list(args)))


def test_fixture_passes_and_fails(pytester):
    res = run(pytester, '''
def test_good(pecheck_gate):
    r = pecheck_gate.rope_cache(*rope(), base=10000.0)
    assert r.passed

def test_off_by_one(pecheck_gate):
    pecheck_gate.rope_cache(*rope(offset=1.0), base=10000.0)
''')
    res.assert_outcomes(passed=1, failed=1)
    out = res.stdout.str()
    assert "pecheck: the RoPE cache fails" in out and "likely cause:" in out
    assert "replay: pecheck check" in out
    assert any(line.startswith("pecheck: /") for line in res.stdout.lines)  # the header names the binary


def test_short_message_and_full_report_on_verbose(pytester):
    src = '''
def test_off_by_one(pecheck_gate):
    pecheck_gate.rope_cache(*rope(offset=1.0), base=10000.0)
'''
    short = run(pytester, src).stdout.str()
    full = run(pytester, src, "-v").stdout.str()
    # the CLI's full text of a failure (its bound line) only on -v
    assert "bound: |err| <=" not in short and "bound: |err| <=" in full
    assert "PASS " not in short and "PASS table-values" in full
    # the helper's frames are hidden (__tracebackhide__): the test's line is the last shown
    for text in (short, full):
        assert "pytest_plugin.py" not in text and "checks.py" not in text and "rotary.py" not in text
        assert "pecheck_gate.rope_cache(*rope(offset=1.0), base=10000.0)" in text


def test_direct_asserts_hide_their_frames(pytester):
    res = run(pytester, '''
def test_direct():
    pecheck.assert_sinusoidal_table(torch.zeros(64, 8), msg="the article's buffer")
''')
    res.assert_outcomes(failed=1)
    out = res.stdout.str()
    assert "the article's buffer" in out and "checks.py" not in out


def test_marker_gives_the_checks_defaults(pytester):
    res = run(pytester, '''
@pytest.mark.pecheck(base=500000.0)
def test_marked(pecheck_gate):
    pecheck_gate.rope_cache(*rope(base=500000.0))

@pytest.mark.pecheck(base=500000.0)
def test_call_wins(pecheck_gate):
    pecheck_gate.rope_cache(*rope(), base=10000.0)

def test_unmarked_wrong(pecheck_gate):
    pecheck_gate.rope_cache(*rope(base=500000.0), base=10000.0)
''', "--strict-markers")
    res.assert_outcomes(passed=2, failed=1)
    assert "test_unmarked_wrong" in res.stdout.str().split("short test summary")[-1]


def test_junit_carries_the_verdicts(pytester):
    xml = pytester.path / "junit.xml"
    res = run(pytester, '''
def test_good(pecheck_gate):
    pecheck_gate.learned_table(torch.nn.Embedding(64, 16).weight)

def test_dup(pecheck_gate):
    w = torch.nn.Embedding(64, 16).weight.detach().clone()
    w[40] = w[3]
    pecheck_gate.learned_table(w)
''', "--junitxml", str(xml))  # pytest's default junit_family (xunit2)
    res.assert_outcomes(passed=1, failed=1)
    cases = {c.get("name"): c for c in ET.parse(str(xml)).getroot().iter("testcase")}
    props = {name: {p.get("name"): p.get("value") for p in c.iter("property")} for name, c in cases.items()}
    assert props["test_good"]["pecheck.learned.unique"].startswith("pass: ")
    assert props["test_good"]["pecheck.learned.lookup"].startswith("pass: ")
    assert props["test_dup"]["pecheck.learned.unique"].startswith("fail: ")
    assert "positions 3 and 40" in props["test_dup"]["pecheck.learned.unique"]
    assert props["test_dup"]["pecheck.replay"].startswith("pecheck check ")
    failure = cases["test_dup"].find("failure")
    assert failure is not None and "pecheck: the learned table fails" in failure.get("message")


def test_one_marker_serves_rope_cache_and_rotary(pytester):
    # the README's example: the marker's hf_config= is the rotary call's config too
    res = run(pytester, '''
class Rotary(torch.nn.Module):
    def __init__(self, base):
        super().__init__()
        self.inv = 1.0 / (base ** (torch.arange(0, 64, 2, dtype=torch.int64).float() / 64))

    def forward(self, x, position_ids):
        f = (self.inv[None, :, None] @ position_ids[:, None, :].float()).transpose(1, 2)
        e = torch.cat((f, f), dim=-1)
        return e.cos().to(x.dtype), e.sin().to(x.dtype)

CFG = {"rope_theta": 500000.0, "head_dim": 64, "max_position_embeddings": 4096}

@pytest.mark.pecheck(hf_config=CFG, dtype="bf16")
def test_rotary(pecheck_gate):
    pecheck_gate.rope_cache(*rope(d=64, base=500000.0), dtype=None)
    pecheck_gate.rotary(Rotary(500000.0), positions=2048)

@pytest.mark.pecheck(hf_config=CFG)
def test_rotary_wrong_base(pecheck_gate):
    pecheck_gate.rotary(Rotary(10000.0), positions=2048)

@pytest.mark.pecheck(hf_config={"rope_theta": 1.0})
def test_call_config_wins(pecheck_gate):
    pecheck_gate.rotary(Rotary(500000.0), CFG, positions=2048)
''')
    res.assert_outcomes(passed=2, failed=1)
    assert "test_rotary_wrong_base" in res.stdout.str().split("short test summary")[-1]
    with pytest.raises(TypeError, match="name the same config"):
        pecheck.check_rotary(lambda x, p: None, {"rope_theta": 1e4}, hf_config={"rope_theta": 1e4})


def test_fixture_gates_alibi_slopes_and_t5_buckets(pytester):
    res = run(pytester, '''
def test_slopes(pecheck_gate):
    pecheck_gate.alibi_slopes(2.0 ** (-8.0 * torch.arange(1, 9, dtype=torch.float64) / 8))

def test_slopes_reversed(pecheck_gate):
    pecheck_gate.alibi_slopes(2.0 ** (-8.0 * torch.arange(8, 0, -1, dtype=torch.float64) / 8))

def test_buckets(pecheck_gate):
    rel = torch.arange(8)[None, :] - torch.arange(8)[:, None]
    pecheck_gate.t5_buckets(rel.abs() + 16 * (rel > 0), num_buckets=32, max_distance=128)
''')
    res.assert_outcomes(passed=2, failed=1)
    assert "test_slopes_reversed" in res.stdout.str().split("short test summary")[-1]


def test_failing_inputs_are_kept_in_the_session_folder(pytester):
    keep = pytester.path / "kept"
    res = run(pytester, '''
def test_bad(pecheck_gate):
    pecheck_gate.learned_table(torch.zeros(8, 4))
''', "--pecheck-keep", str(keep))
    res.assert_outcomes(failed=1)
    kept = os.listdir(str(keep))
    assert len(kept) == 1 and os.listdir(str(keep / kept[0])) == ["table.npy"]
    assert str(keep / kept[0] / "table.npy") in res.stdout.str()


def test_plugin_is_registered(pytestconfig):
    # this session has it: from the pytest11 entry point when installed
    name = "pecheck" if INSTALLED else "pecheck.pytest_plugin"
    assert pytestconfig.pluginmanager.has_plugin(name)
    package = os.path.abspath(pecheck.__file__)
    from_checkout = package.startswith(os.path.join(ROOT, "python"))
    assert from_checkout != INSTALLED

"""pytest tests of pecheck.gate_rotary / check_rotary: the user's HF-style
rotary module and Meta-style freqs_cis function called chunk by chunk and
gated; a wrong module fails at its first failing chunk with a replay line
that runs; the Meta-style chunks are the slices of a whole call, bit for
bit; and the memory of a long run stays bounded (peak RSS of the Python
process and of every pecheck run, measured, below 256 MiB)."""
import json
import os
import shlex
import subprocess
import sys
import textwrap

import pytest

import pecheck  # noqa: E402  (python/ of the checkout, or the installed package: conftest.py)
from pecheck import _binary, rotary

torch = pytest.importorskip("torch")
from rotary_models import HFRotary, llama3_freqs_cis, precompute_freqs_cis  # noqa: E402

D = 64
CONFIG = {"rope_theta": 500000.0, "head_dim": D, "max_position_embeddings": 3000}


def linspace_freqs_cis(dim, end, theta=10000.0):
    """The same, with positions from torch.linspace: cannot be called in chunks."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    t = torch.linspace(0, end - 1, end)
    return torch.polar(torch.ones(end, dim // 2), torch.outer(t, freqs))


def test_hf_module_passes_in_chunks():
    r = pecheck.gate_rotary(HFRotary(D), config=CONFIG, chunk=1024)  # positions: the config's 3000
    assert r.passed and r.what.startswith("the rotary HFRotary (HF-style) at positions 0..2999")
    acc = [v for v in r.verdicts if v.check == "accuracy" and v.passed]
    assert acc and acc[0].positions == (0, 2999) and "passed in 3 of 3 chunks" in acc[0].summary
    assert r.json["chunks"] == 3


def test_hf_module_in_bf16():
    r = pecheck.gate_rotary(HFRotary(D), config=CONFIG, positions=2048, dtype="bf16", chunk=1024)
    acc = [v for v in r.verdicts if v.check == "accuracy" and v.passed]
    assert acc and acc[0].data["params"]["dtype"] == "bf16"


def test_wrong_module_fails_at_its_first_failing_chunk(tmp_path):
    module = HFRotary(D, wrong_from=1500)
    with pytest.raises(AssertionError) as e:
        pecheck.gate_rotary(module, config=CONFIG, positions=4096, chunk=1024, keep=tmp_path,
                            msg="model.rotary_emb")
    text = str(e.value)
    assert text.splitlines()[0] == "model.rotary_emb"
    assert "positions 2048..4095 not checked: stopped at the first failing chunk (1024..2047)" in text
    r = pecheck.check_rotary(module, config=CONFIG, positions=4096, chunk=1024, keep=tmp_path)
    acc = [v for v in r.failures if v.check == "accuracy"][0]
    assert acc.positions == (1024, 2047) and 1500 <= acc.witness.position <= 2047
    # the replay line reruns the failing chunk from its kept tables
    argv = shlex.split(r.replay)
    assert "--pos-start" in argv and argv[argv.index("--pos-start") + 1] == "1024"
    assert sorted(os.listdir(r.kept)) == ["config.json", "cos.npy", "sin.npy"]
    p = subprocess.run([_binary.find_binary()] + argv[1:] + ["--format", "json"], stdout=subprocess.PIPE)
    assert p.returncode == 1 and json.loads(p.stdout)["status"] == "fail"
    # every chunk on request: chunks 1..3 fail, chunk 0 passes
    r = pecheck.check_rotary(module, config=CONFIG, positions=4096, chunk=1024, stop_on_failure=False,
                             keep=False)
    acc = [v for v in r.verdicts if v.check == "accuracy" and v.layout == "half"][0]
    assert "failed in 3 of 4 chunks" in acc.summary and r.note is not None


class RaisingAfter(HFRotary):
    """HFRotary whose calls from position RAISE_FROM on raise, and which
    records the first position of every call."""

    def __init__(self, dim, raise_from, **kw):
        super().__init__(dim, **kw)
        self.raise_from, self.calls = raise_from, []

    def forward(self, x, position_ids):
        lo = int(position_ids[0, 0])
        self.calls.append(lo)
        if lo >= self.raise_from:
            raise RuntimeError("no rows past %d" % self.raise_from)
        return super().forward(x, position_ids)


def test_pipelined_chunks_keep_the_order_of_verdicts():
    # chunk 1..2047 fails; chunk 2048.. is computed while it is checked (and
    # raises): the failure is the result, the error is not, and nothing
    # after it is called
    module = RaisingAfter(D, raise_from=2048, wrong_from=1500)
    r = pecheck.check_rotary(module, config=CONFIG, positions=4096, chunk=1024, keep=False)
    assert not r.passed and module.calls == [0, 1024, 2048]
    assert "positions 2048..4095 not checked" in r.note
    # a chunk that raises after passing chunks: the error reaches the caller
    module = RaisingAfter(D, raise_from=2048)
    with pytest.raises(RuntimeError, match="no rows past 2048"):
        pecheck.check_rotary(module, config=CONFIG, positions=4096, chunk=1024, keep=False)
    # a failing chunk stops the check of the chunk after it, already
    # called: two chunks' verdicts, no call after them
    module = RaisingAfter(D, raise_from=1 << 30, wrong_from=1500)
    r = pecheck.check_rotary(module, config=CONFIG, positions=4096, chunk=1024, keep=False)
    assert not r.passed and module.calls == [0, 1024, 2048] and r.json["chunks"] == 2


class OddChunk(HFRotary):
    """HFRotary whose chunk from position ODD_FROM returns one row short
    (WHAT 'rows') or float16 (WHAT 'dtype')."""

    def __init__(self, dim, odd_from, what):
        super().__init__(dim)
        self.odd_from, self.what = odd_from, what

    def forward(self, x, position_ids):
        cos, sin = super().forward(x, position_ids)
        if int(position_ids[0, 0]) >= self.odd_from:
            if self.what == "rows":
                return cos[:, :-1], sin[:, :-1]
            return cos.half(), sin.half()
        return cos, sin


def test_a_chunk_of_other_rows_or_dtype_is_refused():
    # a chunk one row short would leave a position unchecked, a float16
    # chunk be held to float16's bound: neither is a verdict on the module
    with pytest.raises(ValueError, match=r"positions 2048\.\.3071 have shapes \(1, 1023, 64\).*"
                                         r"expected \(\.\.\., 1024, d\)"):
        pecheck.check_rotary(OddChunk(D, 2048, "rows"), config=CONFIG, positions=4096, chunk=1024)
    with pytest.raises(TypeError, match=r"positions 2048\.\.3071 are torch.float16 and "
                                        r"torch.float16; expected x's dtype torch.float32"):
        pecheck.check_rotary(OddChunk(D, 2048, "dtype"), config=CONFIG, positions=4096, chunk=1024)


def test_wrong_base_fails_against_the_config():
    r = pecheck.check_rotary(HFRotary(D, base=10000.0), config=CONFIG, positions=1024, keep=False)
    assert not r.passed and r.witness is not None


def test_meta_function_passes_in_chunks():
    r = pecheck.gate_rotary(precompute_freqs_cis, config=CONFIG, chunk=1000)
    assert r.passed and "(Meta-style)" in r.what and r.json["chunks"] == 3
    with pytest.raises(AssertionError):  # the config's theta is what it is called with and held to
        pecheck.gate_rotary(precompute_freqs_cis, config=CONFIG, chunk=1000, fn_kwargs={"theta": 10000.0})


@pytest.mark.parametrize("fn", [precompute_freqs_cis, llama3_freqs_cis])
def test_meta_chunks_are_slices_of_a_whole_call(fn):
    whole = fn(D, 3000, theta=500000.0)
    for lo, hi in ((0, 1000), (1000, 2000), (2000, 3000), (17, 2999)):
        part = rotary._meta_call(fn, lo, hi, 3000, D, 500000.0, None, whole=False)
        assert torch.equal(part, whole[lo:hi])
    # past 2^24, where float32 positions are no longer every integer
    end = (1 << 24) + 4096
    t_whole = torch.arange(end, dtype=torch.float32)[-64:]
    window = rotary._window_mode(end, end - 64, end)
    with window():
        t_part = torch.arange(end, dtype=torch.float32)
    assert torch.equal(t_part, t_whole) and window.hits == 1


def end_shaped_freqs_cis(dim, end, theta=10000.0):
    """Positions from arange(end), but a tensor shaped by END beside them."""
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
    return torch.polar(torch.ones(end, dim // 2), torch.outer(torch.arange(end).float(), freqs))


def test_meta_function_without_arange_end_is_refused():
    with pytest.raises(ValueError, match="cannot call linspace_freqs_cis in chunks.*chunk=3000"):
        pecheck.check_rotary(linspace_freqs_cis, config=CONFIG, chunk=1000)
    with pytest.raises(ValueError, match="cannot call end_shaped_freqs_cis in chunks.*RuntimeError"):
        pecheck.check_rotary(end_shaped_freqs_cis, config=CONFIG, chunk=1000)
    # called once, it is gated
    assert pecheck.check_rotary(linspace_freqs_cis, config=CONFIG, chunk=3000).passed


def test_arguments_are_checked():
    with pytest.raises(ValueError, match="config=.*base="):
        pecheck.check_rotary(HFRotary(D), positions=10)
    with pytest.raises(ValueError, match="positions="):
        pecheck.check_rotary(HFRotary(D), config=CONFIG, positions=range(0, 10, 2))
    with pytest.raises(ValueError, match="complex64"):
        pecheck.check_rotary(precompute_freqs_cis, config=CONFIG, dtype="bf16")
    with pytest.raises(ValueError, match="style="):
        pecheck.check_rotary(HFRotary(D), config=CONFIG, style="gpt")


RSS_SCRIPT = textwrap.dedent('''
    import json, sys
    import torch
    import pecheck
    sys.path.insert(0, sys.argv[3])
    from rotary_models import HFRotary, precompute_freqs_cis
    def hwm():  # this process's own peak RSS (getrusage's would count the parent's at its start)
        with open("/proc/self/status") as f:
            return next(int(l.split()[1]) for l in f if l.startswith("VmHWM:"))
    n, kind = int(sys.argv[1]), sys.argv[2]
    base = hwm()
    cfg = {"rope_theta": 500000.0, "head_dim": 128}
    fn = HFRotary(128) if kind == "hf" else precompute_freqs_cis
    r = pecheck.check_rotary(fn, config=cfg, positions=n, properties=["accuracy"], keep=False)
    print(json.dumps({"passed": r.passed, "chunks": r.json["chunks"], "base_kib": base,
                      "peak_kib": hwm()}))
''')


@pytest.mark.parametrize("kind", ["hf", "meta"])
def test_memory_stays_bounded(tmp_path, kind):
    """2^17 positions of a 128-wide head (128 MiB of float32 cos and sin):
    the Python process and each pecheck run stay below 256 MiB (peak RSS:
    the process's VmHWM; the pecheck runs' through /usr/bin/time).  The benchmark
    (scripts/bench_python.py) measures 2^20."""
    if not os.access("/usr/bin/time", os.X_OK):
        pytest.skip("/usr/bin/time is missing (apt-get install time)")
    with open(_binary.find_binary(), "rb") as f:
        if b"AddressSanitizer" in f.read():
            pytest.skip("a sanitizer build (make check SANITIZE=1): its memory is ASan's, not pecheck's")
    log = tmp_path / "rss.log"
    wrapper = tmp_path / "pecheck"
    wrapper.write_text('#!/bin/sh\nexec /usr/bin/time -a -o %s -f %%M %s "$@"\n'
                       % (shlex.quote(str(log)), shlex.quote(_binary.find_binary())))
    wrapper.chmod(0o755)
    script = tmp_path / "rss.py"
    script.write_text(RSS_SCRIPT)
    env = dict(os.environ, PECHECK=str(wrapper), PYTHONDONTWRITEBYTECODE="1")
    if not os.environ.get("PECHECK_TEST_INSTALLED"):
        env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(pecheck.__file__)))
    p = subprocess.run([sys.executable, str(script), str(1 << 17), kind, os.path.dirname(__file__)],
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=env)
    assert p.returncode == 0, p.stderr.decode()
    out = json.loads(p.stdout.decode().splitlines()[-1])
    runs = [int(x) for x in log.read_text().split() if x.isdigit()]
    figures = ("%s: python peak %.0f MiB (%.0f after import), pecheck runs' peak %.0f MiB (%d runs)"
               % (kind, out["peak_kib"] / 1024, out["base_kib"] / 1024, max(runs) / 1024, len(runs)))
    print(figures)
    assert out["passed"] and out["chunks"] == -(-(1 << 17) // rotary.DEFAULT_CHUNK), out
    assert len(runs) >= out["chunks"], figures
    assert out["peak_kib"] < 256 * 1024 and max(runs) < 256 * 1024, figures

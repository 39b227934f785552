"""pytest tests of pecheck's Python API: every assert_* with passing and
failing inputs, NaN and Inf named as elements, bfloat16 bit patterns,
non-floating input refused the same way everywhere, msg=, the typed
Result, the kept inputs and their replay line, and the in-memory transport."""
import json
import math
import os
import shlex
import signal
import subprocess
import sys
import tempfile
import time

import numpy as np
import pytest

import pecheck  # noqa: E402  (python/ of the checkout, or the installed package: conftest.py)
from pecheck import _binary

torch = pytest.importorskip("torch")

N, D, BASE = 1024, 64, 10000.0


def rope(n=N, d=D, base=BASE, offset=0.0):
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    f = torch.outer(torch.arange(n).float() + offset, inv)
    e = torch.cat((f, f), dim=-1)
    return e.cos(), e.sin()


def sinusoidal(n=N, d=D):
    pe = torch.zeros(n, d)
    pos = torch.arange(n, dtype=torch.float).unsqueeze(1)
    div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(10000.0) / d))
    pe[:, 0::2] = torch.sin(pos * div)
    pe[:, 1::2] = torch.cos(pos * div)
    return pe


def learned(n=512, d=D):
    torch.manual_seed(0)
    return torch.nn.Embedding(n, d).weight  # a Parameter that requires grad


@pytest.fixture
def keep(tmp_path):
    return tmp_path / "kept"


# ---- passing inputs: a typed Result ---------------------------------------------

def test_passing_rope_cache_returns_a_typed_result():
    result = pecheck.assert_rope_cache(*rope(), base=BASE)
    assert isinstance(result, pecheck.Result) and result.passed and bool(result)
    assert all(isinstance(v, pecheck.Verdict) for v in result.verdicts)
    acc = [v for v in result.verdicts if v.check == "accuracy" and v.passed]
    assert acc and acc[0].positions == (0, N - 1) and acc[0].measured < 1.0
    assert result.replay is None and result.kept is None and result.failures == ()
    assert result["status"] == "pass"  # the JSON document, as the CLI writes it


def test_passing_sinusoidal_and_learned_tables():
    assert pecheck.assert_sinusoidal_table(sinusoidal()).passed
    r = pecheck.assert_learned_table(learned())
    assert {v.check for v in r.verdicts} >= {"table-values", "lookup", "out-of-range", "unique"}


# ---- failing inputs: AssertionError with the witness ----------------------------------

def test_wrong_base_fails_with_witness_cause_and_replay(keep):
    cos, sin = rope(base=500000.0)
    with pytest.raises(AssertionError) as e:
        pecheck.assert_rope_cache(cos, sin, base=BASE, keep=keep)
    text = str(e.value)
    assert text.startswith("pecheck: the RoPE cache fails")
    assert "accuracy [half]: position" in text and "exact" in text and "bound" in text
    assert "likely cause:" in text and "replay: pecheck check" in text


def test_failing_sinusoidal_table():
    pe = sinusoidal()
    pe[:, 1::2] = pe[:, 0::2]  # sin-only
    with pytest.raises(AssertionError) as e:
        pecheck.assert_sinusoidal_table(pe)
    assert "the sinusoidal table fails" in str(e.value)


def test_learned_table_with_a_duplicated_row_fails_unique():
    w = learned().detach().clone()
    w[300] = w[17]
    r = pecheck.check_learned_table(w)
    assert not r.passed
    (u,) = [v for v in r.failures if v.check == "unique"]
    assert "positions 17 and 300" in u.summary
    with pytest.raises(AssertionError) as e:
        pecheck.assert_learned_table(w)
    assert "unique: " in str(e.value) and "17 and 300" in str(e.value)


def test_check_variants_do_not_raise():
    cos, sin = rope(base=500000.0)
    r = pecheck.check_rope_cache(cos, sin, base=BASE, keep=False)
    assert not r.passed and not bool(r) and r.failures
    assert r.witness is not None and r.witness.position is not None and r.likely_cause


# ---- NaN and Inf: an AssertionError naming the element -------------------------------

@pytest.mark.parametrize("which,value", [("cos", float("nan")), ("sin", float("inf"))])
def test_nonfinite_rope_value_is_named(which, value):
    cos, sin = rope()
    (cos if which == "cos" else sin)[300, 5] = value
    with pytest.raises(AssertionError) as e:
        pecheck.assert_rope_cache(cos, sin, base=BASE)
    word = "nan" if math.isnan(value) else "inf"
    assert "%s.npy row 300 (position 300), column 5 = %s" % (which, word) in str(e.value)
    r = pecheck.check_rope_cache(cos, sin, base=BASE, keep=False)
    (tv,) = [v for v in r.verdicts if v.check == "table-values"]
    assert tv.witness.position == 300 and tv.witness.dimension == 5 and tv.witness.tensor == which + ".npy"
    acc = [v for v in r.failures if v.check == "accuracy"]
    assert acc and acc[0].witness.got is None and acc[0].witness.got_hex == word


def test_nonfinite_in_sinusoidal_and_learned_tables_is_named():
    pe = sinusoidal()
    pe[40, 3] = float("nan")
    with pytest.raises(AssertionError, match=r"table.npy row 40 \(position 40\), column 3 = nan"):
        pecheck.assert_sinusoidal_table(pe)
    w = learned().detach().clone()
    w[7, 9] = -float("inf")
    with pytest.raises(AssertionError, match=r"table.npy row 7 \(position 7\), column 9 = -inf"):
        pecheck.assert_learned_table(w)


# ---- bfloat16, float16, bit patterns -----------------------------------------------

def test_bf16_tensors_and_bf16_bit_patterns():
    cos, sin = (t.to(torch.bfloat16) for t in rope())
    r = pecheck.assert_rope_cache(cos, sin, base=BASE)
    acc = [v for v in r.verdicts if v.check == "accuracy" and v.passed]
    assert acc and acc[0].data["params"]["dtype"] == "bf16"
    bits = [t.view(torch.int16).numpy().view(np.uint16) for t in (cos, sin)]
    r2 = pecheck.assert_rope_cache(bits[0], bits[1], base=BASE, dtype="bf16")
    assert [v.measured for v in r2.verdicts] == [v.measured for v in r.verdicts]
    with pytest.raises(TypeError, match="uint16.*dtype='bf16'"):
        pecheck.assert_rope_cache(bits[0], bits[1], base=BASE)
    # a bf16 cache judged as float32 values is wrong at float32's bounds
    with pytest.raises(AssertionError):
        pecheck.assert_rope_cache(cos, sin, base=BASE, dtype="f32")


def test_bf16_bits_of_a_wrong_cache_fail():
    cos, sin = (t.to(torch.bfloat16) for t in rope(offset=1.0))
    bits = [t.view(torch.int16).numpy().view(np.uint16) for t in (cos, sin)]
    with pytest.raises(AssertionError, match="the RoPE cache fails"):
        pecheck.assert_rope_cache(bits[0], bits[1], base=BASE, dtype="bf16")


def test_float16_tables_pass():
    pecheck.assert_sinusoidal_table(sinusoidal().numpy().astype(np.float16))
    cos, sin = rope()
    pecheck.assert_rope_cache(cos.half(), sin.half(), base=BASE)


# ---- not floating point: one TypeError, everywhere ------------------------------------

def _int_inputs():
    a = np.arange(64 * 8, dtype=np.int32).reshape(64, 8)
    return {"numpy int32": a, "torch int32": torch.from_numpy(a), "torch int64": torch.from_numpy(a).long(),
            "list of ints": a.tolist(), "torch bool": torch.from_numpy(a) > 3}


@pytest.mark.parametrize("kind", sorted(_int_inputs()))
def test_non_floating_input_is_refused_everywhere(kind):
    x = _int_inputs()[kind]
    messages = []
    for call in (lambda: pecheck.assert_rope_cache(x, x), lambda: pecheck.assert_sinusoidal_table(x),
                 lambda: pecheck.assert_learned_table(x), lambda: pecheck.check_table(x)):
        with pytest.raises(TypeError) as e:
            call()
        messages.append(str(e.value))
    assert all("pecheck gates floating-point values" in m for m in messages)
    assert len({m.split(":", 1)[1] for m in messages[1:]}) == 1  # the same words for every function


# ---- msg=, keywords ---------------------------------------------------------------

def test_msg_comes_first():
    cos, sin = rope(offset=1.0)
    with pytest.raises(AssertionError) as e:
        pecheck.assert_rope_cache(cos, sin, base=BASE, msg="layer 3's rotary cache")
    assert str(e.value).splitlines()[0] == "layer 3's rotary cache"
    with pytest.raises(AssertionError) as e:
        pecheck.assert_learned_table(torch.zeros(16, 8), msg="wpe")
    assert str(e.value).startswith("wpe\npecheck: the learned table fails")


def test_keywords_are_the_clis_options():
    cos, sin = rope()
    with pytest.raises(TypeError, match="atol.*tol_abs="):
        pecheck.assert_rope_cache(cos, sin, atol=1e-3)
    with pytest.raises(TypeError, match="rope_theta.*base="):
        pecheck.assert_rope_cache(cos, sin, rope_theta=1e4)
    with pytest.raises(TypeError, match="set by check_rope_cache"):
        pecheck.check_rope_cache(cos, sin, table="x.npy")
    # options forwarded as the CLI has them: a budget of 1e-9 fails a correct cache
    assert pecheck.check_rope_cache(cos, sin, base=BASE, strict=True).passed
    assert pecheck.check_rope_cache(cos, sin, base=BASE, tol_abs=1e-3).passed
    # the absolute bound replaces the model whose class strict= chooses: refused, as the CLI does
    with pytest.raises(pecheck.PecheckError, match="--strict shapes nothing with --tol-abs"):
        pecheck.check_rope_cache(cos, sin, base=BASE, strict=True, tol_abs=1e-3)
    r = pecheck.check_rope_cache(cos, sin, base=BASE, max_abs_err=1e-9, properties=["accuracy"], keep=False)
    assert not r.passed and {v.check for v in r.verdicts} <= {"accuracy", "fitted-model", "table-values",
                                                               "cache-layout"}


def test_hf_config_as_dict_path_and_object(tmp_path):
    cfg = {"rope_theta": 500000.0, "head_dim": D, "max_position_embeddings": 4096}
    cos, sin = rope(base=500000.0)
    pecheck.assert_rope_cache(cos, sin, hf_config=cfg)
    path = tmp_path / "config.json"
    path.write_text(json.dumps(cfg))
    pecheck.assert_rope_cache(cos, sin, hf_config=path)

    class Config:  # a transformers PretrainedConfig has to_dict()
        def to_dict(self):
            return dict(cfg, rope_theta=10000.0)
    with pytest.raises(AssertionError):
        pecheck.assert_rope_cache(cos, sin, hf_config=Config())


def mrope(sections, ids, d=D, base=1000000.0):
    """A Qwen2-VL-style M-RoPE cache: pair i of a row rotated by the
    position of its section's axis (ids: (n, 3)), cat(freqs, freqs)."""
    inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
    axis = torch.repeat_interleave(torch.arange(len(sections)), torch.tensor(sections))
    f = torch.as_tensor(ids).float()[:, axis] * inv
    e = torch.cat((f, f), dim=-1)
    return e.cos(), e.sin()


def mrope_ids(text=6, grid=8):
    """Text tokens (p, p, p), then a grid x grid image (t0, t0 + h, t0 + w)."""
    ids = [(p, p, p) for p in range(text)]
    ids += [(text, text + h, text + w) for h in range(grid) for w in range(grid)]
    return np.array(ids, dtype=np.int64)


def test_position_ids_of_any_integer_type(tmp_path):
    cfg = {"rope_theta": 1000000.0, "head_dim": D, "max_position_embeddings": 4096,
           "rope_scaling": {"type": "mrope", "mrope_section": [8, 12, 12]}}
    ids = mrope_ids()
    cos, sin = mrope([8, 12, 12], ids)
    for given in (ids, ids.astype(np.int32), torch.from_numpy(ids), ids.tolist()):
        pecheck.assert_rope_cache(cos, sin, hf_config=cfg, position_ids=given)
    # the sections swapped: the cause names the axes the pairs follow
    cos, sin = mrope([12, 8, 12], ids)
    result = pecheck.check_rope_cache(cos, sin, hf_config=cfg, position_ids=ids)
    assert not result.passed and "axis" in result.likely_cause
    with pytest.raises(TypeError, match="position ids are integers"):
        pecheck.check_rope_cache(cos, sin, hf_config=cfg, position_ids=np.array(["a", "b"]))


def dinov3_rope(H=8, D=64, base=100.0):
    """DINOv3's RopePositionEmbedding (facebookresearch/dinov3,
    dinov3/layers/rope_position_encoding.py, August 2025 release; eval,
    normalize_coords "separate", float32): (cos, sin) of (H*H, D) and the
    patch centres' coordinates in [-1, 1], (H*H, 2)."""
    periods = base ** (2 * torch.arange(D // 4, dtype=torch.float32) / (D // 2))
    c = torch.arange(0.5, H, dtype=torch.float32) / H
    coords = torch.stack(torch.meshgrid(c, c, indexing="ij"), dim=-1).flatten(0, 1)
    coords = 2.0 * coords - 1.0
    angles = (2 * math.pi * coords[:, :, None] / periods[None, None, :]).flatten(1, 2).tile(2)
    return angles.cos(), angles.sin(), coords


def test_position_ids_as_real_coordinates():
    cos, sin, coords = dinov3_rope()
    opts = {"base": 100.0, "rope_axes_dim": "32,32", "rope_angle_scale": "2pi"}
    for given in (coords, coords.double(), coords.numpy()):
        pecheck.assert_rope_cache(cos, sin, position_ids=given, **opts)
    result = pecheck.check_rope_cache(cos, sin, position_ids=coords * 2, **opts)
    assert not result.passed


def test_timesteps_of_any_integer_type_and_fractional():
    steps = torch.tensor([0, 1, 10, 250, 999, 500, 3])  # torch.long, as schedulers hand them
    emb = diffusers_timestep(steps, 64)
    for given in (steps, steps.numpy().astype(np.int32), steps.tolist()):
        pecheck.assert_sinusoidal_table(emb, preset="diffusers", timesteps=given)
    frac = torch.tensor([0.5, 17.25, 999.75], dtype=torch.float32)
    pecheck.assert_sinusoidal_table(diffusers_timestep(frac, 64), preset="diffusers", timesteps=frac)
    result = pecheck.check_sinusoidal_table(emb, preset="diffusers", timesteps=steps + 1)
    assert not result.passed


def test_layer_type_picks_the_configs_encoding():
    cfg = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "data", "configs",
                       "google--gemma-3-1b-it.json")
    cos, sin = rope(n=512, d=256, base=10000.0)  # a sliding-window layer's cache
    pecheck.assert_rope_cache(cos, sin, hf_config=cfg, layer_type="sliding_attention")
    result = pecheck.check_rope_cache(cos, sin, hf_config=cfg, layer_type="full_attention")
    assert not result.passed and "sliding_attention" in result.likely_cause


# BLOOM's and MPT's slopes and HF T5's buckets as the libraries compute them
sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, "lib"))
from relative_tables import bloom_slopes, mpt_slopes, t5_buckets  # noqa: E402
from sin_tables import diffusers_timestep  # noqa: E402


@pytest.mark.parametrize("heads", [16, 40, 112])
def test_alibi_slopes_as_bloom_and_mpt_compute_them(heads):
    pecheck.assert_alibi_slopes(bloom_slopes(heads))
    pecheck.assert_alibi_slopes(bloom_slopes(heads).numpy(), heads=heads)
    pecheck.assert_alibi_slopes(mpt_slopes(heads))
    result = pecheck.check_alibi_slopes(bloom_slopes(heads).flip(0))  # the wrong order
    assert not result.passed and result.likely_cause and "head" in str(result.witness)


def test_alibi_bias_and_its_failures():
    slopes = bloom_slopes(8)
    bias = slopes[:, None, None] * torch.arange(64, dtype=torch.float32)[None, None, :]
    pecheck.assert_alibi_slopes(bias)  # BLOOM's (H, 1, n) form
    with pytest.raises(AssertionError, match="first"):
        pecheck.assert_alibi_slopes(bias * 1.01, msg="first")
    with pytest.raises(TypeError, match="not int64"):
        pecheck.check_alibi_slopes(np.arange(8))


@pytest.mark.parametrize("bidirectional", [True, False])
def test_t5_buckets_as_hf_computes_them(bidirectional):
    b = t5_buckets(96, 96, bidirectional=bidirectional)
    causal = not bidirectional
    pecheck.assert_t5_buckets(b, num_buckets=32, max_distance=128, causal=causal)
    pecheck.assert_t5_buckets(b[None], num_buckets=32, max_distance=128, causal=causal)  # (1, q, k)
    pecheck.assert_t5_buckets(b.numpy().astype(np.int32), num_buckets=32, max_distance=128,
                              causal=causal)
    result = pecheck.check_t5_buckets(b, num_buckets=32, max_distance=128, causal=not causal)
    assert not result.passed and result.likely_cause and "bucket" in str(result.witness)
    with pytest.raises(TypeError, match="expected integers"):
        pecheck.check_t5_buckets(b.float())


def test_check_table_takes_every_family():
    assert pecheck.check_table(bloom_slopes(16), family="alibi").passed
    assert pecheck.check_table(t5_buckets(40, 40), family="t5", num_buckets=32, max_distance=128).passed


# ---- kept inputs and the replay line --------------------------------------------------

def test_failing_run_keeps_its_inputs_and_the_replay_line_runs(keep):
    cos, sin = rope(offset=1.0)
    r = pecheck.check_rope_cache(cos, sin, base=BASE, keep=keep)
    assert not r.passed and r.kept and os.path.dirname(r.kept) == str(keep)
    assert sorted(os.listdir(r.kept)) == ["cos.npy", "sin.npy"]
    np.testing.assert_array_equal(np.load(os.path.join(r.kept, "cos.npy")), cos.numpy())
    argv = shlex.split(r.replay)
    assert argv[0] == "pecheck" and os.path.join(r.kept, "cos.npy") in argv
    p = subprocess.run([_binary.find_binary()] + argv[1:] + ["--format", "json"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, cwd=str(keep))
    assert p.returncode == 1 and json.loads(p.stdout)["status"] == "fail"
    acc = [v for v in r.failures if v.check == "accuracy"][0]
    assert acc.replay and "--property accuracy" in acc.replay
    p = subprocess.run([_binary.find_binary()] + shlex.split(acc.replay)[1:], stdout=subprocess.PIPE)
    assert p.returncode == 1 and b"FAIL" in p.stdout
    # the same input failing again is kept once
    assert pecheck.check_rope_cache(cos, sin, base=BASE, keep=keep).kept == r.kept
    assert len(os.listdir(keep)) == 1


def test_keep_false_says_how_to_rebuild():
    cos, sin = rope(offset=1.0)
    r = pecheck.check_rope_cache(cos, sin, base=BASE, keep=False)
    assert r.kept is None and r.replay is None and all(v.replay is None for v in r.failures)
    assert "not kept" in r.note and "numpy.save" in r.note and "pecheck check" in r.note
    assert "note: the inputs were not kept" in r.report()


def test_keep_folder_that_cannot_be_written_is_a_note(tmp_path):
    blocker = tmp_path / "file"
    blocker.write_text("not a folder")
    r = pecheck.check_learned_table(torch.zeros(16, 8), keep=blocker / "kept")
    assert not r.passed and r.kept is None and r.replay is None
    assert "the inputs were not kept (cannot write %s" % (blocker / "kept") in r.note


def test_keep_folder_from_the_environment(monkeypatch, tmp_path):
    monkeypatch.setenv("PECHECK_KEEP", str(tmp_path / "env"))
    r = pecheck.check_learned_table(torch.zeros(16, 8))
    assert not r.passed and r.kept.startswith(str(tmp_path / "env"))


# ---- the transport: in memory, not on disk ---------------------------------------------

def test_arrays_reach_the_binary_in_memory(monkeypatch):
    seen = {}
    real_start = _binary.start

    def spy(args, cwd=None, pass_fds=()):
        for name in sorted(os.listdir(cwd)):
            target = os.readlink(os.path.join(cwd, name))
            fd = int(target.rsplit("/", 1)[1])
            seen[name] = (target, os.readlink("/proc/self/fd/%d" % fd), fd in pass_fds)
        return real_start(args, cwd=cwd, pass_fds=pass_fds)

    monkeypatch.setattr(_binary, "start", spy)
    pecheck.assert_rope_cache(*rope(), base=BASE)
    assert sorted(seen) == ["cos.npy", "sin.npy"]
    for name, (target, what, passed) in seen.items():
        assert target.startswith("/proc/self/fd/") and passed
        assert what.startswith("/memfd:" + name)  # an anonymous in-memory file


def test_the_staging_folder_is_removed(tmp_path, monkeypatch):
    # a temporary folder of this test's own: the machine's /tmp is shared
    # with the tests that run beside this one (prove -j), which make
    # pecheck-* folders of their own
    monkeypatch.setattr(tempfile, "tempdir", str(tmp_path))
    pecheck.assert_sinusoidal_table(sinusoidal())
    assert os.listdir(str(tmp_path)) == []


# faulthandler on SIGUSR1: a child that outlives its signal shows where it
# is (the test sends SIGUSR1 before it kills it).  The signals at their
# default action, as in a terminal's process: a test run under nohup hands
# its children an ignored SIGHUP, which pecheck's handler leaves ignored
# (_cleanup.py), and the SIGHUP case then ran on until its 60 s timeout
# (make check under `nohup`: python_venv.t 5 failed so)
_LONG_CHECK = """
import faulthandler, signal
faulthandler.register(signal.SIGUSR1, all_threads=True)
signal.signal(signal.SIGHUP, signal.SIG_DFL)
signal.signal(signal.SIGTERM, signal.SIG_DFL)
import sys, numpy as np
import pecheck
n, d = 4096, 128
pos = np.arange(n)[:, None]
w = 10000.0 ** (-np.arange(0, d, 2) / d)
pe = np.zeros((n, d), np.float32)
pe[:, 0::2], pe[:, 1::2] = np.sin(pos * w), np.cos(pos * w)
pecheck.check_sinusoidal_table(pe, cases=10 ** 7, keep=False)  # minutes: SIGTERM comes first
"""


def _cwd_in(folder):
    """The processes whose working folder is FOLDER (the staging folder pecheck runs in)."""
    found = []
    for pid in filter(str.isdigit, os.listdir("/proc")):
        try:
            if os.readlink("/proc/%s/cwd" % pid).startswith(folder):
                found.append(int(pid))
        except OSError:
            pass
    return found


# SIGTERM sent by the process to itself at the two moments where a folder or
# a process exists but was not yet registered for removal: right after the
# staging folder is made, and right after Popen has started pecheck in it
# (before Popen returns: the child is already in its folder)
_TERM_AFTER_MKDTEMP = """
import os, signal, tempfile
_mkdtemp = tempfile.mkdtemp
def mkdtemp(*a, **k):
    path = _mkdtemp(*a, **k)
    os.kill(os.getpid(), signal.SIGTERM)
    return path
tempfile.mkdtemp = mkdtemp
"""
_TERM_IN_POPEN = """
import os, signal, subprocess, time
class Popen(subprocess.Popen):
    def _execute_child(self, args, *a, **k):
        super()._execute_child(args, *a, **k)
        if "help" in args:  # pecheck's option probe (_binary), not the check
            return
        time.sleep(0.5)  # pecheck under way (has read its input): left alone, it runs minutes
        open(os.environ["PECHECK_TEST_CHILD"], "w").write(str(self.pid))
        os.kill(os.getpid(), signal.SIGTERM)
subprocess.Popen = Popen
"""


@pytest.mark.parametrize("signame,moment", [("SIGTERM", "mid-check"), ("SIGTERM", "after-mkdtemp"),
                                             ("SIGTERM", "in-popen"), ("SIGHUP", "mid-check")])
def test_sigterm_or_sighup_during_a_check_leaves_no_staging_folder(tmp_path, signame, moment):
    # a Python process running a long check gets SIGTERM (a CI job cancelled,
    # `timeout`) or SIGHUP (its terminal closed): it still ends by that
    # signal, its pecheck-* staging folder in its TMPDIR (this test's own) is
    # removed and its pecheck process ended, wherever the signal lands (the
    # two moments before registration are the handler's, shared by both)
    sig = getattr(signal, signame)
    tmpdir = tmp_path / "tmp"
    tmpdir.mkdir()
    child_pid_file = str(tmp_path / "child")
    env = dict(os.environ, TMPDIR=str(tmpdir), PECHECK_TEST_CHILD=child_pid_file,
               PYTHONPATH=os.path.dirname(os.path.dirname(os.path.abspath(pecheck.__file__))))
    prelude = {"mid-check": "", "after-mkdtemp": _TERM_AFTER_MKDTEMP, "in-popen": _TERM_IN_POPEN}
    proc = subprocess.Popen([sys.executable, "-c", prelude[moment] + _LONG_CHECK], env=env,
                            start_new_session=True, stdout=subprocess.PIPE, stderr=subprocess.PIPE)
    try:
        folder = None
        if moment == "mid-check":
            staging, deadline = [], time.monotonic() + 60
            while time.monotonic() < deadline and proc.poll() is None:
                staging = [p for p in os.listdir(str(tmpdir)) if p.startswith("pecheck-")]
                if staging and _cwd_in(os.path.join(str(tmpdir), staging[0])):
                    break  # the folder made and pecheck running in it
                time.sleep(0.05)
            assert staging and proc.poll() is None, proc.communicate()
            folder = os.path.join(str(tmpdir), staging[0])
            proc.send_signal(sig)
        try:
            out, err = proc.communicate(timeout=60)
        except subprocess.TimeoutExpired:  # still running: where it is, then fail
            proc.send_signal(signal.SIGUSR1)
            time.sleep(2)
            proc.kill()
            out, err = proc.communicate()
            pytest.fail("still running 60 s after %s (%s):\n%s" % (signame, moment, err.decode()))
        assert proc.returncode == -sig, err
        assert [p for p in os.listdir(str(tmpdir)) if p.startswith("pecheck-")] == []
        if moment == "in-popen":  # pecheck was started: it must be gone
            child = int(open(child_pid_file).read())
            assert not os.path.exists("/proc/%d" % child) or \
                open("/proc/%d/stat" % child).read().split(") ")[1][0] == "Z"
        if folder:
            deadline = time.monotonic() + 10
            while _cwd_in(folder) and time.monotonic() < deadline:
                time.sleep(0.05)
            assert _cwd_in(folder) == []
    finally:
        try:
            os.killpg(proc.pid, signal.SIGKILL)  # whatever is left of the session
        except OSError:
            pass
        proc.wait()


# ---- the binary and the console entry ------------------------------------------------------

def test_console_entry_runs_the_binary():
    p = subprocess.run([sys.executable, "-m", "pecheck", "list"], stdout=subprocess.PIPE,
                       stderr=subprocess.PIPE, env=dict(os.environ, PYTHONPATH=os.path.dirname(
                           os.path.dirname(os.path.abspath(pecheck.__file__)))))
    assert p.returncode == 0 and b"torch-exp" in p.stdout


def test_console_entry_without_a_binary_says_what_to_do(monkeypatch, tmp_path):
    monkeypatch.delenv("PECHECK", raising=False)
    monkeypatch.setattr(_binary, "_BESIDE", ())
    monkeypatch.setattr(_binary, "_recorded_checkout", lambda: None)
    monkeypatch.setenv("PATH", str(tmp_path))
    (tmp_path / "pecheck").write_text("#!/bin/sh\nexit 0\n")  # a script, as pip's console entry
    (tmp_path / "pecheck").chmod(0o755)
    with pytest.raises(pecheck.PecheckError, match="binary not found.*PECHECK"):
        pecheck.find_binary()
    assert _binary.main(["list"]) == _binary.EXIT_INPUT

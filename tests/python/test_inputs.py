"""pytest tests of how inputs are read: a torch.Tensor is recognised as one
(a subclass too, without importing torch for the test) and read through
torch's own conversion, never through a subclass's own __array__, numpy()
or detach(); a bool where a number is meant is a ValueError naming the
argument."""
import os
import subprocess
import sys

import numpy as np
import pytest

import pecheck  # noqa: E402  (python/ of the checkout, or the installed package: conftest.py)

torch = pytest.importorskip("torch")

N, D, BASE = 256, 64, 10000.0


def rope(offset=0.0):
    inv = 1.0 / (BASE ** (torch.arange(0, D, 2, dtype=torch.int64).float() / D))
    f = torch.outer(torch.arange(N).float() + offset, inv)
    e = torch.cat((f, f), dim=-1)
    return e.cos(), e.sin()


class Plain(torch.Tensor):
    """A subclass as libraries define them (no override)."""


class ArrayLies(torch.Tensor):
    """A subclass whose __array__ hands numpy other values than its own."""

    def __array__(self, dtype=None):
        return np.asarray(self.other)


class TorchFunctionLies(torch.Tensor):
    """A subclass whose detach() and numpy() hand over other values."""

    @classmethod
    def __torch_function__(cls, func, types, args=(), kwargs=None):
        name = getattr(func, "__name__", "")
        if name in ("detach", "numpy", "cpu", "contiguous") and args and hasattr(args[0], "other"):
            other = args[0].other
            return other.numpy() if name == "numpy" else other
        return super().__torch_function__(func, types, args, kwargs or {})


TorchFunctionLies.__module__ = "torchlike.tensors"  # a library's module whose name starts "torch"


def lying(cls, tensor, other):
    t = tensor.as_subclass(cls)
    t.other = other
    return t


@pytest.mark.parametrize("cls", [ArrayLies, TorchFunctionLies])
def test_a_tensor_subclass_is_read_as_the_tensor_it_is(cls):
    good, bad = rope(), rope(offset=1.0)
    # wrong tensors that would hand over right values: they fail
    r = pecheck.check_rope_cache(lying(cls, bad[0], good[0]), lying(cls, bad[1], good[1]), base=BASE,
                                 keep=False)
    assert not r.passed and r.failures
    # right tensors that would hand over wrong values: they pass
    pecheck.assert_rope_cache(lying(cls, good[0], bad[0]), lying(cls, good[1], bad[1]), base=BASE)


def test_a_bf16_tensor_subclass_is_bf16():
    cos, sin = (t.to(torch.bfloat16).as_subclass(Plain) for t in rope())
    r = pecheck.assert_rope_cache(cos, sin, base=BASE)
    acc = [v for v in r.verdicts if v.check == "accuracy" and v.passed]
    assert acc and acc[0].data["params"]["dtype"] == "bf16"
    w = torch.nn.Parameter(torch.randn(64, 16).to(torch.bfloat16))  # nn.Parameter: a subclass
    pecheck.assert_learned_table(w)


def test_position_ids_of_a_tensor_subclass_are_its_own():
    ids = torch.arange(N, dtype=torch.int64)
    lie = lying(ArrayLies, ids, ids + 1)
    pecheck.assert_rope_cache(*rope(), base=BASE, position_ids=lie)


def test_torch_is_not_imported_to_tell_a_tensor():
    code = ("import sys, numpy as np, pecheck\n"
            "pecheck.check_learned_table(np.random.default_rng(0).standard_normal((64, 8)).astype('f4'))\n"
            "pecheck.check_rope_cache(np.ones((8, 8), 'f4'), np.zeros((8, 8), 'f4'), base=10000.0,"
            " keep=False)\n"
            "print('torch' in sys.modules)\n")
    env = dict(os.environ)
    if not os.environ.get("PECHECK_TEST_INSTALLED") == "1":
        env["PYTHONPATH"] = os.path.dirname(os.path.dirname(os.path.abspath(pecheck.__file__)))
    p = subprocess.run([sys.executable, "-c", code], stdout=subprocess.PIPE, stderr=subprocess.PIPE,
                       env=env)
    assert p.returncode == 0, p.stderr.decode()
    assert p.stdout.decode().strip() == "False"


# ---- a bool is not a number -------------------------------------------------------------

BOOL_IDS = {"numpy": np.ones(N, dtype=bool), "torch": torch.ones(N, dtype=torch.bool),
            "list": [True] * N}


@pytest.mark.parametrize("kind", sorted(BOOL_IDS))
def test_bool_position_ids_are_refused(kind):
    with pytest.raises(ValueError, match=r"^position_ids=: bool values .* are not positions"):
        pecheck.check_rope_cache(*rope(), base=BASE, position_ids=BOOL_IDS[kind])
    with pytest.raises(ValueError, match=r"^timesteps=: bool values"):
        pecheck.check_sinusoidal_table(np.zeros((N, D), "f4"), preset="diffusers",
                                       timesteps=BOOL_IDS[kind])


@pytest.mark.parametrize("value", [True, False, np.bool_(True), torch.tensor(True)],
                         ids=["True", "False", "numpy", "torch"])
@pytest.mark.parametrize("key", ["pos_start", "base", "seq_len", "tol_abs"])
def test_a_bool_where_a_number_is_meant_is_refused(key, value):
    if key in ("seq_len", "tol_abs") and value is False:
        value = np.bool_(False)  # an option's Python False is "left out", as None
    with pytest.raises(ValueError, match=r"^%s=(True|False): a bool where pecheck reads a number"
                       % key):
        pecheck.check_rope_cache(*rope(), **{"base": BASE, key: value})


def test_a_bool_is_refused_in_every_family_and_gate_rotary():
    with pytest.raises(ValueError, match="^heads=True: a bool"):
        pecheck.check_alibi_slopes(np.ones(8, "f4"), heads=True)
    with pytest.raises(ValueError, match="^num_buckets=True: a bool"):
        pecheck.check_t5_buckets(np.zeros((4, 4), np.int64), num_buckets=True, max_distance=128)
    with pytest.raises(ValueError, match="^pos_start=True: a bool"):
        pecheck.check_sinusoidal_table(np.zeros((4, 8), "f4"), pos_start=True)

    def fn(dim, end, theta=10000.0):
        return torch.polar(torch.ones(end, dim // 2), torch.zeros(end, dim // 2))
    for key in ("chunk", "head_dim", "base"):
        with pytest.raises(ValueError, match="^%s=True: a bool" % key):
            pecheck.check_rotary(fn, {"rope_theta": BASE, "head_dim": 8}, positions=16, **{key: True})


def test_numbers_of_numpy_and_torch_are_still_numbers():
    cos, sin = rope(offset=5.0)
    for start in (5, np.int64(5), torch.tensor(5), np.array(5)):
        pecheck.assert_rope_cache(cos, sin, base=BASE, pos_start=start)
    pecheck.assert_rope_cache(*rope(), base=np.float64(BASE), seq_len=torch.tensor(N))


@pytest.mark.parametrize("kind", ["numpy", "torch", "list"])
def test_bool_tables_and_buckets_are_refused_as_bools(kind):
    a = np.ones((16, 8), dtype=bool)
    x = {"numpy": a, "torch": torch.from_numpy(a), "list": a.tolist()}[kind]
    for call in (lambda: pecheck.check_rope_cache(x, x, base=BASE),
                 lambda: pecheck.check_sinusoidal_table(x), lambda: pecheck.check_learned_table(x),
                 lambda: pecheck.check_alibi_slopes(x)):
        with pytest.raises(ValueError, match="pecheck gates floating-point values .*, not (torch.)?bool"):
            call()
        with pytest.raises(TypeError):  # as any input that is not floating point
            call()
    with pytest.raises(ValueError, match="^buckets: bool values .* are not buckets"):
        pecheck.check_t5_buckets(x, num_buckets=32, max_distance=128)

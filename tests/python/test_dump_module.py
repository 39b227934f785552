"""scripts/dump_torch_pe.py rope --module: the user's own rotary module
(HF-style class or Meta-style freqs_cis function) dumped and gated."""
import os
import subprocess
import textwrap

import numpy as np
import pytest

torch = pytest.importorskip("torch")
ROOT = os.path.join(os.path.dirname(os.path.abspath(__file__)), os.pardir, os.pardir)
import pecheck  # noqa: E402  (python/ of the checkout, or the installed package: conftest.py)

MODULES = textwrap.dedent('''
    import torch

    class HFRotary(torch.nn.Module):
        """forward(x, position_ids) -> (cos, sin) in x.dtype, as HF's Llama."""
        def __init__(self, dim, base=10000.0, wrong=0):
            super().__init__()
            inv = 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))
            self.register_buffer("inv_freq", inv, persistent=False)
            self.wrong = wrong
        def forward(self, x, position_ids):
            freqs = (position_ids[:, :, None].float() + self.wrong) * self.inv_freq[None, None, :]
            emb = torch.cat((freqs, freqs), dim=-1)
            return emb.cos().to(x.dtype), emb.sin().to(x.dtype)

    class OldRotary(HFRotary):
        """the older forward(x, seq_len) signature"""
        def forward(self, x, seq_len=None):
            return super().forward(x, torch.arange(seq_len)[None])

    def precompute_freqs_cis(dim, end, theta=10000.0):
        freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: (dim // 2)].float() / dim))
        freqs = torch.outer(torch.arange(end, device=freqs.device), freqs).float()
        return torch.polar(torch.ones_like(freqs), freqs)

    def not_complex(dim):
        return torch.zeros(4, dim)
''')


def dump(tmp_path, name, kwargs, *extra):
    mod = tmp_path / "rotary.py"
    mod.write_text(MODULES)
    cos, sin = tmp_path / "cos.npy", tmp_path / "sin.npy"
    p = subprocess.run(["/usr/bin/python3", os.path.join(ROOT, "scripts", "dump_torch_pe.py"), "rope",
                        "--module", "%s:%s" % (mod, name), "--kwargs", kwargs, "--head-dim", "64",
                        "--max-len", "1024", "--cos", str(cos), "--sin", str(sin)] + list(extra),
                       stdout=subprocess.PIPE, stderr=subprocess.PIPE, env=dict(os.environ, PYTHONDONTWRITEBYTECODE="1"))
    return p, cos, sin


@pytest.mark.parametrize("name,kwargs", [("HFRotary", "dim=64,base=500000"), ("OldRotary", "dim=64,base=500000"),
                                         ("precompute_freqs_cis", "dim=64,end=1024,theta=500000")])
def test_user_module_dumps_and_passes(tmp_path, name, kwargs):
    p, cos, sin = dump(tmp_path, name, kwargs)
    assert p.returncode == 0, p.stderr.decode()
    c = np.load(cos)
    assert c.dtype == np.float32 and c.shape[0] == 1024
    pecheck.assert_rope_cache(c, np.load(sin), base=500000.0)


def test_user_module_wrong_positions_fail(tmp_path):
    p, cos, sin = dump(tmp_path, "HFRotary", "dim=64,wrong=1")  # every row is for position p+1
    assert p.returncode == 0, p.stderr.decode()
    with pytest.raises(AssertionError):
        pecheck.assert_rope_cache(np.load(cos), np.load(sin))


def test_user_module_bf16_says_dtype(tmp_path):
    p, cos, sin = dump(tmp_path, "HFRotary", "dim=64", "--dtype", "bfloat16")
    assert p.returncode == 0, p.stderr.decode()
    assert b"--dtype bf16" in p.stdout
    pecheck.assert_rope_cache(np.load(cos), np.load(sin), dtype="bf16", base=10000.0)


def test_user_function_not_complex_is_exit_2(tmp_path):
    p, _, _ = dump(tmp_path, "not_complex", "dim=64")
    assert p.returncode == 2 and b"complex" in p.stderr

#!/usr/bin/env python3
"""dump_torch_pe.py: dump a PyTorch positional-encoding table to .npy for
`pecheck check --table`.

Runs with Debian's python3-torch (1.13) and python3-numpy:

  # the source article's PositionalEncoding buffer (d_model 512, max_len 5000)
  scripts/dump_torch_pe.py sinusoidal --out pe.npy
  pecheck check --table pe.npy --family sinusoidal

  # a rotary embedding's cos/sin cache (rotate_half / Llama / GPT-NeoX style,
  # cat(freqs, freqs): shape (max_len, head_dim), float32)
  scripts/dump_torch_pe.py rope --cos cos.npy --sin sin.npy
  pecheck check --table cos.npy --table-sin sin.npy --family rope --base 10000

  # your own module: any nn.Module with a PE buffer
  scripts/dump_torch_pe.py sinusoidal --module mymodel.py:PositionalEncoding \\
      --kwargs d_model=768,max_len=2048 --buffer pe --out pe.npy

  # your own rotary module, HF-style: forward(x, position_ids) -> (cos, sin)
  # (or the older forward(x, seq_len=N)); x is (1, max_len, head_dim) in --dtype
  scripts/dump_torch_pe.py rope --module rotary.py:MyRotaryEmbedding \\
      --kwargs dim=128,base=500000 --max-len 8192 --head-dim 128 --cos cos.npy --sin sin.npy
  # or a Meta-style function returning complex freqs_cis (end, dim/2)
  scripts/dump_torch_pe.py rope --module model.py:precompute_freqs_cis \\
      --kwargs dim=128,end=8192,theta=500000 --cos cos.npy --sin sin.npy

Options
  --dtype bfloat16|float16     (rope --module, HF-style) the dtype of x, which HF
                               modules return cos/sin in; the cache is saved
                               widened to float32 (exact): check it with
                               `pecheck check --dtype bf16` (or f16).
  --positions-dtype bfloat16   build the table from positions held in
                               bfloat16 (torch.arange(...).to(torch.bfloat16)),
                               the mistake of a model cast to bf16 before its
                               buffers are built: pecheck fails such a table.
  --layout interleaved         (rope) a repeat_interleave cache instead of
                               cat(freqs, freqs); --compact: one column per
                               pair, shape (max_len, head_dim/2).

The tables are written float32, C order, little-endian (np.save), the
dtypes pecheck reads.  Exit status: 0 written, 2 bad arguments or a module
that cannot be loaded, 3 PyTorch or NumPy missing.
"""
import argparse
import importlib.util
import inspect
import math
import sys


def fail(msg, code=2):
    sys.stderr.write("dump_torch_pe.py: %s\n" % msg)
    sys.exit(code)


try:
    import numpy as np
    import torch
    import torch.nn as nn
except ImportError as e:  # pragma: no cover - depends on the machine
    # name the interpreter: a python3 first on PATH (pyenv, a venv) may lack
    # the packages Debian installed for /usr/bin/python3
    fail("PyTorch and NumPy are needed, and %s has no %s (Debian: apt-get install python3-torch "
         "python3-numpy, for /usr/bin/python3)" % (sys.executable, getattr(e, "name", None) or e), 3)


def positions(max_len, dtype):
    """Positions 0..max_len-1 as float32, optionally rounded through DTYPE."""
    t = torch.arange(0, max_len, dtype=torch.float)
    if dtype == "bfloat16":
        t = t.to(torch.bfloat16).float()
    elif dtype == "float16":
        t = t.to(torch.float16).float()
    return t


class PositionalEncoding(nn.Module):
    """The source article's module (articles/01, /04), verbatim in its
    arithmetic: div_term = exp(arange(0, d, 2).float() * (-ln(10000)/d)),
    pe[:, 0::2] = sin(position * div_term), pe[:, 1::2] = cos(...), in float32.
    POSITIONS_DTYPE only changes how `position` is built."""

    def __init__(self, d_model=512, max_len=5000, positions_dtype="float32"):
        super().__init__()
        pe = torch.zeros(max_len, d_model)
        position = positions(max_len, positions_dtype).unsqueeze(1)
        div_term = torch.exp(torch.arange(0, d_model, 2).float() * (-math.log(10000.0) / d_model))
        pe[:, 0::2] = torch.sin(position * div_term)
        pe[:, 1::2] = torch.cos(position * div_term)
        self.register_buffer("pe", pe.unsqueeze(0))

    def forward(self, x):
        return x + self.pe[:, :x.size(1)]


def rope_cache(head_dim, max_len, base, positions_dtype, layout, compact):
    """cos/sin caches of the rotate_half RoPE (HF Llama's LlamaRotaryEmbedding,
    float32): inv_freq = 1 / base^(arange(0, dim, 2).float() / dim),
    freqs = outer(t, inv_freq), emb = cat(freqs, freqs)."""
    inv_freq = 1.0 / (base ** (torch.arange(0, head_dim, 2).float() / head_dim))
    t = positions(max_len, positions_dtype)
    freqs = torch.outer(t, inv_freq)
    if compact:
        emb = freqs
    elif layout == "interleaved":
        emb = torch.repeat_interleave(freqs, 2, dim=-1)
    else:
        emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos().float(), emb.sin().float()


def load_attr(spec):
    """The object NAME of FILE.py in SPEC = 'FILE.py:NAME'."""
    path, _, name = spec.rpartition(":")
    if not path or not name:
        fail("--module: expected FILE.py:NAME, got %r" % spec)
    try:
        s = importlib.util.spec_from_file_location("user_pe_module", path)
        mod = importlib.util.module_from_spec(s)
        s.loader.exec_module(mod)
        return getattr(mod, name)
    except Exception as e:  # any error of the user's module is reported, not raised
        fail("--module %s: %s: %s" % (spec, type(e).__name__, e))


def load_module(spec, kwargs):
    cls = load_attr(spec)
    try:
        return cls(**kwargs)
    except Exception as e:
        fail("--module %s: %s: %s" % (spec, type(e).__name__, e))


def squeeze_cache(t, what):
    """(1, ..., n, d) -> (n, d)."""
    while t.dim() > 2 and t.shape[0] == 1:
        t = t[0]
    if t.dim() != 2:
        fail("%s has shape %s; expected (max_len, dims)" % (what, tuple(t.shape)))
    return t


def user_rope_cache(spec, kwargs, head_dim, max_len, dtype):
    """cos/sin of the user's rotary module (HF-style class) or function
    (Meta-style precompute_freqs_cis returning complex freqs_cis)."""
    obj = load_attr(spec)
    try:
        if not inspect.isclass(obj):
            out = obj(**kwargs)
            if not torch.is_tensor(out) or not out.is_complex():
                fail("--module %s: a function must return complex freqs_cis, got %s" % (spec, type(out).__name__))
            out = squeeze_cache(out, "freqs_cis")
            return out.real.float(), out.imag.float()
        m = obj(**kwargs)
        x = torch.zeros(1, max_len, head_dim, dtype=getattr(torch, dtype))
        with torch.no_grad():
            try:
                cos, sin = m(x, torch.arange(max_len).unsqueeze(0))  # forward(x, position_ids)
            except TypeError:
                cos, sin = m(x, seq_len=max_len)                    # older forward(x, seq_len)
    except SystemExit:
        raise
    except Exception as e:  # any error of the user's code is reported, not raised
        fail("--module %s: %s: %s" % (spec, type(e).__name__, e))
    if cos.dtype != torch.float32:
        print("cache dtype %s: check it with pecheck --dtype %s" %
              (str(cos.dtype).replace("torch.", ""), {"torch.bfloat16": "bf16", "torch.float16": "f16"}.get(str(cos.dtype), "f32")))
    return squeeze_cache(cos, "cos")[:max_len].float(), squeeze_cache(sin, "sin")[:max_len].float()


def parse_kwargs(text):
    out = {}
    for item in filter(None, (text or "").split(",")):
        k, eq, v = item.partition("=")
        if not eq:
            fail("--kwargs: expected NAME=VALUE, got %r" % item)
        try:
            out[k] = int(v)
        except ValueError:
            try:
                out[k] = float(v)
            except ValueError:
                out[k] = v
    return out


def save(path, tensor):
    a = tensor.detach().cpu().float().contiguous().numpy()
    a = np.ascontiguousarray(a, dtype="<f4")
    np.save(path, a)
    print("%s: %s %s" % (path, a.dtype, a.shape))


def main():
    ap = argparse.ArgumentParser(description="dump a PyTorch PE table or RoPE cache to .npy")
    sub = ap.add_subparsers(dest="kind", required=True)
    s = sub.add_parser("sinusoidal", help="a module's PE buffer (default: the article's module)")
    s.add_argument("--out", required=True)
    s.add_argument("--d-model", type=int, default=512)
    s.add_argument("--max-len", type=int, default=5000)
    s.add_argument("--positions-dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    s.add_argument("--module", help="FILE.py:CLASS of your own module instead of the article's")
    s.add_argument("--kwargs", help="NAME=VALUE,... for your module's constructor")
    s.add_argument("--buffer", default="pe", help="the buffer holding the table (default pe)")
    r = sub.add_parser("rope", help="a rotary embedding's cos/sin cache")
    r.add_argument("--cos", required=True)
    r.add_argument("--sin", required=True)
    r.add_argument("--head-dim", type=int, default=128)
    r.add_argument("--max-len", type=int, default=4096)
    r.add_argument("--base", type=float, default=10000.0)
    r.add_argument("--positions-dtype", choices=["float32", "bfloat16", "float16"], default="float32")
    r.add_argument("--layout", choices=["half", "interleaved"], default="half")
    r.add_argument("--compact", action="store_true", help="(max_len, head_dim/2): one column per pair")
    r.add_argument("--module", help="FILE.py:NAME of your own rotary class (HF-style) or freqs_cis function")
    r.add_argument("--kwargs", help="NAME=VALUE,... for your class's constructor or your function")
    r.add_argument("--dtype", choices=["float32", "bfloat16", "float16"], default="float32",
                   help="(--module class) dtype of x, in which HF modules return cos/sin")
    a = ap.parse_args()

    if a.kind == "sinusoidal":
        if a.module:
            m = load_module(a.module, parse_kwargs(a.kwargs))
        else:
            if a.d_model < 2 or a.d_model % 2 or a.max_len < 1:
                fail("--d-model must be even and >= 2, --max-len >= 1")
            m = PositionalEncoding(a.d_model, a.max_len, a.positions_dtype)
        buffers = dict(m.named_buffers())
        if a.buffer not in buffers:
            fail("the module has no buffer %r (it has: %s)" % (a.buffer, ", ".join(buffers) or "none"))
        pe = buffers[a.buffer]
        while pe.dim() > 2 and pe.shape[0] == 1:  # (1, max_len, d) -> (max_len, d)
            pe = pe[0]
        if pe.dim() == 3 and pe.shape[1] == 1:    # (max_len, 1, d), the tutorial's layout
            pe = pe[:, 0, :]
        if pe.dim() != 2:
            fail("buffer %r has shape %s; expected (max_len, d)" % (a.buffer, tuple(pe.shape)))
        save(a.out, pe)
    else:
        if a.head_dim < 2 or a.head_dim % 2 or a.max_len < 1 or not a.base > 1:
            fail("--head-dim must be even and >= 2, --max-len >= 1, --base > 1")
        if a.module:
            cos, sin = user_rope_cache(a.module, parse_kwargs(a.kwargs), a.head_dim, a.max_len, a.dtype)
        else:
            cos, sin = rope_cache(a.head_dim, a.max_len, a.base, a.positions_dtype, a.layout, a.compact)
        save(a.cos, cos)
        save(a.sin, sin)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""rope_forms.py: RoPE cos/sin caches of the mainstream binary32
formulations, computed with PyTorch as their published code computes them,
for pecheck's precision tests.

    rope_forms.py FORM D BASE P0 N OUTDIR [VARIANT]

writes OUTDIR/cos.npy and OUTDIR/sin.npy, float32, rows for positions
P0..P0+N-1, the half layout (cat(freqs, freqs)).  FORM:
  exp   the source articles' div_term = exp(arange(0, d, 2).float() * (-ln(base)/d)),
        angles position * div_term
  pow   inv_freq = 1 / (base ** (arange(0, d, 2).float() / d)), outer(t, inv_freq)
  hf    HF transformers' default rotary embedding: inv_freq from an int64 arange,
        freqs = inv_freq[:, None] @ position_ids[None, :], emb = cat(freqs, freqs)
  meta  Meta's Llama precompute_freqs_cis: polar(ones, outer(t, freqs)), its real
        and imaginary parts
VARIANT (default ok) makes the mistakes pecheck must catch:
  next    the rows of position p + 1 (a cache off by one position)
  taylor  sin/cos by a 3-term Taylor series after a binary32 quadrant reduction
  flip    the sign of pair 0's cos in row N/2 flipped (both copies of the half layout)"""
import math
import os
import sys

import numpy as np
import torch


def angles(form, d, base, pos):
    """The binary32 angles (N, d/2) of FORM at positions POS (int64)."""
    t = torch.tensor(pos, dtype=torch.float32)
    if form == "exp":
        div = torch.exp(torch.arange(0, d, 2).float() * (-math.log(base) / d))
        return t[:, None] * div[None, :]
    if form == "pow":
        inv = 1.0 / (base ** (torch.arange(0, d, 2).float() / d))
        return torch.outer(t, inv)
    if form == "hf":
        inv = 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))
        return (inv[:, None].float() @ t[None, :]).transpose(0, 1)
    if form == "meta":
        freqs = 1.0 / (base ** (torch.arange(0, d, 2)[: (d // 2)].float() / d))
        return torch.outer(t, freqs).float()
    raise SystemExit("unknown form " + form)


def taylor(a):
    """cos and sin of binary32 angles A: quadrant reduction in binary32,
    then 3-term Taylor series (errors up to about 3e-4)."""
    half_pi = np.float32(math.pi / 2)
    k = np.rint(a / half_pi)
    r = (a - k * half_pi).astype(np.float32)
    r2 = r * r
    s = r * (1 - r2 / 6 + r2 * r2 / 120)
    c = 1 - r2 / 2 + r2 * r2 / 24
    q = (k.astype(np.int64) % 4)
    cos = np.choose(q, [c, -s, -c, s]).astype(np.float32)
    sin = np.choose(q, [s, c, -s, -c]).astype(np.float32)
    return cos, sin


def write(form, d, base, p0, n, out, variant="ok"):
    """OUT/cos.npy and OUT/sin.npy of FORM (see the module's text)."""
    pos = np.arange(p0, p0 + n, dtype=np.int64)
    if variant == "next":
        pos = pos + 1
    a = angles(form, d, base, pos)
    if form == "meta":
        z = torch.polar(torch.ones_like(a), a)
        cos, sin = z.real.numpy(), z.imag.numpy()
    elif variant == "taylor":
        cos, sin = taylor(a.numpy())
    else:
        cos, sin = a.cos().numpy(), a.sin().numpy()
    cos = np.ascontiguousarray(np.concatenate([cos, cos], axis=1), dtype="<f4")
    sin = np.ascontiguousarray(np.concatenate([sin, sin], axis=1), dtype="<f4")
    if variant == "flip":
        cos[n // 2, 0] = -cos[n // 2, 0]
        cos[n // 2, d // 2] = -cos[n // 2, d // 2]
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "cos.npy"), cos)
    np.save(os.path.join(out, "sin.npy"), sin)


def main():
    form, d, base, p0, n, out = sys.argv[1:7]
    variant = sys.argv[7] if len(sys.argv) > 7 else "ok"
    write(form, int(d), float(base), int(p0), int(n), out, variant)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""axes_caches.py: RoPE caches over positions with several axes, built as
the models' code builds them, with their position ids, for tests/rope_axes.t.

    axes_caches.py KIND VARIANT OUTDIR

writes OUTDIR/cos.npy, OUTDIR/sin.npy (float32) and OUTDIR/pos.npy (int64,
one row of positions per cache row).  KIND:

  mrope     Qwen2-VL (tests/data/configs/Qwen--Qwen2-VL-7B-Instruct.json):
            10 text tokens, a 16 x 16 image grid, 6 text tokens, the
            position ids of transformers' Qwen2VLModel.get_rope_index (text:
            (p, p, p); the image: (t0, t0 + h, t0 + w)); the cache of
            Qwen2VLRotaryEmbedding (inv_freq of the head dim, one matmul per
            axis, cat(freqs, freqs)) combined by apply_multimodal_rotary_pos_emb
            (mrope_section [16, 24, 24], doubled over the two halves);
  mrope3    Qwen3-VL (tests/data/configs/Qwen--Qwen3-VL-8B-Instruct.json): the
            same positions, its apply_interleaved_mrope (mrope_section
            [24, 20, 20]) on the frequencies, then cat(freqs, freqs);
  axial     a 2-D axial RoPE over a 16 x 16 grid of patches, position ids
            (row, column), axes_dim [64, 64], theta 10000, as FLUX's EmbedND
            rope() computes each axis (omega = 1 / theta^(arange(0, dim, 2) /
            dim) and the angles in float64, cos and sin rounded to float32),
            the axes' pairs in turn, interleaved (repeat_interleave, as
            diffusers' get_1d_rotary_pos_embed with repeat_interleave_real).

  pixtral   Pixtral's vision RoPE (transformers' PixtralRotaryEmbedding,
            head dim 64, rope_theta 10000) over a 16 x 16 grid of patches,
            position ids (row, column): one schedule freqs = 1 /
            theta^(arange(0, 64, 2) / 64), the rows on freqs[::2] and the
            columns on freqs[1::2], [freqs_h | freqs_w] per patch, then
            cat(freqs, freqs) (the half layout).

VARIANT ok is correct; flat: mrope's cache of 1-D positions (every row its
index on every axis: the image tokens given text positions, the ids
get_rope_index's); swap:
mrope with sections [24, 16, 24], mrope3 in
HF's order instead of the interleaved one, axial with the two axes of
the ids exchanged (rows for columns), pixtral with the rows on freqs[1::2] and
the columns on freqs[::2]."""
import os
import sys

import numpy as np
import torch


def grid_ids():
    """get_rope_index's positions: text, a 16 x 16 image (one frame), text."""
    ids = [(p, p, p) for p in range(10)]
    ids += [(10, 10 + h, 10 + w) for h in range(16) for w in range(16)]
    start = max(max(x) for x in ids) + 1
    ids += [(start + p,) * 3 for p in range(6)]
    return torch.tensor(ids, dtype=torch.int64)


def inv_freq(base, dim):
    return 1.0 / (base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim))


def axis_freqs(ids, inv):
    """freqs[a] = inv @ positions of axis a, one float32 matmul each (n, d/2)."""
    pos = ids.T.float()                                    # (3, n)
    return (inv[None, :, None] @ pos[:, None, :]).transpose(1, 2)  # (3, n, d/2)


def mrope(variant):
    ids = grid_ids()
    at = ids
    if variant == "flat":                                  # position_ids = arange(n) on every axis
        at = torch.arange(len(ids), dtype=torch.int64)[:, None].repeat(1, 3)
    freqs = axis_freqs(at, inv_freq(1000000.0, 128))
    emb = torch.cat((freqs, freqs), dim=-1)                # (3, n, 128)
    sec = [24, 16, 24] if variant == "swap" else [16, 24, 24]
    parts = lambda t: torch.cat([m[i % 3] for i, m in enumerate(t.split(sec * 2, dim=-1))], dim=-1)
    return parts(emb.cos()), parts(emb.sin()), ids


def mrope3(variant):
    ids = grid_ids()
    freqs = axis_freqs(ids, inv_freq(5000000.0, 128))     # (3, n, 64)
    sec = [24, 20, 20]
    if variant == "swap":                                  # HF's order, not the interleaved one
        t = torch.cat([m[i % 3] for i, m in enumerate(freqs.split(sec, dim=-1))], dim=-1)
    else:                                                  # apply_interleaved_mrope
        t = freqs[0].clone()
        for dim, offset in enumerate((1, 2), start=1):
            idx = slice(offset, sec[dim] * 3, 3)
            t[..., idx] = freqs[dim, ..., idx]
    emb = torch.cat((t, t), dim=-1)
    return emb.cos(), emb.sin(), ids


def axial(variant):
    rc = torch.tensor([(h, w) for h in range(16) for w in range(16)], dtype=torch.int64)
    ids = rc[:, [1, 0]] if variant == "swap" else rc       # the cache built with the axes exchanged
    cos, sin = [], []
    for a, dim in enumerate((64, 64)):
        scale = torch.arange(0, dim, 2, dtype=torch.float64) / dim
        omega = 1.0 / (10000.0 ** scale)
        out = torch.einsum("n,d->nd", ids[:, a].double(), omega)
        cos.append(torch.repeat_interleave(torch.cos(out), 2, dim=-1).float())
        sin.append(torch.repeat_interleave(torch.sin(out), 2, dim=-1).float())
    return torch.cat(cos, dim=-1), torch.cat(sin, dim=-1), rc


def pixtral(variant):
    side, dim, theta = 16, 64, 10000.0
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2).float() / dim))
    even, odd = (freqs[1::2], freqs[::2]) if variant == "swap" else (freqs[::2], freqs[1::2])
    h = torch.arange(side)
    w = torch.arange(side)
    freqs_h = torch.outer(h, even).float()
    freqs_w = torch.outer(w, odd).float()
    inv_freq = torch.cat([freqs_h[:, None, :].repeat(1, side, 1),
                          freqs_w[None, :, :].repeat(side, 1, 1)], dim=-1).reshape(-1, dim // 2)
    inv_freq = torch.cat((inv_freq, inv_freq), dim=-1)
    rc = torch.tensor([(r, c) for r in range(side) for c in range(side)], dtype=torch.int64)
    emb = inv_freq[rc[:, 0] * side + rc[:, 1]]             # PixtralRotaryEmbedding.forward
    return emb.cos(), emb.sin(), rc


def main(argv):
    if len(argv) != 4:
        raise SystemExit(__doc__)
    kind, variant, out = argv[1], argv[2], argv[3]
    cos, sin, ids = {"mrope": mrope, "mrope3": mrope3, "axial": axial,
                      "pixtral": pixtral}[kind](variant)
    os.makedirs(out, exist_ok=True)
    np.save(os.path.join(out, "cos.npy"), cos.contiguous().numpy())
    np.save(os.path.join(out, "sin.npy"), sin.contiguous().numpy())
    np.save(os.path.join(out, "pos.npy"), ids.contiguous().numpy())


if __name__ == "__main__":
    main(sys.argv)

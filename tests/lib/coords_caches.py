#!/usr/bin/env python3
"""coords_caches.py: RoPE caches of vision encoders whose positions are real
coordinates, built as the models' code builds them, for tests/rope_coords.t.

    coords_caches.py KIND VARIANT OUTDIR

writes OUTDIR/cos.npy, OUTDIR/sin.npy (float32, one row a patch) and
OUTDIR/pos.npy (a row of positions per cache row, (rows, 2): height, width).
KIND:

  eva02   EVA-02's VisionRotaryEmbeddingFast (baaivision/EVA, EVA-02
          asuka/modeling/rope.py, as of its 2023 release): dim = head_dim / 2
          = 32, theta 10000, pt_seq_len 16, ft_seq_len 24:
            freqs = 1 / theta^(arange(0, dim, 2)[:dim // 2].float() / dim)
            t = arange(ft_seq_len) / ft_seq_len * pt_seq_len    (float32)
            freqs = einsum(t, freqs), repeat '... n -> ... (n r)', r = 2
            broadcat((freqs[:, None, :], freqs[None, :, :]), dim = -1)
          the (24 * 24, 64) freqs_cos, freqs_sin (interleaved pairs: rows on
          pairs 0..15, columns on pairs 16..31).  pos.npy: t's float32 values.
          VARIANT ok; noninterp: the cache built at t = arange(24) (the
          resolution not interpolated) while pos.npy says interpolated;
          ids64: pos.npy in float64, i * 16 / 24 exactly rounded (not t's
          float32 values); grid16 (ft_seq_len = pt_seq_len = 16: whole
          positions) with pos.npy float64 and OUTDIR/pos_int.npy int64.
  dinov3  DINOv3's RopePositionEmbedding (facebookresearch/dinov3,
          dinov3/layers/rope_position_encoding.py, as released August 2025;
          base 100, normalize_coords "separate", eval: no shift, jitter or
          rescale), head dim 64, a 14 x 14 grid, float32:
            periods = base ** (2 * arange(D // 4) / (D // 2))
            coords_h = arange(0.5, H) / H (and w), stack(meshgrid(.., 'ij'))
            coords = 2.0 * coords - 1.0                       ([-1, 1])
            angles = 2 * math.pi * coords[:, :, None] / periods[None, None, :]
            angles = angles.flatten(1, 2).tile(2)             (rotate_half)
          pos.npy: the float32 coords.  VARIANT ok; base1000, base10000: the
          periods of base 1000 or 10000 (the wrong period base); indices: the
          angles at the integer patch indices i (coordinates not normalized)
          while pos.npy holds the normalized ones; cls: 1 cls and 4 register rows
          first, cos 1 and sin 0 (no rotation), their ids 0 on both axes;
          clsbad: the same rows holding the first patch's values."""
import math
import os
import sys

import numpy as np
import torch


def eva02(variant):
    dim, theta, pt, ft = 32, 10000, 16, 24
    if variant == "grid16":
        ft = 16
    freqs = 1.0 / (theta ** (torch.arange(0, dim, 2)[: dim // 2].float() / dim))
    t = torch.arange(ft) / ft * pt
    t_cache = torch.arange(ft).float() if variant == "noninterp" else t
    f = torch.einsum("..., f -> ... f", t_cache, freqs)
    f = f.repeat_interleave(2, dim=-1)                     # '... n -> ... (n r)', r = 2
    n = f.shape[0]
    f = torch.cat((f[:, None, :].expand(n, n, -1), f[None, :, :].expand(n, n, -1)), dim=-1)
    f = f.reshape(-1, f.shape[-1])
    ids = torch.stack(torch.meshgrid(t, t, indexing="ij"), dim=-1).reshape(-1, 2)
    ids = ids.numpy()
    if variant == "ids64":
        g = np.arange(ft, dtype=np.float64) * pt / ft
        ids = np.stack(np.meshgrid(g, g, indexing="ij"), axis=-1).reshape(-1, 2)
    if variant == "grid16":
        ids = ids.astype(np.float64)
    return f.cos(), f.sin(), ids


def dinov3(variant):
    D, H = 64, 14
    base = {"base1000": 1000.0, "base10000": 10000.0}.get(variant, 100.0)
    periods = base ** (2 * torch.arange(D // 4, dtype=torch.float32) / (D // 2))
    coords_h = torch.arange(0.5, H, dtype=torch.float32) / H
    coords_w = torch.arange(0.5, H, dtype=torch.float32) / H
    coords = torch.stack(torch.meshgrid(coords_h, coords_w, indexing="ij"), dim=-1).flatten(0, 1)
    coords = 2.0 * coords - 1.0
    at = coords
    if variant == "indices":                               # normalize_coords left out
        idx = torch.arange(H, dtype=torch.float32)
        at = torch.stack(torch.meshgrid(idx, idx, indexing="ij"), dim=-1).flatten(0, 1)
    angles = 2 * math.pi * at[:, :, None] / periods[None, None, :]
    angles = angles.flatten(1, 2).tile(2)
    cos, sin, ids = torch.cos(angles), torch.sin(angles), coords.numpy()
    if variant in ("cls", "clsbad"):                       # 1 cls + 4 registers, unrotated
        one, zero = torch.ones(5, D), torch.zeros(5, D)
        if variant == "clsbad":
            one, zero = cos[:1].expand(5, -1), sin[:1].expand(5, -1)
        cos, sin = torch.cat((one, cos)), torch.cat((zero, sin))
        ids = np.concatenate((np.zeros((5, 2), dtype=np.float32), ids))
    return cos, sin, ids


def main():
    kind, variant, out = sys.argv[1], sys.argv[2], sys.argv[3]
    os.makedirs(out, exist_ok=True)
    cos, sin, ids = {"eva02": eva02, "dinov3": dinov3}[kind](variant)
    np.save(os.path.join(out, "cos.npy"), cos.numpy().astype(np.float32))
    np.save(os.path.join(out, "sin.npy"), sin.numpy().astype(np.float32))
    np.save(os.path.join(out, "pos.npy"), ids)
    if variant == "grid16":
        np.save(os.path.join(out, "pos_int.npy"), ids.astype(np.int64))
    return 0


if __name__ == "__main__":
    sys.exit(main())

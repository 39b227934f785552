#!/usr/bin/env python3
"""xpos_caches.py: xPos cos/sin caches as torchscale's XPOS computes them
(microsoft/torchscale 4d1e0e8, torchscale/component/xpos_relative_position.py,
its formulation written out here in PyTorch, float32), and wrong variants,
for tests/rope_xpos.t.

    xpos_caches.py VARIANT D LENGTH OFFSET OUT_PREFIX

writes OUT_PREFIX_cos.npy and OUT_PREFIX_sin.npy, (LENGTH, D) float32: the
(cos, sin) XPOS multiplies a query by (apply_rotary_pos_emb with scale), each
pair's value repeated on its two columns (duplicate_interleave).  VARIANT:
ok (upscale, the queries'), down (downscale=True, the keys'), b256 (scale_base
256), nocentre (the exponent's positions not centred: q = p), half
(cat(x, x): the half layout instead of duplicate_interleave), late (every
row that of position p + 1, angle and scale: an off-by-one in the
positions), anglelate (the angle of p + 1, the scale of p), cosonly (the
scale multiplied into cos only, sin unscaled), zeta05 (the scale buffer
computed with 0.5 in place of 0.4: (2i + 0.5 d) / (1.5 d))."""
import sys

import numpy as np
import torch


def xpos_cos_sin(d, length, offset, scale_base=512, downscale=False, centre=True, half=False,
                 late=0, angle_late=0, cos_only=False, zc=0.4):
    # XPOS.__init__: the scale buffer
    scale = (torch.arange(0, d, 2) + zc * d) / ((1 + zc) * d)
    # XPOS.forward
    min_pos = -(length + offset) // 2 if centre else 0
    max_pos = length + offset + min_pos
    # late: every row one position on (the exponent's positions and the angle's)
    scale = scale ** torch.arange(min_pos + late, max_pos + late, 1).to(scale).div(scale_base)[:, None]
    # fixed_pos_embedding(scale): d/2 columns, positions 0 .. length + offset - 1
    seq_len, dim = scale.shape
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim) / dim))
    sinusoid_inp = torch.einsum("i , j -> i j", torch.arange(late + angle_late, seq_len + late + angle_late,
                                                         dtype=torch.float),
                                inv_freq).to(scale)
    sin, cos = torch.sin(sinusoid_inp), torch.cos(sinusoid_inp)
    if scale.shape[0] > length:
        scale, sin, cos = scale[-length:], sin[-length:], cos[-length:]
    if downscale:
        scale = 1 / scale
    # apply_rotary_pos_emb: duplicate_interleave(t * scale)
    sin, cos = (sin if cos_only else sin * scale), cos * scale
    if half:
        return torch.cat((cos, cos), -1), torch.cat((sin, sin), -1)
    rep = lambda m: m.view(-1, 1).repeat(1, 2).view(m.shape[0], -1)
    return rep(cos), rep(sin)


VARIANTS = {"ok": {}, "down": {"downscale": True}, "b256": {"scale_base": 256},
            "nocentre": {"centre": False}, "half": {"half": True}, "late": {"late": 1},
            "anglelate": {"angle_late": 1}, "cosonly": {"cos_only": True}, "zeta05": {"zc": 0.5}}

if __name__ == "__main__":
    variant, d, length, offset, out = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), \
        int(sys.argv[4]), sys.argv[5]
    cos, sin = xpos_cos_sin(d, length, offset, **VARIANTS[variant])
    assert cos.dtype == torch.float32 and cos.shape == (length, d)
    np.save(out + "_cos.npy", cos.numpy())
    np.save(out + "_sin.npy", sin.numpy())

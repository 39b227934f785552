#!/usr/bin/env python3
"""causes_checked_caches.py: RoPE caches with one mistake each whose cause
pecheck names only once its prediction reproduces the rows
(families/rope/rank_checked.c, width_cause.c; tests/rope_causes_checked.t),
built with PyTorch the way HF transformers builds them (rope_caches.py's
formulas), at other shapes, models and lengths than tests/audit_blind's.

    causes_checked_caches.py VARIANT OUTDIR

writes OUTDIR/config.json, cos.npy, sin.npy (float32, the half layout
unless said).  VARIANT:
  floor_linear4      linear x4 (a Llama-2), 6000 rows of positions p // 4 (the factor as integer division)
  floor_llama2_3     Llama-2, 5000 rows of positions 3 * (p // 3) (quantized positions, no linear factor)
  pos_f16_llama2     Llama-2, 6000 rows of positions rounded to float16 (the float16 claim holds)
  clamp_qwen         Qwen2.5 YaRN, a 5000-row cache read at 0..7999 with the index clamped (rows 4999.. one row)
  noatt_qwen         Qwen2.5 YaRN, 8000 rows without the attention factor (norm 1, not 1.1386)
  recip_llama2       Llama-2 (n, 64): pair i turns p / inv_freq_i (inv_freq passed as periods), 3000 rows
  recip2pi_llama2    Llama-2 (n, 64): pair i turns p * 2 pi / inv_freq_i (periods as frequencies), 3000 rows
  mult_phi35_short   Phi-3.5, 3000 rows (short factors): inv_freq times the factors instead of divided
  edge_llama32       Llama-3.2-1B (llama3 x32): the first torch.where against high_freq_wavelen, 8192 rows
  cosshift_llama2    Llama-2, 12000 rows: cos = sin(freqs + pi/2) in float32
  bf16twice_phi35    Phi-3.5 long factors, 6000 rows: cos.to(bf16) * attention factor in bf16, widened
  arange_llama32     Llama-3.2-1B (head 64): inv_freq from arange(0, 64) / 64, (n, 64) without cat
  mixed_llama2       Llama-2: cos interleaved (repeat_interleave), sin half (cat): (n, 128)
  ok_qwen, ok_llama32_f  correct caches (controls)"""
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rope_caches as rc  # noqa: E402

LLAMA32 = os.path.join(os.path.dirname(HERE), "data", "configs", "meta-llama--Llama-3.2-1B.json")


def angles(inv, pos):
    """HF: the float32 matmul inv_freq @ position_ids, (n, d/2)."""
    return (inv.float()[None, :, None] @ pos.float()[None, None, :]).transpose(1, 2)[0]


def half(freqs, att=1.0):
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos() * att, emb.sin() * att


def inv_of(cfg, seq):
    _, dim = rc.dims(cfg)
    return rc.INV[rc.rope_type(cfg)](cfg, dim, rc.base_of(cfg), seq)


def llama32():
    with open(LLAMA32) as f:
        return json.load(f)


def build(variant):
    M = rc.MODELS
    if variant in ("floor_linear4", "floor_llama2_3", "pos_f16_llama2"):
        if variant == "floor_linear4":
            cfg = dict(M["linear8"], rope_scaling={"type": "linear", "factor": 4.0})
            inv0 = 1.0 / rc.geometric(rc.base_of(cfg), 128)  # unscaled: p // 4 is the scaled position
            return cfg, half(angles(inv0, torch.div(torch.arange(6000), 4, rounding_mode="floor")))
        cfg = M["llama2"]
        inv, _ = inv_of(cfg, 6000)
        if variant == "floor_llama2_3":
            return cfg, half(angles(inv, 3 * torch.div(torch.arange(5000), 3, rounding_mode="floor")))
        return cfg, half(angles(inv, torch.arange(6000).to(torch.float16).float()))
    if variant in ("clamp_qwen", "ok_qwen", "noatt_qwen"):
        cfg = M["qwen25yarn"]
        inv, att = inv_of(cfg, 8000)
        if variant == "noatt_qwen":
            return cfg, half(angles(inv, torch.arange(8000)))
        c, s = half(angles(inv, torch.arange(5000)), att)
        if variant == "ok_qwen":
            return cfg, (c, s)
        idx = torch.clamp(torch.arange(8000), max=4999)
        return cfg, (c[idx], s[idx])
    if variant in ("recip_llama2", "recip2pi_llama2"):
        cfg = M["llama2"]
        inv, _ = inv_of(cfg, 3000)
        num = 1.0 if variant == "recip_llama2" else 2 * math.pi
        w = (torch.tensor(num, dtype=torch.float32) / inv.float())
        th = torch.arange(3000).float()[:, None] * w[None, :]
        return cfg, (th.cos(), th.sin())
    if variant == "mult_phi35_short":
        cfg = M["phi35"]
        inv, att = inv_of(cfg, 3000)  # 1 / (short * base^(2i/d))
        ext = torch.tensor(cfg["rope_scaling"]["short_factor"], dtype=torch.float32)
        g = 1.0 / rc.geometric(rc.base_of(cfg), 96)
        return cfg, half(angles(g * ext, torch.arange(3000)), att)
    if variant in ("edge_llama32", "ok_llama32_f"):
        cfg = llama32()
        rs = cfg["rope_scaling"]
        inv = 1.0 / rc.geometric(rc.base_of(cfg), 64)
        f, lf, hf, old = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"], \
            rs["original_max_position_embeddings"]
        wl = 2 * math.pi / inv
        edge = old / hf if variant == "edge_llama32" else old / lf
        il = torch.where(wl > edge, inv / f, inv)
        sm = (old / wl - lf) / (hf - lf)
        mid = ~(wl < old / hf) * ~(wl > old / lf)
        return cfg, half(angles(torch.where(mid, (1 - sm) * il / f + sm * il, il), torch.arange(8192)))
    if variant == "cosshift_llama2":
        cfg = M["llama2"]
        inv, _ = inv_of(cfg, 12000)
        fr = torch.cat((angles(inv, torch.arange(12000)),) * 2, dim=-1)
        return cfg, (torch.sin(fr + math.pi / 2), fr.sin())
    if variant == "bf16twice_phi35":
        cfg = M["phi35"]
        inv, att = inv_of(cfg, 6000)
        c, s = half(angles(inv, torch.arange(6000)))
        return cfg, ((c.to(torch.bfloat16) * att).float(), (s.to(torch.bfloat16) * att).float())
    if variant == "arange_llama32":
        cfg = llama32()
        inv = 1.0 / (rc.base_of(cfg) ** (torch.arange(0, 64).float() / 64))
        fr = angles(inv, torch.arange(4096))
        return cfg, (fr.cos(), fr.sin())
    if variant == "mixed_llama2":
        cfg = M["llama2"]
        inv, _ = inv_of(cfg, 4096)
        fr = angles(inv, torch.arange(4096))
        return cfg, (torch.repeat_interleave(fr, 2, dim=-1).cos(), torch.cat((fr, fr), dim=-1).sin())
    raise SystemExit("unknown variant " + variant)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    cfg, (cos, sin) = build(argv[1])
    rc.save_case(argv[2], cfg, cos.float().contiguous().numpy(), sin.float().contiguous().numpy())


if __name__ == "__main__":
    main(sys.argv)

#!/usr/bin/env python3
"""causes_more_caches.py: RoPE caches with one mistake each whose cause
pecheck names from the rows themselves (tests/rope_causes_more.t), built
with PyTorch the way HF transformers builds them (rope_caches.py's
formulas) from the models of rope_caches.MODELS and tests/data/configs.

    causes_more_caches.py VARIANT OUTDIR

writes OUTDIR/config.json, cos.npy, sin.npy (float32, the half layout
unless said).  VARIANT:
  ok_llama2, ok_linear8, ok_phi35   correct caches (controls)
  period_llama2      Llama-2, 5000 rows of positions p mod 1000 (a rolling buffer's slot as the position)
  period_qwen        Qwen2.5 YaRN, 6144 rows of p mod 3072 (prefill chunks whose positions restart)
  next_llama2        Llama-2, the rows of p + 1 (an offset, no period)
  sinrow_llama2      Llama-2, cos of p and sin of p + 1 (sin_cached[position_ids + 1])
  sinamp_qwen        Qwen2.5 YaRN with its attention factor on sin only
  cosamp_llama2      Llama-2 with cos times 0.96, sin times 1
  recip_linear8      linear x8 with the frequencies times 8 instead of divided
  switch_phi35       Phi-3.5: rows 0..2999 with the short factors, 3000..8999 with the long
  dynseq_dynamic2    dynamic NTK x2 (max_position_embeddings 4096): the base of length 16384 on 4096 rows
  slice_cohere       Command R7B's repeat_interleave cache (128 columns) cut with [..., :64]
  slice_cohere_ok    the same cache's one-column-a-pair form, [..., ::2]
  swap_llama32       Llama-3.2-1B (llama3 x32) with low_freq_factor and high_freq_factor swapped
  ok_llama32         Llama-3.2-1B, correct
  head_neox          GPT-NeoX-20B (24 of 96 dims rotate): the default schedule over the whole
                     96-dim head, 96 columns (the partial rotary ignored)
  head_neox_base     the same 96 columns with base 2 x rope's (no schedule of the config)
  ok_neox            GPT-NeoX-20B's 24-dim rotary cache, correct
  alpha_ok           a HunYuan-style dense config (head 64, dynamic NTK alpha 50): base' =
                     base alpha^(64/62), correct
  alpha_ignored      the same config, its cache of rope_theta alone (alpha ignored)
  alpha_noexp        the same config, base x alpha without the exponent d/(d-2)"""
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import rope_caches as rc  # noqa: E402

LLAMA32 = os.path.join(os.path.dirname(HERE), "data", "configs", "meta-llama--Llama-3.2-1B.json")
COHERE = os.path.join(os.path.dirname(HERE), "data", "configs", "CohereForAI--c4ai-command-r7b-12-2024.json")


def angles(inv, pos):
    """HF: the float32 matmul inv_freq @ position_ids, (n, d/2)."""
    pos = pos.float()
    return (inv.float()[None, :, None] @ pos[None, None, :]).transpose(1, 2)[0]


def half(freqs, att_c=1.0, att_s=1.0):
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos() * att_c, emb.sin() * att_s


def inv_of(cfg, seq):
    _, dim = rc.dims(cfg)
    return rc.INV[rc.rope_type(cfg)](cfg, dim, rc.base_of(cfg), seq)


def build(variant):
    M = rc.MODELS
    if variant == "sinrow_llama2":
        cfg, n = M["llama2"], 5000
        inv, _ = inv_of(cfg, n + 1)
        cos, sin = half(angles(inv, torch.arange(n + 1)))
        return cfg, (cos[:n], sin[1:])
    if variant in ("ok_llama2", "period_llama2", "next_llama2", "cosamp_llama2"):
        cfg, n = M["llama2"], 5000
        inv, _ = inv_of(cfg, n)
        pos = torch.arange(n)
        if variant == "period_llama2":
            pos = pos % 1000
        if variant == "next_llama2":
            pos = pos + 1
        return cfg, half(angles(inv, pos), 0.96 if variant == "cosamp_llama2" else 1.0)
    if variant in ("period_qwen", "sinamp_qwen"):
        cfg = M["qwen25yarn"]
        n = 6144 if variant == "period_qwen" else 4096
        inv, att = inv_of(cfg, n)
        pos = torch.arange(n) % 3072 if variant == "period_qwen" else torch.arange(n)
        if variant == "sinamp_qwen":
            return cfg, half(angles(inv, pos), 1.0, att)
        return cfg, half(angles(inv, pos), att, att)
    if variant in ("ok_linear8", "recip_linear8"):
        cfg, n = M["linear8"], 4096
        inv, _ = inv_of(cfg, n)
        if variant == "recip_linear8":
            inv = inv * 64.0  # w0 / 8 -> w0 * 8
        return cfg, half(angles(inv, torch.arange(n)))
    if variant in ("ok_phi35", "switch_phi35"):
        cfg, n, at = M["phi35"], 9000, 3000
        inv_l, att = inv_of(cfg, n)
        inv_s, _ = inv_of(cfg, 1)
        if variant == "ok_phi35":
            return cfg, half(angles(inv_l, torch.arange(n)), att, att)
        c0, s0 = half(angles(inv_s, torch.arange(at)), att, att)
        c1, s1 = half(angles(inv_l, torch.arange(at, n)), att, att)
        return cfg, (torch.cat((c0, c1)), torch.cat((s0, s1)))
    if variant == "dynseq_dynamic2":
        cfg = M["dynamic2"]
        inv, _ = inv_of(cfg, 16384)
        return cfg, half(angles(inv, torch.arange(4096)))
    if variant in ("slice_cohere", "slice_cohere_ok"):
        with open(COHERE) as f:
            cfg = json.load(f)
        inv = 1.0 / rc.geometric(rc.base_of(cfg), 128)
        freqs = torch.repeat_interleave(angles(inv, torch.arange(2048)), 2, dim=-1)  # Cohere's layout
        c, s = freqs.cos(), freqs.sin()
        cut = slice(0, 64) if variant == "slice_cohere" else slice(0, 128, 2)
        return cfg, (c[:, cut].contiguous(), s[:, cut].contiguous())
    if variant in ("swap_llama32", "ok_llama32"):
        with open(LLAMA32) as f:
            cfg = json.load(f)
        made = json.loads(json.dumps(cfg))
        rs = made["rope_scaling"]
        if variant == "swap_llama32":
            rs["low_freq_factor"], rs["high_freq_factor"] = rs["high_freq_factor"], rs["low_freq_factor"]
        inv, _ = inv_of(made, 8192)
        return cfg, half(angles(inv, torch.arange(8192)))
    if variant in ("head_neox", "head_neox_base", "ok_neox"):
        cfg = M["neox20b"]
        hd, rot = rc.dims(cfg)
        dim = rot if variant == "ok_neox" else hd
        base = rc.base_of(cfg) * (2.0 if variant == "head_neox_base" else 1.0)
        return cfg, half(angles(1.0 / rc.geometric(base, dim), torch.arange(3000)))
    if variant in ("alpha_ok", "alpha_ignored", "alpha_noexp"):
        cfg = {"model_type": "hunyuan_v1_dense", "hidden_size": 2048, "num_attention_heads": 32,
               "rope_theta": 10000.0, "max_position_embeddings": 8192,
               "rope_scaling": {"type": "dynamic", "alpha": 50.0, "factor": 1.0}}
        base, dim = 10000.0, 64
        base = {"alpha_ok": base * 50.0 ** (dim / (dim - 2)), "alpha_ignored": base,
                "alpha_noexp": base * 50.0}[variant]
        return cfg, half(angles(1.0 / rc.geometric(base, dim), torch.arange(4096)))
    raise SystemExit("unknown variant " + variant)


def main(argv):
    if len(argv) != 3:
        raise SystemExit(__doc__)
    cfg, (cos, sin) = build(argv[1])
    rc.save_case(argv[2], cfg, cos.float().contiguous().numpy(), sin.float().contiguous().numpy())


if __name__ == "__main__":
    main(sys.argv)

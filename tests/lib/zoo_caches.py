#!/usr/bin/env python3
"""zoo_caches.py: the RoPE cos/sin cache of a model, built from its
published config.json (tests/data/configs/) the way that model's own code
builds it, for tests/rope_zoo.t.

    zoo_caches.py -    (one "CONFIG VARIANT DTYPE N OUTDIR" a line on stdin)

writes OUTDIR/cos.npy and OUTDIR/sin.npy for positions 0..N-1, computed in
float32 and rounded once to DTYPE (float32; float16; bfloat16 stored as its
uint16 bits, '<u2').  The code followed, by model_type:

  gptj         transformers' modeling_gptj.create_sinusoidal_positions
               (einsum of positions and 1 / 10000^(2i/rotary_dim)), the
               (n, rotary_dim / 2) sin and cos halves;
  chatglm      ChatGLM's RotaryEmbedding.forward_impl (base 10000 *
               rope_ratio over kv_channels / 2 dims, torch.outer, the cache
               stacked as (cos, sin)), as (n, dim / 2) cos and sin;
  deepseek_*   DeepSeek's modeling_deepseek.DeepseekV3YarnRotaryEmbedding
               (its yarn_find_correction_range, yarn_linear_ramp_mask,
               yarn_get_mscale ratio, cat(freqs, freqs)) over qk_rope_head_dim;
  llama4*      transformers' Llama4TextRotaryEmbedding (torch.polar of the
               llama3 frequencies): (n, d / 2) real and imaginary parts;
  internlm     InternLM's InternLMDynamicNTKScalingRotaryEmbedding;
  gpt_oss      transformers' GptOssRotaryEmbedding: the (n, d / 2) halves
               its _apply_rotary_emb takes;
  cohere*      transformers' CohereRotaryEmbedding: repeat_interleave;
  any other    transformers' generic rotary embedding: the
               _compute_*_parameters of modeling_rope_utils.py
               (tests/lib/rope_caches.py), emb = cat(freqs, freqs), times
               the attention factor; Gemma 3's sliding layers with
               rope_local_base_freq and the default schedule.

VARIANT "ok" is what the model computes (for Gemma 3: its full-attention
layers; "local": its sliding layers).  The others are mistakes pecheck must
catch: base (rope_theta wrong), factor (halved), origlen (x4), noatt (the
attention factor dropped), pairs (the head dim's frequencies on the rotary
pairs), slice (DeepSeek: the frequencies of the whole 192-dim query head on
the 64-dim rope slice), ratio (ChatGLM: rope_ratio left out), truncate
(gpt-oss: the correction range truncated)."""
import json
import math
import os
import sys

import numpy as np
import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import rope_caches as rc  # noqa: E402  (the HF formulas)


def text_part(cfg):
    tc = cfg.get("text_config")
    return tc if isinstance(tc, dict) else cfg


# Class defaults the published configs leave out (transformers'
# Gemma3TextConfig, Llama4TextConfig).
DEFAULTS = {"gemma3_text": {"head_dim": 256, "rope_theta": 1e6, "num_attention_heads": 8,
                            "rope_local_base_freq": 10000.0, "max_position_embeddings": 131072},
            "llama4_text": {"head_dim": 128, "rope_theta": 500000.0}}


def rope_parameters(t, layer):
    """transformers' newer layout: rope_parameters (nested by layer type, or
    flat) as rope_theta and a rope_scaling object."""
    rp = t.pop("rope_parameters")
    if rp and all(isinstance(v, dict) or v is None for v in rp.values()):
        rp = rp[layer]
    rp = dict(rp)
    if "rope_theta" in rp:
        t["rope_theta"] = rp.pop("rope_theta")
    if rp.get("rope_type", rp.get("type", "default")) == "default":
        t.pop("rope_local_base_freq", None)
        t["rope_scaling"] = None
    else:
        t["rope_scaling"] = rp


def normalize(cfg, layer="full_attention"):
    """The text model's fields as rope_caches' formulas read them (LAYER:
    the layer type of a config nested by layer type)."""
    t = dict(text_part(cfg))
    if "rope_parameters" in t:
        rope_parameters(t, layer)
    for k, v in DEFAULTS.get(t.get("model_type", ""), {}).items():
        t.setdefault(k, v)
    hidden = t.get("hidden_size", t.get("n_embd", t.get("d_model")))
    heads = t.get("num_attention_heads", t.get("n_head", t.get("n_heads")))
    hd = t.get("head_dim") or t.get("kv_channels") or hidden // heads
    prf = t.get("partial_rotary_factor", t.get("rotary_pct", t.get("rope_pct", 1.0)))
    rot = t.get("qk_rope_head_dim") or t.get("rotary_dim") or int(hd * prf)
    if t.get("model_type") == "chatglm":
        rot = hd // 2
    base = float(t.get("rope_theta", t.get("rotary_emb_base", 10000.0)))
    rs = t.get("rope_scaling")
    if isinstance(rs, dict) and rs.get("type") == "mrope":
        rs = None  # Qwen2-VL: the default frequencies (its sections need positions per axis)
    if isinstance(rs, dict) and rs.get("rope_type") == "default":
        rs = None
    out = {"head_dim": hd, "rot": rot, "base": base, "rope_scaling": rs,
           "max_position_embeddings": t.get("max_position_embeddings",
                                            t.get("n_positions", t.get("seq_length", 2048))),
           "model_type": t.get("model_type", ""), "t": t}
    if "original_max_position_embeddings" in t:
        out["original_max_position_embeddings"] = t["original_max_position_embeddings"]
    return out


def hf_inv(n, variant, seq):
    """HF's inverse frequencies and attention factor for the normalized N."""
    c = {"rope_scaling": n["rope_scaling"], "max_position_embeddings": n["max_position_embeddings"],
         "rope_theta": n["base"]}
    if "original_max_position_embeddings" in n:
        c["original_max_position_embeddings"] = n["original_max_position_embeddings"]
    c = rc.wrong(c, variant if variant in ("factor", "origlen", "noatt", "base") else "ok")
    kind = rc.rope_type(c)
    inv, att = rc.INV[kind](c, n["rot"], rc.base_of(c), seq)
    inv = inv.float()
    if variant == "pairs":
        inv = (1.0 / rc.geometric(rc.base_of(c), n["head_dim"]))[: n["rot"] // 2]
    return inv, att


def positions(n_rows):
    return torch.arange(n_rows, dtype=torch.int64).float()


def hf_generic(n, variant, n_rows, layout="half"):
    inv, att = hf_inv(n, variant, n_rows)
    freqs = (inv[None, :, None] @ positions(n_rows)[None, None, :]).transpose(1, 2)[0]
    if layout == "halves":           # gpt-oss: cos and sin of the d/2 frequencies
        emb = freqs
    elif layout == "interleaved":    # Cohere: repeat_interleave
        emb = torch.repeat_interleave(freqs, 2, dim=-1)
    else:
        emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos() * att, emb.sin() * att


def gemma_local(n, variant, n_rows):
    t = n["t"]
    local = dict(n, rope_scaling=None, base=float(t.get("rope_local_base_freq", 10000.0)))
    return hf_generic(local, variant, n_rows)


def gptj(n, variant, n_rows):
    dim = n["rot"] if variant != "pairs" else n["head_dim"]
    inv_freq = 1.0 / (10000 ** (torch.arange(0, dim, 2, dtype=torch.int64) / dim))
    inv_freq = inv_freq[: n["rot"] // 2]
    if variant == "base":
        inv_freq = 1.0 / (500000 ** (torch.arange(0, n["rot"], 2, dtype=torch.int64) / n["rot"]))
    inp = torch.einsum("i , j -> i j", torch.arange(n_rows, dtype=torch.int64).float(),
                       inv_freq).float()
    return torch.cos(inp), torch.sin(inp)


def chatglm(n, variant, n_rows):
    ratio = n["t"].get("rope_ratio", 1)
    base = 10000 * (1 if variant == "ratio" else ratio)
    if variant == "base":
        base = base * 10
    n_elem = n["rot"]  # RotaryEmbedding(rotary_dim // 2): dim = n_elem
    theta = 1.0 / (base ** (torch.arange(0, n_elem, 2, dtype=torch.float) / n_elem))
    seq_idx = torch.arange(n_rows, dtype=torch.float)
    idx_theta = torch.outer(seq_idx, theta).float()
    cache = torch.stack([torch.cos(idx_theta), torch.sin(idx_theta)], dim=-1)
    return cache[..., 0], cache[..., 1]


def yarn_find_correction_dim(num_rotations, dim, base, max_pos):
    return (dim * math.log(max_pos / (num_rotations * 2 * math.pi))) / (2 * math.log(base))


def yarn_find_correction_range(low_rot, high_rot, dim, base, max_pos):
    low = math.floor(yarn_find_correction_dim(low_rot, dim, base, max_pos))
    high = math.ceil(yarn_find_correction_dim(high_rot, dim, base, max_pos))
    return max(low, 0), min(high, dim - 1)


def yarn_get_mscale(scale=1, mscale=1):
    return 1.0 if scale <= 1 else 0.1 * mscale * math.log(scale) + 1.0


def yarn_linear_ramp_mask(lo, hi, dim):
    if lo == hi:
        hi += 0.001
    return torch.clamp((torch.arange(dim, dtype=torch.float32) - lo) / (hi - lo), 0, 1)


def deepseek(n, variant, n_rows):
    t, rs = n["t"], n["rope_scaling"]
    dim = n["rot"] if variant != "slice" else n["rot"] + t["qk_nope_head_dim"]
    base = n["base"] * (50 if variant == "base" else 1)
    factor = rs["factor"] / (2 if variant == "factor" else 1)
    orig = rs["original_max_position_embeddings"] * (4 if variant == "origlen" else 1)
    ar = torch.arange(0, dim, 2, dtype=torch.float32)
    freq_extra = 1.0 / (base ** (ar / dim))
    freq_inter = 1.0 / (factor * base ** (ar / dim))
    low, high = yarn_find_correction_range(rs["beta_fast"], rs["beta_slow"], dim, base, orig)
    mask = 1.0 - yarn_linear_ramp_mask(low, high, dim // 2)
    inv_freq = (freq_inter * (1 - mask) + freq_extra * mask)[: n["rot"] // 2]
    freqs = torch.outer(torch.arange(n_rows, dtype=torch.float32), inv_freq)
    msc = float(yarn_get_mscale(factor, rs["mscale"]) / yarn_get_mscale(factor, rs["mscale_all_dim"]))
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos() * msc, emb.sin() * msc


def llama4(n, variant, n_rows):
    inv, _ = hf_inv(n, variant, n_rows)
    freqs = (inv[None, :, None] @ positions(n_rows)[None, None, :]).transpose(1, 2)[0]
    cis = torch.polar(torch.ones_like(freqs), freqs)  # complex64
    return cis.real.contiguous(), cis.imag.contiguous()


def internlm(n, variant, n_rows):
    rot = n["t"]["rotary"]
    base = float(rot["base"]) * (50 if variant == "base" else 1)
    dim, max_pos, s = n["rot"], n["max_position_embeddings"], rot.get("scaling_factor", 1.0)
    if n_rows > max_pos:
        base = base * ((s * n_rows / max_pos) - (s - 1)) ** (dim / (dim - 2))
    inv_freq = 1.0 / (base ** (torch.arange(0, dim, 2).float() / dim))
    t = torch.arange(n_rows, dtype=inv_freq.dtype)
    freqs = torch.einsum("i,j->ij", t, inv_freq)
    emb = torch.cat((freqs, freqs), dim=-1)
    return emb.cos(), emb.sin()


def build(cfg, variant, n_rows):
    n = normalize(cfg)
    mt = n["model_type"]
    if mt == "gptj":
        return gptj(n, variant, n_rows)
    if mt == "chatglm":
        return chatglm(n, variant, n_rows)
    if mt.startswith("deepseek"):
        return deepseek(n, variant, n_rows)
    if mt.startswith("llama4"):
        return llama4(n, variant, n_rows)
    if mt == "internlm":
        return internlm(n, variant, n_rows)
    if mt == "gpt_oss":
        if variant == "truncate":
            rs = dict(n["rope_scaling"], truncate=True)
            n = dict(n, rope_scaling=rs)
        return hf_generic(n, variant, n_rows, "halves")
    if mt in ("cohere", "cohere2"):
        return hf_generic(n, variant, n_rows, "interleaved")
    if variant == "local" and "rope_parameters" in text_part(cfg):
        return hf_generic(normalize(cfg, "sliding_attention"), "ok", n_rows)
    if variant == "local":
        return gemma_local(n, "ok", n_rows)
    return hf_generic(n, variant, n_rows)


def write(path, variant, dtype, n_rows, out):
    with open(path) as f:
        cfg = json.load(f)
    os.makedirs(out, exist_ok=True)
    cos, sin = build(cfg, variant, n_rows)
    np.save(os.path.join(out, "cos.npy"), rc.store(cos.float().contiguous(), dtype))
    np.save(os.path.join(out, "sin.npy"), rc.store(sin.float().contiguous(), dtype))


def main(argv):
    if len(argv) != 2 or argv[1] != "-":
        raise SystemExit(__doc__)
    for line in sys.stdin:
        f = line.split()
        if f:
            write(f[0], f[1], f[2], int(f[3]), f[4])


if __name__ == "__main__":
    main(sys.argv)

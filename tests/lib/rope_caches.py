#!/usr/bin/env python3
"""rope_caches.py: RoPE cos/sin caches of production models, built with
PyTorch the way HuggingFace transformers builds them (the published
formulas of modeling_rope_utils.py, written out here), for pecheck's tests.

    rope_caches.py MODEL VARIANT DTYPE N OUTDIR [P0]
    rope_caches.py -      (one "MODEL VARIANT DTYPE N OUTDIR [P0]" a line on stdin)

writes OUTDIR/config.json (the model's HF config), OUTDIR/cos.npy and
OUTDIR/sin.npy: positions P0..P0+N-1 (P0 default 0), the half layout (cat(freqs, freqs)),
computed in float32 and rounded once to DTYPE (float32, float16, or
bfloat16 stored as its uint16 bit patterns, '<u2'; bfloat16w: bfloat16
widened back to float32).  VARIANT "ok" is correct; the others are the
mistakes pecheck must catch (see WRONG below, and tests/precision_torch.t:
next, the rows of position p + 1; long5, cos and sin 5% too long; rad05,
every angle 0.05 rad too large; base10100, rope_theta 10100; pi5, llama3's
wavelengths computed with 2 * 3.14159 for 2 pi; grown, correct too: the
length an int64 tensor, as HF's forward passes it when a dynamic cache
grows, so that base' is computed in float32 tensors).  Dynamic and
longrope follow the length P0 + N."""
import json
import math
import os
import sys

import numpy as np
import torch

# Real configurations (the fields their config.json files hold).
MODELS = {
    "llama2": {  # Llama-2-7B: the default rotary embedding, base 10000
        "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
        "max_position_embeddings": 4096},
    "llama31": {  # Llama-3.1-8B
        "hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128,
        "rope_theta": 500000.0, "max_position_embeddings": 131072,
        "rope_scaling": {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0,
                         "high_freq_factor": 4.0, "original_max_position_embeddings": 8192}},
    "qwen25yarn": {  # Qwen2.5-7B-Instruct with the YaRN x4 it documents
        "hidden_size": 3584, "num_attention_heads": 28, "rope_theta": 1000000.0,
        "max_position_embeddings": 32768,
        "rope_scaling": {"type": "yarn", "factor": 4.0, "original_max_position_embeddings": 32768}},
    "phi35": {  # Phi-3.5-mini-instruct: longrope (factors of the released config)
        "hidden_size": 3072, "num_attention_heads": 32, "rope_theta": 10000.0,
        "max_position_embeddings": 131072, "original_max_position_embeddings": 4096,
        "rope_scaling": {"type": "longrope",
            "short_factor": [1.0, 1.0199999809265137, 1.0299999713897705, 1.0299999713897705,
                1.0499999523162842, 1.0499999523162842, 1.0499999523162842, 1.0499999523162842,
                1.0499999523162842, 1.0699999332427979, 1.0999999046325684, 1.1099998950958252,
                1.1599998474121094, 1.1599998474121094, 1.1699998378753662, 1.2899998426437378,
                1.339999794960022, 1.679999828338623, 1.7899998426437378, 1.8199998140335083,
                1.8499997854232788, 1.8799997568130493, 1.9099997282028198, 1.9399996995925903,
                1.9899996519088745, 2.0199997425079346, 2.0199997425079346, 2.0199997425079346,
                2.0199997425079346, 2.0199997425079346, 2.0199997425079346, 2.0299997329711914,
                2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
                2.0299997329711914, 2.0299997329711914, 2.0299997329711914, 2.0299997329711914,
                2.0799996852874756, 2.0899996757507324, 2.189999580383301, 2.2199995517730713,
                2.5899994373321533, 2.729999542236328, 2.749999523162842, 2.839999437332153],
            "long_factor": [1.0800000429153442, 1.1100000143051147, 1.1399999856948853,
                1.340000033378601, 1.5899999141693115, 1.600000023841858, 1.6200000047683716,
                2.620000123977661, 3.2300000190734863, 3.2300000190734863, 4.789999961853027,
                7.400000095367432, 7.700000286102295, 9.09000015258789, 12.199999809265137,
                17.670000076293945, 24.46000099182129, 28.57000160217285, 30.420001983642578,
                30.840002059936523, 32.590003967285156, 32.93000411987305, 42.320003509521484,
                44.96000289916992, 50.340003967285156, 50.45000457763672, 57.55000305175781,
                57.93000411987305, 58.21000289916992, 60.1400032043457, 62.61000442504883,
                62.62000274658203, 62.71000289916992, 63.1400032043457, 63.1400032043457,
                63.77000427246094, 63.93000411987305, 63.96000289916992, 63.970001220703125,
                64.02999877929688, 64.06999969482422, 64.08000183105469, 64.12000274658203,
                64.41000366210938, 64.4800033569336, 64.51000213623047, 64.52999877929688,
                64.83999633789062]}},
    "linear8": {  # a Llama-2-7B with linear scaling x8
        "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
        "max_position_embeddings": 4096, "rope_scaling": {"type": "linear", "factor": 8.0}},
    "dynamic2": {  # a Llama-2-7B with dynamic NTK x2, cache built for 16k
        "hidden_size": 4096, "num_attention_heads": 32, "rope_theta": 10000.0,
        "max_position_embeddings": 4096, "rope_scaling": {"type": "dynamic", "factor": 2.0}},
    "neox20b": {  # GPT-NeoX-20B: 24 of 96 dims rotate
        "hidden_size": 6144, "num_attention_heads": 64, "rotary_pct": 0.25,
        "rotary_emb_base": 10000, "max_position_embeddings": 2048, "rope_scaling": None},
}


def f32(x):
    return torch.tensor(x, dtype=torch.float32)


def geometric(base, dim):
    """HF: base ** (arange(0, dim, 2).float() / dim), in float32."""
    return base ** (torch.arange(0, dim, 2, dtype=torch.int64).float() / dim)


def inv_default(cfg, dim, base, seq):
    return 1.0 / geometric(base, dim), 1.0


def inv_linear(cfg, dim, base, seq):
    return (1.0 / geometric(base, dim)) / cfg["rope_scaling"]["factor"], 1.0


def inv_dynamic(cfg, dim, base, seq):
    rs, L = cfg["rope_scaling"], cfg["max_position_embeddings"]
    if isinstance(seq, torch.Tensor):  # grown at run time: torch.max(position_ids) + 1, float32 tensors
        s = torch.maximum(seq, torch.tensor(L, dtype=seq.dtype))
    else:                              # at initialisation: Python numbers, base' a binary64
        s = max(seq, L)
    b = base * ((rs["factor"] * s / L) - (rs["factor"] - 1)) ** (dim / (dim - 2))
    return 1.0 / geometric(b, dim), 1.0


def mscale(scale, m=1.0):
    return 1.0 if scale <= 1 else 0.1 * m * math.log(scale) + 1.0


def inv_yarn(cfg, dim, base, seq):
    rs = cfg["rope_scaling"]
    factor = rs["factor"]
    L0 = rs.get("original_max_position_embeddings") or cfg["max_position_embeddings"]
    att = rs.get("attention_factor")
    if att is None:
        m, ma = rs.get("mscale"), rs.get("mscale_all_dim")
        att = mscale(factor, m) / mscale(factor, ma) if (m and ma) else mscale(factor)
    bf, bs = rs.get("beta_fast") or 32, rs.get("beta_slow") or 1

    def corr(r):
        return (dim * math.log(L0 / (r * 2 * math.pi))) / (2 * math.log(base))
    low, high = corr(bf), corr(bs)
    if rs.get("truncate", True):
        low, high = math.floor(low), math.ceil(high)
    low, high = max(low, 0), min(high, dim - 1)
    if low == high:
        high += 0.001
    ramp = torch.clamp((torch.arange(dim // 2, dtype=torch.float32) - low) / (high - low), 0, 1)
    pf = geometric(base, dim)
    extrap_w = 1 - ramp
    inv = (1.0 / (factor * pf)) * (1 - extrap_w) + (1.0 / pf) * extrap_w
    return inv, att


def inv_longrope(cfg, dim, base, seq):
    rs = cfg["rope_scaling"]
    if "original_max_position_embeddings" in cfg:
        L0 = cfg["original_max_position_embeddings"]
        factor = cfg["max_position_embeddings"] / L0
    else:
        L0, factor = cfg["max_position_embeddings"], rs.get("factor", 1.0)
    att = rs.get("attention_factor")
    if att is None:
        att = 1.0 if factor <= 1 else math.sqrt(1 + math.log(factor) / math.log(L0))
    ext = f32(rs["long_factor"] if seq > L0 else rs["short_factor"])
    return 1.0 / (ext * geometric(base, dim)), att


def inv_llama3(cfg, dim, base, seq):
    rs = cfg["rope_scaling"]
    inv = 1.0 / geometric(base, dim)
    f, lf, hf, old = (rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"],
                      rs["original_max_position_embeddings"])
    low_wl, high_wl = old / lf, old / hf
    wl = 2 * cfg.get("_pi", math.pi) / inv   # "pi5": 2 * 3.14159 for 2 pi
    il = torch.where(wl > low_wl, inv / f, inv)
    smooth = (old / wl - lf) / (hf - lf)
    smoothed = (1 - smooth) * il / f + smooth * il
    mid = ~(wl < high_wl) * ~(wl > low_wl)
    return torch.where(mid, smoothed, il), 1.0


INV = {"default": inv_default, "linear": inv_linear, "dynamic": inv_dynamic,
       "yarn": inv_yarn, "longrope": inv_longrope, "llama3": inv_llama3}


def rope_type(cfg):
    rs = cfg.get("rope_scaling")
    return "default" if not rs else rs.get("rope_type", rs.get("type"))


def dims(cfg):
    hd = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    prf = cfg.get("partial_rotary_factor", cfg.get("rotary_pct", 1.0))
    return hd, int(hd * prf)


def base_of(cfg):
    return float(cfg.get("rope_theta", cfg.get("rotary_emb_base", 10000.0)))


def wrong(cfg, variant):
    """The mistakes: a copy of CFG that a wrong implementation would have used."""
    c = json.loads(json.dumps(cfg))
    rs = c.get("rope_scaling") or {}
    if variant == "factor":            # the scaling factor halved
        if "factor" in rs: rs["factor"] = rs["factor"] / 2
        else: c["max_position_embeddings"] //= 2   # longrope: factor from the lengths
    elif variant == "origlen":         # the original length wrong (x4)
        if "original_max_position_embeddings" in rs: rs["original_max_position_embeddings"] *= 4
        elif "original_max_position_embeddings" in c: c["original_max_position_embeddings"] *= 4
        else: c["max_position_embeddings"] *= 4
    elif variant == "noatt":           # the attention factor left out
        rs["attention_factor"] = 1.0
    elif variant == "base":            # rope_theta wrong (the old default)
        c["rope_theta"] = 10000.0 if base_of(c) != 10000.0 else 500000.0
    elif variant == "base10100":       # rope_theta 1% off
        c["rope_theta"] = 10100.0
    elif variant == "pi5":             # llama3's wavelengths from 2 * 3.14159, not 2 * math.pi
        c["_pi"] = 3.14159
    elif variant not in ("ok", "pairs", "next", "long5", "rad05", "grown"):
        raise SystemExit("unknown variant " + variant)
    return c


def cache(cfg, variant, n, p0=0):
    hd, dim = dims(cfg)
    c = wrong(cfg, variant)
    # the length the cache is built for: its last position + 1 (dynamic's
    # base and longrope's factors follow it)
    seq = p0 + n
    if variant == "grown":             # the length as HF's forward has it when the cache grows
        seq = torch.tensor(seq, dtype=torch.int64)
    inv, att = INV[rope_type(c)](c, dim, base_of(c), seq)
    inv = inv.float()
    if variant == "pairs" and rope_type(c) == "default":  # partial rotary: the head dim's frequencies
        inv = (1.0 / geometric(base_of(c), hd))[: dim // 2]
    elif variant == "pairs":           # the schedule applied to the pairs in reverse order
        inv = (1.0 / geometric(base_of(c), dim)) * torch.flip(inv * geometric(base_of(c), dim), [0])
    pos = torch.arange(p0, p0 + n, dtype=torch.int64)
    if variant == "next":              # the rows of position p + 1
        pos = pos + 1
    pos = pos.float()
    freqs = (inv[None, :, None] @ pos[None, None, :]).transpose(1, 2)[0]  # HF: a float32 matmul
    if variant == "rad05":             # every angle 0.05 rad too large
        freqs = freqs + 0.05
    emb = torch.cat((freqs, freqs), dim=-1)
    k = 1.05 if variant == "long5" else 1.0   # cos and sin 5% too long
    return emb.cos() * att * k, emb.sin() * att * k


def store(t, dtype):
    if dtype == "float32":
        return t.numpy()
    if dtype == "float16":
        return t.to(torch.float16).numpy()
    b = t.to(torch.bfloat16)
    if dtype == "bfloat16":            # the bit patterns, as '<u2'
        return b.view(torch.int16).numpy().view(np.uint16)
    if dtype == "bfloat16w":           # widened back to float32
        return b.float().numpy()
    raise SystemExit("unknown dtype " + dtype)


def save_case(out, cfg, cos, sin):
    """OUT/config.json (CFG), OUT/cos.npy and OUT/sin.npy (arrays)."""
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    np.save(os.path.join(out, "cos.npy"), cos)
    np.save(os.path.join(out, "sin.npy"), sin)


def write(model, variant, dtype, n, out, p0=0):
    cfg = MODELS[model]
    cos, sin = cache(cfg, variant, n, p0)
    save_case(out, cfg, store(cos, dtype), store(sin, dtype))


def main(argv):
    if len(argv) == 2 and argv[1] == "-":
        for line in sys.stdin:
            if line.strip():
                f = line.split()
                write(f[0], f[1], f[2], int(f[3]), f[4], int(f[5]) if len(f) > 5 else 0)
        return
    if len(argv) not in (6, 7):
        raise SystemExit(__doc__)
    write(argv[1], argv[2], argv[3], int(argv[4]), argv[5], int(argv[6]) if len(argv) > 6 else 0)


if __name__ == "__main__":
    main(sys.argv)

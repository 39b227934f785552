#!/usr/bin/env python3
"""ggml_rope_cache.py: the RoPE cos/sin cache llama.cpp's CPU rope computes
(ggml-cpu's ggml_rope_cache_init and rope_yarn), in numpy float32, for
pecheck's tests.

    ggml_rope_cache.py CONFIG VARIANT N P0 OUTDIR

reads the model's HF CONFIG (config.json), writes OUTDIR/config.json (CONFIG
as read) and OUTDIR/cos.npy, OUTDIR/sin.npy: positions P0..P0+N-1, the half
layout (cat(c, c)), float32.  Every step is a binary32 operation, as ggml
writes it:

    theta_scale = powf(base, -2.0f / n_dims)
    theta = (float) pos; for each pair i:
        theta_extrap = theta / ff_i            (rope_freqs; ff_i = 1 without)
        theta_interp = freq_scale * theta_extrap
        yarn (ext_factor 1): mix = rope_yarn_ramp(low, high, 2i) ext_factor,
            theta = theta_interp (1 - mix) + theta_extrap mix,
            mscale = attn_factor (1 + 0.1f logf(1 / freq_scale))
        cos = cosf(theta) mscale, sin = sinf(theta) mscale
        theta *= theta_scale                  (the cumulative product)

with llama.cpp's parameters of the config: freq_scale = 1.0f / factor
(linear, yarn), low and high = floorf / ceilf of ggml_rope_yarn_corr_dim
(in float) clamped to [0, n_dims - 1]; a DeepSeek model (model_type
deepseek*) passes attn_factor = 1.0f / (1.0f + 0.1f logf(1.0f /
freq_scale)) (llama.cpp's DeepSeek-V2/V3 graph: rope_yarn's mscale then
about 1, the config's mscale in kq_scale); llama3 rope_freqs as
convert_hf_to_gguf.py computes them in torch float32 (a Python number
over a tensor: the reciprocal times the number); longrope the long factors
(the cache's last position past the original length, else the short ones)
as a float32 rope_freqs tensor, and the GGUF's binary32 attention factor
sqrt(1 + ln(factor) / ln(original length)) as attn_factor.  powf and logf are numpy's
binary32 functions; cosf, sinf the binary64 values rounded to binary32.

VARIANT "ok" is llama.cpp's; the mistakes: "betaswap" (beta_fast and
beta_slow swapped), "factor4" (a yarn factor of 4 where the config says
another), "base" (rope_theta 10100), "rad05" (every angle 0.05 rad too
large: a constant added to the angle), "pi5" (llama3's factors from
2 * 3.14159 for 2 pi), "tsK" (theta_scale K binary32 steps above powf's:
a powf K ulps off)."""
import json
import math
import os
import sys

import numpy as np

F = np.float32


def rot_dim(cfg):
    if "qk_rope_head_dim" in cfg:
        return int(cfg["qk_rope_head_dim"])
    hd = cfg.get("head_dim") or cfg["hidden_size"] // cfg["num_attention_heads"]
    return int(hd * cfg.get("partial_rotary_factor", 1.0))


def corr_dim(n_dims, n_ctx_orig, n_rot, base):
    # ggml_rope_yarn_corr_dim, binary32
    return F(n_dims) * np.log(F(n_ctx_orig) / (F(n_rot) * F(2) * F(math.pi))) / (F(2) * np.log(F(base)))


def llama3_factors(cfg, rs, dim, variant="ok"):
    # convert_hf_to_gguf.py (LlamaModel): float32 tensors throughout; a
    # Python number over a tensor is the tensor's reciprocal times the
    # number in float32 (torch/_tensor.py __rdiv__), the Python constants
    # rounded to float32 where a tensor operation takes them
    base = F(cfg.get("rope_theta", 10000.0))
    freqs = F(1) / np.power(base, np.arange(0, dim, 2, dtype=F) / F(dim))
    lf_, hf_ = rs.get("low_freq_factor", 1.0), rs.get("high_freq_factor", 4.0)
    old_ = rs.get("original_max_position_embeddings", 8192)
    factor, lf, span, old = F(rs.get("factor", 8.0)), F(lf_), F(hf_ - lf_), F(old_)
    low_wl, high_wl = F(old_ / lf_), F(old_ / hf_)
    two_pi = F(2 * 3.14159) if variant == "pi5" else F(2 * math.pi)
    out = []
    for fr in freqs:
        wl = (F(1) / fr) * two_pi
        if wl < high_wl:
            out.append(F(1))
        elif wl > low_wl:
            out.append(factor)
        else:
            s = ((F(1) / wl) * old - lf) / span
            out.append(F(1) / ((F(1) - s) / factor + s))
    return np.array(out, dtype=F)


def longrope(cfg, rs, p, n_ctx):
    orig = cfg.get("original_max_position_embeddings") or rs["original_max_position_embeddings"]
    key = "long_factor" if n_ctx > orig else "short_factor"
    p["ff"] = np.array(rs[key], dtype=F)
    factor = rs.get("factor") or cfg["max_position_embeddings"] / orig
    if factor > 1:
        p["attn_factor"] = F(math.sqrt(1 + math.log(factor) / math.log(orig)))


def params(cfg, variant, n_ctx):
    rs = dict(cfg.get("rope_scaling") or {})
    typ = rs.get("rope_type", rs.get("type", "default"))
    p = {"dim": rot_dim(cfg), "base": F(10100.0 if variant == "base" else cfg.get("rope_theta", 10000.0)),
         "freq_scale": F(1), "ext_factor": F(0), "attn_factor": F(1), "ff": None, "corr": (F(0), F(0))}
    if typ in ("linear", "yarn"):
        factor = 4.0 if variant == "factor4" else rs["factor"]
        p["freq_scale"] = F(1) / F(factor)
    if typ == "yarn":
        p["ext_factor"] = F(1)
        fast, slow = rs.get("beta_fast", 32.0), rs.get("beta_slow", 1.0)
        if variant == "betaswap":
            fast, slow = slow, fast
        orig = rs.get("original_max_position_embeddings", cfg.get("max_position_embeddings"))
        d = p["dim"]
        lo = np.floor(corr_dim(d, orig, fast, p["base"]))
        hi = np.ceil(corr_dim(d, orig, slow, p["base"]))
        p["corr"] = (max(F(0), lo), min(F(d - 1), hi))
        if cfg.get("model_type", "").startswith("deepseek"):
            p["attn_factor"] = F(1) / (F(1) + F(0.1) * np.log(F(1) / p["freq_scale"]))
    if typ == "llama3":
        p["ff"] = llama3_factors(cfg, rs, p["dim"], variant)
    if typ in ("longrope", "su"):
        longrope(cfg, rs, p, n_ctx)
    return p


def ramp(lo, hi, i0):
    # rope_yarn_ramp
    y = (F(i0 // 2) - lo) / max(F(0.001), hi - lo)
    return F(1) - min(F(1), max(F(0), y))


def angles(cfg, variant, n, p0):
    """The binary32 angle of every pair at positions P0..P0+N-1, (n, d/2),
    and rope_yarn's mscale of each pair."""
    p = params(cfg, variant, p0 + n)
    d = p["dim"]
    theta_scale = np.power(p["base"], F(-2.0) / F(d))
    for _ in range(int(variant[2:]) if variant.startswith("ts") else 0):
        theta_scale = np.nextafter(theta_scale, F(1))
    theta = np.arange(p0, p0 + n, dtype=np.int64).astype(F)
    out = np.empty((n, d // 2), dtype=F)
    ms = []
    for i in range(d // 2):
        ff = p["ff"][i] if p["ff"] is not None else F(1)
        t_ext = (theta / ff).astype(F)
        t_int = (p["freq_scale"] * t_ext).astype(F)
        t, mscale = t_int, p["attn_factor"]
        if p["ext_factor"] != 0:
            mix = ramp(p["corr"][0], p["corr"][1], 2 * i) * p["ext_factor"]
            t = (t_int * (F(1) - mix) + t_ext * mix).astype(F)
            mscale = mscale * (F(1) + F(0.1) * np.log(F(1) / p["freq_scale"]))
        out[:, i] = t
        ms.append(mscale)
        theta = (theta * theta_scale).astype(F)
    return out, ms


def cache(cfg, variant, n, p0):
    a, ms = angles(cfg, variant, n, p0)
    d = 2 * a.shape[1]
    cos = np.empty((n, d // 2), dtype=F)
    sin = np.empty((n, d // 2), dtype=F)
    for i in range(d // 2):
        t, mscale = a[:, i], ms[i]
        t64 = t.astype(np.float64) + (0.05 if variant == "rad05" else 0.0)
        cos[:, i] = np.cos(t64).astype(F) * mscale
        sin[:, i] = np.sin(t64).astype(F) * mscale
    return np.concatenate((cos, cos), axis=1), np.concatenate((sin, sin), axis=1)


def main(argv):
    if len(argv) != 6:
        raise SystemExit(__doc__)
    with open(argv[1]) as f:
        cfg = json.load(f)
    out = argv[5]
    os.makedirs(out, exist_ok=True)
    with open(os.path.join(out, "config.json"), "w") as f:
        json.dump(cfg, f, indent=1)
    cos, sin = cache(cfg, argv[2], int(argv[3]), int(argv[4]))
    np.save(os.path.join(out, "cos.npy"), cos)
    np.save(os.path.join(out, "sin.npy"), sin)


if __name__ == "__main__":
    main(sys.argv)

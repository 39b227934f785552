#!/usr/bin/python3
"""class_kappa.py: the phase constant of each tolerance class of a schedule
against the angles real code computes (docs/precision-model.md, "The
constant of each class").  For each class the binary32 angles a~ of every
pair are computed as the libraries compute them (PyTorch float32 for HF,
vLLM, diffusers and tensor2tensor; numpy float32 for llama.cpp's ggml
product: tests/lib/ggml_rope_cache.py), and compared with the exact angle
theta = pos * omega_i (binary64: 1e-16 relative, negligible beside
u = 2^-24):

    k_i = max |a~ - theta| / (u |theta|)

against kappa_i, pecheck's constant of the pair (the C code's formulas
mirrored here: families/rope/scaling.c pc_rope_c_pow and pc_rope_c_ggml,
schedule_yarn.c, schedule_llama3.c, families/sinusoidal/schedule_timescale.c).
With PECHECK set, the largest A kappa_i is checked against the C that
pecheck reports for a cache of the case (JSON bound.C).  Prints one line a
case:

    case | pecheck's C (JSON, the gate's err/bound) | C (mirror) | derived C
         by formulation | largest k_i | largest k_i / kappa_i (pair) |
         largest k_i / kappa_i of the measured formulation alone

and exits 1 when a k_i exceeds its kappa_i (pecheck's or its formulation's
own) or pecheck's C differs from the mirror's.

    scripts/class_kappa.py [CASE ...]       (default: every case)"""
import json
import math
import os
import re
import subprocess
import sys
import tempfile

import numpy as np
import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "tests", "lib"))
import ggml_rope_cache as gg  # noqa: E402
import rope_caches as rc  # noqa: E402

U = 2.0 ** -24
CONFIGS = os.path.join(HERE, "..", "tests", "data", "configs")
F = np.float32


def config(name):
    with open(os.path.join(CONFIGS, name + ".json")) as f:
        return json.load(f)


# ---- pecheck's constants (the C code's formulas) ----------------------------

def c_pow(base, dim, i):
    """scaling.c pc_rope_c_pow_at: X_i + 11, or 11 where fl(2i/dim) is exact
    (CUDA's 4-ulp powf, model.h PC_MODEL_POWF_ULPS)."""
    e = 2.0 * i / dim
    exact = float(F(2 * i) / F(dim)) * dim == 2.0 * i
    c = 11.0 if exact else e * math.log(base) + 11.0
    return c if float(F(base)) == base else c + e


def c_ggml(base, dim, i):
    """scaling.c pc_rope_c_ggml (model.c PC_FORM_GGML): 3i + X_i + 1."""
    return 0.0 if i == 0 else 3.0 * i + 2.0 * i / dim * math.log(base) + 1.0


def yarn_range(rs, dim, base):
    L0 = rs["original_max_position_embeddings"]
    bf, bs = rs.get("beta_fast") or 32.0, rs.get("beta_slow") or 1.0
    cf = dim * math.log(L0 / (bf * 2 * math.pi)) / (2 * math.log(base))
    cs = dim * math.log(L0 / (bs * 2 * math.pi)) / (2 * math.log(base))
    tr = rs.get("truncate", True)
    lo, hi = (math.floor(cf), math.ceil(cs)) if tr else (cf, cs)
    lo, hi = max(lo, 0), min(hi, dim - 1)
    if lo == hi:
        hi += 0.001
    return lo, hi, tr


def c_yarn(rs, dim, base, j, forms=("hf", "ggml")):
    """schedule_yarn.c yarn_c (FORMS: the formulations taken)."""
    f = rs["factor"]
    lo, hi, tr = yarn_range(rs, dim, base)
    r = (j - lo) / (hi - lo)
    tol = 0.0 if tr else 2.0 ** -16
    fac = 1.0 + (0.0 if float(F(f)) == f else 1.0)
    if r <= -tol:
        c = c_pow(base, dim, j)
    elif r >= 1.0 + tol:
        c = c_pow(base, dim, j) + fac
    else:
        rcl = min(max(r, 0.0), 1.0)
        w = 1.0 - rcl
        sens = (1 - 1 / f) / (1 / f + (1 - 1 / f) * w)
        e = w if rcl < 0.5 + 2.0 ** -16 else 0.0
        dw = (rcl if tr else abs(lo) / (hi - lo) + 3.0 * rcl) + e
        c = c_pow(base, dim, j) + fac + 3.0 + sens * dw
    c = c if "hf" in forms else 0.0
    if not tr or "ggml" not in forms:
        return c
    g = c_ggml(base, dim, j)
    if r <= 0:
        return max(c, g)
    if r >= 1:
        return max(c, g + 3.0)
    return max(c, g + 6.0 + (f - 1.0) * 2.0)


def llama3_band(rs, dim, base, i):
    lf, hf, L = rs["low_freq_factor"], rs["high_freq_factor"], rs["original_max_position_embeddings"]
    wl = 2 * math.pi * base ** (2.0 * i / dim)
    m = 2.0 ** -10
    if wl > L / lf * (1 + m):
        return "low"
    if wl < L / hf * (1 - m):
        return "high"
    return "band"


def c_llama3(rs, dim, base, i, forms=("hf", "ggml")):
    """schedule_llama3.c (band_c and the bands outside; FORMS as c_yarn)."""
    f, lf, hf, L = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"], rs["original_max_position_embeddings"]
    p, g = c_pow(base, dim, i), c_ggml(base, dim, i)
    hfo, ggo = "hf" in forms, "ggml" in forms
    band = llama3_band(rs, dim, base, i)
    if band == "low":
        return max(hfo * (p + 1.0), ggo * (g + 2.0))
    if band == "high":
        return max(hfo * p, ggo * g)
    y = L * base ** (-2.0 * i / dim) / (2 * math.pi)
    s = min(max((y - lf) / (hf - lf), 0.0), 1.0)
    den = 1 / f + (1 - 1 / f) * s
    kappa = 1 + (1 - 1 / f) * y / (hf - lf) / den
    sens, ds, e = (1 - 1 / f) / den, 3 * y / (hf - lf) + 2 * s, p - 2.0
    return max(hfo * (kappa * e + 3 + sens * ds + 2), ggo * (g + (kappa - 1) * e + sens * ds + 5))


def c_timescale(base, d, shift, m, i):
    """schedule_timescale.c model_c: max(3 X_i + 5, X_i + 10) + 1 (+ 2, M != 1)."""
    x = i / max(d // 2 - shift, 1) * math.log(base / m)
    c = max(3 * x + 5, x + 10) + 1
    return c if m == 1.0 else c + 2


# ---- the derived constant of each formulation a class admits (kappa_i per pair)

def yarn_forms(rs, dim, base, att):
    a2 = 0.0 if att == 1.0 else 2.0
    out = {"HF/vLLM pow": [c_yarn(rs, dim, base, j, ("hf",)) + a2 for j in range(dim // 2)]}
    if rs.get("truncate", True):
        out["llama.cpp ggml"] = [c_yarn(rs, dim, base, j, ("ggml",)) + a2 for j in range(dim // 2)]
    return out


def llama3_forms(rs, dim, base, band=False):
    def f(form):
        return [c_llama3(rs, dim, base, i, (form,)) if not band or llama3_band(rs, dim, base, i) == "band"
                else math.inf for i in range(dim // 2)]
    return {"HF/vLLM pow": f("hf"), "llama.cpp ggml": f("ggml")}


def mrope_forms(base, dim):
    return {"HF/vLLM pow": [c_pow(base, dim, i) for i in range(dim // 2)],
            "llama.cpp ggml": [c_ggml(base, dim, i) for i in range(dim // 2)]}


def timescale_forms(base, d, shift, m):
    xs = [i / max(d // 2 - shift, 1) * math.log(base / m) for i in range(d // 2)]
    extra = 0.0 if m == 1.0 else 2.0
    return {"exp, 3 roundings": [3 * x + 6 + extra for x in xs],
            "exp, 1 rounding": [2 * x + 6 + extra for x in xs],
            "pow": [x + 11 + extra for x in xs]}


# the formulation each case measures (its angles')
OWN = {"timesteps": "exp, 3 roundings", "min-timescale": "exp, 3 roundings", "-hf-": "HF/vLLM pow",
       "-ggml-": "llama.cpp ggml", "axial": "pow"}


# ---- exact frequencies (binary64) --------------------------------------------

def omega_geometric(base, dim):
    return np.array([base ** (-2.0 * i / dim) for i in range(dim // 2)])


def omega_yarn(rs, dim, base):
    lo, hi, _ = yarn_range(rs, dim, base)
    f = rs["factor"]
    g = omega_geometric(base, dim)
    r = np.clip((np.arange(dim // 2) - lo) / (hi - lo), 0, 1)
    return g * (1 - r * (1 - 1 / f))


def omega_llama3(rs, dim, base):
    f, lf, hf, L = rs["factor"], rs["low_freq_factor"], rs["high_freq_factor"], rs["original_max_position_embeddings"]
    g = omega_geometric(base, dim)
    out = []
    for gi in g:
        wl = 2 * math.pi / gi
        if wl < L / hf:
            out.append(gi)
        elif wl > L / lf:
            out.append(gi / f)
        else:
            s = (L / wl - lf) / (hf - lf)
            out.append(gi * ((1 - s) / f + s))
    return np.array(out)


# ---- the measure --------------------------------------------------------------

def positions(big=True):
    p = list(range(1, 4096))
    if big:
        p += list(range(2 ** 20 - 4096, 2 ** 20))
    return np.array(p, dtype=np.float64)


def k_of(a, pos, omega):
    """k_i = max |a~ - theta| / (u |theta|) per pair; pairs of omega 1 skipped (kappa 0)."""
    a = np.asarray(a, dtype=np.float64)
    theta = pos[:, None] * omega[None, :]
    with np.errstate(divide="ignore", invalid="ignore"):
        k = np.abs(a - theta) / (U * np.abs(theta))
    k = np.where(theta != 0, k, 0.0)
    return k.max(axis=0)


def hf_angles(inv, pos):
    """HF: inv_freq_expanded.float() @ position_ids_expanded.float(): one product."""
    return (torch.tensor(pos, dtype=torch.float32)[:, None] * inv[None, :]).numpy()


def ggml_angles(cfg, variant, p0, n):
    a, _ = gg.angles(cfg, variant, n, p0)
    return a


# ---- pecheck's reported C (JSON bound.C) of a cache of the case ----------------

def pecheck_c(args, cos, sin, ids=None, extra_npy=None):
    exe = os.environ.get("PECHECK")
    if not exe:
        return None
    with tempfile.TemporaryDirectory() as t:
        np.save(os.path.join(t, "cos.npy"), cos.astype(F))
        if sin is not None:
            np.save(os.path.join(t, "sin.npy"), sin.astype(F))
        cmd = [exe, "check", "--table", os.path.join(t, "cos.npy"), "--regressions", "off",
               "--format", "json", "--cases", "2"]
        if sin is not None:
            cmd += ["--table-sin", os.path.join(t, "sin.npy")]
        if ids is not None:
            np.save(os.path.join(t, "ids.npy"), ids)
            cmd += ["--position-ids", os.path.join(t, "ids.npy")]
        if extra_npy is not None:
            name, arr = extra_npy
            np.save(os.path.join(t, "x.npy"), arr)
            args = [os.path.join(t, "x.npy") if a == name else a for a in args]
        r = subprocess.run(cmd + args, capture_output=True, text=True)
        try:
            doc = json.loads(r.stdout)
        except ValueError:
            return "no JSON (exit %d): %s" % (r.returncode, r.stderr.strip()[:200])
    for res in doc.get("results", []):
        if res.get("check") != "accuracy":
            continue
        data = res.get("data") or {}
        b = data.get("bound")
        ratio = data.get("max_err_over_bound")
        if ratio is None:
            m = re.search(r"max \|err\|/bound ([0-9.e+-]+)", res.get("summary", ""))
            ratio = float(m.group(1)) if m else float("nan")
        return (b["C"] if isinstance(b, dict) and "C" in b else None, ratio)
    return "no accuracy result in the JSON"


def half_cache(a, att=1.0):
    c = (np.cos(a.astype(np.float64)).astype(F) * F(att)).astype(F)
    s = (np.sin(a.astype(np.float64)).astype(F) * F(att)).astype(F)
    return np.concatenate((c, c), axis=1), np.concatenate((s, s), axis=1)


# ---- the cases ------------------------------------------------------------------

def case_yarn_hf(cfgname, dim):
    cfg = config(cfgname)
    rs, base = cfg["rope_scaling"], float(cfg["rope_theta"])
    inv, att = rc.inv_yarn(cfg, dim, base, 0)
    pos = positions()
    k = k_of(hf_angles(inv, pos), pos, omega_yarn(rs, dim, base))
    kap = [c_yarn(rs, dim, base, j) + (0 if att == 1.0 else 2.0) for j in range(dim // 2)]
    a = hf_angles(inv, np.arange(256, dtype=np.float64))
    cos, sin = half_cache(a, att)
    return k, kap, att, (["--hf-config", os.path.join(CONFIGS, cfgname + ".json"),
                          "--family", "rope", "--layout", "half"], cos, sin, None), yarn_forms(rs, dim, base, att)


def case_yarn_ggml(cfgname, p0, n):
    cfg = config(cfgname)
    rs, base, dim = cfg["rope_scaling"], float(cfg["rope_theta"]), gg.rot_dim(cfg)
    a = ggml_angles(cfg, "ok", p0, n)
    pos = np.arange(p0, p0 + n, dtype=np.float64)
    att = 1.0
    if not (rs.get("mscale") and rs.get("mscale_all_dim")):
        att = 0.1 * math.log(rs["factor"]) + 1.0
    elif rs["mscale"] != rs["mscale_all_dim"]:
        att = (0.1 * rs["mscale"] * math.log(rs["factor"]) + 1) / (0.1 * rs["mscale_all_dim"] * math.log(rs["factor"]) + 1)
    k = k_of(a, pos, omega_yarn(rs, dim, base))
    kap = [c_yarn(rs, dim, base, j) + (0 if att == 1.0 else 2.0) for j in range(dim // 2)]
    return k, kap, att, None, yarn_forms(rs, dim, base, att)


def case_llama3_hf():
    cfg = config("meta-llama--Llama-3.1-8B")
    rs, base, dim = cfg["rope_scaling"], float(cfg["rope_theta"]), 128
    inv, _ = rc.inv_llama3(cfg, dim, base, 0)
    pos = positions()
    k = k_of(hf_angles(inv, pos), pos, omega_llama3(rs, dim, base))
    kap = [c_llama3(rs, dim, base, i) for i in range(dim // 2)]
    cos, sin = half_cache(hf_angles(inv, np.arange(256, dtype=np.float64)))
    return k, kap, 1.0, (["--hf-config", os.path.join(CONFIGS, "meta-llama--Llama-3.1-8B.json"),
                          "--family", "rope", "--layout", "half"], cos, sin, None), llama3_forms(rs, dim, base)


def case_llama3_ggml():
    cfg = config("meta-llama--Llama-3.1-8B")
    rs, base, dim = cfg["rope_scaling"], float(cfg["rope_theta"]), 128
    p0, n = 2 ** 20 - 4096, 4096
    pos = np.arange(p0, p0 + n, dtype=np.float64)
    k = k_of(ggml_angles(cfg, "ok", p0, n), pos, omega_llama3(rs, dim, base))
    return k, [c_llama3(rs, dim, base, i) for i in range(dim // 2)], 1.0, None, llama3_forms(rs, dim, base)


def band_only(res, cfgname="meta-llama--Llama-3.1-8B"):
    k, kap, att, run, _ = res
    rs, dim, base = config(cfgname)["rope_scaling"], 128, 500000.0
    mask = np.array([llama3_band(rs, dim, base, i) == "band" for i in range(dim // 2)])
    return (np.where(mask, k, 0.0), [c if m else math.inf for c, m in zip(kap, mask)], att, run,
            llama3_forms(rs, dim, base, band=True))


def case_mrope_hf():
    base, dim = 1e6, 128
    inv = 1.0 / rc.geometric(base, dim)
    pos = positions()
    k = k_of(hf_angles(inv, pos), pos, omega_geometric(base, dim))
    kap = [max(c_pow(base, dim, i), c_ggml(base, dim, i)) for i in range(dim // 2)]
    n = 256
    a = hf_angles(inv, np.arange(n, dtype=np.float64))
    cos, sin = half_cache(a)
    ids = np.stack([np.arange(n)] * 3, axis=1).astype(np.int64)
    return k, kap, 1.0, (["--hf-config", os.path.join(CONFIGS, "Qwen--Qwen2-VL-7B-Instruct.json"),
                          "--family", "rope", "--layout", "half"], cos, sin, ids), mrope_forms(base, dim)


def case_mrope_ggml():
    base, dim = 1e6, 128
    cfg = {"rope_theta": base, "head_dim": dim, "hidden_size": dim, "num_attention_heads": 1}
    pos = positions()
    a = np.concatenate([ggml_angles(cfg, "ok", 1, 4095), ggml_angles(cfg, "ok", 2 ** 20 - 4096, 4096)])
    k = k_of(a, pos, omega_geometric(base, dim))
    return (k, [max(c_pow(base, dim, i), c_ggml(base, dim, i)) for i in range(dim // 2)], 1.0, None,
            mrope_forms(base, dim))


def case_axial(axes=(32, 32), base=1e4):
    """EVA-02 / Pixtral / FLUX in float32: each axis 1 / base ** (arange(0, a, 2) / a)."""
    ks, kap = [], []
    pos = positions()
    for a_k in axes:
        inv = 1.0 / rc.geometric(base, a_k)
        ks.append(k_of(hf_angles(inv, pos), pos, omega_geometric(base, a_k)))
        kap += [c_pow(base, a_k, j) for j in range(a_k // 2)]
    n = 256
    grid = np.arange(n)
    ids = np.stack([grid // 16, grid % 16], axis=1).astype(np.int64)
    cs, ss = [], []
    for ax, a_k in enumerate(axes):
        inv = 1.0 / rc.geometric(base, a_k)
        a = hf_angles(inv, ids[:, ax].astype(np.float64))
        cs.append(np.cos(a.astype(np.float64)).astype(F))
        ss.append(np.sin(a.astype(np.float64)).astype(F))
    c, s = np.concatenate(cs, axis=1), np.concatenate(ss, axis=1)
    cos, sin = np.concatenate((c, c), axis=1), np.concatenate((s, s), axis=1)
    return np.concatenate(ks), kap, 1.0, (["--family", "rope", "--layout", "half", "--base", "%g" % base,
                                           "--rope-axes-dim", ",".join(str(a) for a in axes)],
                                          cos, sin, ids), {"pow": kap}


def timesteps():
    g = torch.Generator().manual_seed(7)
    t = torch.rand(200, generator=g, dtype=torch.float32) * 1000
    return torch.cat([t, torch.arange(0, 1000, 5, dtype=torch.float32)])


def case_diffusers(d=320, shift=1, base=10000.0):
    half = d // 2
    exponent = -math.log(base) * torch.arange(start=0, end=half, dtype=torch.float32)
    exponent = exponent / (half - shift)
    t = timesteps()
    a = (t[:, None].float() * torch.exp(exponent)[None, :]).numpy()
    omega = np.array([base ** (-i / (half - shift)) for i in range(half)])
    k = k_of(a, t.double().numpy(), omega)
    kap = [0.0 if i == 0 else c_timescale(base, d, shift, 1.0, i) for i in range(half)]
    emb = np.concatenate([np.sin(a.astype(np.float64)), np.cos(a.astype(np.float64))], axis=1).astype(F)
    preset = ["--preset", "diffusers"] if shift == 1 else ["--preset", "adm", "--order", "sin-cos"]
    return k, kap, 1.0, (["--family", "sinusoidal", "--timesteps", "T"] + preset, emb, None, None,
                         ("T", t.numpy().astype(F))), timescale_forms(base, d, shift, 1.0)


def case_t2t(m=2.0, d=128, base=1e4):
    """tensor2tensor's get_timing_signal_1d (tests/lib/sin_tables.py) at positions."""
    n = d // 2
    inc = torch.tensor(math.log(base / m), dtype=torch.float32) / torch.clamp(
        torch.tensor(float(n), dtype=torch.float32) - 1, min=1)
    inv = torch.tensor(m, dtype=torch.float32) * torch.exp(torch.arange(n).to(torch.float32) * -inc)
    pos = positions(big=False)
    a = (torch.tensor(pos, dtype=torch.float32)[:, None] * inv[None, :]).numpy()
    omega = np.array([m * (base / m) ** (-i / (n - 1)) for i in range(n)])
    k = k_of(a, pos, omega)
    kap = [c_timescale(base, d, 1, m, i) for i in range(n)]
    p = np.arange(256, dtype=np.float32)
    a2 = (torch.tensor(p)[:, None] * inv[None, :]).numpy().astype(np.float64)
    emb = np.concatenate([np.sin(a2), np.cos(a2)], axis=1).astype(F)
    return k, kap, 1.0, (["--family", "sinusoidal", "--preset", "t2t", "--min-timescale", "%g" % m],
                         emb, None, None, None), timescale_forms(base, d, 1, m)


CASES = {
    "timesteps-diffusers-d320": lambda: case_diffusers(320, 1),
    "timesteps-adm-d320": lambda: case_diffusers(320, 0),
    "min-timescale-t2t-M2-d128": lambda: case_t2t(2.0, 128),
    "mrope-hf-qwen2vl": case_mrope_hf,
    "mrope-ggml-base1e6": case_mrope_ggml,
    "axial-eva02-32,32": lambda: case_axial((32, 32), 1e4),
    "axial-64,64-base1e4": lambda: case_axial((64, 64), 1e4),
    "yarn-hf-qwen2.5x4": lambda: case_yarn_hf("Qwen--Qwen2.5-7B-Instruct-yarn", 128),
    "yarn-ggml-qwen2.5x4": lambda: case_yarn_ggml("Qwen--Qwen2.5-7B-Instruct-yarn", 2 ** 20 - 4096, 4096),
    "yarn-ggml-deepseek-v3": lambda: case_yarn_ggml("deepseek-ai--DeepSeek-V3", 159744, 4096),
    "yarn-hf-gpt-oss": lambda: case_yarn_hf("openai--gpt-oss-20b", 64),
    "llama3-hf-band": lambda: band_only(case_llama3_hf()),
    "llama3-ggml-band": lambda: band_only(case_llama3_ggml()),
}


def main(argv):
    names = argv[1:] or list(CASES)
    bad = 0
    print("# case | pecheck's C (JSON, err/bound) | C (mirror) | derived, by formulation | "
          "largest k_i | largest k_i / kappa_i (pair, kappa_i) | the same against the measured "
          "formulation's own kappa_i")
    for name in names:
        k, kap, att, run, forms = CASES[name]()
        kap = np.array(kap, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            ratio = np.where(kap > 0, k / kap, np.where(k > 0, np.inf, 0.0))
        j = int(np.argmax(ratio))
        mirror = att * float(np.max(np.where(np.isfinite(kap), kap, 0.0)))
        rep = "-"
        if run is not None:
            got = pecheck_c(run[0], run[1], run[2], run[3], run[4] if len(run) > 4 else None)
            if isinstance(got, tuple):
                rep = ("%.4g" % got[0] if got[0] is not None else "-") + " (%.3f)" % got[1]
                if got[0] is not None and "band" not in name and abs(got[0] - mirror) > 1e-6 * mirror:
                    rep += " MISMATCH"
                    bad = 1
            elif got is not None:
                rep = got
                bad = 1
        der = ", ".join("%s %.4g" % (f, att * max(c for c in v[1:] if math.isfinite(c)))
                        for f, v in forms.items())
        own = forms[next(v for key, v in OWN.items() if key in name)]
        own = np.array(own, dtype=np.float64)
        with np.errstate(divide="ignore", invalid="ignore"):
            r_own = np.where(own > 0, k / own, 0.0)
        o = int(np.argmax(r_own[1:])) + 1
        kmax = float(np.max(k[1:])) if len(k) > 1 else 0.0
        print("%s | %s | %.4g | %s | %.3f | %.3f (pair %d, %.4g) | %.3f (pair %d, %.4g)"
              % (name, rep, mirror, der, kmax, ratio[j], j, kap[j], r_own[o], o, own[o]))
        if ratio[j] > 1 or r_own[o] > 1:
            bad = 1
    return bad


if __name__ == "__main__":
    sys.exit(main(sys.argv))

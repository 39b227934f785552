#!/usr/bin/env python3
"""diagnosis_audit.py: does pecheck name the right cause first?

    scripts/diagnosis_audit.py [--pecheck build/pecheck] [--keep DIR] [--only NAME,...] [-v]

Builds 44 realistic RoPE bugs (cos/sin caches made with PyTorch the way HF
transformers makes them, tests/lib/rope_caches.py for the production
schedules; ABI v1 plugins compiled with cc), runs `pecheck check` on each
as a user would, and prints for each whether the run failed (caught) and
whether the first "likely cause" the run prints (its first failing
verdict that names one, in order) is the right one: a regular expression
of the words the right cause must use.  The last line is the figure:

    caught 44/44, right cause first 41/44

Needs torch and numpy (Debian's python3-torch) and a C compiler; runs in
about a minute on one core.  docs/diagnosis.md describes the hypotheses.
"""
import argparse
import json
import math
import os
import re
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import torch

ROOT = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
sys.path.insert(0, os.path.join(ROOT, "tests", "lib"))
import rope_caches  # noqa: E402  (the production schedules, HF's formulas)

N, D, BASE = 2048, 128, 10000.0
COMMON = ["--cases", "20", "--regressions", "off", "--format", "json", "--quiet"]


# ---- caches ------------------------------------------------------------------

def base_re(b):
    """The words naming base B, as %.6g or as a whole number."""
    return r"base (%s|%s)\b" % (re.escape("%.6g" % b), re.escape("%.0f" % b))


def set_shape(n, d, base):
    """Another shape for the default-schedule bugs (the production models'
    keep their own): the same bugs at another size, a check that the
    diagnosis does not depend on the one shape it was tried on."""
    global N, D, BASE
    N, D, BASE = n, d, base

def inv_freq(d=None, base=None):
    """HF's default: 1 / base^(arange(0, d, 2) / d), float32."""
    d, base = d or D, base or BASE
    return 1.0 / (base ** (torch.arange(0, d, 2, dtype=torch.int64).float() / d))


def positions(n=None, p0=0, dtype=None):
    n = n or N
    t = torch.arange(p0, p0 + n, dtype=torch.int64)
    if dtype is None:
        return t.float() if p0 + n <= 2 ** 24 else t.double()
    return t.to(dtype).float() if dtype != torch.float32 else t.float()


def angles(t, inv):
    """freqs = outer(t, inv) in float32 (HF's matmul), or in float64 for
    exact positions past 2^24."""
    if t.dtype == torch.float64:
        return torch.outer(t, inv.double())
    return torch.outer(t, inv)


def tf32(x):
    """X (float32) as a TF32 tensor core takes it: 10 stored significand
    bits, rounded to nearest even (CUTLASS's tfloat32_t)."""
    b = x.float().view(torch.int32).to(torch.int64)
    b = (b + 0xFFF + ((b >> 13) & 1)) & ~0x1FFF
    return b.to(torch.int32).view(torch.float32)


def halves(freqs, cos=torch.cos, sin=torch.sin, scale=1.0):
    emb = torch.cat((freqs, freqs), dim=-1)
    return (cos(emb) * scale).float(), (sin(emb) * scale).float()


def taylor_sin(x):
    """sin by its series to x^7 after reduction to [-pi, pi] (a hand-written
    kernel's shortcut): up to 0.08 wrong near +-pi."""
    r = torch.remainder(x + math.pi, 2 * math.pi) - math.pi
    return r - r ** 3 / 6 + r ** 5 / 120 - r ** 7 / 5040


def yarn_att_twice(tmp, name, n=8192):
    """Qwen2.5-7B's YaRN x4 cache with its attention factor applied twice."""
    cfg = rope_caches.MODELS["qwen25yarn"]
    cos, sin = rope_caches.cache(cfg, "ok", n)
    att = rope_caches.mscale(cfg["rope_scaling"]["factor"])
    folder = os.path.join(tmp, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f)
    args = save(tmp, name, cos * att, sin * att)
    return args + ["--hf-config", os.path.join(folder, "config.json"), "--layout", "half"]


def save(tmp, name, cos, sin, store="float32"):
    folder = os.path.join(tmp, name)
    os.makedirs(folder, exist_ok=True)
    for part, a in (("cos", cos), ("sin", sin)):
        if store == "bf16w":
            a = a.to(torch.bfloat16).float()
        elif store == "f16w":
            a = a.to(torch.float16).float()
        np.save(os.path.join(folder, part + ".npy"), a.numpy().astype(np.float32))
    return ["--table", os.path.join(folder, "cos.npy"), "--table-sin", os.path.join(folder, "sin.npy"),
            "--family", "rope"]


def model_cache(tmp, name, model, variant, n, dtype="float32"):
    folder = os.path.join(tmp, name)
    rope_caches.write(model, variant, dtype, n, folder)
    return ["--table", os.path.join(folder, "cos.npy"), "--table-sin", os.path.join(folder, "sin.npy"),
            "--family", "rope", "--hf-config", os.path.join(folder, "config.json"), "--layout", "half"]


def phi35_swapped(tmp, name, n, want_long):
    """Phi-3.5's LongRoPE cache built with the other factor list."""
    cfg = rope_caches.MODELS["phi35"]
    rs = cfg["rope_scaling"]
    factors = rs["short_factor"] if want_long else rs["long_factor"]
    inv = 1.0 / (torch.tensor(factors, dtype=torch.float32) * rope_caches.geometric(10000.0, 96))
    L0, factor = 4096, 131072 / 4096
    att = math.sqrt(1 + math.log(factor) / math.log(L0))
    cos, sin = halves(angles(positions(n), inv), scale=att)
    folder = os.path.join(tmp, name)
    os.makedirs(folder, exist_ok=True)
    with open(os.path.join(folder, "config.json"), "w") as f:
        json.dump(cfg, f)
    args = save(tmp, name, cos, sin)
    return args + ["--hf-config", os.path.join(folder, "config.json"), "--layout", "half"]


# ---- plugins -----------------------------------------------------------------

PLUGIN = r"""
#include <math.h>
#include <stdint.h>
#include <stddef.h>
#include <string.h>
int pecheck_abi_version(void) { return 1; }
static float bf16(float v) { uint32_t u; memcpy(&u, &v, 4); u += 0x7FFFu + (u >> 16 & 1u);
                             u &= 0xFFFF0000u; memcpy(&v, &u, 4); return v; }
static float f16(float v) { if (v == 0) return v; int e; frexpf(v, &e); int q = e - 11 < -24 ? -24 : e - 11;
                            return ldexpf(nearbyintf(ldexpf(v, -q)), q); }
static float taylor_sin(float x) { float r = remainderf(x, 6.2831853f);
                                   return r - r*r*r/6 + r*r*r*r*r/120 - r*r*r*r*r*r*r/5040; }
int pecheck_rope_f32(const int64_t *pos, size_t n, int d, double base, int layout,
                     const float *x, float *out)
{
    int h = d / 2;
    float step = powf((float)base, -2.0f / (float)d), cum = 1.0f;
    for (int i = 0; i < h; i++) {
        float w = BUG == 3 ? powf(10000.0f, -2.0f * i / d) : BUG == 10 ? cum
                : powf((float)base, -2.0f * (float)i / (float)d);
        cum *= step;
        for (size_t r = 0; r < n; r++) {
            float p = BUG == 11 ? bf16((float)pos[r]) : (float)(pos[r] + (BUG == 2));
            float t = p * w;
            if (BUG == 6) t = f16(t);
            float c = cosf(t), s = BUG == 8 ? taylor_sin(t) : sinf(t);
            if (BUG == 1) { c = bf16(c); s = bf16(s); }
            if (BUG == 4) { float z = c; c = s; s = z; }
            if (BUG == 9) s = -s;
            int lay = BUG == 5 ? !layout : layout;
            size_t a = r * (size_t)d + (size_t)(lay ? i : 2 * i);
            size_t b = r * (size_t)d + (size_t)(lay ? i + h : 2 * i + 1);
            out[a] = x[a] * c - x[b] * s;
            out[b] = x[b] * c + x[a] * s;
        }
    }
    return 0;
}
"""


def plugin(tmp, name, bug):
    src = os.path.join(tmp, "plugin_bug.c")
    with open(src, "w") as f:
        f.write(PLUGIN)
    so = os.path.join(tmp, name + ".so")
    subprocess.run(["cc", "-O1", "-shared", "-fPIC", "-DBUG=%d" % bug, src, "-o", so, "-lm"],
                   check=True)
    return ["--plugin", so, "--family", "rope", "--max-pos", str(N - 1)]


# ---- the bugs ----------------------------------------------------------------

# The production models' mistakes (tests/lib/rope_caches.py variants):
# (name, what, model, variant, rows, the right cause's words)
MODEL_BUGS = [
    ("llama31-factor", "Llama-3.1: the llama3 factor halved", "llama31", "factor", 8192,
     r"times the schedule|factor"),
    ("llama31-origlen", "Llama-3.1: the original length x4", "llama31", "origlen", 8192,
     r"other frequencies|original length|band"),
    ("llama31-base", "Llama-3.1: rope_theta 10000 instead of 500000", "llama31", "base", 8192,
     r"base 10000|wrong base"),
    ("qwen-yarn-noatt", "Qwen2.5 YaRN: the attention factor left out", "qwen25yarn", "noatt", 8192,
     r"attention factor is missing"),
    ("qwen-yarn-factor", "Qwen2.5 YaRN: the factor halved", "qwen25yarn", "factor", 8192, r"factor"),
    ("phi35-noatt", "Phi-3.5 LongRoPE: the attention factor left out", "phi35", "noatt", 8192,
     r"attention factor is missing"),
    ("linear-factor", "linear scaling: factor 4 where 8 belongs", "linear8", "factor", 8192,
     r"2 times the schedule|factor"),
    ("dynamic-factor", "dynamic NTK: the factor halved", "dynamic2", "factor", 16384,
     r"wrong factor or sequence length"),
    ("neox-partial-rotary", "GPT-NeoX: the head dim's schedule on the rotary dims", "neox20b", "pairs",
     8192, r"head dim, not the rotary dim"),
]

# The kernels' mistakes (PLUGIN's BUG): (name, what, bug, extra arguments, the right cause's words)
PLUGIN_BUGS = [
    ("plugin-bf16-cos-sin", "a kernel rounding cos/sin to bfloat16", 1, [], r"bfloat16"),
    ("plugin-off-by-one", "a kernel computing position p + 1", 2, [], r"p\+1\b"),
    ("plugin-ignores-base", "a kernel with base 10000 built in, checked at 500000", 3,
     ["--base", "500000"], r"base 10000\b"),
    ("plugin-sin-cos-swapped", "a kernel with sin and cos swapped", 4, [], r"sin and cos are swapped"),
    ("plugin-layouts-swapped", "a kernel pairing dims as the other layout does", 5, [],
     r"layouts are swapped"),
    ("plugin-f16-angle", "a kernel rounding the angle to float16", 6, [], r"angle .*float16"),
    ("plugin-f32-positions-past-2^24", "a kernel with float32 positions at long context", 7,
     ["--positions", "16777216:16779263"], r"(binary32|float32)"),
    ("plugin-taylor-sin", "a kernel with a series for sin", 8, [], r"evaluated inexactly"),
    ("plugin-sin-negated", "a kernel rotating the wrong way", 9, [], r"wrong way"),
    ("plugin-bf16-positions", "a kernel holding positions in bfloat16", 11, [], r"position.* bfloat16"),
]

def bugs(tmp):
    """(name, what it is, pecheck arguments, the right cause's words)."""
    b = []
    t, inv = positions(), inv_freq()
    ok = angles(t, inv)

    def add(name, what, args, want):
        b.append((name, what, args, want))

    add("bf16-cache-widened", "a bfloat16 cache widened to float32, checked without --dtype",
        save(tmp, "bf16w", *halves(ok), store="bf16w") + ["--base", "%g" % BASE], r"bfloat16.*--dtype bf16")
    add("f16-cache-widened", "a float16 cache widened to float32, checked without --dtype",
        save(tmp, "f16w", *halves(ok), store="f16w") + ["--base", "%g" % BASE], r"float16.*--dtype f16")
    full = angles(positions(N + 100), inv)
    add("sliced-from-100", "rows 100.. of a longer cache, checked without --pos-start",
        save(tmp, "slice", *[x[100:] for x in halves(full)]) + ["--base", "%g" % BASE], r"--pos-start 100")
    add("next-position", "the rows of position p + 1", save(tmp, "next", *halves(angles(t + 1, inv)))
        + ["--base", "%g" % BASE], r"p\+1\b")
    add("base-500000-as-10000", "a base-500000 cache checked as base 10000",
        save(tmp, "b500k", *halves(angles(t, inv_freq(base=BASE * 50)))) + ["--base", "%g" % BASE],
        base_re(BASE * 50))
    add("base-10000-as-500000", "a base-10000 cache for a base-500000 model",
        save(tmp, "b10k", *halves(ok)) + ["--base", "%g" % (BASE * 50)], base_re(BASE))
    add("base-10100", "rope_theta 1% off (10100)",
        save(tmp, "b10100", *halves(angles(t, inv_freq(base=BASE * 1.01)))) + ["--base", "%g" % BASE],
        base_re(BASE * 1.01))
    c, s = halves(ok)
    add("sin-cos-swapped", "the cos cache holds sin and the sin cache cos",
        save(tmp, "swap", s, c) + ["--base", "%g" % BASE], r"sin and cos are swapped")
    add("sin-negated", "sin with the wrong sign (rotate_half reversed)",
        save(tmp, "sign", c, -s) + ["--base", "%g" % BASE], r"wrong way")
    add("bf16-angle", "the angle p*w computed in bfloat16",
        save(tmp, "bf16a", *halves(ok.to(torch.bfloat16).float())) + ["--base", "%g" % BASE],
        r"angle .*bfloat16")
    add("f16-angle", "the angle p*w computed in float16",
        save(tmp, "f16a", *halves(ok.to(torch.float16).float())) + ["--base", "%g" % BASE],
        r"angle .*float16")
    add("bf16-positions", "positions held in bfloat16 (a model cast before its buffers)",
        save(tmp, "bf16p", *halves(angles(positions(dtype=torch.bfloat16), inv))) + ["--base", "%g" % BASE],
        r"position.* bfloat16")
    add("f16-positions", "positions held in float16",
        save(tmp, "f16p", *halves(angles(positions(4096, dtype=torch.float16), inv))) + ["--base", "%g" % BASE],
        r"position.* float16")
    p0 = 2 ** 24
    t32 = torch.arange(p0, p0 + N, dtype=torch.int64).float()  # position_ids.float()
    add("f32-positions-past-2^24", "positions held in float32 past 2^24 (position_ids.float())",
        save(tmp, "f32p", *halves(torch.outer(t32.double(), inv.double()).float()))
        + ["--base", "%g" % BASE, "--pos-start", str(p0)], r"(binary32|float32)")
    add("taylor-sin", "sin by a truncated series",
        save(tmp, "taylor", *halves(ok, sin=taylor_sin)) + ["--base", "%g" % BASE], r"evaluated inexactly")
    add("angle-plus-0.05", "every angle 0.05 rad too large",
        save(tmp, "rad05", *halves(ok + 0.05)) + ["--base", "%g" % BASE], r"off by \+0\.05")
    add("norm-1.05", "cos and sin 5% too long (an mscale where none belongs)",
        save(tmp, "long5", *halves(ok, scale=1.05)) + ["--base", "%g" % BASE], r"norm 1\.05")
    add("inv-freq-f16", "inv_freq held in float16",
        save(tmp, "f16w_", *halves(angles(t, inv.half().float()))) + ["--base", "%g" % BASE],
        r"frequenc.* float16")
    add("inv-freq-bf16", "inv_freq held in bfloat16",
        save(tmp, "bf16w_", *halves(angles(t, inv.bfloat16().float()))) + ["--base", "%g" % BASE],
        r"frequenc.* bfloat16")
    add("tf32-matmul", "inv_freq @ position_ids on TF32 tensor cores (allow_tf32)",
        save(tmp, "tf32", *halves(angles(tf32(positions(8192)), tf32(inv)))) + ["--base", "%g" % BASE],
        r"angles come from a TF32 matmul")
    add("yarn-att-twice", "Qwen2.5 YaRN: the attention factor applied twice",
        yarn_att_twice(tmp, "att2"), r"attention factor")
    c, s = halves(ok)
    c = c.clone()
    c[700, 5] = float("nan")
    add("nan-in-cache", "one NaN in the cos cache", save(tmp, "nan", c, s) + ["--base", "%g" % BASE], r"NaN")
    add("interleaved-as-half", "a repeat_interleave cache for a model that rotates halves",
        save(tmp, "flip", *[torch.repeat_interleave(x, 2, dim=-1)
                            for x in (ok.cos(), ok.sin())])
        + ["--base", "%g" % BASE, "--layout", "half"], r"interleaved layout.*--layout interleaved")
    add("reversed-pairs", "the frequencies in reverse pair order (torch.flip)",
        save(tmp, "rev", *halves(angles(t, torch.flip(inv, [0])))) + ["--base", "%g" % BASE],
        r"reverse order")
    for name, what, model, variant, n, want in MODEL_BUGS:
        add(name, what, model_cache(tmp, name, model, variant, n), want)
    add("longrope-short-for-long", "LongRoPE: the short factors where the long ones belong",
        phi35_swapped(tmp, "lrs", 8192, want_long=True), r"short factors")
    add("longrope-long-for-short", "LongRoPE: the long factors where the short ones belong",
        phi35_swapped(tmp, "lrl", 2048, want_long=False), r"long factors")
    for name, what, bug, extra, want in PLUGIN_BUGS:
        args = plugin(tmp, "p%d" % bug, bug)
        if extra and extra[0] == "--positions":  # a range of its own instead of --max-pos
            args = args[:-2]
        b.append((name, what, args + extra, want))
    return b


# ---- the run -------------------------------------------------------------------

def headline(doc):
    """The first likely cause a user reads: the first failing verdict, in
    order, that names one (an accuracy summary's "likely cause:", or a
    property's details line)."""
    for r in doc.get("results", []):
        if r.get("status") != "fail":
            continue
        summary = r.get("summary") or ""
        if "likely cause: " in summary:
            return r["check"], summary.split("likely cause: ", 1)[1]
        for line in (r.get("details") or "").splitlines():
            if line.strip().startswith("likely cause:"):
                return r["check"], line.strip()[len("likely cause:"):].strip()
    return None, None


def main():
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("--pecheck", default=os.path.join(ROOT, "build", "pecheck"))
    ap.add_argument("--keep", help="build the bugs in this folder and keep it")
    ap.add_argument("--only", help="comma-separated names")
    ap.add_argument("-v", action="store_true", help="print every headline whole")
    ap.add_argument("--n", type=int, default=N, help="rows of the default-schedule caches (%d)" % N)
    ap.add_argument("--d", type=int, default=D, help="their head dim (%d)" % D)
    ap.add_argument("--base", type=float, default=BASE, help="their base (%g)" % BASE)
    a = ap.parse_args()
    set_shape(a.n, a.d, a.base)
    tmp = a.keep or tempfile.mkdtemp(prefix="pecheck-audit-")
    os.makedirs(tmp, exist_ok=True)
    torch.manual_seed(0)
    try:
        cases = bugs(tmp)
        if a.only:
            keep = set(a.only.split(","))
            cases = [c for c in cases if c[0] in keep]
        caught = right = 0
        for name, what, args, want in cases:
            p = subprocess.run([a.pecheck, "check"] + args + COMMON, stdout=subprocess.PIPE,
                               stderr=subprocess.PIPE)
            try:
                doc = json.loads(p.stdout.decode())
            except ValueError:
                doc = {}
            check, cause = headline(doc)
            hit = p.returncode == 1
            good = hit and cause is not None and re.search(want, cause) is not None
            caught += hit
            right += good
            shown = cause if a.v or cause is None else cause[:110]
            print("%-32s %-6s %-5s [%s] %s" % (name, "caught" if hit else "MISSED (rc %d)" % p.returncode,
                                              "right" if good else "WRONG", check, shown))
            if p.returncode not in (0, 1):
                print("    " + p.stderr.decode().strip()[:300])
        print("caught %d/%d, right cause first %d/%d" % (caught, len(cases), right, len(cases)))
    finally:
        if not a.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    main()

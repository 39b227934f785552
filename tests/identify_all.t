#!/usr/bin/python3
"""identify_all.t: `pecheck identify` on a table of every family and main
option kind that `pecheck check` passes on, given the table and what its
values cannot say (the data inputs of scripts/identify_audit.py: --table,
--table-sin, --position-ids, --timesteps, --pos-start), nothing of the
encoding's specification.  For each table, three properties:

  FOUND   `identify DATA` exits 0 (every value explained);
  JSON    `identify DATA --format json` parses with the json module and
          gives check_args;
  CHECK   `check CHECK_ARGS` (plus any data input check_args leave out)
          exits 0 on the same table.

First, `check` with the table's own specification must pass, so that every
case is one the audit would record (a case whose own check fails says the
generator is wrong, not identify).  The tables are small (at most 8192 rows
of d 128), built as the libraries build them (tests/lib/rope_caches.py,
sin_tables.py, relative_tables.py: PyTorch, HF's formulas):

  RoPE   default (base 10000, 500000), linear x4, dynamic NTK x2, YaRN x4,
         llama3 (Llama 3.1's, in bfloat16 widened; Llama 4's factor 16 step
         in bfloat16 at 4096 rows, whose scaled pairs turn too little to be
         resolved: before, the unscaled default, which check failed),
         LongRoPE (Phi-3.5's
         short factors), a bfloat16 cache ('<u2'), a float16 one, rows at
         --pos-start 2048, llama.cpp's cache (tests/lib/ggml_rope_cache.py:
         binary32 cumulative products) at --pos-start 520192 (binary32 angles
         good to 0.12 rad there: before, a LongRoPE of factors 1.00005 that
         check failed; its linear x8 there: before, base 10001.4),
         rows at one-axis --position-ids, HunYuan's dynamic NTK alpha 1000
         (before: a dynamic factor 68 over base 50000 that explained nothing,
         UNKNOWN), M-RoPE of Qwen2-VL (sections 16,24,24, base 1e6) and
         Qwen3-VL (24,20,20 interleaved, base 5e6) at 3-axis position ids
         (before: exit 2, no split explained the pairs under base 10000),
         M-RoPE of text tokens only (every axis alike: FOUND with sections
         check takes, saying the rows cannot tell them; before: exit 2),
         FLUX's axial RoPE (16,56,56), axial RoPE at real coordinates
         (before: exit 2, identify fitted integer positions only), DINOv3's
         at coordinates in [-1, 1] with angles 2 pi coords / periods (base 100;
         and base 1000, fitted: before, exit 2, no angle scale tried), Pixtral's 2-D RoPE (axes by parity:
         before, exit 2, no split tried explained the pairs), torchscale's xPos (queries and the
         keys' downscale: before, FOUND as the plain default, whose check
         failed on the norms; a cache whose norms follow no known schedule
         is UNKNOWN);
  sinusoidal  Vaswani's interleaved table, tensor2tensor's halves, Whisper's,
         diffusers' timestep embedding at --timesteps, MAE's 2-D grid with a
         cls row (before: exit 2, identify refused --grid);
  ALiBi  BLOOM's slopes (40 heads), MPT's bias (8 heads);
  learned  a table of trained values given --family learned (before: exit 2,
         identify took no learned family), UNKNOWN naming --family learned
         without it (before: exit 2, "no certified frequencies"), UNKNOWN
         naming two equal rows;
  T5     bidirectional and causal bucket tables, one saved as int32 (before:
         exit 2, '<i4' read as a table of rows).

What the values cannot say is exit 2 with "cannot be identified" (a sinusoidal
table of 2 rows, a RoPE cache of 1 row at --pos-start 2047, rows at position ids
1048576 apart, timesteps near 1e12; a table holding NaN or Inf: before, FOUND,
exit 0, with check_args that check fails), naming what to pass instead (more rows,
or check with the formula's options), which scripts/identify_audit.py excludes.

Without PyTorch: a visible skip."""
import json
import math
import os
import shutil
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "lib"))
try:
    import numpy as np
    import torch
except Exception as e:  # the reason, one line
    print("1..0 # SKIP PyTorch not available: %s" % str(e).splitlines()[0])
    sys.exit(0)
import ggml_rope_cache  # noqa: E402
import relative_tables  # noqa: E402
import rope_caches  # noqa: E402
import sin_tables  # noqa: E402
import xpos_caches  # noqa: E402
from pctest import ok, run, done  # noqa: E402

tmp = tempfile.mkdtemp(prefix="pecheck-identify-all.")


def path(name):
    return os.path.join(tmp, name + ".npy")


def save(name, a):
    np.save(path(name), a)
    return path(name)


def rope_pair(name, cos, sin):
    """cos, sin (torch) saved as NAME_cos, NAME_sin (float32 unless numpy given)."""
    c = cos if isinstance(cos, np.ndarray) else cos.numpy()
    s = sin if isinstance(sin, np.ndarray) else sin.numpy()
    return ["--table", save(name + "_cos", np.ascontiguousarray(c)),
            "--table-sin", save(name + "_sin", np.ascontiguousarray(s))]


def hf_cache(model, n, dtype="float32", p0=0, cfg=None):
    """rope_caches.py's cache of MODEL (or CFG) at positions P0..P0+N-1, stored as DTYPE."""
    cfg = cfg or rope_caches.MODELS[model]
    cos, sin = rope_caches.cache(cfg, "ok", n, p0)
    return rope_caches.store(cos, dtype), rope_caches.store(sin, dtype)


def axes_cache(name, d, base, ids, sections=None, interleaved=False, axes_dim=None):
    """A cache at ids (n, A) of several axes: M-RoPE (SECTIONS in pairs, HF's
    order or the interleaved one) or axial (AXES_DIM, each axis its own
    frequencies over its dims); half layout, float64 angles rounded to float32."""
    h = d // 2
    if axes_dim:
        inv = np.concatenate([1.0 / base ** (np.arange(0, a, 2) / a) for a in axes_dim])
        axis = np.concatenate([[k] * (a // 2) for k, a in enumerate(axes_dim)])
    else:
        inv = 1.0 / base ** (np.arange(0, d, 2) / d)
        if interleaved:  # Qwen3-VL: pair j of axis j mod 3 while within that axis' section
            axis = np.zeros(h, dtype=int)
            for j in range(h):
                k = j % 3
                axis[j] = k if j < 3 * sections[k] and k > 0 else 0
        else:
            axis = np.concatenate([[k] * s for k, s in enumerate(sections)])
    ang = ids[:, axis].astype(np.float64) * inv[None, :]
    ang = np.concatenate([ang, ang], axis=1)
    return rope_pair(name, np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32))


def vl_ids(text, grid):
    """Qwen2-VL's ids: TEXT rows (t, t, t), then a GRID x GRID image at t = TEXT."""
    rows = [(t, t, t) for t in range(text)]
    rows += [(text, y + text, x + text) for y in range(grid) for x in range(grid)]
    return np.array(rows, dtype=np.int64)


def opts(args):
    """(name, value) pairs of a command line (every option here takes a value)."""
    out, k = [], 0
    while k < len(args):
        if k + 1 < len(args) and not args[k + 1].startswith("--"):
            out.append((args[k], args[k + 1]))
            k += 2
        else:
            out.append((args[k], None))
            k += 1
    return out


def case(name, data, spec):
    """The three properties for the table DATA (data inputs), which check
    with SPEC (its own specification) passes."""
    rc, out, err, _ = run(["check"] + data + spec + ["--quiet", "--regressions", "off"])
    if not ok(rc == 0, "%s: check with its own specification passes" % name, out + err):
        return
    rc, out, err, _ = run(["identify"] + data + ["--quiet"])
    ok(rc == 0 and out.startswith("FOUND"), "%s: FOUND (identify exits 0)" % name, "rc %d\n%s%s" % (rc, out[-1500:], err))
    rc, out, err, _ = run(["identify"] + data + ["--quiet", "--format", "json"])
    try:
        doc = json.loads(out)
        res = doc["results"][0]
        args = res["check_args"]
        good = isinstance(args, list) and all(isinstance(a, str) for a in args)
    except Exception as e:  # noqa: BLE001 - shown on failure
        good, args, res = False, [], {}
        err = "%s\n%s%s" % (e, out[:1500], err)
    ok(good, "%s: identify's JSON parses, with check_args" % name, err)
    if not good:
        return
    given = {k for k, _ in opts(args)}
    extra = [x for k, v in opts(data) if k not in given for x in (k, v)]
    rc, out, err, _ = run(["check"] + args + extra + ["--quiet", "--regressions", "off"])
    shown = [a if len(a) < 80 else a[:77] + "..." for a in args[2:] if not a.startswith(tmp)]
    ok(rc == 0, "%s: check %s passes" % (name, " ".join(shown)), out[-2000:] + err)
    print("# %s: %s" % (name, " ".join(shown)[:200]))


try:
    F32 = "float32"
    # ---- RoPE ------------------------------------------------------------------
    llama2 = rope_caches.MODELS["llama2"]
    c, s = hf_cache("llama2", 2048)
    case("rope default base 10000", rope_pair("def", c, s), ["--base", "10000"])
    cfg5 = dict(llama2, rope_theta=500000.0)
    c, s = hf_cache(None, 2048, cfg=cfg5)
    case("rope default base 500000", rope_pair("def5", c, s), ["--base", "500000"])
    lin = dict(llama2, rope_scaling={"type": "linear", "factor": 4.0})
    c, s = hf_cache(None, 4096, cfg=lin)
    case("rope linear x4", rope_pair("lin", c, s),
         ["--base", "10000", "--rope-scaling", json.dumps({"rope_type": "linear", "factor": 4})])
    dyn = dict(llama2, max_position_embeddings=1024,
               rope_scaling={"type": "dynamic", "factor": 2.0})
    c, s = hf_cache(None, 4096, cfg=dyn)
    case("rope dynamic NTK x2", rope_pair("dyn", c, s),
         ["--base", "10000", "--rope-scaling", json.dumps(
             {"rope_type": "dynamic", "factor": 2, "max_position_embeddings": 1024})])
    c, s = hf_cache("qwen25yarn", 4096)
    case("rope YaRN x4 (Qwen2.5)", rope_pair("yarn", c, s),
         ["--base", "1000000", "--rope-scaling", json.dumps(
             {"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768})])
    c, s = hf_cache("llama31", 8192, "bfloat16w")
    case("rope llama3 (Llama 3.1, bf16 widened)", rope_pair("l3", c, s),
         ["--base", "500000", "--dtype", "bf16", "--rope-scaling",
          json.dumps(rope_caches.MODELS["llama31"]["rope_scaling"])])
    l4 = {"hidden_size": 5120, "num_attention_heads": 40, "head_dim": 128, "rope_theta": 500000.0,
          "max_position_embeddings": 10485760, "rope_scaling": {
              "rope_type": "llama3", "factor": 16.0, "low_freq_factor": 1.0,
              "high_freq_factor": 1.0, "original_max_position_embeddings": 8192}}
    c, s = hf_cache(None, 4096, "bfloat16", cfg=l4)
    case("rope llama3 (Llama 4, bf16 '<u2', 4096 rows)",
         rope_pair("l4", c, s) + ["--dtype", "bf16"],
         ["--base", "500000", "--rope-scaling", json.dumps(l4["rope_scaling"])])
    phi = rope_caches.MODELS["phi35"]
    c, s = hf_cache("phi35", 2048)
    case("rope LongRoPE (Phi-3.5, short factors)", rope_pair("phi", c, s),
         ["--base", "10000", "--rope-scaling", json.dumps(
             dict(phi["rope_scaling"], rope_type="longrope", factor=32,
                  original_max_position_embeddings=4096))])
    c, s = hf_cache("phi35", 8192, "float16")
    case("rope LongRoPE (Phi-3.5, long factors, f16)", rope_pair("phi16", c, s),
         ["--base", "10000", "--rope-scaling", json.dumps(
             dict(phi["rope_scaling"], rope_type="longrope", factor=32,
                  original_max_position_embeddings=4096))])
    c, s = hf_cache("llama2", 2048, "bfloat16")
    case("rope bf16 cache ('<u2')", rope_pair("bf16", c, s) + ["--dtype", "bf16"],
         ["--base", "10000"])
    c, s = hf_cache("llama2", 2048, "float16")
    case("rope f16 cache", rope_pair("f16", c, s), ["--base", "10000"])
    c, s = hf_cache("llama2", 2048, p0=2048)
    case("rope rows at --pos-start 2048", rope_pair("ps", c, s) + ["--pos-start", "2048"],
         ["--base", "10000"])
    c, s = ggml_rope_cache.cache(llama2, "ok", 4096, 520192)
    case("rope llama.cpp's rows at --pos-start 520192", rope_pair("far", c, s)
         + ["--pos-start", "520192"], ["--base", "10000"])
    lin8 = rope_caches.MODELS["linear8"]
    c, s = ggml_rope_cache.cache(lin8, "ok", 4096, 520192)
    case("rope llama.cpp's linear x8 at --pos-start 520192", rope_pair("farlin", c, s)
         + ["--pos-start", "520192"],
         ["--base", "10000", "--rope-scaling", json.dumps({"rope_type": "linear", "factor": 8})])
    ids = np.array([5, 9, 100, 7, 3000, 12, 13, 14] * 8, dtype=np.int64)
    inv = 1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64)
    ang = ids[:, None].astype(np.float64) * inv[None, :]
    ang = np.concatenate([ang, ang], axis=1)
    case("rope rows at --position-ids", rope_pair("ids", np.cos(ang).astype(np.float32),
                                                  np.sin(ang).astype(np.float32))
         + ["--position-ids", save("ids_pos", ids)], ["--base", "10000"])
    c, s = xpos_caches.xpos_cos_sin(64, 1024, 0)
    case("rope xPos (torchscale, queries)", rope_pair("xpos", c, s),
         ["--family", "rope", "--base", "10000", "--rope-xpos", "512"])
    c, s = xpos_caches.xpos_cos_sin(64, 2048, 0, downscale=True)
    case("rope xPos (torchscale, keys' downscale)", rope_pair("xposk", c, s),
         ["--family", "rope", "--base", "10000", "--rope-xpos", "512", "--rope-xpos-downscale"])
    # norms that follow no schedule identify knows (zeta's 0.4 as 0.5): not FOUND
    c, s = xpos_caches.xpos_cos_sin(64, 1024, 0, zc=0.5)
    rc, out, err, _ = run(["identify"] + rope_pair("zeta05", c, s) + ["--quiet"])
    ok(rc == 1 and out.startswith("UNKNOWN") and "norms change along the rows" in out,
       "xPos with zeta's 0.4 as 0.5: UNKNOWN, naming the norms", "rc %d\n%s%s" % (rc, out, err))
    # 64 rows far from position 0 (tests/rope_formulation.t's random configs):
    # the fitted frequencies admit a schedule (a base off by 2e-3, a factor
    # 4 for 3.99) whose accuracy gate fails there (before: FOUND, and its
    # check_args failed check at err/bound ~300).  Either FOUND with
    # check_args that pass, or exit 1 naming the failing gate.
    for base, p0 in ((1e6, 520000), (123456.7, 200000)):
        name = "llama3 factor 3.99 (low 1, high 6, original 4096), base %g, 64 rows at %d" % (base, p0)
        l3 = {"hidden_size": 96 * 8, "num_attention_heads": 8, "head_dim": 96, "rope_theta": base,
              "max_position_embeddings": 8192,
              "rope_scaling": {"rope_type": "llama3", "factor": 3.99, "low_freq_factor": 1.0,
                               "high_freq_factor": 6.0, "original_max_position_embeddings": 4096}}
        c, s = hf_cache(None, 64, p0=p0, cfg=l3)
        data = rope_pair("far_l3_%d" % p0, c, s) + ["--pos-start", str(p0)]
        rc, out, err, _ = run(["identify"] + data + ["--quiet", "--format", "json"])
        try:
            res = json.loads(out)["results"][0]
            args, gate = res["check_args"], res.get("accuracy_gate")
        except Exception as e:  # noqa: BLE001 - shown on failure
            ok(False, "%s: identify's JSON parses" % name, "%s\n%s%s" % (e, out[:1500], err))
            continue
        given = {k for k, _ in opts(args)}
        extra = [x for k, v in opts(data) if k not in given for x in (k, v)]
        crc, cout, cerr, _ = run(["check"] + args + extra + ["--regressions", "off"])
        shown = " ".join(a for a in args[2:] if not a.startswith(tmp))[:300]
        if rc == 0:
            ok(res["found"] and crc == 0, "%s: FOUND, and check %s passes" % (name, shown[:120]),
               "check rc %d\n%s%s" % (crc, cout[-2000:], cerr))
            continue
        ok(rc == 1 and not res["found"] and gate and not gate["pass"] and gate["err_bound"] > 1
           and crc == 1, "%s: UNKNOWN (exit 1), its accuracy gate failing (err/bound %s), as check "
           "%s does" % (name, gate and "%.3g" % gate["err_bound"], shown[:120]),
           "rc %d, check rc %d\n%s\n%s" % (rc, crc, out[-1500:], cout[-1500:]))
        # the text names the closest schedule and the gate's measure, which
        # is check's own
        rc, out, err, _ = run(["identify"] + data + ["--quiet"])
        ratio = "%.3g" % gate["err_bound"] if gate else "?"
        ok(rc == 1 and out.startswith("UNKNOWN") and "closest: " in out
           and ("fails the accuracy gate at err/bound %s" % ratio) in out
           and ("max |err|/bound %s" % ratio) in cout,
           "%s: the text names the closest schedule failing the gate at err/bound %s, check's own"
           % (name, ratio), "rc %d\n%s\n%s" % (rc, out[-1500:], cout[-800:]))
    # HunYuan: dynamic with alpha, base' = base alpha^(d/(d-2)) (vLLM's DynamicNTKAlpha)
    hb = 10000.0 * 1000.0 ** (128 / 126)
    hy = {"hidden_size": 4096, "num_attention_heads": 32, "head_dim": 128, "rope_theta": hb,
          "max_position_embeddings": 32768}
    c, s = hf_cache(None, 4096, cfg=hy)
    case("rope HunYuan dynamic NTK alpha 1000", rope_pair("hy", c, s),
         ["--base", "10000", "--rope-scaling", json.dumps({"rope_type": "dynamic", "alpha": 1000})])
    vids = vl_ids(16, 16)
    case("rope M-RoPE Qwen2-VL (16,24,24, base 1e6)",
         axes_cache("mrope", 128, 1e6, vids, sections=(16, 24, 24))
         + ["--position-ids", save("vl_ids", vids)],
         ["--base", "1000000", "--rope-sections", "16,24,24"])
    case("rope M-RoPE Qwen3-VL (24,20,20 interleaved, base 5e6)",
         axes_cache("mrope3", 128, 5e6, vids, sections=(24, 20, 20), interleaved=True)
         + ["--position-ids", path("vl_ids")],
         ["--base", "5000000", "--rope-sections", "24,20,20", "--mrope-interleaved"])
    # text tokens only: every axis holds the same position in every row, so
    # every split explains the rows (before: exit 2, "any split"); FOUND with
    # sections check takes, the text and the JSON saying the rows cannot tell
    # them
    tids = np.repeat(np.arange(300, dtype=np.int64)[:, None], 3, axis=1)
    tdata = axes_cache("mtext", 128, 1e6, tids, sections=(16, 24, 24)) \
        + ["--position-ids", save("text_ids", tids)]
    case("rope M-RoPE Qwen2-VL, text tokens only (every axis alike)", tdata,
         ["--base", "1000000", "--rope-sections", "16,24,24"])
    rc, out, err, _ = run(["identify"] + tdata)
    ok(rc == 0 and "these rows cannot tell one" in out and "not determined by the data" in out,
       "M-RoPE of text tokens only: the text says the rows cannot tell the split", out + err)
    rc, out, err, _ = run(["identify"] + tdata + ["--format", "json"])
    try:
        res = json.loads(out)["results"][0]
    except Exception as e:  # noqa: BLE001 - shown on failure
        res, err = {}, "%s\n%s%s" % (e, out[:1500], err)
    ok(res.get("found") is True and res.get("split_determined") is False,
       "M-RoPE of text tokens only: JSON found, split_determined false", out[:1500] + err)
    # M-RoPE sections with float16 angles (before: check crashed, the
    # sections' float16 frequencies prepared before the attention factor
    # was decided): the binary32 cache fails, naming the angles
    rc, out, err, _ = run(["check"] + tdata + ["--base", "1000000", "--rope-sections", "16,24,24",
                                               "--rope-angle-dtype", "f16", "--regressions", "off"])
    ok(rc == 1 and "the angles are not float16 values" in out,
       "M-RoPE sections with --rope-angle-dtype f16 on a binary32 cache: exit 1 naming the "
       "angles (rc %d)" % rc, out[-1500:] + err)
    # two axes alike, the third not (no split between those two can be told;
    # before: exit 2): FOUND with Qwen2-VL's sections, which check takes, the
    # text and the JSON saying the split between the two is not determined;
    # the ids of Qwen2-VL's get_rope_index for a prompt with an image one
    # patch tall (t0, t0, t0 + w) are such ids
    pids = np.array([(t, t, t + (t % 5)) for t in range(300)], dtype=np.int64)
    wids = np.array([(p, p, p) for p in range(10)] + [(10, 10, 10 + w) for w in range(32)]
                    + [(42 + p,) * 3 for p in range(6)], dtype=np.int64)
    for name, ids in (("two axes alike, a third not", pids), ("an image one patch tall", wids)):
        key = "mpart%d" % len(ids)
        pdata = axes_cache(key, 128, 1e6, ids, sections=(16, 24, 24)) \
            + ["--position-ids", save(key + "_ids", ids)]
        case("rope M-RoPE Qwen2-VL, %s" % name, pdata, ["--base", "1000000", "--rope-sections", "16,24,24"])
        rc, out, err, _ = run(["identify"] + pdata)
        ok(rc == 0 and "split between axes 0 and 1: not determined by the data" in out,
           "M-RoPE, %s: the text says the split between axes 0 and 1 is not determined (rc %d)"
           % (name, rc), out + err)
        rc, out, err, _ = run(["identify"] + pdata + ["--format", "json"])
        try:
            res = json.loads(out)["results"][0]
        except Exception as e:  # noqa: BLE001 - shown on failure
            res, err = {}, "%s\n%s%s" % (e, out[:1500], err)
        ok(res.get("split_determined") is False and res.get("alike_axes") == [0, 1],
           "M-RoPE, %s: JSON split_determined false, alike_axes [0, 1]" % name, out[:1500] + err)
    fids = np.array([(0, 0, 0)] * 16 + [(0, y, x) for y in range(16) for x in range(16)],
                    dtype=np.int64)
    case("rope axial FLUX (16,56,56)",
         axes_cache("flux", 128, 10000.0, fids, axes_dim=(16, 56, 56))
         + ["--position-ids", save("flux_ids", fids)],
         ["--base", "10000", "--rope-axes-dim", "16,56,56"])

    # axial RoPE at real coordinates (a ViT's patch centres, float64): dims 32,32
    xy = np.array([((y + 0.5) / 4, (x + 0.5) / 4) for y in range(24) for x in range(24)])
    ax_inv = 1.0 / 10000.0 ** (np.arange(0, 32, 2) / 32)
    ang = np.concatenate([xy[:, :1] * ax_inv[None, :], xy[:, 1:] * ax_inv[None, :]], axis=1)
    ang = np.concatenate([ang, ang], axis=1)
    case("rope axial at real coordinates (32,32)",
         rope_pair("coords", np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32))
         + ["--position-ids", save("coords_pos", xy)],
         ["--base", "10000", "--rope-axes-dim", "32,32"])
    # DINOv3's RopePositionEmbedding (dinov3/layers/rope_position_encoding.py):
    # patch centres normalized to [-1, 1], periods = base^(2j/(D/2)), base 100,
    # angles = 2 pi coords / periods, [y | x] then tiled (half): the check needs
    # --rope-angle-scale 2pi (before: exit 2, no split tried explained the pairs)
    g = 14
    c1 = (np.arange(g) + 0.5) / g * 2.0 - 1.0
    dxy = np.array([(c1[y], c1[x]) for y in range(g) for x in range(g)])
    periods = 100.0 ** (2 * np.arange(16) / 32)
    ang = 2 * np.pi * np.concatenate([dxy[:, :1] / periods[None, :], dxy[:, 1:] / periods[None, :]],
                                     axis=1)
    ang = np.concatenate([ang, ang], axis=1)
    case("rope DINOv3 axial at real coordinates, angle scale 2pi (base 100)",
         rope_pair("dino", np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32))
         + ["--position-ids", save("dino_pos", dxy.astype(np.float32))],
         ["--base", "100", "--rope-axes-dim", "32,32", "--rope-angle-scale", "2pi"])
    # the same with periods of base 1000, no released model's: base and scale fitted
    # from the pairs' angles at each axis' smallest coordinate (before: exit 2)
    periods = 1000.0 ** (2 * np.arange(16) / 32)
    ang = 2 * np.pi * np.concatenate([dxy[:, :1] / periods[None, :], dxy[:, 1:] / periods[None, :]],
                                     axis=1)
    ang = np.concatenate([ang, ang], axis=1)
    case("rope DINOv3-like periods of base 1000, angle scale 2pi (fitted)",
         rope_pair("dino1k", np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32))
         + ["--position-ids", path("dino_pos")],
         ["--base", "1000", "--rope-axes-dim", "32,32", "--rope-angle-scale", "2pi"])
    # Pixtral's vision RoPE: freqs[::2] for the rows, freqs[1::2] for the columns
    freqs = 1.0 / 10000.0 ** (np.arange(0, 64, 2) / 64)
    pids = np.array([(y, x) for y in range(16) for x in range(16)], dtype=np.int64)
    ang = np.concatenate([pids[:, :1] * freqs[None, ::2], pids[:, 1:] * freqs[None, 1::2]], axis=1)
    ang = np.concatenate([ang, ang], axis=1)
    case("rope Pixtral 2-D (axes by parity)",
         rope_pair("pix", np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32))
         + ["--position-ids", save("pix_ids", pids)],
         ["--base", "10000", "--rope-axes-dim", "32,32", "--rope-axes-parity"])

    # ---- sinusoidal --------------------------------------------------------------
    case("sinusoidal Vaswani interleaved", ["--table", save(
        "vas", sin_tables.vaswani_interleaved(512, 64).numpy())],
         ["--family", "sinusoidal", "--base", "10000"])
    case("sinusoidal tensor2tensor halves", ["--table", save(
        "t2t", np.asarray(sin_tables.t2t_timing_signal(512, 64), dtype=np.float32)
        .reshape(512, 64))], ["--family", "sinusoidal", "--preset", "t2t"])
    case("sinusoidal Whisper", ["--table", save(
        "whisper", np.asarray(sin_tables.whisper_sinusoids(448, 64), dtype=np.float32))],
         ["--family", "sinusoidal", "--preset", "whisper"])
    ts = np.arange(1.0, 1000.0, 16.0)  # whole timesteps: the same in float32 and float64
    case("sinusoidal diffusers timesteps", [
        "--table", save("dts", sin_tables.diffusers_timestep(torch.tensor(ts), 64).numpy()),
        "--timesteps", save("ts", ts)], ["--family", "sinusoidal", "--preset", "diffusers"])

    # MAE's get_2d_sincos_pos_embed (util/pos_embed.py), 8x8 with the cls row of zeros:
    # row 1 + i W + j = [PE_{d/2}(j) | PE_{d/2}(i)], each half [sin | cos]
    def pe1(dim, pos):
        om = 1.0 / 10000 ** (np.arange(dim // 2, dtype=np.float64) / (dim / 2.0))
        out = np.einsum("m,d->md", pos.reshape(-1), om)
        return np.concatenate([np.sin(out), np.cos(out)], axis=1)
    gj, gi = np.meshgrid(np.arange(8, dtype=np.float32), np.arange(8, dtype=np.float32))
    mae = np.concatenate([np.zeros((1, 64)), np.concatenate([pe1(32, gj), pe1(32, gi)], axis=1)])
    case("sinusoidal MAE 2-D grid (8x8, cls row)", ["--table", save("mae", mae.astype(np.float32)),
                                                    "--grid", "8,8", "--cls-rows", "1"],
         ["--family", "sinusoidal"])

    # ---- ALiBi, T5 -----------------------------------------------------------------
    case("alibi BLOOM slopes (40 heads)",
         ["--table", save("bloom40", relative_tables.bloom_slopes(40).numpy())],
         ["--family", "alibi"])
    case("alibi MPT bias (8 heads)",
         ["--table", save("mpt8", relative_tables.mpt_alibi_bias(8, 64).numpy())],
         ["--family", "alibi"])
    case("t5 bidirectional buckets", ["--table", save(
        "t5b", relative_tables.t5_buckets(64, 64).numpy())], ["--family", "t5"])
    case("t5 causal buckets", ["--table", save(
        "t5c", relative_tables.t5_buckets(64, 64, bidirectional=False).numpy())],
         ["--family", "t5", "--causal"])
    case("t5 causal buckets saved as int32", ["--table", save(
        "t5c32", relative_tables.t5_buckets(64, 64, bidirectional=False).numpy().astype(np.int32))],
         ["--family", "t5", "--causal"])
    # ---- learned tables (trained values): --family learned is what the values
    # cannot say; identify names the table (rows, width, finite, distinct rows) and
    # check --family learned passes (before: exit 2, identify took no learned family)
    rng = np.random.default_rng(7)
    emb = (rng.standard_normal((256, 32)) * 0.02).astype(np.float32)
    case("learned table (256 rows, d 32)", ["--table", save("emb", emb), "--family", "learned"], [])
    # without --family the rows are read as sinusoidal: UNKNOWN naming --family learned
    # (before: exit 2, "no certified frequencies for d 32, base ...")
    rc, out, err, _ = run(["identify", "--table", path("emb"), "--quiet"])
    ok(rc == 1 and out.startswith("UNKNOWN") and "--family learned" in out,
       "learned table without --family: UNKNOWN (exit 1) naming --family learned",
       "rc %d\n%s%s" % (rc, out, err))
    dup = emb.copy()
    dup[200] = dup[7]
    rc, out, err, _ = run(["identify", "--table", save("emb_dup", dup), "--family", "learned",
                           "--quiet"])
    crc, cout, cerr, _ = run(["check", "--table", path("emb_dup"), "--family", "learned",
                              "--quiet", "--regressions", "off"])
    ok(rc == 1 and out.startswith("UNKNOWN") and "rows 7 and 200 are equal" in out and crc == 1,
       "learned table with row 200 a copy of row 7: UNKNOWN naming them (check fails unique too)",
       "rc %d, check rc %d\n%s%s" % (rc, crc, out, err))
    # ---- what the values cannot say: exit 2, "cannot be identified" ---------------
    def cannot(name, data, words):
        rc, out, err, _ = run(["identify"] + data + ["--quiet"])
        ok(rc == 2 and "cannot be identified" in err and all(w in err for w in words),
           "%s: exit 2, 'cannot be identified', naming %s" % (name, ", ".join(words)),
           "rc %d\n%s%s" % (rc, out, err))
    cannot("a sinusoidal table of 2 rows", ["--table", save(
        "two", sin_tables.vaswani_interleaved(2, 64).numpy())],
           ["2 rows", "4 or more consecutive rows", "--preset"])
    c, s = hf_cache("llama2", 1, p0=2047)
    cannot("a RoPE cache of 1 row at --pos-start 2047",
           rope_pair("one", c, s) + ["--pos-start", "2047"],
           ["fewer than 16 positions", "16 or more consecutive rows", "--base"])
    far = np.arange(0, 16 * 1048576, 1048576, dtype=np.int64)
    ang = far[:, None].astype(np.float64) * inv[None, :]
    ang = np.concatenate([ang, ang], axis=1)
    cannot("rows at position ids 1048576 apart",
           rope_pair("far_ids", np.cos(ang).astype(np.float32), np.sin(ang).astype(np.float32))
           + ["--position-ids", save("far_pos", far)], ["--position-ids", "1048576 apart"])
    big = 1e12 + np.arange(16.0)
    cannot("timesteps near 1e12", [
        "--table", save("bigts", sin_tables.diffusers_timestep(torch.tensor(big), 64).numpy()),
        "--timesteps", save("big_ts", big)], ["1e+12", "2^-24", "--timesteps and the formula's"])
    nan_pe = sin_tables.vaswani_interleaved(64, 64).numpy().copy()
    nan_pe[5, 7] = np.nan
    cannot("a sinusoidal table holding a NaN", ["--table", save("nan_pe", nan_pe)],
           ["NaN/Inf", "row 5", "column 7", "table-values"])
    inf_sin = np.sin(ang).astype(np.float32)
    inf_sin[3, 2] = np.inf
    cannot("a RoPE cache whose sin holds an Inf",
           rope_pair("inf_sin", np.cos(ang).astype(np.float32), inf_sin), ["inf_sin", "row 3", "= inf"])
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())

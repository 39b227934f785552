#!/usr/bin/python3
"""identify_unknown_args.t: the check_args of an UNKNOWN RoPE table are a
line check runs (exit 0 or 1, never 2).  Rows that turn too little to fit a
base (cos and sin swapped; one row repeated) were given '--base 0', which
check refuses (exit 2: '--base: must be > 1'); random angles '--base
0.0946'.  Now such a base is left out and check fits its own.

Rows at position ids of several axes (Qwen2-VL's M-RoPE ids (t, h, w) of
text, a 16 x 16 image, text): a table no split explains was exit 2 ('no
split tried explains every pair'), one of text tokens only (every axis the
same position) whose pairs no storage explains was UNKNOWN with no split
in its check line (check: exit 2, 'say how the pairs follow them'), and
Qwen2-VL's config given on a cache of sections 24,16,24 was FOUND with a
check line that failed.  Now each is UNKNOWN (exit 1) with a split check
takes: its closest, which check runs to exit 1 with its own cause; the
JSON parses, and the text's check line runs the same."""
import json
import os
import shutil
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "lib"))
try:
    import numpy as np
except Exception as e:  # the reason, one line
    print("1..0 # SKIP numpy not available: %s" % str(e).splitlines()[0])
    sys.exit(0)
from pctest import ok, run, done  # noqa: E402

D, N = 64, 256  # a small head and rows enough for the fit
SEED = 20261129
tmp = tempfile.mkdtemp(prefix="pecheck-identify-unknown-args.")
inv = (1.0 / (10000.0 ** (np.arange(0, D, 2, dtype=np.float32) / np.float32(D)))).astype(np.float32)
ang = np.outer(np.arange(N, dtype=np.float32), inv).astype(np.float32)
ang = np.concatenate([ang, ang], -1)
rnd = np.random.default_rng(SEED).uniform(-np.pi, np.pi, (N, D // 2)).astype(np.float32)
rnd = np.concatenate([rnd, rnd], -1)
cases = {
    "cos and sin swapped": (np.sin(ang), np.cos(ang)),
    "one row repeated": (np.tile(np.cos(ang[3]), (N, 1)), np.tile(np.sin(ang[3]), (N, 1))),
    "random angles": (np.cos(rnd), np.sin(rnd)),
}
for name, (c, s) in cases.items():
    cp, sp = "%s/%s-cos.npy" % (tmp, len(name)), "%s/%s-sin.npy" % (tmp, len(name))
    np.save(cp, c.astype(np.float32))
    np.save(sp, s.astype(np.float32))
    rc, out, err, _ = run(["identify", "--table", cp, "--table-sin", sp, "--format", "json"])
    try:
        res = json.loads(out)["results"][0]
    except Exception as e:  # noqa: BLE001 - shown on failure
        res = {"error": "%s: %s%s" % (e, out[:800], err)}
    ok(rc == 1 and res.get("found") is False, "%s: UNKNOWN (exit %d)" % (name, rc),
       json.dumps(res)[:1500])
    args = res.get("check_args") or []
    rc, out, err, _ = run(["check"] + args + ["--quiet", "--regressions", "off"])
    ok(rc in (0, 1), "%s: check %s runs (exit %d)" % (name, " ".join(args[6:]), rc), err[-800:])



# ---- rows at position ids of several axes ----------------------------------
QWEN2VL = os.path.join(here, "data", "configs", "Qwen--Qwen2-VL-7B-Instruct.json")
H = 64  # pairs of Qwen2-VL's head dim 128


def mrope_ids():
    """Qwen2VLModel.get_rope_index's (t, h, w): 10 text tokens, a 16 x 16
    image (one frame), 6 text tokens."""
    ids = [(p, p, p) for p in range(10)]
    ids += [(10, 10 + h, 10 + w) for h in range(16) for w in range(16)]
    ids += [(26 + p,) * 3 for p in range(6)]
    return np.array(ids, dtype=np.int64)


def mrope_cache(ids, inv, sections):
    """cos, sin of pair j at its section's axis' position times INV[j],
    cat(freqs, freqs) (the half layout), float32 of float64 angles."""
    axis = np.concatenate([[a] * n for a, n in enumerate(sections)])
    ang = ids[:, axis].astype(np.float64) * inv[None, :]
    ang = np.concatenate([ang, ang], -1)
    return (np.ascontiguousarray(np.cos(ang), dtype=np.float32),
            np.ascontiguousarray(np.sin(ang), dtype=np.float32))


qwen_inv = 1e6 ** (-np.arange(0, 2 * H, 2, dtype=np.float64) / (2 * H))
rng = np.random.default_rng(SEED)
grid, text = mrope_ids(), np.repeat(np.arange(64, dtype=np.int64)[:, None], 3, 1)
wrong_h = qwen_inv.copy()
wrong_h[16:40] = 1e4 ** (-np.arange(16, 40) * 2.0 / (2 * H))  # h's section at base 1e4
axes_cases = {
    "M-RoPE ids, a random frequency a pair": (grid, qwen_inv * rng.uniform(0.5, 1.5, H), [16, 24, 24], []),
    "M-RoPE ids, h's section at another base": (grid, wrong_h, [16, 24, 24], []),
    "M-RoPE ids of text only, a random frequency a pair": (text, qwen_inv * rng.uniform(0.5, 1.5, H),
                                                          [16, 24, 24], []),
    "Qwen2-VL's config on sections 24,16,24": (grid, qwen_inv, [24, 16, 24], ["--hf-config", QWEN2VL]),
}
for k, (name, (ids, inv, sections, opts)) in enumerate(axes_cases.items()):
    c, s = mrope_cache(ids, inv, sections)
    cp, sp, pp = ("%s/axes%d-%s.npy" % (tmp, k, f) for f in ("cos", "sin", "pos"))
    np.save(cp, c)
    np.save(sp, s)
    np.save(pp, ids)
    data = ["--table", cp, "--table-sin", sp, "--position-ids", pp] + opts
    rc, out, err, _ = run(["identify"] + data + ["--format", "json"])
    try:
        res = json.loads(out)["results"][0]
    except Exception as e:  # noqa: BLE001 - shown on failure
        res = {"error": "%s: %s%s" % (e, out[:800], err)}
    args = res.get("check_args") or []
    split = any(a in args for a in ("--rope-sections", "--rope-axes-dim", "--hf-config"))
    ok(rc == 1 and res.get("found") is False and split,
       "%s: UNKNOWN, a split in check_args (exit %d)" % (name, rc), json.dumps(res)[:1500])
    rc, out, err, _ = run(["check"] + args + ["--quiet", "--regressions", "off"])
    ok(rc == 1 and "likely cause" in out, "%s: check %s fails with a cause (exit %d)"
       % (name, " ".join(args[6:]), rc), (out + err)[-1500:])
    rc, out, err, _ = run(["identify"] + data)
    line = [ln for ln in out.splitlines() if ln.startswith("  check: pecheck check ")]
    words = line[0].split()[3:] if line else []  # no quoting: the paths are plain
    rc2 = run(["check"] + words + ["--quiet", "--regressions", "off"])[0] if words else -1
    ok(rc == 1 and rc2 == 1, "%s: the text's check line runs (identify exit %d, check exit %d)"
       % (name, rc, rc2), out[-1500:] + err)

# a bfloat16 M-RoPE cache (cos/sin cast with .to(torch.bfloat16), widened): FOUND, and its
# check line carries --dtype bf16 (it had none for ids of several axes: check failed it)
c, s = mrope_cache(grid, qwen_inv, [16, 24, 24])
bf16 = [(x.view(np.uint32) + np.uint32(0x7FFF) + ((x.view(np.uint32) >> 16) & 1) & np.uint32(0xFFFF0000))
        .view(np.float32) for x in (c, s)]  # round to nearest even, as torch's cast
cp, sp, pp = ("%s/bf16-%s.npy" % (tmp, f) for f in ("cos", "sin", "pos"))
np.save(cp, bf16[0])
np.save(sp, bf16[1])
np.save(pp, grid)
rc, out, err, _ = run(["identify", "--table", cp, "--table-sin", sp, "--position-ids", pp,
                       "--format", "json"])
try:
    res = json.loads(out)["results"][0]
except Exception as e:  # noqa: BLE001 - shown on failure
    res = {"error": "%s: %s%s" % (e, out[:800], err)}
args = res.get("check_args") or []
ok(rc == 0 and res.get("found") is True and "--dtype" in args,
   "bfloat16 M-RoPE cache: FOUND, --dtype in check_args", json.dumps(res)[:1500])
rc, out, err, _ = run(["check"] + args + ["--quiet", "--regressions", "off"])
ok(rc == 0, "bfloat16 M-RoPE cache: its check_args pass check (exit %d)" % rc, (out + err)[-1500:])

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())

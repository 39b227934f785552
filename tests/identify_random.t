#!/usr/bin/python3
"""identify_random.t: `pecheck identify` on RoPE caches of random configs,
64 rows far from position 0, as tests/rope_formulation.t builds them (HF's
float32 caches, tests/lib/rope_caches.py: random bases, factors, YaRN betas
and truncate, llama3 bands, LongRoPE factors), given only the data inputs
(--table, --table-sin, --pos-start).  For each cache whose own config passes
`check`, three properties (scripts/identify_audit.py's):

  FOUND   `identify DATA` exits 0;
  JSON    `identify DATA --format json` parses, with check_args;
  CHECK   `check CHECK_ARGS` exits 0 on the same rows.

The configs are drawn with a fixed seed, and one is fixed: a YaRN cache of
base 50000 at 520000 (factor 4, original length 2048, beta_fast 24), which
identify took for base 49846 at a whole offset of -333, FOUND without
running the gate, with check_args check failed; it must now be FOUND with
check_args that pass (never FOUND with a failing check).  Positions 5000
to 16777000 (where torch's binary32 angle is good to a radian); LongRoPE's
random factors up to 1000000; at 16777000, where the rows may leave them
open (docs/identify.md, "Frequencies at the rows' own positions"), FOUND
with check_args that pass or UNKNOWN naming --hf-config.

Without PyTorch: a visible skip."""
import json
import os
import random
import shutil
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "lib"))
try:
    import numpy as np
    import torch  # noqa: F401 - rope_caches needs it
except Exception as e:  # the reason, one line
    print("1..0 # SKIP PyTorch not available: %s" % str(e).splitlines()[0])
    sys.exit(0)
import rope_caches  # noqa: E402
from pctest import ok, run, done  # noqa: E402

SEED = 20261129
N_ROWS = 64
tmp = tempfile.mkdtemp(prefix="pecheck-identify-random.")


def cfg_of(rng, kind):
    """A random config of KIND, as tests/rope_formulation.t draws them."""
    hd = rng.choice([32, 64, 80, 96, 128, 160, 256])
    base = rng.choice([10000.0, 500000.0, 1e6, 123456.7, 5e4, 2.5e5 + rng.random()])
    c = {"hidden_size": hd * 8, "num_attention_heads": 8, "head_dim": hd, "rope_theta": base,
         "max_position_embeddings": rng.choice([2048, 4096, 8192, 32768])}
    if kind == "linear":
        c["rope_scaling"] = {"type": "linear", "factor": rng.choice([2.0, 4.0, 1.3, 8.0, 3.7])}
    if kind == "dynamic":
        c["rope_scaling"] = {"type": "dynamic", "factor": rng.choice([2.0, 1.5, 4.0, 2.7])}
    if kind == "yarn":
        c["rope_scaling"] = {"type": "yarn", "factor": rng.choice([2.0, 4.0, 8.0, 40.0, 3.3]),
                             "original_max_position_embeddings": rng.choice([2048, 4096, 8192]),
                             "beta_fast": rng.choice([32, 16, 24]),
                             "beta_slow": rng.choice([1, 2, 0.5])}
        if rng.random() < 0.3:
            c["rope_scaling"]["truncate"] = False
    if kind == "longrope":
        h = hd // 2
        c["original_max_position_embeddings"] = 4096
        c["max_position_embeddings"] = rng.choice([16384, 131072])
        c["rope_scaling"] = {"type": "longrope",
                             "short_factor": [1 + rng.random() for _ in range(h)],
                             "long_factor": [1 + 60 * rng.random() for _ in range(h)]}
    if kind == "llama3":
        lf, hf = rng.choice([(1.0, 4.0), (1.0, 2.0), (2.0, 8.0), (0.5, 3.0)])
        c["rope_scaling"] = {"rope_type": "llama3", "factor": rng.choice([8.0, 32.0, 4.0, 16.0]),
                             "low_freq_factor": lf, "high_freq_factor": hf,
                             "original_max_position_embeddings": rng.choice([8192, 4096, 2048])}
    return c


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


def case(name, cfg, p0):
    """The three properties for CFG's cache of N_ROWS rows at P0."""
    d = os.path.join(tmp, name.replace(" ", "_").replace(",", ""))
    os.makedirs(d)
    cos, sin = rope_caches.cache(cfg, "ok", N_ROWS, p0)
    np.save(d + "/cos.npy", cos.numpy())
    np.save(d + "/sin.npy", sin.numpy())
    with open(d + "/config.json", "w") as f:
        json.dump(cfg, f)
    data = ["--table", d + "/cos.npy", "--table-sin", d + "/sin.npy", "--pos-start", str(p0)]
    quiet = ["--quiet", "--regressions", "off"]
    rc, out, err, _ = run(["check"] + data + ["--hf-config", d + "/config.json"] + quiet)
    if not ok(rc == 0, "%s: check with its own config passes" % name, out[-1500:] + err):
        return
    rc, out, err, _ = run(["identify"] + data + ["--quiet"])
    ok(rc == 0 and out.startswith("FOUND"), "%s: FOUND (identify exits 0)" % name,
       "rc %d\n%s%s" % (rc, out[-1500:], err))
    rc, out, err, _ = run(["identify"] + data + ["--quiet", "--format", "json"])
    try:
        res = json.loads(out)["results"][0]
        args = res["check_args"]
        good = isinstance(args, list) and all(isinstance(a, str) for a in args)
    except Exception as e:  # noqa: BLE001 - shown on failure
        good, args, res = False, [], {}
        err = "%s\n%s%s" % (e, out[:1500], err)
    if not ok(good, "%s: identify's JSON parses, with check_args" % name, err):
        return
    given = {k for k, _ in opts(args)}
    extra = [x for k, v in opts(data) if k not in given for x in (k, v)]
    rc, out, err, _ = run(["check"] + args + extra + quiet)
    shown = [a if len(a) < 90 else a[:87] + "..." for a in args if not a.startswith(tmp)]
    found = res.get("found") if isinstance(res, dict) else None
    ok(rc == 0, "%s: check %s passes" % (name, " ".join(shown[2:])), out[-2000:] + err)
    # the rule the audit holds identify to: a FOUND's check_args pass check
    ok(not (found and rc != 0), "%s: no FOUND whose check_args fail check" % name,
       "found %r, check exit %d" % (found, rc))
    print("# %s (true: %s): %s" % (name, json.dumps(cfg.get("rope_scaling", {}))[:120],
                                    " ".join(shown[2:])[:200]))


def open_or_found(name, cfg, p0):
    """Where the rows may leave the frequencies open (LongRoPE's random
    factors at 16777000): FOUND with check_args check passes, or UNKNOWN
    (exit 1) saying what to pass (the config)."""
    d = os.path.join(tmp, name.replace(" ", "_").replace(",", ""))
    os.makedirs(d)
    cos, sin = rope_caches.cache(cfg, "ok", N_ROWS, p0)
    np.save(d + "/cos.npy", cos.numpy())
    np.save(d + "/sin.npy", sin.numpy())
    data = ["--table", d + "/cos.npy", "--table-sin", d + "/sin.npy", "--pos-start", str(p0)]
    rc, out, err, _ = run(["identify"] + data + ["--format", "json", "--quiet"])
    try:
        res = json.loads(out)["results"][0]
    except Exception as e:  # noqa: BLE001 - shown on failure
        ok(False, "%s: identify's JSON parses" % name, "%s\n%s%s" % (e, out[:1500], err))
        return
    if rc == 0:
        crc, cout, cerr, _ = run(["check"] + res["check_args"] + ["--quiet", "--regressions", "off"])
        ok(res["found"] and crc == 0, "%s: FOUND, and its check_args pass check" % name,
           cout[-1500:] + cerr)
        return
    ok(rc == 1 and not res["found"] and "--hf-config" in res.get("assumed", ""),
       "%s: UNKNOWN (exit 1) naming --hf-config to pass" % name,
       "rc %d\n%s" % (rc, json.dumps(res)[:1500]))


try:
    # the whole offset of -333 (before: FOUND, the gate not run, check failed)
    yarn = {"hidden_size": 512, "num_attention_heads": 8, "head_dim": 64, "rope_theta": 50000.0,
            "max_position_embeddings": 2048, "rope_scaling": {
                "type": "yarn", "factor": 4.0, "original_max_position_embeddings": 2048,
                "beta_fast": 24, "beta_slow": 1}}
    case("yarn base 50000 at 520000 (offset -333 before)", yarn, 520000)
    rng = random.Random(SEED)
    for t in range(18):
        kind = ["default", "linear", "dynamic", "yarn", "llama3", "longrope"][t % 6]
        cfg = cfg_of(rng, kind)
        p0 = rng.choice([0, 5000, 200000, 520000, 1000000] if kind == "longrope"
                        else [5000, 200000, 520000, 1000000, 16777000])
        case("%s %d at %d, d %d, base %.9g" % (kind, t, p0, cfg["head_dim"], cfg["rope_theta"]),
             cfg, p0)
    for t in range(2):
        cfg = cfg_of(rng, "longrope")
        open_or_found("longrope %d at 16777000, d %d, base %.9g" % (t, cfg["head_dim"], cfg["rope_theta"]),
                      cfg, 16777000)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())

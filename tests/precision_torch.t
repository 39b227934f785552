#!/usr/bin/python3
"""precision_torch.t: the decomposed precision model (docs/precision-model.md)
on caches built with PyTorch (tests/lib/rope_forms.py, tests/lib/rope_caches.py).

- The false passes of the earlier model fail: a Llama-3.1 cache whose rows
  are for position p + 1, at 1M and 2M; a 3-term Taylor sin/cos with a
  binary32 quadrant reduction at 2M; 8 shards of a cache near 8.4M positions
  with one sign-flipped value, merged.  The correct caches at the same
  positions pass (and say where the bound stops constraining).
- Half precision: with the Llama-2 config (base 10000), caches 5% too long,
  0.05 rad too far and of base 10100 fail as float32, float16 and bfloat16;
  the correct float16 and bfloat16 caches pass.
- The mainstream PyTorch formulations (the exp form, the pow form, HF's
  rotary embedding, Meta's polar form) pass the default class at d 64, 128,
  256 and bases 1e4, 5e5, 1e6, on three sampled blocks of 512 positions up
  to 2^20 (the first, one at 2^19, the last: the full range takes far
  longer); the worst err/bound of each is printed as a TAP comment.
Without torch: a visible skip.  $PYTHON is not used: this file runs under
/usr/bin/python3, Debian's, which has python3-torch."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
root = os.path.dirname(here)
PECHECK = os.environ.get("PECHECK", os.path.join(root, "build", "pecheck"))
sys.path.insert(0, os.path.join(here, "lib"))
try:
    import numpy  # noqa: F401
    import torch  # noqa: F401
except Exception as e:  # the reason, one line
    print("1..0 # SKIP PyTorch not available: %s" % str(e).splitlines()[0])
    sys.exit(0)
import rope_caches  # noqa: E402
import rope_forms  # noqa: E402

n = 0
fails = 0


def ok(cond, name, diag=""):
    global n, fails
    n += 1
    print(("ok %d - %s" if cond else "not ok %d - %s") % (n, name))
    if not cond:
        fails += 1
        for line in str(diag).splitlines()[:20]:
            print("#   " + line)


def pecheck(*args):
    p = subprocess.run([PECHECK] + [str(a) for a in args], stdout=subprocess.PIPE,
                       stderr=subprocess.STDOUT, universal_newlines=True)
    return p.returncode, p.stdout


def table(out, *extra):
    return ["accuracy", "--table", os.path.join(out, "cos.npy"), "--table-sin",
            os.path.join(out, "sin.npy"), "--quiet"] + list(extra)


def ratio(text):
    for line in text.splitlines():
        if line.startswith("  largest err/bound = "):
            return float(line.split("=")[1])
    return None


tmp = tempfile.mkdtemp(prefix="pecheck-prectorch.")
try:
    # ---- Llama-3.1 rows of position p + 1 at 1M and 2M -------------------
    for p0 in (1000000, 2000000):
        for variant in ("ok", "next"):
            out = os.path.join(tmp, "l3-%s-%d" % (variant, p0))
            rope_caches.write("llama31", variant, "float32", 256, out, p0)
            rc, txt = pecheck(*table(out, "--hf-config", os.path.join(out, "config.json"),
                                     "--pos-start", p0))
            if variant == "ok":
                ok(rc == 0 and "long context: from position" in txt,
                   "Llama-3.1 cache at %d passes and says where the bound stops constraining" % p0, txt)
            else:
                ok(rc == 1, "Llama-3.1 cache with the rows of p + 1 at %d fails" % p0, txt)
            shutil.rmtree(out)

    # ---- a 3-term Taylor sin/cos at 2M -----------------------------------
    for variant in ("ok", "taylor"):
        out = os.path.join(tmp, "taylor-" + variant)
        rope_forms.write("hf", 128, 10000.0, 2000000, 256, out, variant)
        rc, txt = pecheck(*table(out, "--base", 10000, "--pos-start", 2000000))
        ok(rc == (0 if variant == "ok" else 1),
           "HF cache at 2M, sin/cos %s: %s" % ("torch's" if variant == "ok" else
                                               "3-term Taylor after a binary32 quadrant reduction",
                                               "passes" if variant == "ok" else "fails"), txt)
        shutil.rmtree(out)

    # ---- 8 merged shards near 8.4M with one sign-flipped value --------------
    p0 = 8388608 - 1024
    for variant in ("ok", "flip"):
        out = os.path.join(tmp, "flip-" + variant)
        rope_forms.write("hf", 128, 10000.0, p0, 2048, out, variant)
        shards = []
        for k in range(1, 9):
            js = os.path.join(out, "shard%d.json" % k)
            pecheck(*table(out, "--base", 10000, "--pos-start", p0, "--shard", "%d/8" % k,
                           "--format", "json", "--output", js))
            shards.append(js)
        rc, txt = pecheck("merge", "--format", "json", "--quiet", *shards)
        try:
            r = json.loads(txt)
        except ValueError:
            r = {}
        if variant == "ok":
            ok(rc == 0 and r.get("status") == "pass"
               and r.get("long_context", {}).get("reached") is True,
               "8 merged shards of a correct HF cache at %d..%d pass, long_context kept" % (p0, p0 + 2047), txt)
        else:
            ok(rc == 1 and r.get("status") == "fail" and r.get("values_over_bound", 0) >= 1
               and r["first_over_bound"]["pos"] == p0 + 1024,
               "8 merged shards with one sign-flipped value (pair 0, position %d) fail" % (p0 + 1024), txt)
        shutil.rmtree(out)

    # ---- half precision ----------------------------------------------------
    dtypes = {"float32": [], "float16": [], "bfloat16": ["--dtype", "bf16"]}
    for dt, extra in dtypes.items():
        for variant in ("ok", "long5", "rad05", "base10100"):
            out = os.path.join(tmp, "l2-%s-%s" % (variant, dt))
            rope_caches.write("llama2", variant, dt, 4096, out)
            # the config of the model (base 10000), not the wrong cache's
            cfg = os.path.join(tmp, "llama2.json")
            with open(cfg, "w") as f:
                json.dump(rope_caches.MODELS["llama2"], f)
            rc, txt = pecheck(*(table(out, "--hf-config", cfg) + extra))
            if variant == "ok":
                ok(rc == 0, "Llama-2 cache stored as %s passes (err/bound %s)" % (dt, ratio(txt)), txt)
            else:
                ok(rc == 1, "Llama-2 cache %s, stored as %s, fails" % (variant, dt), txt)
            shutil.rmtree(out)

    # ---- the mainstream formulations, default class ------------------------
    blocks = (0, (1 << 19) - 256, (1 << 20) - 512)
    for form in ("exp", "pow", "hf", "meta"):
        worst, bad = 0.0, []
        for d in (64, 128, 256):
            for base in (1e4, 5e5, 1e6):
                for p0 in blocks:
                    out = os.path.join(tmp, "form")
                    rope_forms.write(form, d, base, p0, 512, out)
                    rc, txt = pecheck(*table(out, "--base", base, "--pos-start", p0))
                    r = ratio(txt)
                    if rc != 0 or r is None:
                        bad.append("d=%d base=%g pos %d: rc %d" % (d, base, p0, rc))
                    else:
                        worst = max(worst, r)
                    shutil.rmtree(out)
        print("# %s form: worst err/bound %.3g (default class, d 64/128/256, bases 1e4/5e5/1e6, "
              "positions to 2^20 in 3 blocks of 512)" % (form, worst))
        ok(not bad, "the PyTorch %s form passes the default class on the grid" % form, "\n".join(bad))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

print("1..%d" % n)
sys.exit(1 if fails else 0)

#!/usr/bin/python3
"""plugin_v2.t: plugin ABI version 2 (include/pecheck_plugin.h), RoPE and
sinusoidal.

Builds examples/plugin_rope_half.c (an f16/bf16 kernel rotating a strided
[tokens, heads, head_dim] tensor in place, partial rotary) and the variants
of tests/plugins/rope_v2.h into a temporary folder, and checks:
  - the example passes at f16 and bf16, both layouts, with partial rotary
    (head dim 64, rotary dim 16) and under a YaRN schedule (attention factor
    != 1); it declines f32, which is reported as skipped; its properties
    (rope-relative, rope-norm, ...) run through pecheck_rope_v2 in f16 and
    pass, as do the half-arithmetic kernels'; cos/sin too long fails
    rope-norm, strides ignored rope-relative, the attention factor ignored
    under YaRN rope-norm;
  - kernels rounding in half precision (tests/plugins/rope_v2_forms.h:
    flash-attn's cache in the dtype; vLLM's and HF eager's cache, products
    and sum each in the dtype) pass the default class at f16 and bf16 and
    fail --strict (one rounding), which says they round more than once; the
    vLLM-style kernel with a base 1% too large or cos/sin 5% too long fails;
    the example passes --strict too;
  - each wrong variant fails the check that catches it: pass-through dims
    zeroed (passthrough), strides ignored (accuracy and passthrough: the
    padding), the angle computed in f16 (accuracy), the attention factor
    ignored (accuracy under YaRN, with the likely cause; it passes without
    a schedule, where the factor is 1), a write past the view (a fault: the
    first in position order, the same JSON at --threads 1 and 2);
  - a kernel wrong (pos + 1) or crashing only when called for one token,
    as a decode step calls it, fails accuracy: the gate asks for each
    block's last position alone;
  - argument structs that grow: a plugin built against an older, smaller
    struct passes; one that needs a member this pecheck does not pass
    returns PECHECK_V2_ARGS_TOO_SMALL and is skipped with that reason
    (exit 2: nothing checked);
  - pecheck_sinusoidal_v2: the example's f16/bf16 rows at a padded stride
    pass (accuracy and padding); rows taken as contiguous fail both;
  - a plugin built against the version 1 header (tests/plugins/abi1/)
    still loads and passes;
  - check --shard K/N: each v2 verdict is made whole by the shard that owns
    it, and merge gives the unsharded run's verdicts, exit code and JSON
    (but "seconds"): RoPE (the example, strides ignored, the attention
    factor ignored under YaRN) and sinusoidal, 2 to 5 shards.
Small runs: positions 0..1023 (2047 for the f16 angle), property cases 10.
"""
import json
import os
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from pctest import ROOT, ok, run, done, no_seconds  # noqa: E402

PARTIAL = ["--max-pos", "1023", "--d", "64", "--rotary-dim", "16"]
# the RoPE properties (families/rope/family.c), run through pecheck_rope_v2
PROPS = ("unique", "rope-relative", "rope-norm", "decay", "extrapolation")
SMALL = ["--cases", "10", "--regressions", "off", "--family", "rope"]
# YaRN x4 (Qwen2.5's rope_scaling): attention factor 0.1 ln 4 + 1 = 1.1386...
YARN = ["--d", "64", "--base", "1000000", "--max-pos", "1023", "--rope-scaling",
        '{"rope_type": "yarn", "factor": 4, "original_max_position_embeddings": 32768}']
# kernels computing in the half dtype (tests/plugins/rope_v2_forms.h)
FORMS = ("flash", "vllm", "hf")
tmp = tempfile.mkdtemp(prefix="pecheck-plugin-v2-")


def build(name, src=None, include=None):
    src = src or os.path.join(ROOT, "tests", "plugins", name + ".c")
    out = os.path.join(tmp, name + ".so")
    cc = os.environ.get("CC", "cc")
    inc = include or os.path.join(ROOT, "include")
    p = subprocess.run([cc, "-O1", "-shared", "-fPIC", "-I" + inc, src, "-o", out, "-lm"],
                       stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode != 0:
        print("# cannot build %s:\n# %s" % (src, p.stdout.decode()))
    return out


def check(plugin, *extra):
    rc, out, err, _ = run(["check", "--plugin", plugin, "--format", "json"] + SMALL + list(extra))
    try:
        doc = json.loads(out)
    except ValueError:
        doc = {"results": [], "_raw": out + err}
    return rc, doc, err


def get(doc, check_name, layout, family="rope"):
    for r in doc.get("results", []):
        if r["family"] == family and r["check"] == check_name and r["layout"] == layout:
            return r
    return None


def sharded(n, plugin, *args):
    """The N shards of check (reverse order, 2 threads) merged, against the
    unsharded run (1 thread): exit code and JSON but "seconds"."""
    base = ["check", "--plugin", plugin, "--quiet"] + list(args)
    rc0, out0, err0, _ = run(base + ["--threads", "1", "--format", "json"])
    files = [os.path.join(tmp, "shard%d.json" % k) for k in range(1, n + 1)]
    for k in range(n, 0, -1):
        run(base + ["--threads", "2", "--shard", "%d/%d" % (k, n), "--output", files[k - 1]])
    rc1, out1, err1, _ = run(["merge", "--format", "json"] + files)
    try:
        same = no_seconds(json.loads(out0)) == no_seconds(json.loads(out1))
    except ValueError:
        same = False
    name = os.path.basename(plugin)
    ok(rc0 == rc1 and rc0 in (0, 1) and same,
       "%d shards of %s %s: merged = unsharded (exit %d, JSON)" % (n, name, " ".join(args[-4:]), rc0),
       "rc %d vs %d\n%s\n%s" % (rc0, rc1, err0, err1))
    return rc0


def statuses(doc, check_name, dtype, family="rope"):
    return [(get(doc, check_name, "%s, %s" % (l, dtype), family) or {}).get("status")
            for l in ("interleaved", "half")]


try:
    names = ["rope_v2_passthrough", "rope_v2_stride", "rope_v2_f16angle", "rope_v2_noatt",
             "rope_v2_oob", "rope_v2_old", "rope_v2_future", "rope_v2_decode",
             "rope_v2_decode_crash"]
    names += ["rope_v2_form_" + f for f in FORMS + ("base", "long")]
    so = {n: build(n) for n in names}
    so["good"] = build("plugin_rope_half", os.path.join(ROOT, "examples", "plugin_rope_half.c"))
    so["v1"] = build("plugin_good_v1", os.path.join(ROOT, "examples", "plugin_good.c"),
                     os.path.join(ROOT, "tests", "plugins", "abi1"))

    # --- the example: f16 and bf16, partial rotary, both layouts
    rc, doc, err = check(so["good"], *PARTIAL)
    for dt in ("f16", "bf16"):
        ok(rc == 0 and statuses(doc, "accuracy", dt) == ["pass", "pass"],
           "example, %s, head dim 64 rotary 16: accuracy passes in both layouts" % dt, doc)
        ok(statuses(doc, "passthrough", dt) == ["pass", "pass"],
           "example, %s: pass-through dims and padding come back bit-identical" % dt, doc)
        r = get(doc, "accuracy", "interleaved, " + dt) or {}
        ok(dt + " arithmetic: cos/sin cache, products and sum each rounded" in r.get("summary", "")
           and 0 < (r.get("measured") or 0) <= 1,
           "example, %s: held to the default class of half arithmetic, err/bound in (0, 1]" % dt, r)
    r = get(doc, "accuracy", "interleaved, f32") or {}
    ok(r.get("status") == "skip" and "not supported" in r.get("summary", ""),
       "example declines f32: skipped, not passed", r)
    r = get(doc, "passthrough", "half, bf16") or {}
    ok("pass-through dims" in r.get("summary", "") and "bit-identical" in r.get("summary", ""),
       "the passthrough verdict says what it compared", r)
    # the properties call pecheck_rope_v2 (no pecheck_rope_f32), in the first
    # dtype the kernel takes: the example declines f32, so f16
    props = [get(doc, p, "interleaved") or {} for p in PROPS]
    ok(all(r.get("status") == "pass" and "called: through pecheck_rope_v2 (no pecheck_rope_f32), "
           "in place on f16 tensors" in r.get("details", "") for r in props),
       "example: %s pass through pecheck_rope_v2 in f16" % ", ".join(PROPS),
       [(r.get("check"), r.get("status"), r.get("summary")) for r in props])
    rc, doc, err = check(so["good"], "--strict", *PARTIAL)
    for dt in ("f16", "bf16"):
        r = get(doc, "accuracy", "half, " + dt) or {}
        ok(rc == 0 and statuses(doc, "accuracy", dt) == ["pass", "pass"]
           and "storage: binary32 values rounded once" in r.get("summary", ""),
           "example, %s, --strict: passes the one-rounding storage model" % dt, r)

    # --- kernels rounding in half precision: the default class holds them,
    # --strict (one rounding) does not and says why
    for f in FORMS:
        rc, doc, err = check(so["rope_v2_form_" + f], *PARTIAL)
        for dt in ("f16", "bf16"):
            r = get(doc, "accuracy", "interleaved, " + dt) or {}
            b = (r.get("data") or {}).get("bound") or {}
            ok(rc == 0 and b.get("storage_roundings") == 3 and statuses(doc, "accuracy", dt) == ["pass", "pass"]
               and statuses(doc, "passthrough", dt) == ["pass", "pass"]
               and 0 < (r.get("measured") or 0) <= 1,
               "%s-style kernel, %s, head dim 64 rotary 16: passes the default class" % (f, dt), r)
        ok(all((get(doc, p, "interleaved") or {}).get("status") == "pass" for p in PROPS),
           "%s-style kernel: the properties pass (in f16, the default class's element bound)" % f,
           [(get(doc, p, "interleaved") or {}).get("summary") for p in PROPS])
        rc, doc, err = check(so["rope_v2_form_" + f], "--strict", *PARTIAL)
        for dt in ("f16", "bf16"):
            r = get(doc, "accuracy", "half, " + dt) or {}
            ok(rc == 1 and statuses(doc, "accuracy", dt) == ["fail", "fail"]
               and ("more than one rounding to " + dt) in r.get("summary", ""),
               "%s-style kernel, %s, --strict: fails, saying it rounds more than once" % (f, dt),
               r)
    for f, why in (("base", "base 10100"), ("long", "(cos, sin) have norm")):
        rc, doc, err = check(so["rope_v2_form_" + f], *PARTIAL)
        for dt in ("f16", "bf16"):
            r = get(doc, "accuracy", "interleaved, " + dt) or {}
            ok(rc == 1 and statuses(doc, "accuracy", dt) == ["fail", "fail"]
               and why in r.get("summary", ""),
               "vLLM-style kernel, wrong (%s), %s: fails the default class" % (why, dt), r)
    r = get(doc, "rope-norm", "interleaved") or {}
    ok(r.get("status") == "fail" and "| |(R_m x)_i| - |x_i| | = 0.04" in r.get("summary", ""),
       "cos and sin 5% too long: rope-norm fails through pecheck_rope_v2 (|R x| = 1.05 |x|)", r)

    rc, doc, err = check(so["good"], *YARN)
    ok(rc == 0 and statuses(doc, "accuracy", "f16") == ["pass", "pass"]
       and statuses(doc, "accuracy", "bf16") == ["pass", "pass"],
       "example under YaRN x4 (attention factor 1.1386): passes at f16 and bf16", doc)

    # --- wrong kernels
    rc, doc, err = check(so["rope_v2_passthrough"], *PARTIAL)
    r = get(doc, "passthrough", "interleaved, f16") or {}
    ok(rc == 1 and r.get("status") == "fail" and "a pass-through dim" in r.get("summary", "")
       and "dim=16" in r.get("summary", "")
       and statuses(doc, "accuracy", "f16") == ["pass", "pass"],
       "pass-through dims zeroed: passthrough fails at the first pass-through dim, accuracy "
       "passes", r)
    rc, doc, err = check(so["rope_v2_stride"], *PARTIAL)
    ra = get(doc, "accuracy", "interleaved, bf16") or {}
    rp = get(doc, "passthrough", "interleaved, bf16") or {}
    ok(rc == 1 and ra.get("status") == "fail" and rp.get("status") == "fail"
       and "padding" in rp.get("summary", ""),
       "strides ignored: accuracy fails and the padding was written", (ra, rp))
    r = get(doc, "rope-relative", "interleaved") or {}
    ok(r.get("status") == "fail", "strides ignored: rope-relative fails through pecheck_rope_v2",
       r)
    rc, doc, err = check(so["rope_v2_f16angle"], "--max-pos", "2047", "--d", "64")
    r = get(doc, "accuracy", "interleaved, f16") or {}
    ok(rc == 1 and r.get("status") == "fail" and (r.get("measured") or 0) > 1,
       "the angle computed in f16: accuracy fails", r)
    rc, doc, err = check(so["rope_v2_noatt"], *YARN)
    r = get(doc, "accuracy", "half, f16") or {}
    ok(rc == 1 and r.get("status") == "fail" and "attention factor" in r.get("summary", ""),
       "the attention factor ignored (YaRN): accuracy fails, the likely cause says so", r)
    r = get(doc, "rope-norm", "interleaved") or {}
    ok(r.get("status") == "fail", "the attention factor ignored (YaRN): rope-norm fails (|R x| "
       "= |x|, not A |x|)", r)
    rc, doc, err = check(so["rope_v2_noatt"], *PARTIAL)
    ok(rc == 0 and statuses(doc, "accuracy", "bf16") == ["pass", "pass"],
       "the same kernel passes without a schedule (attention factor 1)", doc)
    rc, doc, err = check(so["rope_v2_oob"], *PARTIAL)
    r = get(doc, "accuracy", "interleaved, f16") or {}
    ok(rc == 1 and r.get("status") == "fail" and "pecheck_rope_v2 wrote outside OUT"
       in r.get("summary", ""), "a write past the view: a fault naming pecheck_rope_v2", r)
    # wrong or crashing only in calls of one token (a decode step)
    rc, doc, err = check(so["rope_v2_decode"], *PARTIAL)
    r = get(doc, "accuracy", "half, bf16") or {}
    ok(rc == 1 and statuses(doc, "accuracy", "f16") == ["fail", "fail"]
       and "(asked for alone, n = 1)" in r.get("summary", "")
       and "single-position path differs from its batched one" in r.get("details", ""),
       "rotating a lone token by pos + 1: accuracy fails at the positions asked for alone, "
       "the likely cause says the single-position path", r)
    rc, doc, err = check(so["rope_v2_decode_crash"], *PARTIAL)
    r = get(doc, "accuracy", "interleaved, f16") or {}
    ok(rc == 1 and statuses(doc, "accuracy", "bf16") == ["fail", "fail"]
       and "SIGSEGV in pecheck_rope_v2 at pos=255 " in r.get("summary", "")
       and "(position 255 asked for alone, n = 1" in r.get("summary", ""),
       "crashing on a lone token: accuracy fails with the fault at the first position asked for "
       "alone", r)
    # every call faults: on one host and 2 threads, blocks 0 and 1 fault in
    # either order; the run reports the first in position order, as one
    # thread does, and the pass-through counts are not judged
    runs = []
    for t in (1, 2, 2, 2, 2, 2, 2):
        rc, doc, err = check(so["rope_v2_oob"], *(PARTIAL + ["--plugin-hosts", "1", "--threads",
                                                           str(t)]))
        runs.append((rc, json.dumps(no_seconds(doc), sort_keys=True)))
    r = get(json.loads(runs[0][1]), "accuracy", "interleaved, f16") or {}
    ok(all(x == runs[0] for x in runs) and "wrote outside OUT at pos=0..254" in r.get("summary", ""),
       "the faulting kernel's JSON is the same at --threads 1 and 2 (6 runs), the fault at 0..254",
       [r.get("summary")] + [x[1][:300] for x in runs if x != runs[0]][:2])

    # --- check --shard: the v2 gate's verdicts made by their owners
    sharded(3, so["good"], *(SMALL + PARTIAL))
    sharded(2, so["rope_v2_stride"], *(SMALL + PARTIAL))
    sharded(5, so["rope_v2_noatt"], *(SMALL + YARN))

    # --- sinusoidal
    SIN = ["--max-pos", "1023", "--d", "64", "--cases", "10", "--regressions", "off",
           "--family", "sinusoidal"]
    rc, out, err, _ = run(["check", "--plugin", so["good"], "--format", "json"] + SIN)
    doc = json.loads(out) if rc in (0, 1) else {}
    ok(rc == 0 and all(statuses(doc, c, dt, "sinusoidal") == ["pass", "pass"]
                       for c in ("accuracy", "padding") for dt in ("f16", "bf16")),
       "sinusoidal v2, f16 and bf16 rows at a padded stride: accuracy and padding pass", out + err)
    rc, out, err, _ = run(["check", "--plugin", so["rope_v2_stride"], "--format", "json"] + SIN)
    doc = json.loads(out) if rc in (0, 1) else {}
    r = get(doc, "padding", "half, f16", "sinusoidal") or {}
    ok(rc == 1 and r.get("status") == "fail" and "stride 67" in r.get("summary", "")
       and statuses(doc, "accuracy", "bf16", "sinusoidal") == ["fail", "fail"],
       "sinusoidal v2 rows taken as contiguous: padding and accuracy fail", r)
    sharded(4, so["good"], *SIN)
    sharded(3, so["rope_v2_stride"], *SIN)

    # --- argument structs that grow
    rc, doc, err = check(so["rope_v2_old"], *PARTIAL)
    ok(rc == 0 and statuses(doc, "accuracy", "f16") == ["pass", "pass"]
       and statuses(doc, "passthrough", "bf16") == ["pass", "pass"],
       "a plugin built against a smaller struct reads its prefix: passes", doc)
    rc, out, err, _ = run(["check", "--plugin", so["rope_v2_future"]] + SMALL + PARTIAL)
    ok(rc == 2 and "PECHECK_V2_ARGS_TOO_SMALL" in err and "nothing checked" in err
       and out == "",
       "a plugin needing a larger struct: skipped with the reason, exit 2", out + err)

    # --- version 1 keeps working
    rc, doc, err = check(so["v1"], "--max-pos", "1023", "--d", "64")
    r = get(doc, "accuracy", "interleaved") or {}
    ok(rc == 0 and r.get("status") == "pass", "a plugin built against the v1 header passes", doc)
    rc, out, err, _ = run(["check", "--plugin", so["v1"], "--family", "sinusoidal", "--max-pos",
                           "255", "--cases", "5", "--regressions", "off"])
    ok(rc == 0 and "FAIL" not in out, "the v1 plugin's sinusoidal family passes too", out + err)
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(done())

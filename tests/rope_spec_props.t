#!/usr/bin/python3
"""rope_spec_props.t: every RoPE property follows the encoding being
checked, and a failure under --hf-config can be replayed.

Builds two correct float32 YaRN kernels (tests/plugins/rope_yarn.c, HF's
_compute_yarn_parameters in float32; tests/plugins/rope_yarn_ggml.c,
llama.cpp's ggml rope_yarn with its cumulative product) and one that drops
the attention factor, and gates them with Qwen2.5's documented YaRN config
(tests/data/configs/Qwen--Qwen2.5-7B-Instruct-yarn.json), and the HF one
also with gpt-oss's (factor 32, attention factor 1.3466, not truncated):
  - the correct kernels pass every verdict (accuracy, fitted model, repeat,
    rope-relative, rope-norm, decay, extrapolation) over 400 cases: the
    properties' bounds are the schedule's own per-pair C_i and attention
    factor, their frequencies the schedule's, their width the rotary dim;
  - the broken kernel fails, each failing property prints a replay line
    that carries --hf-config, and running that line fails the same
    property with the same measured value;
  - its regression file lines carry the options of the run (options=);
  - with a rope_theta that %g would round (1000042.5), the replay line
    carries the base exactly and still reproduces (a rounded --base would
    contradict the config: exit 2);
  - a shrunk counterexample keeps the width of the schedule (d is not
    shrunk under a schedule: the parameters at another d are another
    encoding).
"""
import os
import re
import shlex
import shutil
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "lib"))
from pctest import ROOT, ok, run, done  # noqa: E402

CFG = os.path.join(ROOT, "tests", "data", "configs", "Qwen--Qwen2.5-7B-Instruct-yarn.json")
tmp = tempfile.mkdtemp(prefix="pecheck-spec-props-")


def build(name, out, *defs):
    cc = os.environ.get("CC", "cc")
    path = os.path.join(tmp, out + ".so")
    p = subprocess.run([cc, "-O1", "-shared", "-fPIC", "-I" + os.path.join(ROOT, "include")]
                       + list(defs) + [os.path.join(ROOT, "tests", "plugins", name + ".c"), "-o",
                                       path, "-lm"], stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    if p.returncode:
        print("# cannot build %s: %s" % (name, p.stdout.decode()))
    return path


def verdicts(text):
    """(status, check, layout) of each verdict line of the text output."""
    out = []
    for line in text.splitlines():
        f = line.split()
        if len(f) >= 4 and f[0] in ("PASS", "FAIL", "SKIP"):
            lay = f[4].strip("[]:") if len(f) > 4 and f[4].startswith("[") else ""
            out.append((f[0], f[3], lay))
    return out


def gate(plugin, cfg, *extra):
    return run(["check", "--plugin", plugin, "--hf-config", cfg, "--family", "rope"] + list(extra),
               timeout=600)


try:
    good = build("rope_yarn", "yarn")
    ggml = build("rope_yarn_ggml", "yarn_ggml")
    noatt = build("rope_yarn", "yarn_noatt", "-DBROKEN")
    oss = build("rope_yarn", "yarn_oss", "-DGPT_OSS")

    want = {"accuracy", "fitted-model", "repeat", "rope-relative", "rope-norm", "decay",
            "extrapolation"}
    OSS = os.path.join(ROOT, "tests", "data", "configs", "openai--gpt-oss-20b.json")
    for so, name, cfg in ((good, "HF's YaRN in float32", CFG), (ggml, "llama.cpp's ggml YaRN", CFG),
                          (oss, "gpt-oss's YaRN in float32", OSS)):
        rc, out, err, _ = gate(so, cfg, "--cases", "400", "--regressions", "off")
        vs = verdicts(out)
        ok(rc == 0 and {c for s, c, _ in vs} >= want and all(s == "PASS" for s, _, _ in vs),
           "%s under --hf-config passes every verdict (%s)" % (name, ", ".join(sorted(want))),
           out + err)

    reg = os.path.join(tmp, "regressions")
    rc, out, err, _ = gate(noatt, CFG, "--cases", "40", "--regressions", reg)
    failed = [c for s, c, _ in verdicts(out) if s == "FAIL"]
    ok(rc == 1 and "accuracy" in failed and "rope-norm" in failed,
       "the kernel without the attention factor fails accuracy and rope-norm", out + err)
    replays = [l.split("replay: ", 1)[1] for l in out.splitlines() if "replay: pecheck " in l]
    ok(replays and all("--hf-config " + CFG in r for r in replays),
       "every replay line of the failing run carries --hf-config (%d lines)" % len(replays), out)
    for line in replays:
        args = shlex.split(line)[1:]
        prop = args[args.index("--property") + 1]
        first = [l for l in out.splitlines() if l.startswith("FAIL") and " rope %s " % prop in l]
        rc2, out2, err2, _ = run(args + ["--regressions", "off"])
        again = [l for l in out2.splitlines() if l.startswith("FAIL") and " rope %s " % prop in l]
        ok(rc2 == 1 and first and again and first[0] == again[0],
           "the replay line of %s reproduces its failure" % prop,
           "%s\n%s\n%s%s" % (line, first, out2, err2))
        ok(" d = 128," in again[0] if again else False,
           "the %s counterexample keeps the schedule's width d = 128" % prop, again)
    lines = [l for l in open(reg) if l.startswith("property=")] if os.path.exists(reg) else []
    ok(lines and all(re.search(r" options=\S*--hf-config%20" + re.escape(CFG.replace(" ", "%20"))
                               + r"\S* impl=", l) for l in lines),
       "the regression file's %d lines carry the run's options" % len(lines), "".join(lines))

    odd = os.path.join(tmp, "odd.json")
    with open(CFG) as f, open(odd, "w") as g:
        g.write(f.read().replace('"rope_theta": 1000000.0', '"rope_theta": 1000042.5'))
    rc, out, err, _ = run(["check", "--plugin", noatt, "--hf-config", odd, "--family", "rope",
                           "--cases", "10", "--regressions", "off", "--property", "rope-norm"])
    line = [l.split("replay: ", 1)[1] for l in out.splitlines() if "replay: pecheck " in l]
    rc2, out2, err2, _ = run(shlex.split(line[0])[1:] + ["--regressions", "off"]) if line else (0, "", "", 0)
    # the config carries its base (the replay line writes no --base of its
    # own, so that the replayed verdict says where the base came from)
    ok(rc == 1 and line and "--hf-config %s " % odd in line[0] and "--base" not in line[0]
       and rc2 == 1 and "base 1000042.5," in out2,
       "the replay line carries rope_theta 1000042.5 exactly and reproduces (exit %d)" % rc2,
       "%s\n%s%s" % (line, out2, err2))
finally:
    shutil.rmtree(tmp, ignore_errors=True)

sys.exit(done())

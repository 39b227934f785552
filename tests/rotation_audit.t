#!/usr/bin/python3
"""rotation_audit.t: the independent set of check_rotation cases, in CI.

tests/audit_rotation/ holds 52 cases written by a reviewer who read the
libraries' code (torchtune, transformers, vLLM, Meta's llama, flash-attn;
libs.py cites file and commit of each) but not pecheck's, each with its
expected outcome and the words accepted as a right first cause, fixed
before pecheck was run on them (cases.py).  25 correct rotations (f32,
bf16, f16; Llama 2 and 3.1, Qwen2.5 YaRN, Qwen2-VL M-RoPE with (n, 3)
ids, Cohere, GPT-NeoX and Phi-2 partial rotary; three at positions
0..131071) and 27 bugs (pairing, direction, k not rotated, q and k
swapped, wrong slice, off by one, bf16/f16 cos/sin, positions or
inv_freq, a missing llama3 scaling or YaRN mscale, wrong M-RoPE
sections, Meta's conjugate).

For each: a correct case passes; a bug fails, and its first likely cause
(or, without one, the headline) holds one of its accepted words.  The
totals go out as TAP comments.  Without torch: a visible skip."""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(HERE)
try:
    import torch  # noqa: F401
    import numpy  # noqa: F401
except ImportError as e:
    print("1..0 # SKIP PyTorch or NumPy not available: %s" % e)
    sys.exit(0)

sys.path.insert(0, os.path.join(ROOT, "python"))
sys.path.insert(0, os.path.join(HERE, "audit_rotation"))
os.environ.setdefault("PECHECK", os.path.join(ROOT, "build", "pecheck"))
torch.set_num_threads(1)  # the cases' own work: one core, as the gate's calls take turns
import pecheck  # noqa: E402
from cases import CASES  # noqa: E402

n = fails = 0
passed = caught = right = 0


def ok(cond, name, diag=""):
    global n, fails
    n += 1
    print("%s %d - %s" % ("ok" if cond else "not ok", n, name))
    if not cond:
        fails += 1
        for line in str(diag).splitlines()[:12]:
            print("#   " + line)


for c in CASES:
    try:
        r = pecheck.check_rotation(c["fn"], form=c["form"], **c["kw"])
    except Exception as e:  # a bug may raise; a correct case must not
        ok(False, "%s (%s): %s" % (c["name"], c["kind"], c["src"]), "%s: %s" % (type(e).__name__, e))
        continue
    if c["kind"] == "correct":
        passed += r.passed
        ok(r.passed, "%s passes: %s" % (c["name"], c["src"]), r.report())
        continue
    cause = (r.likely_cause or str(r).splitlines()[0]).lower()
    hit = not r.passed and any(w.lower() in cause for w in c["causes"])
    caught += not r.passed
    right += hit
    ok(hit, "%s fails, its first cause naming one of %s: %s" % (c["name"], c["causes"], c["src"]),
       "passed" if r.passed else cause)

correct = sum(c["kind"] == "correct" for c in CASES)
bugs = len(CASES) - correct
print("# correct passing %d/%d; bugs caught %d/%d; right cause first %d/%d"
      % (passed, correct, caught, bugs, right, bugs))
print("1..%d" % n)
sys.exit(1 if fails else 0)

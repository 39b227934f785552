#!/usr/bin/python3
"""identify_unknown_args.t: the check_args of an UNKNOWN RoPE table are a
line check runs (exit 0 or 1, never 2).  Rows that turn too little to fit a
base (cos and sin swapped; one row repeated) were given '--base 0', which
check refuses (exit 2: '--base: must be > 1'); random angles '--base
0.0946'.  Now such a base is left out and check fits its own."""
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

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())

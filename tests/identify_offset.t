#!/usr/bin/python3
"""identify_offset.t: `pecheck identify` on a RoPE cache sliced from a
longer one and given without --pos-start: float32 rows of positions P..P+N-1
(numpy, as HF's cache: the angle binary32 t * inv_freq), base 10000, d 64.

The offset is read from the phases, unwrapped from the lowest frequency
(period 2 pi 10000^(62/64), 47124 positions).  An offset past half that
period was unwrapped from the wrong turn and said as a fact: at 30000,
'position offset: +29993.7' with an UNKNOWN whose check failed; at 100000,
'+2472.4'.  Now: FOUND with --pos-start P in check_args, and those pass
check; an offset said is never one that is not the rows' own.  And a float64
file's storage line names its float64 values (it said 'the file's type')."""
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

D = 64          # head dim: the lowest frequency's period is 47124 positions
N_ROWS = 1024   # rows of the slice
tmp = tempfile.mkdtemp(prefix="pecheck-identify-offset.")


def cache(p0):
    """HF's float32 cos/sin rows of positions p0..p0+N_ROWS-1, half layout."""
    inv = (1.0 / (10000.0 ** (np.arange(0, D, 2, dtype=np.float32) / np.float32(D))))
    inv = inv.astype(np.float32)
    t = np.arange(p0, p0 + N_ROWS, dtype=np.float32)
    f = np.outer(t, inv).astype(np.float32)
    e = np.concatenate([f, f], -1)
    return np.cos(e).astype(np.float32), np.sin(e).astype(np.float32)


for p0 in (1000, 30000, 100000):
    name = "base 10000 at %d" % p0
    cos, sin = cache(p0)
    cp, sp = "%s/cos%d.npy" % (tmp, p0), "%s/sin%d.npy" % (tmp, p0)
    np.save(cp, cos)
    np.save(sp, sin)
    rc, out, err, _ = run(["identify", "--table", cp, "--table-sin", sp, "--format", "json"])
    try:
        res = json.loads(out)["results"][0]
    except Exception as e:  # noqa: BLE001 - shown on failure
        res = {"error": "%s: %s%s" % (e, out[:800], err)}
    ok(rc == 0 and res.get("found") is True, "%s: FOUND" % name, json.dumps(res)[:1500])
    q = res.get("position_offset")
    ok(q is None or q == p0, "%s: an offset said is the rows' own (%r)" % (name, q))
    args = res.get("check_args") or []
    ok("--pos-start" in args and args[args.index("--pos-start") + 1] == str(p0),
       "%s: check_args name --pos-start %d" % (name, p0), " ".join(args))
    rc, out, err, _ = run(["check"] + args + ["--quiet", "--regressions", "off"])
    ok(rc == 0, "%s: its check_args pass check" % name, out[-1500:] + err)

# the storage line of a float64 file: its values are rounded to binary32 on
# reading (docs/python.md); it said 'f32 (the file's type)'
cos, sin = cache(0)
cp, sp = tmp + "/cos64.npy", tmp + "/sin64.npy"
np.save(cp, cos.astype(np.float64))
np.save(sp, sin.astype(np.float64))
rc, out, err, _ = run(["identify", "--table", cp, "--table-sin", sp])
line = [x for x in out.splitlines() if x.startswith("  storage:")]
ok(rc == 0 and line and "float64" in line[0] and "the file's type" not in line[0],
   "float64 file: the storage line says its float64 values, not 'the file's type'", out + err)

shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())

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
file's storage line names its float64 values (it said 'the file's type').

Short slices far from 0 (64 or 256 rows at 100000 .. 2^20): their turn
alone leaves the base to 3 or 4 digits (10026.6 for 10000 over 64 rows at
2^20, binary32 holding the angles to 0.06 rad there) and the unwrap could
end a few positions off (520186 for 520192: a later pair's step undoing an
earlier pair's match).  They were UNKNOWN with no offset; now FOUND at their
own offset, the base rounded where the gate holds it, a one-factor LongRoPE
reading named as linear scaling.  A control: a cache whose angles are 1e-4
too large has no schedule at any offset, and is not FOUND."""
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


def cache(p0, base=10000.0, d=D, rows=N_ROWS, factor=1.0, stretch=1.0):
    """HF's float32 cos/sin rows of positions p0..p0+rows-1, half layout
    (linear scaling: inv_freq / factor; STRETCH multiplies every angle)."""
    inv = (1.0 / (np.float32(base) ** (np.arange(0, d, 2, dtype=np.float32) / np.float32(d))))
    inv = (inv.astype(np.float32) / np.float32(factor)).astype(np.float32)
    t = np.arange(p0, p0 + rows, dtype=np.float32)
    f = (np.outer(t, inv) * np.float32(stretch)).astype(np.float32)
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

# short slices far from 0: (label, first position, base, d, rows, factor)
SHORT = [("Llama-2 256 rows at 520192", 520192, 10000.0, 128, 256, 1.0),
         ("base 500000, 64 rows at 100000", 100000, 500000.0, 128, 64, 1.0),
         ("base 10000, 64 rows at 2^20 - 64", 2**20 - 64, 10000.0, 128, 64, 1.0),
         ("linear x4, 256 rows at 520192", 520192, 10000.0, 128, 256, 4.0),
         # was FOUND as YaRN of factor 1.01 and original length 6e12 (the default schedule)
         ("base 1e6, 16 rows at 4596677", 4596677, 1e6, 128, 16, 1.0)]
for name, p0, base, d, rows, factor in SHORT:
    cos, sin = cache(p0, base, d, rows, factor)
    cp, sp = "%s/cs%d_%g.npy" % (tmp, p0, factor), "%s/ss%d_%g.npy" % (tmp, p0, factor)
    np.save(cp, cos)
    np.save(sp, sin)
    rc, out, err, _ = run(["identify", "--table", cp, "--table-sin", sp, "--format", "json"])
    try:
        res = json.loads(out)["results"][0]
    except Exception as e:  # noqa: BLE001 - shown on failure
        res = {"error": "%s: %s%s" % (e, out[:800], err)}
    sched = res.get("rope_type")
    ok(rc == 0 and res.get("found") is True and res.get("position_offset") == p0,
       "%s: FOUND at offset %d" % (name, p0), json.dumps(res)[:1500])
    want = "linear" if factor != 1 else "default"
    ok(sched == want, "%s: the schedule is %s (%r)" % (name, want, sched))
    args = res.get("check_args") or []
    rc, out, err, _ = run(["check"] + args + ["--quiet", "--regressions", "off"])
    ok(rc == 0 and "--pos-start" in args, "%s: its check_args pass check" % name,
       " ".join(args) + "\n" + out[-1500:] + err)

# the control: every angle 1e-4 too large (a wrong schedule at every offset)
cos, sin = cache(520192, 10000.0, 128, 256, 1.0, stretch=1.0001)
cp, sp = tmp + "/cwrong.npy", tmp + "/swrong.npy"
np.save(cp, cos)
np.save(sp, sin)
rc, out, err, _ = run(["identify", "--table", cp, "--table-sin", sp, "--format", "json"])
try:
    res = json.loads(out)["results"][0]
except Exception as e:  # noqa: BLE001 - shown on failure
    res = {"error": "%s: %s%s" % (e, out[:800], err)}
ok(rc == 1 and res.get("found") is False, "angles 1e-4 too large at 520192: not FOUND",
   json.dumps(res)[:1500])

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

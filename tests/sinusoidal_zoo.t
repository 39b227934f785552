#!/usr/bin/python3
"""sinusoidal_zoo.t: sinusoidal tables as the libraries compute them
(tests/lib/sin_tables.py: tensor2tensor's get_timing_signal_1d, fairseq's
SinusoidalPositionalEmbedding with its padding offset, Whisper's sinusoids,
Marian's _init_weight, diffusers' get_timestep_embedding with its flags,
ADM's timestep_embedding, the paper's interleaved table; PyTorch float32,
NumPy float64 for Marian).

- Each library's table: `pecheck identify` finds its formula (the
  denominator, the base, the layout and order, the first row's position),
  and `pecheck check` with identify's check_args passes; so does check
  with the library's --preset.  The worst err/bound per table is printed
  as a TAP comment.
- The wrong variants fail with a likely cause that names the difference
  (among them fairseq's weights sliced from the zeroed padding row, the
  tutorial's terms concatenated [sin | cos] under --preset vaswani, and the
  tutorial's buffer cast to bfloat16 and read back as float32, its
  positions made with dtype=torch.float16, and
  diffusers' timesteps rounded to float16 or bfloat16 before the
  embedding):
  the d/2 - 1 denominator checked as d/2 and the reverse, base 10100
  checked as 10000 (tensor2tensor's and the paper's table, the latter
  without options), fairseq's rows checked from position 0 or with
  padding_idx 2, the paper's rows from position 1 checked from 0,
  [cos | sin] checked as [sin | cos] and the reverse.
- Timestep embeddings (--timesteps T.npy, fractional float32 and int64
  timesteps): diffusers' get_timestep_embedding with each flag
  (flip_sin_to_cos, downscale_freq_shift 0, scale 2.5, max_period 5000)
  and ADM's timestep_embedding pass with their options; checked without
  the flag each fails with a likely cause naming it; `identify
  --timesteps` finds each one's shift, order, base and scale, and check
  with its check_args passes; a count of timesteps other than the rows is
  exit 2; a built-in's gate skips; the skipped pair-norm gives its own
  reason (the gate holds every pair to the unit circle).
- tensor2tensor's min_timescale (2, 1.5 from start_index 7, 0.5 with
  max_timescale 1e5): identify finds M and check passes with its
  check_args and with --preset t2t --min-timescale M; the table checked
  without M, or with another, fails naming min_timescale and the fix.
- Bad options: exit 2 naming the option (a min_timescale of 0, NaN, or not
  below the base).
Without torch: a visible skip."""
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
import sin_tables as S  # noqa: E402
from pctest import ok, run, done, check_json  # noqa: E402

tmp = tempfile.mkdtemp(prefix="pecheck-sinzoo.")
N, D = 256, 128


def path(name):
    return os.path.join(tmp, name + ".npy")


def save(name, t):
    np.save(path(name), t.numpy() if hasattr(t, "numpy") else t)


def write_tables():
    steps = torch.arange(N)
    save("t2t", S.t2t_timing_signal(N, D))
    save("t2t_d64", S.t2t_timing_signal(1024, 64))
    save("fairseq", S.fairseq_sinusoidal(N, D))
    save("whisper", S.whisper_sinusoids(N, D))
    save("marian", S.marian_sinusoidal(N, D))
    save("adm", S.adm_timestep(steps, D))
    save("diffusers", S.diffusers_timestep(steps, D))
    save("diffusers_flip", S.diffusers_timestep(steps, D, flip_sin_to_cos=True))
    save("diffusers_flip_shift0", S.diffusers_timestep(steps, D, flip_sin_to_cos=True,
                                                       downscale_freq_shift=0))
    save("vaswani", S.vaswani_interleaved(N, D))
    v = S.vaswani_interleaved(N, D)
    save("vaswani_cos_sin", torch.stack([v[:, 1::2], v[:, 0::2]], dim=2).reshape(N, D))
    # wrong variants
    save("t2t_base10100", S.t2t_timing_signal(N, D, max_timescale=1.01e4))
    save("fairseq_pad2", S.fairseq_sinusoidal(N, D, padding_idx=2))
    save("vaswani_base10100", S.vaswani_interleaved(N, D, base=10100.0))
    # timestep embeddings: fractional float32 timesteps, and int64 ones
    t = torch.rand(200, generator=torch.Generator().manual_seed(7)) * 1000.0
    save("ts", t)
    ti = torch.arange(0, 1000, 5)
    save("ts_int", ti)
    save("ts_short", t[:100])
    for name, kw in (("diffusers", {}), ("diffusers_flip", {"flip_sin_to_cos": True}),
                     ("diffusers_shift0", {"downscale_freq_shift": 0}),
                     ("diffusers_scale", {"scale": 2.5}),
                     ("diffusers_period5000", {"max_period": 5000})):
        save("ts_" + name, S.diffusers_timestep(t, D, **kw))
    save("ts_adm", S.adm_timestep(t, D))
    # the timesteps rounded before the embedding (timesteps.half(), .bfloat16())
    save("ts_diffusers_f16t", S.diffusers_timestep(t.half().float(), D))
    save("ts_diffusers_bf16t", S.diffusers_timestep(t.bfloat16().float(), D))
    save("ts_int_diffusers", S.diffusers_timestep(ti, D))
    save("vaswani_from1", S.vaswani_interleaved(N + 1, D)[1:])
    # fairseq's weights sliced from the zeroed padding row (one row early)
    save("fairseq_from_pad", S.fairseq_weights(2 + N, D, padding_idx=1)[1:1 + N])
    # the tutorial's terms concatenated, [sin | cos] (Marian's layout), and the
    # tutorial's buffer after model.to(torch.bfloat16), read back as float32
    save("vaswani_cat", torch.cat([v[:, 0::2], v[:, 1::2]], dim=1))
    save("vaswani_bf16", v.to(torch.bfloat16).float())
    # the tutorial with position = torch.arange(n, dtype=torch.float16): from 2048
    # on, neighbouring positions round to one (4096 rows)
    pos16 = torch.arange(4096, dtype=torch.float16).unsqueeze(1)
    div = torch.exp(torch.arange(0, D, 2, dtype=torch.float32) * (-math.log(10000.0) / D))
    pe16 = torch.zeros(4096, D)
    pe16[:, 0::2], pe16[:, 1::2] = torch.sin(pos16 * div), torch.cos(pos16 * div)
    save("vaswani_f16pos", pe16)
    # tensor2tensor's min_timescale (its code multiplies by it) and start_index
    save("t2t_min2", S.t2t_timing_signal(N, D, min_timescale=2.0))
    save("t2t_min1.5_from7", S.t2t_timing_signal(N, D, min_timescale=1.5, start_index=7))
    save("t2t_min0.5", S.t2t_timing_signal(N, 64, min_timescale=0.5, max_timescale=1.0e5))


def identify(name, *extra):
    rc, out, err, _ = run(["identify", "--family", "sinusoidal", "--table", path(name),
                           "--format", "json"] + list(extra))
    try:
        return rc, json.loads(out)["results"][0], err
    except Exception:  # noqa: BLE001 - shown on failure
        return rc, None, out + err


def accuracy(res):
    for v in res["results"] if res else []:
        if v["check"] == "accuracy":
            return v
    return None


def ratio(v):
    return v["measured"] / v["bound"] if v and v.get("bound") else float("nan")


def identified_passes(name, expect, preset_args):
    rc, r, why = identify(name)
    good = rc == 0 and r is not None and r["found"] and all(r.get(k) == x for k, x in expect.items())
    ok(good, "%s: identify finds %s" % (name, expect), why if r is None else json.dumps(r))
    if r is None:
        return
    for args in (r["check_args"], ["--family", "sinusoidal", "--table", path(name)] + preset_args):
        rc, res, why = check_json(args)
        v = accuracy(res)
        ok(rc == 0 and v is not None and v["status"] == "pass",
           "%s: check %s passes" % (name, " ".join(args[4:])),
           why if res is None else json.dumps(res)[:3000])
    if v:
        print("# %s: worst err/bound %.3g" % (name, ratio(v)))


def fails_naming(name, args, words):
    rc, res, why = check_json(["--family", "sinusoidal", "--table", path(name)] + args)
    v = accuracy(res)
    text = (v or {}).get("summary", "")
    ok(rc == 1 and v is not None and v["status"] == "fail" and all(w in text for w in words),
       "%s %s fails naming %s" % (name, " ".join(args), ", ".join(words)),
       why if res is None else text)


try:
    write_tables()
    d21 = {"found": True, "freq_shift": 1, "base": 10000, "layout": "half", "order": "sin-cos"}
    d2 = dict(d21, freq_shift=0)
    identified_passes("t2t", dict(d21, first_position=0), ["--preset", "t2t"])
    identified_passes("t2t_d64", dict(d21, d=64), ["--preset", "t2t"])
    identified_passes("fairseq", dict(d21, first_position=2),
                      ["--preset", "fairseq", "--pos-start", "2"])
    identified_passes("whisper", d21, ["--preset", "whisper"])
    identified_passes("marian", d2, ["--preset", "marian"])
    identified_passes("adm", dict(d2, order="cos-sin"), ["--preset", "adm"])
    identified_passes("diffusers", d21, ["--preset", "diffusers"])
    identified_passes("diffusers_flip", dict(d21, order="cos-sin"),
                      ["--preset", "diffusers", "--order", "cos-sin"])
    identified_passes("diffusers_flip_shift0", dict(d2, order="cos-sin"), ["--preset", "adm"])
    identified_passes("vaswani", dict(d2, layout="interleaved"), ["--preset", "vaswani"])
    identified_passes("vaswani_cos_sin", dict(d2, layout="interleaved", order="cos-sin"),
                      ["--order", "cos-sin", "--layout", "interleaved"])
    identified_passes("t2t_min2", dict(d21, min_timescale=2), ["--preset", "t2t",
                                                               "--min-timescale", "2"])
    identified_passes("t2t_min1.5_from7", dict(d21, min_timescale=1.5, first_position=7),
                      ["--preset", "t2t", "--min-timescale", "1.5", "--pos-start", "7"])
    identified_passes("t2t_min0.5", dict(d21, min_timescale=0.5, base=100000, d=64),
                      ["--preset", "t2t", "--min-timescale", "0.5", "--base", "100000"])
    rc, r, why = identify("t2t_min2")
    ok(r is not None and r["check_args"][4:] == ["--preset", "t2t", "--min-timescale", "2"],
       "tensor2tensor's min_timescale 2: identify says --preset t2t --min-timescale 2",
       json.dumps(r))
    rc, r, why = identify("fairseq")
    ok(r is not None and r["check_args"][4:] == ["--preset", "fairseq", "--pos-start", "2"],
       "fairseq's rows from padding_idx + 1: identify says --preset fairseq --pos-start 2",
       json.dumps(r))

    # ---- the wrong variants --------------------------------------------------------
    fails_naming("t2t", ["--layout", "half"], ["d/2 - 1 denominator, not d/2", "--preset t2t"])
    rc, res, why = check_json(["--family", "sinusoidal", "--table", path("t2t"), "--layout",
                               "half"])
    det = (accuracy(res) or {}).get("details", "")
    ok("likely cause: this table matches" in det and "likely cause: the pair" not in det
       and "the worst element alone suggests: the pair points the wrong way" in det,
       "t2t checked as d/2: one likely cause (the table's), the worst element's reading as "
       "its own", det)
    fails_naming("whisper", ["--preset", "marian"], ["d/2 - 1 denominator, not d/2"])
    fails_naming("marian", ["--preset", "t2t"], ["d/2 denominator, not d/2 - 1",
                                                 "--preset marian"])
    fails_naming("t2t_base10100", ["--preset", "t2t"], ["base 10100, not 10000", "--base 10100"])
    fails_naming("t2t_min2", ["--preset", "t2t"], ["min_timescale 2, not 1",
                                                   "--min-timescale 2"])
    fails_naming("t2t_min2", ["--preset", "t2t", "--min-timescale", "3"],
                 ["min_timescale 2, not 3", "--min-timescale 2"])
    fails_naming("t2t", ["--preset", "t2t", "--min-timescale", "2"],
                 ["min_timescale 1, not 2", "--preset t2t"])
    fails_naming("fairseq", ["--preset", "fairseq"], ["first row is position 2, not 0",
                                                      "--pos-start 2"])
    fails_naming("fairseq_pad2", ["--preset", "fairseq", "--pos-start", "2"],
                 ["first row is position 3, not 2", "--pos-start 3"])
    fails_naming("adm", ["--preset", "marian"], ["cos first ([cos | sin])", "--preset adm"])
    fails_naming("marian", ["--preset", "adm"], ["sin first ([sin | cos])", "--preset marian"])
    fails_naming("vaswani_base10100", [], ["base 10100, not 10000", "--base 10100"])
    fails_naming("vaswani_from1", [], ["first row is position 1, not 0", "--pos-start 1"])
    fails_naming("fairseq_from_pad", ["--preset", "fairseq", "--pos-start", "2"],
                 ["likely cause: row 0 is all zeros", "padding row", "positions 2.."])
    fails_naming("vaswani_cat", ["--preset", "vaswani"],
                 ["likely cause: this table matches", "the half layout", "--preset marian"])
    fails_naming("vaswani_bf16", [], ["likely cause: every value of the table is a bf16 value",
                                      "--dtype bf16"])
    fails_naming("vaswani_f16pos", [], ["likely cause: the positions are held in float16"])
    fails_naming("vaswani_cos_sin", ["--layout", "interleaved"],
                 ["cos first ((cos, sin) pairs)", "--order cos-sin"])

    # ---- timestep embeddings ------------------------------------------------------------
    def ts_check(name, steps, args):
        return check_json(["--family", "sinusoidal", "--table", path(name), "--timesteps",
                           path(steps)] + args)

    for name, steps, args in (("ts_diffusers", "ts", ["--preset", "diffusers"]),
                              ("ts_diffusers_flip", "ts", ["--preset", "diffusers", "--order",
                                                           "cos-sin"]),
                              ("ts_diffusers_shift0", "ts", ["--preset", "diffusers",
                                                             "--freq-shift", "0"]),
                              ("ts_diffusers_scale", "ts", ["--preset", "diffusers",
                                                            "--angle-scale", "2.5"]),
                              ("ts_diffusers_period5000", "ts", ["--preset", "diffusers",
                                                                 "--base", "5000"]),
                              ("ts_adm", "ts", ["--preset", "adm"]),
                              ("ts_int_diffusers", "ts_int", ["--preset", "diffusers"])):
        rc, res, why = ts_check(name, steps, args)
        v = accuracy(res)
        ok(rc == 0 and v is not None and v["status"] == "pass"
           and all(x["status"] != "fail" for x in res["results"]),
           "%s: check --timesteps %s %s passes" % (name, steps, " ".join(args)),
           why if res is None else json.dumps(res)[:3000])
        if v:
            print("# %s: worst err/bound %.3g" % (name, ratio(v)))
    # the skipped pair-norm says its own reason: the gate holds each pair to the unit circle
    rc, res, why = ts_check("ts_diffusers", "ts", ["--preset", "diffusers"])
    pn = [x for x in res["results"] if x["check"] == "pair-norm"] if res else []
    ok(len(pn) == 1 and pn[0]["status"] == "skip" and "unit circle" in pn[0]["summary"]
       and "consecutive" not in pn[0]["summary"],
       "ts_diffusers: the pair-norm skip says the gate holds each pair to the unit circle",
       why if res is None else json.dumps(pn))
    # identify with --timesteps: the formula, order and scale; its check_args pass
    for name, steps, expect in (
            ("ts_diffusers", "ts", {"freq_shift": 1, "order": "sin-cos", "angle_scale": 1}),
            ("ts_diffusers_flip", "ts", {"freq_shift": 1, "order": "cos-sin"}),
            ("ts_diffusers_shift0", "ts", {"freq_shift": 0, "order": "sin-cos"}),
            ("ts_diffusers_scale", "ts", {"angle_scale": 2.5}),
            ("ts_diffusers_period5000", "ts", {"base": 5000}),
            ("ts_adm", "ts", {"freq_shift": 0, "order": "cos-sin"}),
            ("ts_int_diffusers", "ts_int", {"freq_shift": 1, "order": "sin-cos"})):
        rc, r, why = identify(name, "--timesteps", path(steps))
        good = rc == 0 and r is not None and r["found"] and all(r.get(k) == x
                                                                for k, x in expect.items())
        ok(good, "%s: identify --timesteps finds %s" % (name, expect),
           why if r is None else json.dumps(r))
        if r is not None:
            rc, res, why = check_json(r["check_args"])
            v = accuracy(res)
            ok(rc == 0 and v is not None and v["status"] == "pass",
               "%s: check %s passes" % (name, " ".join(r["check_args"][4:])),
               why if res is None else json.dumps(res)[:3000])
    for name, args, words in (
            ("ts_diffusers_flip", ["--preset", "diffusers"],
             ["flip_sin_to_cos", "--order cos-sin"]),
            ("ts_diffusers_shift0", ["--preset", "diffusers"],
             ["downscale_freq_shift 0, not 1", "--freq-shift 0"]),
            ("ts_diffusers", ["--preset", "diffusers", "--freq-shift", "0"],
             ["downscale_freq_shift 1, not 0", "--freq-shift 1"]),
            ("ts_diffusers_period5000", ["--preset", "diffusers"],
             ["max period 5000, not 10000", "--base 5000"]),
            ("ts_diffusers_scale", ["--preset", "diffusers"],
             ["angle scale 2.5, not 1", "--angle-scale 2.5"]),
            ("ts_adm", ["--preset", "diffusers"], ["downscale_freq_shift 0, not 1",
                                                   "flip_sin_to_cos"]),
            ("ts_diffusers_f16t", ["--preset", "diffusers"],
             ["likely cause: the timesteps are rounded to f16", "timesteps.half()"]),
            ("ts_diffusers_bf16t", ["--preset", "diffusers"],
             ["likely cause: the timesteps are rounded to bf16"])):
        rc, res, why = ts_check(name, "ts", args)
        v = accuracy(res)
        text = (v or {}).get("summary", "")
        ok(rc == 1 and v is not None and v["status"] == "fail" and all(w in text for w in words),
           "%s %s fails naming %s" % (name, " ".join(args), ", ".join(words)),
           why if res is None else text)
    rc, out, err, _ = run(["check", "--family", "sinusoidal", "--table", path("ts_diffusers"),
                           "--timesteps", path("ts_short")])
    ok(rc == 2 and "--timesteps" in err and "100 timesteps" in err and out == "",
       "timesteps of another count than the rows: exit 2", out + err)
    rc, out, err, _ = run(["check", "--family", "sinusoidal", "--impl", "torch-exp",
                           "--timesteps", path("ts"), "--max-pos", "64"])
    ok(rc == 2 and "--timesteps name the rows of a table" in err,
       "--timesteps with a built-in: nothing checked, naming tables", out + err)

    # ---- bad options ------------------------------------------------------------------
    for args, word in ((["--preset", "bert"], "--preset"), (["--freq-shift", "2"], "--freq-shift"),
                       (["--order", "sin"], "--order"), (["--angle-scale", "-1"], "--angle-scale"),
                       (["--timesteps", path("t2t")], "--timesteps"),
                       (["--min-timescale", "0"], "--min-timescale"),
                       (["--min-timescale", "nan"], "--min-timescale"),
                       (["--min-timescale", "20000"], "--min-timescale")):
        rc, out, err, _ = run(["check", "--family", "sinusoidal", "--table", path("t2t")] + args)
        ok(rc == 2 and word in err and out == "", "%s: exit 2 naming %s" % (" ".join(args), word),
           out + err)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())

#!/usr/bin/python3
"""relative_tables.t: ALiBi and T5 tables as the libraries compute them
(tests/lib/relative_tables.py: BLOOM's build_alibi_tensor, MPT's gen_slopes
and build_alibi_bias, HF T5's _relative_position_bucket, in PyTorch).

- Each library's table: `pecheck identify` finds its parameters (ALiBi: the
  rule, the bias maximum and the computation; T5: bidirectional or causal,
  num_buckets, max_distance), and `pecheck check` with identify's
  check_args passes; the worst err/bound per table is printed as a TAP
  comment.
- The binary32 class: BLOOM's slopes (up to 7 ulps from exact at 112 heads)
  pass by default and fail --strict, which names the binary32 class.
- The wrong variants fail with a cause that names the difference: slopes in
  reverse order, the power-of-two rule at 40 and 112 heads (under both
  classes), the first 24 slopes of the 32-head rule, MPT's alibi_bias_max 16 checked with 8, a causal T5 table
  checked bidirectional, 64 buckets checked as 32, max distance 256 as 128.
- Mistakes in HF's T5 code that no parameters explain (the clamp missing,
  torch.round before .to(long), the relative position's sign swapped, in
  the encoder's and the decoder's tables): the likely cause names the
  mistake (every entry checked against HF's code with it).
- T5 slices of the last queries (HF's decode step, position_bias[:, :,
  -n:, :]; causal (1, 300), (4, 300), 64 buckets (1, 500), an encoder's
  (3, 200)): identify finds where the queries start and says --pos-start;
  read from query 0, or one position early, the check fails naming it.
- Baichuan's _gen_alibi_mask (H, n, n): the key line m j on and below the
  diagonal, -inf above (a causal mask folded in): identify finds it, check
  passes; a future key left unmasked fails naming the entry.
- BLOOM's tensor without the - 1 on cumsum(mask) (keys from 1): each head's
  row is m more on every key, which the softmax over the keys drops; it
  passes as the line m (j + 1), which its summary names.
- Configs: --alibi-config (n_head, n_heads, attn_config.alibi_bias_max)
  and --t5-config (relative_attention_num_buckets, ..._max_distance,
  is_decoder); a head count that contradicts the table is exit 2.  The
  same configs under --hf-config (read by every family with a config): a
  T5 decoder's passes HF's causal table, the encoder's fails it naming
  is_decoder, BLOOM's n_head is the slopes' heads; a RoPE model's config
  on a T5 or ALiBi table is exit 2 naming it.
- A table lists no SKIP for a property that calls a hook a table cannot
  have (t5_bucket, t5_bias, alibi_bias): text, JSON, TAP and JUnit alike;
  named with --property, it is exit 2 saying the hook is missing.
- Bad tables: exit 2 naming the file (wrong rank, a non-integer bucket
  table is a failure naming the entry).
Without torch: a visible skip."""
import json
import os
import shutil
import subprocess
import sys
import tempfile

here = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(here, "lib"))
try:
    import numpy as np
    import torch  # noqa: F401
except Exception as e:  # the reason, one line
    print("1..0 # SKIP PyTorch not available: %s" % str(e).splitlines()[0])
    sys.exit(0)
import relative_tables  # noqa: E402
from pctest import ok, run, done, check_json  # noqa: E402

tmp = tempfile.mkdtemp(prefix="pecheck-reltables.")


def path(name):
    return os.path.join(tmp, name + ".npy")


def identify(family, name, *extra):
    rc, out, err, _ = run(["identify", "--family", family, "--table", path(name), "--format",
                           "json"] + list(extra))
    try:
        return rc, json.loads(out)["results"][0], err
    except Exception:  # noqa: BLE001 - shown on failure
        return rc, None, out + err


def gate(res, name):
    for v in res["results"] if res else []:
        if v["check"] == name:
            return v
    return None


def worst(v):
    return v["measured"] / v["bound"] if v and v.get("bound") else float("nan")


def identified_passes(family, name, table_gate, expect, *extra):
    """identify NAME, then check with its check_args: both must pass."""
    rc, r, why = identify(family, name, *extra)
    good = rc == 0 and r is not None and r["found"] and all(r.get(k) == v for k, v in expect.items())
    ok(good, "%s: identify finds %s" % (name, expect), why if r is None else json.dumps(r)[:1500])
    if r is None:
        return None
    rc, res, why = check_json(r["check_args"])
    v = gate(res, table_gate)
    ok(rc == 0 and v is not None and v["status"] == "pass",
       "%s: check %s passes" % (name, " ".join(r["check_args"][2:])), why if res is None else
       json.dumps(v)[:1500])
    return v


def fails_naming(args, table_gate, words, name):
    rc, res, why = check_json(args)
    v = gate(res, table_gate)
    text = (v or {}).get("summary", "")
    ok(rc == 1 and v is not None and v["status"] == "fail" and all(w in text for w in words),
       "%s fails naming %s" % (name, ", ".join(words)), why if res is None else text)


try:
    relative_tables.write_all(tmp)

    # ---- ALiBi slopes ---------------------------------------------------------
    for lib, comp in (("bloom", "binary32-powers"), ("mpt", "binary32-reciprocal-pow")):
        for h in (16, 40, 112):
            v = identified_passes("alibi", "%s%d" % (lib, h), "alibi-table",
                                  {"heads": h, "rule": "paper", "alibi_bias_max": 8})
            if v:
                print("# %s slopes, %d heads: worst err/bound %.3g (binary32 class)"
                      % (lib, h, worst(v)))
    rc, r, why = identify("alibi", "bloom112")
    ok(r is not None and r["computation"] == "binary32-powers"
       and r["heads_bit_exact"]["binary32-powers"] >= 100,
       "bloom112: computed as binary32 powers of a rounded ratio (BLOOM)", json.dumps(r))
    rc, r, why = identify("alibi", "mpt112")
    ok(r is not None and r["heads_bit_exact"]["binary32-reciprocal-pow"] == 112,
       "mpt112: every head is MPT's 1/pow(2, m)", json.dumps(r))
    fails_naming(["--family", "alibi", "--table", path("bloom112"), "--strict"], "alibi-table",
                 ["BLOOM", "binary32 class", "not --strict"], "bloom112 under --strict")
    for h in (40, 112):
        for strict in ([], ["--strict"]):
            fails_naming(["--family", "alibi", "--table", path("reversed%d" % h)] + strict,
                         "alibi-table", ["reverse order"], "reversed%d %s" % (h, strict))
            fails_naming(["--family", "alibi", "--table", path("pow2rule%d" % h)] + strict,
                         "alibi-table", ["power-of-two rule", "interleaves"],
                         "pow2rule%d %s" % (h, strict))
    fails_naming(["--family", "alibi", "--table", path("mpt16max16")], "alibi-table",
                 ["alibi_bias_max 16, not 8"], "MPT alibi_bias_max 16 checked with 8")
    identified_passes("alibi", "mpt16max16", "alibi-table", {"alibi_bias_max": 16})
    fails_naming(["--family", "alibi", "--table", path("first24of32")], "alibi-table",
                 ["first 24 slopes of the rule for 32 heads", "rule for 16"],
                 "the first 24 slopes of a 32-head list")

    # ---- ALiBi biases -----------------------------------------------------------
    for name, form, extra in (("bloom_tensor40", "keys", []),
                              ("bloom_tensor40_bf16", "keys", ["--dtype", "bf16"]),
                              ("mpt_bias40", "keys", []), ("mpt_bias40_full", "full", []),
                              ("baichuan40", "keys", [])):
        v = identified_passes("alibi", name, "alibi-table", {"form": form, "found": True}, *extra)
        if v:
            print("# %s: worst err/bound %.3g" % (name, worst(v)))

    rc, res, why = check_json(["--family", "alibi", "--table", path("baichuan40")])
    v = gate(res, "alibi-table") or {}
    ok(rc == 0 and "Baichuan's _gen_alibi_mask" in v.get("summary", "")
       and (v.get("data") or {}).get("causal_mask") is True,
       "Baichuan's mask (H, n, n): the key line under a causal mask, read as such", why or v)
    fails_naming(["--family", "alibi", "--table", path("baichuan40_leak")], "alibi-table",
                 ["query 5, key 7", "-inf"], "Baichuan's mask with a future key left unmasked")

    # keys numbered from 1 (no - 1 on the cumsum): m more on every key of a head, which the
    # softmax over the keys drops; checked as the line m (j + 1) and said so
    rc, res, why = check_json(["--family", "alibi", "--table", path("bloom_tensor40_from1")])
    v = gate(res, "alibi-table") or {}
    ok(rc == 0 and v.get("status") == "pass" and "m (j + 1)" in v.get("summary", "")
       and "softmax drops" in v.get("summary", ""), "BLOOM's tensor with keys from 1: passes as "
       "the line m (j + 1), saying the constant is dropped by the softmax", why or v.get("summary"))

    # ---- configs ------------------------------------------------------------------
    cfg = os.path.join(tmp, "bloom.json")
    with open(cfg, "w") as f:
        json.dump({"n_head": 112, "model_type": "bloom"}, f)
    rc, out, err, _ = run(["check", "--family", "alibi", "--table", path("bloom40"),
                           "--alibi-config", cfg])
    ok(rc == 2 and "40 heads" in err and "112" in err, "a 40-head table with a 112-head config: "
       "exit 2", err)
    rc, out, err, _ = run(["check", "--family", "alibi", "--table", path("bloom112"),
                           "--alibi-config", cfg])
    ok(rc == 0, "BLOOM's n_head 112 with its table: passes", out + err)
    mcfg = os.path.join(tmp, "mpt.json")
    with open(mcfg, "w") as f:
        json.dump({"n_heads": 16, "attn_config": {"alibi": True, "alibi_bias_max": 16}}, f)
    rc, out, err, _ = run(["check", "--family", "alibi", "--table", path("mpt16max16"),
                           "--alibi-config", mcfg])
    ok(rc == 0, "MPT's attn_config.alibi_bias_max 16: passes", out + err)

    # ---- T5 buckets -------------------------------------------------------------------
    for name, expect in (("t5_bidir", {"bidirectional": True, "num_buckets": 32,
                                       "max_distance": 128}),
                         ("t5_causal", {"bidirectional": False, "num_buckets": 32,
                                        "max_distance": 128}),
                         ("t5_b64_d256", {"bidirectional": True, "num_buckets": 64,
                                          "max_distance": 256}),
                         ("t5_causal_i32", {"bidirectional": False, "num_buckets": 32}),
                         ("t5_decode1", {"bidirectional": False, "num_buckets": 32,
                                         "max_distance": 128, "first_query": 299}),
                         ("t5_decode4", {"bidirectional": False, "num_buckets": 32,
                                         "first_query": 296}),
                         ("t5_decode1_b64", {"bidirectional": False, "num_buckets": 64,
                                             "max_distance": 256, "first_query": 499}),
                         ("t5_enc_last3", {"bidirectional": True, "num_buckets": 32,
                                           "first_query": 197})):
        identified_passes("t5", name, "t5-table", expect)
    t5 = ["--family", "t5", "--table"]
    # the mistakes people make in HF's code, each named when no parameters explain the table
    for name, words in (("t5_no_clamp", ["not clamped", "torch.min"]),
                        ("t5_round", ["rounded to nearest", "truncates"]),
                        ("t5_swapped", ["sign is swapped", "bidirectional bucket"]),
                        ("t5_swapped_causal", ["sign is swapped", "causal bucket", "pass --causal"])):
        fails_naming(t5 + [path(name)], "t5-table", ["likely cause: "] + words, name)
    fails_naming(t5 + [path("t5_causal")], "t5-table", ["causal", "pass --causal"],
                 "a causal table checked bidirectional")
    fails_naming(t5 + [path("t5_bidir"), "--causal"], "t5-table", ["drop --causal"],
                 "a bidirectional table checked causal")
    fails_naming(t5 + [path("t5_b64_d256"), "--max-distance", "256"], "t5-table",
                 ["num_buckets 64", "the check used", "num_buckets 32"],
                 "64 buckets checked as 32")
    fails_naming(t5 + [path("t5_b64_d256"), "--num-buckets", "64"], "t5-table",
                 ["max_distance 256", "the check used", "max_distance 128"],
                 "max distance 256 checked as 128")
    fails_naming(t5 + [path("t5_decode1"), "--causal"], "t5-table",
                 ["queries from position 0", "pass --pos-start 299"],
                 "a decode step's (1, 300) slice read as query 0")
    fails_naming(t5 + [path("t5_decode4"), "--causal", "--pos-start", "295"], "t5-table",
                 ["queries from position 295", "pass --pos-start 296"],
                 "the last 4 queries read one position early")
    fails_naming(t5 + [path("t5_decode1"), "--causal", "--pos-start", "400"], "t5-table",
                 ["queries from position 400", "pass --pos-start 299"],
                 "a decode step's slice read as a query after every key")
    rc, res, why = check_json(t5 + [path("t5_bidir"), "--pos-start", "3"])
    text = (gate(res, "t5-table") or {}).get("summary", "")
    ok(rc == 1 and "its rows are queries 0..299: pass --pos-start 0" in text
       and "decode slice" not in text,
       "a table from query 0 read from 3: the cause names --pos-start 0, not a decode slice", text)
    rc, res, why = check_json(t5 + [path("t5_decode1"), "--causal", "--pos-start", "299",
                                    "--format", "json"])
    v = gate(res, "t5-table") or {}
    ok(rc == 0 and "queries from position 299" in v.get("summary", ""),
       "a decode step's slice with --pos-start 299: passes, saying where its queries start",
       why if res is None else v)
    tcfg = os.path.join(tmp, "t5.json")
    with open(tcfg, "w") as f:
        json.dump({"relative_attention_num_buckets": 64, "relative_attention_max_distance": 256,
                   "is_decoder": False}, f)
    rc, out, err, _ = run(["check"] + t5 + [path("t5_b64_d256"), "--t5-config", tcfg])
    ok(rc == 0, "--t5-config with 64 buckets, 256: passes", out + err)
    with open(tcfg, "w") as f:
        json.dump({"relative_attention_num_buckets": 32, "is_decoder": True}, f)
    rc, out, err, _ = run(["check"] + t5 + [path("t5_causal"), "--t5-config", tcfg])
    ok(rc == 0, "--t5-config is_decoder true: causal, max_distance defaults to 128", out + err)

    # ---- --hf-config: the model's config.json, read by each family that has one ----------
    dcfg = os.path.join(tmp, "t5-decoder.json")   # T5Config: no max_distance -> 128, no buckets -> 32
    with open(dcfg, "w") as f:
        json.dump({"model_type": "t5", "d_model": 512, "num_heads": 8, "is_decoder": True}, f)
    rc, out, err, _ = run(["check"] + t5 + [path("t5_causal"), "--hf-config", dcfg])
    ok(rc == 0 and "causal, num_buckets 32, max_distance 128" in out,
       "--hf-config of a T5 decoder (is_decoder true, T5Config's defaults): HF's causal table "
       "passes", out + err)
    ecfg = os.path.join(tmp, "t5-encoder.json")
    with open(ecfg, "w") as f:
        json.dump({"model_type": "t5", "relative_attention_num_buckets": 32,
                   "is_decoder": False}, f)
    fails_naming(t5 + [path("t5_causal"), "--hf-config", ecfg], "t5-table",
                 ["matches causal buckets", "the check used bidirectional",
                  "is_decoder false in --hf-config"], "the encoder's --hf-config on a causal table")
    lcfg = os.path.join(tmp, "llama.json")
    with open(lcfg, "w") as f:
        json.dump({"model_type": "llama", "rope_theta": 500000.0, "num_attention_heads": 32}, f)
    rc, out, err, _ = run(["check"] + t5 + [path("t5_causal"), "--hf-config", lcfg])
    ok(rc == 2 and "--hf-config %s: not a T5 model's config" % lcfg in err and out == "",
       "--hf-config of a RoPE model on a T5 table: exit 2 naming it", err)
    rc, out, err, _ = run(["check", "--family", "alibi", "--table", path("bloom40"),
                           "--hf-config", cfg])
    ok(rc == 2 and "40 heads" in err and "112" in err,
       "--hf-config of BLOOM (n_head 112) on a 40-head table: exit 2", err)
    rc, out, err, _ = run(["check", "--family", "alibi", "--table", path("bloom112"),
                           "--hf-config", cfg])
    ok(rc == 0 and "112 heads" in out, "--hf-config of BLOOM: n_head 112 is the slopes' heads, "
       "its table passes", out + err)
    rc, out, err, _ = run(["check", "--family", "alibi", "--table", path("mpt16max16"),
                           "--hf-config", mcfg])
    ok(rc == 0, "--hf-config of MPT: attn_config.alibi_bias_max 16 passes", out + err)
    fcfg = os.path.join(tmp, "falcon.json")
    with open(fcfg, "w") as f:
        json.dump({"model_type": "falcon", "alibi": False, "num_attention_heads": 16,
                   "rope_theta": 10000.0}, f)
    rc, out, err, _ = run(["check", "--family", "alibi", "--table", path("bloom16"),
                           "--hf-config", fcfg])
    ok(rc == 2 and "alibi is false" in err, "--hf-config of a RoPE Falcon on an ALiBi table: "
       "exit 2 naming alibi false", err)

    # ---- what a table cannot run is not listed ------------------------------------------
    # a table has no t5_bucket, t5_bias or alibi_bias hook: those properties
    # give no SKIP line, in every format alike
    for fam, name in (("t5", "t5_bidir"), ("alibi", "bloom16"), ("alibi", "bloom_tensor40"),
                      ("alibi", "mpt_bias40_full")):
        args = ["check", "--family", fam, "--table", path(name)]
        rc, out, err, _ = run(args)
        rcj, res, why = check_json(args[1:])
        _, tap, _, _ = run(args + ["--format", "tap"])
        _, junit, _, _ = run(args + ["--format", "junit"])
        n = len(res["results"]) if res else -1
        ok(rc == 0 and rcj == 0 and "SKIP" not in out and "hook" not in out + tap + junit
           and all(v["status"] != "skip" for v in res["results"])
           and ("1..%d" % n) in tap and ('tests="%d"' % n) in junit,
           "%s table %s: no SKIP line for a hook a table cannot have (%d checks in text, "
           "JSON, TAP and JUnit)" % (fam, name, n), out + err + tap + junit)

    # named with --property, the property that cannot run on a table says why (exit 2)
    rc, out, err, _ = run(["check", "--family", "t5", "--table", path("t5_bidir"), "--property",
                           "t5-exact"])
    ok(rc == 2 and "--property t5-exact on" in err and "no t5_bucket hook" in err and out == "",
       "--property t5-exact on a T5 table: exit 2 saying it has no t5_bucket hook", err)

    # ---- bad tables ---------------------------------------------------------------------
    np.save(path("rank2"), np.zeros((4, 3), dtype=np.float32))
    rc, out, err, _ = run(["check", "--family", "alibi", "--table", path("rank2")])
    ok(rc == 2 and "rank2.npy" in err and "(H,)" in err and out == "",
       "ALiBi table of rank 2: exit 2 naming the file and the shapes", err)
    frac = relative_tables.t5_buckets(20, 20).numpy().astype(np.float32)
    frac[3, 5] = 2.5
    np.save(path("t5_frac"), frac)
    rc, out, err, _ = run(["check"] + t5 + [path("t5_frac")])
    ok(rc == 1 and "query 3, key 5" in out and "2.5" in out,
       "a T5 table with a fractional entry fails naming it", out + err)
    # a NaN in an ALiBi or T5 table: identify is exit 2 naming the value and
    # where it is, as for a table of rows (before: ALiBi FOUND, T5 UNKNOWN)
    nan_alibi = relative_tables.mpt_alibi_bias(8, 64).numpy().copy()
    nan_alibi.reshape(-1)[100] = np.nan
    t5_nan = frac.copy()
    t5_nan[3, 5] = np.nan
    # (a float T5 table without --family is read as a table of rows: row 3 column 5)
    for fam, name, arr, at, at_rows in (
            ("alibi", "alibi_nan", nan_alibi, "[%s] = nan" % ", ".join(
                str(int(i)) for i in np.unravel_index(100, nan_alibi.shape)), None),
            ("t5", "t5_nan", t5_nan, "[3, 5] = nan", "row 3 (pos 3) column 5 = nan")):
        np.save(path(name), arr)
        for fam_opt in (["--family", fam], []):
            at = at_rows if at_rows and not fam_opt else at
            rc, out, err, _ = run(["identify"] + fam_opt + ["--table", path(name)])
            ok(rc == 2 and out == "" and len(err.strip().splitlines()) == 1
               and "cannot be identified: 1 NaN/Inf value" in err and at in err,
               "identify %s: a %s table holding a NaN is exit 2 naming %s" % (" ".join(fam_opt),
                                                                              fam, at), out + err)
    np.save(path("t5_rank3"), np.zeros((2, 3, 4), dtype=np.int64))
    rc, out, err, _ = run(["check"] + t5 + [path("t5_rank3")])
    ok(rc == 2 and "t5_rank3.npy" in err and "(queries, keys)" in err, "a T5 table of rank 3: "
       "exit 2", err)
finally:
    shutil.rmtree(tmp, ignore_errors=True)
sys.exit(done())
